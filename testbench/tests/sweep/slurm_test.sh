#!/usr/bin/env bash
# A 12-point sweep as a Slurm job array on a real single-node cluster (munge, slurmctld, slurmd
# from Debian, started and stopped here by testbench/scripts/slurm_single_node.sh), collected into
# a table equal to the same sweep run by the local executor. Exit 77 (ctest: skipped) only when
# Slurm is not installed or cannot start here.
# Usage: slurm_test.sh WSC SOURCE_DIR
set -euo pipefail
wsc=$1 src=$2
spec=$src/configs/sweeps/traffic_8x8.yaml
state=$(mktemp -d /tmp/wsc-slurm.XXXXXX)
tmp=$(mktemp -d /tmp/wsc-sweep.XXXXXX)
cleanup() {
  "$src/testbench/scripts/slurm_single_node.sh" stop "$state" > /dev/null 2>&1 || true
  rm -rf "$state" "$tmp"
}
trap cleanup EXIT
rc=0
conf=$("$src/testbench/scripts/slurm_single_node.sh" start "$state") || rc=$?
# CI installs Slurm and sets WSC_REQUIRE_SLURM=1: there a cluster that does not come up fails.
if [ "$rc" -ne 0 ] && [ "${WSC_REQUIRE_SLURM:-0}" = 1 ]; then
  echo "FAIL: WSC_REQUIRE_SLURM=1 but the single-node cluster did not start (exit $rc)"
  exit 1
fi
if [ "$rc" -eq 77 ]; then
  echo "SKIPPED: Slurm is not installed (apt-get install munge slurmctld slurmd slurm-client)"
  exit 77
fi
if [ "$rc" -ne 0 ]; then
  echo "SKIPPED: Slurm is installed but could not start on this host (see the log above)"
  exit 77
fi
export "${conf?}"
echo "cluster up: $conf"

"$wsc" sweep "$spec" --executor slurm --out "$tmp/slurm" -j 4 | tee "$tmp/submit.log"
grep -q "submitted job array" "$tmp/submit.log" || { echo "FAIL: nothing was submitted"; exit 1; }
job=$(cat "$tmp/slurm/slurm/last_job")
for i in $(seq 1 600); do
  [ -z "$(squeue -h -r -j "$job" 2>/dev/null)" ] && break
  [ "$i" -eq 600 ] && { echo "FAIL: job $job still queued after 300 s"; squeue; exit 1; }
  sleep 0.5
done
"$wsc" sweep "$spec" --out "$tmp/slurm" --status | tee "$tmp/status.log"
grep -q "ok 12, failed 0, running 0, to run 0" "$tmp/status.log" || {
  echo "FAIL: not every array task recorded its point"; cat "$tmp"/slurm/slurm/*.out; exit 1; }
"$wsc" sweep "$spec" --out "$tmp/slurm" --collect
"$wsc" sweep "$spec" --out "$tmp/local" -j 2 > "$tmp/local.log"

# The tables agree on every column but the ones that say where and how fast a point ran.
strip() {
  awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) drop[i] = ($i ~ /^(wall_s|max_rss_mb|host|executor)$/) }
           { line = ""; for (i = 1; i <= NF; i++) if (!drop[i]) line = line (line == "" ? "" : ",") $i; print line }' "$1"
}
strip "$tmp/slurm/results.csv" > "$tmp/a.csv"
strip "$tmp/local/results.csv" > "$tmp/b.csv"
diff "$tmp/a.csv" "$tmp/b.csv" || { echo "FAIL: the Slurm and local tables differ"; exit 1; }
[ "$(grep -c ',slurm,' "$tmp/slurm/results.csv")" -eq 12 ] || {
  echo "FAIL: not every row of the Slurm table ran under Slurm"; exit 1; }
[ "$(grep -c ',local,' "$tmp/local/results.csv")" -eq 12 ] || {
  echo "FAIL: not every row of the local table ran locally"; exit 1; }

# A search runs on the cluster unchanged: each generation is a job array the search waits for,
# and it evaluates the same points, in the same order, with the same results as locally.
search=$src/configs/sweeps/search_traffic_8x8.yaml
"$wsc" sweep "$search" --executor slurm --out "$tmp/search-slurm" -j 4 > "$tmp/ss.log"
"$wsc" sweep "$search" --out "$tmp/search-local" -j 2 > "$tmp/sl.log"
[ "$(grep -c "submitted job array" "$tmp/ss.log")" -ge 2 ] || {
  echo "FAIL: the search did not submit its generations"; cat "$tmp/ss.log"; exit 1; }
diff "$tmp/search-slurm/search.csv" "$tmp/search-local/search.csv" || {
  echo "FAIL: the search on Slurm differs from the local one"; exit 1; }
[ "$(tail -1 "$tmp/ss.log")" = "$(tail -1 "$tmp/sl.log")" ] || { echo "FAIL: another best"; exit 1; }
echo "slurm: job array $job ran 12 points; the table equals the local executor's;"
echo "  the search ran $(grep -c "submitted job array" "$tmp/ss.log") generations as job arrays, as locally"
