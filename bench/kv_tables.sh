#!/usr/bin/env bash
# The tables of docs/results/waferllm_kv_cache.md, from `wsc kernel attention` runs (timing-only).
# Usage: bench/kv_tables.sh [WSC] (default build/testbench/wsc), from the repository root.
set -euo pipefail
W=${1:-build/testbench/wsc}
cfg=configs/wse2_kernels.yaml
run() { "$W" kernel attention --config "$cfg" --timing-only "$@" 2>&1; }
field() { grep -E "^  cycles" | awk '{print $2}'; }

echo "### KV bytes per core and decode-step cycles against the cache's length"
echo
echo "64 x 8 cores (one LLaMA3-8B KV head: D = 128 over 8 columns, 4 query heads), 512-token"
echo "prompt; SRAM raised to 4 MB (--set 'core.sram.capacity=4 MB') so that concat runs at all."
echo
echo "| tokens in cache | concat: last row's K+V B | shift: fullest row's K+V B | concat cycles | shift cycles | concat / shift |"
echo "|---:|---:|---:|---:|---:|---:|"
for total in 1024 2048 4096 8192 16384; do
    g=$((total - 512 - 1))
    rc=$(run --algo concat --mesh 64x8 --shape 128 --q-heads 4 --prompt 512 --generated $g --set 'core.sram.capacity=4 MB')
    rs=$(run --algo shift --mesh 64x8 --shape 128 --q-heads 4 --prompt 512 --generated $g --set 'core.sram.capacity=4 MB')
    kc=$(grep -o "([0-9]* B of K and V per core at most)" <<<"$rc" | tr -d '(' | awk '{print $1}')
    ks=$(grep -o "([0-9]* B of K and V per core at most)" <<<"$rs" | tr -d '(' | awk '{print $1}')
    cc=$(field <<<"$rc"); cs=$(field <<<"$rs")
    echo "| $total | $kc | $ks | $cc | $cs | $(awk -v a="$cc" -v b="$cs" 'BEGIN {printf "%.1f", a / b}') |"
done
echo
echo "### Tokens decodable in 48 KB cores (the config's SRAM)"
echo
echo "| block (rows x cols) | query heads | prompt | a row holds (at least) | concat decodes | shift decodes | shift / concat |"
echo "|---|---:|---:|---:|---:|---:|---:|"
for mesh in 64x8 360x8; do
    for g in 4 1; do
        for prompt in 512 2048; do
            n=$(run --algo shift --mesh $mesh --shape 128 --q-heads $g --prompt $prompt | head -1)
            if grep -q "a row holds" <<<"$n"; then
                set -- $(grep -o "a row holds at least [0-9]* tokens.*concat decodes at least [0-9]* tokens and shift [0-9]*" <<<"$n" | awk '{print $6, $(NF-4), $NF}')
                echo "| $mesh | $g | $prompt | $1 | $2 | $3 | $(awk -v a="$3" -v b="$2" 'BEGIN {if (b > 0) printf "%.0f", a / b; else print "-"}') |"
            else
                echo "| $mesh | $g | $prompt | $(grep -o 'error: .*' <<<"$n" | cut -c1-80) | | | |"
            fi
        done
    done
done
