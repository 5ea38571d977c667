#!/usr/bin/env bash
# Runs every table of docs/results/waferllm_kernels.md (WaferLLM kernels on the WSE-2-like core
# mesh, configs/wse2_kernels.yaml, timing-only) and writes each to OUTDIR/<name>.md, with the
# command and its wall time in OUTDIR/commands.md. The page pastes the tables from there.
# Usage: bench/kernel_tables.sh [path/to/wsc] [OUTDIR]    (one simulation at a time; the P = 256 rows take minutes each)
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
# "Scaling P at communication-bound shapes (WaferLLM Fig. 9)": a t x t tile per core (shape t P),
# so one run per P; from P = 128 one algorithm per run (allgather skipped). The page's tables are
# the rows of these files put together; its 256^3 table over P = 8..256 takes gemm_256 with the
# t = 2, P = 128 and t = 1, P = 256 rows.
run gemm_t1_p8 gemm --compare --mesh 8 --shape 8
run gemm_t1_p16 gemm --compare --mesh 16 --shape 16
run gemm_t1_p32 gemm --compare --mesh 32 --shape 32
run gemm_t1_p64 gemm --compare --mesh 64 --shape 64
run gemm_t2_p8 gemm --compare --mesh 8 --shape 16
run gemm_t2_p16 gemm --compare --mesh 16 --shape 32
run gemm_t2_p32 gemm --compare --mesh 32 --shape 64
run gemm_t2_p64 gemm --compare --mesh 64 --shape 128
run gemm_t1_p128_meshgemm gemm --algo meshgemm --mesh 128 --shape 128
run gemm_t1_p128_cannon gemm --algo cannon --mesh 128 --shape 128
run gemm_t1_p128_summa gemm --algo summa --mesh 128 --shape 128
run gemm_t2_p128_meshgemm gemm --algo meshgemm --mesh 128 --shape 256
run gemm_t2_p128_cannon gemm --algo cannon --mesh 128 --shape 256
run gemm_t2_p128_summa gemm --algo summa --mesh 128 --shape 256
run gemm_t1_p256_meshgemm gemm --algo meshgemm --mesh 256 --shape 256
run gemm_t1_p256_cannon gemm --algo cannon --mesh 256 --shape 256
run gemm_t1_p256_summa gemm --algo summa --mesh 256 --shape 256
# The same kernels with no receive buffer (configs/wse2_kernels.yaml plus `rx_buffer: 0 B` under
# `core:`): early tiles wait in the network instead of SRAM. Cannon at t = 2, P = 16 deadlocks.
sed 's/^core:$/core:\n  rx_buffer: 0 B/' "$CFG" > "$OUT/wse2_kernels_rx0.yaml"
CFG=$OUT/wse2_kernels_rx0.yaml run rx0_t1_p64_meshgemm gemm --algo meshgemm --mesh 64 --shape 64
CFG=$OUT/wse2_kernels_rx0.yaml run rx0_t1_p64_cannon gemm --algo cannon --mesh 64 --shape 64
CFG=$OUT/wse2_kernels_rx0.yaml run rx0_t2_p16_cannon gemm --algo cannon --mesh 16 --shape 32
echo "wrote $OUT"
