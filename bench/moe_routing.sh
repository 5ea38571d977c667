#!/usr/bin/env bash
# Regenerates the tables of docs/results/moentwine_routing.md: MoE prefill steps under skewed and
# traced expert routing and the balancers (wsc llm infer --gating/--balancer), every layer
# simulated (--full). Usage: bench/moe_routing.sh [build/testbench/wsc] > table.md
set -euo pipefail
WSC=${1:-build/testbench/wsc}
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
ex = p["exposed_cycles"]
m = re.search(r"max (\d+) / mean ([\d.]+) \(([\d.]+)x\), worst layer ([\d.]+)x", r.get("routing", ""))
rows = f"{m.group(3)} / {m.group(4)}" if m else "1.00 / 1.00"
b = re.search(r"predicted peak die load ([\d.]+)x -> ([\d.]+)x", r.get("routing", ""))
pred = f"{b.group(1)} -> {b.group(2)}" if b else ""
k = lambda n: ex.get(n, 0.0) / 1e3
print(f"| {label} | {p['seconds']*1e3:.2f} | {rows} | {pred} | {k('ep dispatch'):.0f} | "
      f"{k('ep combine'):.0f} | {k('moe all-reduce'):.0f} | {k('tp all-reduce'):.0f} | "
      f"{wall:.0f} s / {rss // 1024} MB |")
PY
}
echo "| routing | prefill ms | rows max/mean: layer 0 / worst | balancer's predicted peak | dispatch | combine | moe AR | tp AR | wall / RSS |"
echo "|---|---|---|---|---|---|---|---|---|"
Q="--model configs/models/qwen3-235b-a22b.json --hw configs/moentwine_4x4_b200.yaml --plan dp=4,tp=4,ep=16 --prompt 256 --batch 4"
for map in er baseline; do
    row "$map: balanced (tokens x k / E)" $Q --mapping $map
    row "$map: uniform gating" $Q --mapping $map --gating uniform
    row "$map: zipf s=0.6" $Q --mapping $map --gating zipf --zipf-s 0.6
    row "$map: zipf s=1.0" $Q --mapping $map --gating zipf --zipf-s 1.0
done
for it in 1 2 3; do
    for bal in none greedy topo; do
        row "er: temporal, iteration $it, balancer $bal" $Q --mapping er --gating temporal \
            --hot-experts 16 --hot-probability 0.5 --iteration $it --balancer $bal
    done
done
# Eight times the tokens: 512 rows per expert on average, past the expert GEMMs' weight-bound
# regime (about 280 rows on this die).
Q8="--model configs/models/qwen3-235b-a22b.json --hw configs/moentwine_4x4_b200.yaml --plan dp=4,tp=4,ep=16 --prompt 2048 --batch 4"
row "er, 4 x 2048 tokens: balanced" $Q8 --mapping er
row "er, 4 x 2048 tokens: zipf s=1.0" $Q8 --mapping er --gating zipf --zipf-s 1.0
for bal in none greedy topo; do
    row "er, 4 x 2048 tokens: temporal, iteration 1, balancer $bal" $Q8 --mapping er \
        --gating temporal --hot-experts 16 --hot-probability 0.5 --iteration 1 --balancer $bal
done
rm -rf "$out"
