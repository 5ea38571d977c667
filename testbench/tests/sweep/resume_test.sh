#!/usr/bin/env bash
# Resume: a local sweep killed halfway (SIGKILL, as a crash or a pre-empted job) leaves no orphan
# runs; run again, it runs only the missing points and leaves the finished ones untouched.
# Usage: resume_test.sh WSC SOURCE_DIR
set -euo pipefail
wsc=$1 src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/spec.yaml" <<YAML
sweep:
  name: resume
  base: $src/configs/mesh8x8.yaml
  command: [traffic, "{base}", --warmup, 200, --measure, 15000, --drain, 3000]
  axes:
    - option: --rate
      values: [0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35, 0.4]
  metrics:
    latency: traffic.latency_avg_cycles
YAML
out=$tmp/out
"$wsc" sweep "$tmp/spec.yaml" --out "$out" -j 1 > "$tmp/first.log" 2>&1 &
pid=$!
# Wait for three points to finish, then kill the sweep outright.
for _ in $(seq 1 600); do
  n=$( (find "$out/points" -name status.json 2>/dev/null || true) | wc -l)
  [ "$n" -ge 3 ] && break
  kill -0 $pid 2>/dev/null || { echo "FAIL: the sweep ended before it could be killed"; cat "$tmp/first.log"; exit 1; }
  sleep 0.05
done
kill -9 $pid
wait $pid 2>/dev/null || true
sleep 0.3
# The point that was running died with the sweep (PR_SET_PDEATHSIG): no orphan is left.
if pgrep -f -- "$out/points" > /dev/null; then
  echo "FAIL: an orphan point run survived the sweep"; pgrep -af -- "$out/points"; exit 1
fi
done_before=$(find "$out/points" -name status.json | sort)
n=$(echo "$done_before" | wc -l)
if [ "$n" -ge 8 ]; then echo "FAIL: all points finished before the kill"; exit 1; fi
md5_before=$(cat $done_before | md5sum)
"$wsc" sweep "$tmp/spec.yaml" --out "$out" --status | tee "$tmp/status.log"
grep -q "ok $n, failed 0, running 0, to run $((8 - n))" "$tmp/status.log" ||
  grep -q "ok $n, failed 0, running 1, to run $((7 - n))" "$tmp/status.log" || {
  echo "FAIL: --status does not show $n done"; exit 1; }
"$wsc" sweep "$tmp/spec.yaml" --out "$out" -j 2 | tee "$tmp/second.log"
grep -q "8 points, $n done, $((8 - n)) to run" "$tmp/second.log" || {
  echo "FAIL: the re-run does not plan exactly the $((8 - n)) missing points"; exit 1; }
ran=$(grep -c '^\[ *[0-9]*/[0-9]*\] ok' "$tmp/second.log")
[ "$ran" -eq $((8 - n)) ] || { echo "FAIL: the re-run ran $ran points, expected $((8 - n))"; exit 1; }
[ "$(cat $done_before | md5sum)" = "$md5_before" ] || {
  echo "FAIL: finished points were run again (their status.json changed)"; exit 1; }
rows=$(grep -c ',ok,0,' "$out/results.csv")
[ "$rows" -eq 8 ] || { echo "FAIL: results.csv has $rows ok rows, expected 8"; exit 1; }
# A third run has nothing to do.
"$wsc" sweep "$tmp/spec.yaml" --out "$out" | grep -q "8 points, 8 done, 0 to run" || {
  echo "FAIL: a finished sweep plans points again"; exit 1; }
echo "resume: killed after $n of 8 points; the re-run ran the other $((8 - n)) only"
