#!/usr/bin/env bash
# llm_search.sh WSC SRC OUT: `wsc llm search` on the tiny 8-layer model over 2 x 2 dies. The
# pre-screen drops the combinations whose memory does not fit (8 of 36, their ledgers say so),
# the GA evaluates part of the grid as simulated runs, the best it prints is the least step time
# among the points it ran, and a rerun reads every point from the folder instead of running it.
# Then a placement that cannot run a combination is excluded with it, not the combination.
set -u
wsc=$1; src=$2; out=$3
rm -rf "$out"
args=(llm search --model "$src/tests/llm/tiny-dense-8l.json" --hw "$src/tests/llm/hw_offload_2x2.yaml"
      --batch 24 --seq 64 --micro-batches 4,8 --population 4 --generations 3 -j 2 --out "$out")
log=$("$wsc" "${args[@]}" 2>&1) || { echo "search failed"; echo "$log"; exit 1; }
grep -q 'pre-screen (memory ledger of every plan, micro-batches, recompute, offload): 28 of 36 fit' <<<"$log" \
    || { echo "pre-screen count"; echo "$log"; exit 1; }
grep -q 'tp=4           mb=4    none     offload=false does not fit: die 0 needs 4.4 MB' <<<"$log" \
    || { echo "pre-screen reason"; echo "$log"; exit 1; }
best=$(grep -o 'best of [0-9]* points evaluated ([0-9.]*% of the grid): step_s = [0-9.e+-]*' <<<"$log" | awk '{print $NF}')
[ -n "$best" ] || { echo "no best line"; echo "$log"; exit 1; }
# step_s is the 11th field of search.csv once the quoted plan (one comma inside) is joined.
least=$(tail -n +2 "$out/search.csv" | sed 's/"[^"]*"/PLAN/' | awk -F, 'NR == 1 || $11 < m {m = $11} END {print m}')
awk -v a="$best" -v b="$least" 'BEGIN {exit !(a == b)}' || { echo "best $best is not the least $least"; exit 1; }
# No excluded combination ran: mb=4 with recompute none needs more than the dies hold.
if sed 's/"[^"]*"/PLAN/' "$out/search.csv" | awk -F, '$6 == 4 && $7 == "none"' | grep -q .; then
    echo "an excluded point ran"; exit 1
fi
again=$("$wsc" "${args[@]}" 2>&1) || { echo "rerun failed"; echo "$again"; exit 1; }
if grep -E 'ga generation [0-9]+: [0-9]+ points \([0-9]+ new, [1-9][0-9]* run\)' <<<"$again"; then
    echo "the rerun ran points again"; exit 1
fi
# A placement that cannot run a combination is excluded with it, and the combination stays for
# the others: on a 1 x 4 column of dies a tp=4 ring needs a 2 x 2 block, so ring is refused and
# snake (one column) fits.
col="$out/col"
mkdir -p "$col"
sed 's/dies: {x: 2, y: 2}/dies: {x: 1, y: 4}/' "$src/tests/llm/hw_offload_2x2.yaml" > "$col/hw.yaml"
grep -q 'x: 1, y: 4' "$col/hw.yaml" || { echo "1 x 4 config not made"; exit 1; }
colargs=(llm search --model "$src/tests/llm/tiny-dense-8l.json" --hw "$col/hw.yaml" --batch 24
         --seq 64 --plans "tp=4" --micro-batches 8 --recompute gcmr --offload false
         --placement ring,snake --prescreen-only --out "$col/search")
clog=$("$wsc" "${colargs[@]}" 2>&1) || { echo "1 x 4 pre-screen failed"; echo "$clog"; exit 1; }
grep -q 'offload): 1 of 1 fit' <<<"$clog" || { echo "1 x 4 count"; echo "$clog"; exit 1; }
grep -q '^    placement ring: no block of 4 dies .*tiles the 1 x 4 die array' <<<"$clog" \
    || { echo "ring not refused"; echo "$clog"; exit 1; }
grep -q 'placement: "ring"' "$col/search/search.yaml" \
    || { echo "ring not excluded"; cat "$col/search/search.yaml"; exit 1; }
if grep -q 'placement: "snake"' "$col/search/search.yaml"; then
    echo "snake excluded"; cat "$col/search/search.yaml"; exit 1
fi
echo "ok: best step $best of $(($(wc -l < "$out/search.csv") - 1)) evaluations"
