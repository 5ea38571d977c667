#!/usr/bin/env bash
# Runs every table of docs/results/waferllm_kernels.md (WaferLLM kernels on the WSE-2-like core
# mesh, configs/wse2_kernels.yaml, timing-only) and writes each to OUTDIR/<name>.md, with the
# command and its wall time in OUTDIR/commands.md. The page pastes the tables from there.
# Usage: bench/kernel_tables.sh [path/to/wsc] [OUTDIR]    (run it through /work/tools/locked)
set -euo pipefail
cd "$(dirname "$0")/.."
WSC=${1:-build/testbench/wsc}
OUT=${2:-/tmp/kernel_tables}
CFG=configs/wse2_kernels.yaml
mkdir -p "$OUT"
: > "$OUT/commands.md"
run() {  # name, then the arguments after `wsc kernel`
  local name=$1
  shift
  local t0 t1
  t0=$(date +%s.%N)
  "$WSC" kernel "$@" --timing-only --config "$CFG" --table "$OUT/$name.md" > /dev/null 2>&1 || true
  t1=$(date +%s.%N)
  printf '| %s | `wsc kernel %s --timing-only --config %s --table FILE` | %.0f |\n' \
    "$name" "$*" "$CFG" "$(echo "$t1 - $t0" | bc)" >> "$OUT/commands.md"
}
run gemm_256 gemm --compare --mesh 8,16,32,64 --shape 256
run gemm_128 gemm --compare --mesh 16,32,64 --shape 128
run gemm_t_256 gemm --algo meshgemm-t --mesh 8,16,32,64 --shape 256
run gemm_t_128 gemm --algo meshgemm-t --mesh 16,32,64 --shape 128
run gemm_192_pq gemm --compare --mesh 4x8,8x4,6x8,8x6,8x16,16x8,16x32 --shape 192
run gemv_512 gemv --compare --mesh 8,16,32,64 --shape 512
run gemv_4096 gemv --compare --mesh 8,16,32,64 --shape 4096
run gemv_512_pq gemv --compare --mesh 8x16,16x8,16x32,32x16,32x64,64x32 --shape 512
echo "wrote $OUT"
