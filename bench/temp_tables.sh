#!/usr/bin/env bash
# Runs every table of docs/results/temp_tatp.md (TEMP's TATP against the naive ring, and TCME on
# Fig. 11, on configs/temp_4x8_die_level.yaml, timing-only) and writes each to OUTDIR/<name>.md,
# with the command, its wall time and peak RSS in OUTDIR/commands.md (bench/temp.md).
# Usage: bench/temp_tables.sh [path/to/wsc] [OUTDIR]
set -euo pipefail
cd "$(dirname "$0")/.."
WSC=${1:-build/testbench/wsc}
OUT=${2:-/tmp/temp_tables}
CFG=configs/temp_4x8_die_level.yaml
mkdir -p "$OUT"
sed 's/    vcs: 4/    vcs: 16/' "$CFG" > "$OUT/vc16.yaml"
sed 's/^  routing: xy/  routing: xy\n  injection: interleave/' "$CFG" > "$OUT/interleave.yaml"
echo "| table | command | wall s | peak RSS MB |" > "$OUT/commands.md"
echo "|---|---|---|---|" >> "$OUT/commands.md"
run() {  # name, hardware file, then the arguments after `wsc tatp`
  local name=$1 hw=$2
  shift 2
  /usr/bin/time -f "%e %M" -o "$OUT/$name.time" \
    "$WSC" tatp --hw "$hw" "$@" --timing-only --table "$OUT/$name.md" > /dev/null
  read -r wall rss < "$OUT/$name.time"
  printf '| %s | `wsc tatp --hw %s %s --timing-only` | %s | %.1f |\n' \
    "$name" "$hw" "$*" "$wall" "$(echo "$rss / 1024" | bc -l)" >> "$OUT/commands.md"
}
SHAPE="--m 4096 --h 4096 --k 4096"
run a_ring "$CFG" --n 2,4,8,16,32 --layout ring --algo both $SHAPE --stages forward
run a_line "$CFG" --n 2,4,8 --layout line --algo both $SHAPE --stages forward
run b_line "$CFG" --n 4,8 --layout line --algo both --m 1024 --h 4096 --k 4096
run b_ring "$CFG" --n 4,8,16 --layout ring --algo both --m 1024 --h 4096 --k 4096
run c_f11 "$CFG" --n 4 --layout "0,2,10,8;1,3,11,9;4,6,14,12;5,7,15,13" --algo both --m 1024 --h 4096 --k 4096
for m in smap tcme; do
  run "f11_$m" "$CFG" --n 4 --layout "2,0,8,10;3,1,9,11;6,4,12,14;7,5,13,15" \
    --fsdp "5,4,0,1;7,6,2,3;13,12,8,9;15,14,10,11" --fsdp-elems 2097152 --mapping "$m" \
    --m 1024 --h 4096 --k 4096 --stages forward
done
run d_line "$CFG" --n 4,8 --layout line --algo both --m 256 --h 4096 --k 4096 --stages forward --stream weight
run d_ring "$CFG" --n 4,8 --layout ring --algo both --m 256 --h 4096 --k 4096 --stages forward --stream weight
run e_vc16 "$OUT/vc16.yaml" --n 4,8 --layout line --algo both --m 256 --h 4096 --k 4096 --stages forward --stream weight
run f_inter_line "$OUT/interleave.yaml" --n 4,8 --layout line --algo both --m 256 --h 4096 --k 4096 --stages forward --stream weight
run f_inter_ring "$OUT/interleave.yaml" --n 4,8 --layout ring --algo both --m 256 --h 4096 --k 4096 --stages forward --stream weight
