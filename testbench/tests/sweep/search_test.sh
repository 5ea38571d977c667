#!/usr/bin/env bash
# A genetic search and a dual-level search run as sweep points: each writes search.csv whose
# best matches the table, evaluates part of the grid, and a re-run (same seed) replays the
# search from the results folder without running a point.
# Usage: search_test.sh WSC SOURCE_DIR
set -euo pipefail
wsc=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
spec=$src/configs/sweeps/search_traffic_8x8.yaml
"$wsc" sweep "$spec" --out "$tmp/ga" -j 2 > "$tmp/ga.log"
grep -q "^best of [0-9]* points evaluated" "$tmp/ga.log" || { echo "FAIL: no best"; cat "$tmp/ga.log"; exit 1; }
n=$(sed -n 's/^best of \([0-9]*\) points.*/\1/p' "$tmp/ga.log")
[ "$n" -lt 96 ] || { echo "FAIL: the search evaluated the whole grid"; exit 1; }
[ "$(($(wc -l < "$tmp/ga/results.csv") - 1))" -eq "$n" ] || { echo "FAIL: results.csv rows != $n"; exit 1; }
# The best printed is the highest 'accepted' of the evaluated points.
best=$(sed -n 's/.*accepted = \([0-9.e+-]*\) at.*/\1/p' "$tmp/ga.log")
max=$(awk -F, 'NR > 1 && $8 != "" { if ($8 + 0 > m) m = $8 + 0 } END { printf "%.6g", m }' "$tmp/ga/search.csv")
[ "$best" = "$max" ] || { echo "FAIL: best $best is not the maximum $max of search.csv"; exit 1; }
# Resume: the same search again runs nothing and finds the same best.
"$wsc" sweep "$spec" --out "$tmp/ga" -j 2 > "$tmp/ga2.log"
if grep -q "run), best" "$tmp/ga2.log" && grep "run), best" "$tmp/ga2.log" | grep -vq " 0 run)"; then
  echo "FAIL: a re-run of a finished search ran points"; cat "$tmp/ga2.log"; exit 1
fi
[ "$(tail -1 "$tmp/ga.log")" = "$(tail -1 "$tmp/ga2.log")" ] || { echo "FAIL: the re-run found another best"; exit 1; }
# --status and --collect read the search's points from plan.json.
"$wsc" sweep "$spec" --out "$tmp/ga" --status | grep -q "ok $n, failed 0, running 0, to run 0" || {
  echo "FAIL: --status of a finished search"; exit 1; }

# Dual level: every outer combination, then a GA over the inner axis for the best two.
sed -e 's/name: search_traffic_8x8/name: dual/' \
    -e 's/search: {kind: ga,/search: {kind: dual-level, outer: [vc_buffer, packet-size], keep: 2,/' \
    -e "s|base: ../mesh8x8.yaml|base: $src/configs/mesh8x8.yaml|" "$spec" > "$tmp/dual.yaml"
"$wsc" sweep "$tmp/dual.yaml" --out "$tmp/dual" -j 2 > "$tmp/dual.log"
grep -q "outer level: 12 combinations of vc_buffer, packet-size (12 run)" "$tmp/dual.log" || {
  echo "FAIL: the outer level is not the 12 combinations"; cat "$tmp/dual.log"; exit 1; }
[ "$(grep -c '^  inner .* generation 0: [0-9]* points (' "$tmp/dual.log")" -eq 2 ] || {
  echo "FAIL: not two inner searches"; cat "$tmp/dual.log"; exit 1; }
[ "$(grep -c '^outer,' "$tmp/dual/search.csv")" -eq 12 ] || { echo "FAIL: search.csv outer rows"; exit 1; }
echo "search: GA evaluated $n of 96 points, best accepted $best; re-run ran nothing; dual level ok"
