#!/usr/bin/env bash
# The prefill tables of docs/results/waferllm_prefill.md: one prefill layer (`wsc kernel prefill`,
# timing-only, configs/wse2_256x256.yaml's core and NoC, SRAM raised to 1 MB) on P x P blocks
# whose per-core tiles are those of LLaMA3-8B and LLaMA2-13B on 256 x 256 cores (E / P, F / P and
# the prompt / P fixed while P grows), plus WaferLLM-720x720-like tiles. The model files are
# written to a scratch folder. About 8 minutes on the 2-core machine (the P = 32 rows dominate).
# Usage: bench/prefill_tables.sh [WSC] (default build/testbench/wsc), from the repository root.
set -euo pipefail
W=${1:-build/testbench/wsc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
model() {  # name hidden ffn heads layers
    cat >"$tmp/$1.json" <<JSON
{"architectures": ["LlamaForCausalLM"], "hidden_act": "silu", "hidden_size": $2,
 "intermediate_size": $3, "model_type": "llama", "max_position_embeddings": 65536,
 "num_attention_heads": $4, "num_hidden_layers": $5, "num_key_value_heads": $4,
 "vocab_size": 32000}
JSON
}
echo "| tiles (E/P, F/P, L/P) | P | hidden, ffn, prompt, heads | cycles per layer | cycles / P | efficiency | exposed comm | qkv | attention (per head) | scores | softmax | context | o | up | down | buffers B per core | word-hops | wall s |"
echo "|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
# heads: LLaMA3-8B's of 128 (E / 128: 8 columns each, as on 256 x 256 cores, so attention runs
# per head); LLaMA2-13B's 40 heads do not tile 256 columns and the 720-like tiles do not divide a
# head of 128, so those rows use 5 and 3 heads, which do not tile P either: WaferLLM's one product
# over the embedding, as those shapes get on their real meshes.
for spec in "16 56 8 32 8b" "16 56 16 32 8b" "20 54 8 40 5" "20 54 16 40 5" "6 20 6 32 3"; do
    read -r te tf tm layers heads <<<"$spec"
    for p in 8 16 32; do
        e=$((te * p)) f=$((tf * p)) l=$((tm * p))
        h=$heads
        [ "$heads" = 8b ] && h=$((e / 128))
        model "m$p" "$e" "$f" "$h" "$layers"
        out=$("$W" kernel prefill --model "$tmp/m$p.json" --mesh "$p" --prompt "$l" --timing-only \
            --config configs/wse2_256x256.yaml --set core.sram.capacity=1MB 2>&1)
        cyc=$(grep -E "^  cycles  " <<<"$out" | awk '{print $2}')
        eff=$(grep -E "compute efficiency" <<<"$out" | awk '{print $3}')
        comm=$(grep -E "exposed comm" <<<"$out" | grep -o "([0-9.]*% communication)" | tr -d '(' | awk '{print $1}')
        ph() { grep -E "cycles by operation" <<<"$out" | grep -o "$1 [0-9]* ([0-9.]*%)" | awk '{print $3}' | tr -d '()'; }
        buf=$(grep -o "([0-9]* in buffers" <<<"$out" | tr -d '(' | awk '{print $1}')
        bits=$(grep -E "noc links" <<<"$out" | awk '{print $6}')
        wall=$(grep -E "wall time" <<<"$out" | awk '{print $3}')
        echo "| $te, $tf, $tm | $p | $e, $f, $l, $h | $cyc | $((cyc / p)) | $eff | $comm | $(ph qkv) | $(ph attention) | $(ph scores) | $(ph softmax) | $(ph context) | $(ph o) | $(ph up) | $(ph down) | $buf | $(awk -v b="$bits" 'BEGIN {printf "%.3g", b / 32}') | $wall |"
    done
done
