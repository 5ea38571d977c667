#!/usr/bin/env bash
# Regenerates the "Expert migration" tables of docs/results/moentwine_routing.md: MoE prefill
# steps whose balancer's migrations are simulated (wsc llm infer --balancer topo|ni) against the
# same copies placed for free (--no-migration), every layer simulated (--full).
# Usage: bench/moe_migration.sh [build/testbench/wsc] [tokens per sequence ...] > table.md
set -euo pipefail
WSC=${1:-build/testbench/wsc}
shift || true
prompts=${*:-256 2048}
cd "$(dirname "$0")/.."
out=$(mktemp -d)
row() {  # label, then the wsc llm infer flags
    local label=$1; shift
    local t0=$(date +%s.%N)
    /usr/bin/time -f "%M" -o "$out/rss" "$WSC" llm infer --stats "$out/s.json" --full "$@" > "$out/log"
    local t1=$(date +%s.%N)
    python3 - "$label" "$out/s.json" "$(cat "$out/rss")" "$(echo "$t1 - $t0" | bc)" <<'PY'
import json, re, sys
label, path, rss, wall = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
r = json.load(open(path))["runs"][0]
p = r["phases"]["prefill"]
ex, comm = p["exposed_cycles"], p.get("comm_cycles", {})
hz = p["cycles"] / p["seconds"]
m = re.search(r"(\d+) migration\(s\)[^;]*?in (\d+) part", r.get("routing", ""))
n = re.search(r"(\d+) migration\(s\) installing", r.get("routing", ""))
moved = f"{m.group(1)} / {m.group(2)}" if m else (f"{n.group(1)} / {n.group(1)}" if n else "0")
us = lambda c: c / hz * 1e6
mig_ex = sum(v for k, v in ex.items() if k.startswith("expert migration"))
mig_run = sum(v for k, v in comm.items() if k.startswith("expert migration"))
print(f"| {label} | {p['seconds']*1e3:.3f} | {moved} | {us(mig_ex):.0f} | {us(mig_run):.0f} | "
      f"{us(ex.get('ep dispatch', 0)):.0f} | {us(ex.get('ep combine', 0)):.0f} | "
      f"{us(ex.get('moe all-reduce', 0)):.0f} | {us(ex.get('tp all-reduce', 0)):.0f} | "
      f"{wall:.0f} s / {rss // 1024} MB |")
PY
}
echo "| run | prefill ms | migrations / parts | migration exposed µs | migration stream µs (critical die) | dispatch µs | combine µs | moe AR µs | tp AR µs | wall / RSS |"
echo "|---|---|---|---|---|---|---|---|---|---|"
for prompt in $prompts; do
    Q="--model configs/models/qwen3-235b-a22b.json --hw configs/moentwine_4x4_b200.yaml --plan dp=4,tp=4,ep=16 --prompt $prompt --batch 4 --mapping er --gating temporal --hot-experts 16 --hot-probability 0.5 --iteration 1"
    row "4 x $prompt: balancer none" $Q
    for bal in topo ni; do
        row "4 x $prompt: $bal, migrations simulated" $Q --balancer $bal
        row "4 x $prompt: $bal, --no-migration" $Q --balancer $bal --no-migration
    done
done
rm -rf "$out"
