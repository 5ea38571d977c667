#!/usr/bin/env bash
# wsc's stage-accurate routers against BookSim2 on an 8x8 mesh, uniform single-flit traffic, XY
# (dimension-order) routing: the table of docs/results/noc_booksim.md.
#
#   bench/booksim_compare.sh WSC BOOKSIM [RATES]          # BOOKSIM: a built booksim binary
#   bench/booksim_compare.sh WSC --build DIR [RATES]      # clone BookSim2 into DIR and build it
#   SATURATION=1 bench/booksim_compare.sh WSC BOOKSIM      # also the saturation table
#
# --build clones $BOOKSIM_GIT (default https://github.com/booksim/booksim2) and runs make (needs
# g++, flex, bison). BookSim's code stays in DIR; nothing of it enters this repository. The tests
# do not depend on this script.
#
# Cases (BookSim parameter names; wsc router.preset):
#   A 4-stage, 2 VCs x 4 flits:   speculative 0, routing/vc_alloc/sw_alloc/st_final delay 1  <-> four_stage
#   B 2-stage, 2 VCs x 4 flits:   speculative 1, routing_delay 0 (lookahead), the rest 1      <-> lookahead
#   C, D: A and B with 4 VCs x 8 flits.
# Accounting: BookSim's packet latency counts the cycle a packet is created in as an injection
# cycle on top of the 1-cycle injection channel; wsc's counts the channel only. The table adds
# that one cycle to wsc's latencies (column "wsc + 1", what `wsc traffic --compat booksim` prints) and
# compares those; hops: BookSim counts
# routers (wsc's `routers_avg`). docs/NOC.md, "Definitions".
set -euo pipefail
wsc=$1; shift
if [ "$1" = "--build" ]; then
    dir=$2; shift 2
    if [ ! -x "$dir/src/booksim" ]; then
        git clone --depth 1 "${BOOKSIM_GIT:-https://github.com/booksim/booksim2}" "$dir"
        make -C "$dir/src" -j1
    fi
    booksim=$dir/src/booksim
else
    booksim=$1; shift
fi
rates=${1:-0.02 0.1 0.2 0.25 0.3 0.35}
root=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

bs_config() {  # name vcs buf speculative routing_delay
    cat > "$tmp/$1.cfg" <<CFG
topology = mesh; k = 8; n = 2; routing_function = dim_order; traffic = uniform;
packet_size = 1; sim_type = latency; warmup_periods = 3; sample_period = 1000; router = iq;
num_vcs = $2; vc_buf_size = $3; speculative = $4; routing_delay = $5;
vc_alloc_delay = 1; sw_alloc_delay = 1; st_prepare_delay = 0; st_final_delay = 1;
CFG
}
bs_run() {  # cfg rate -> "latency accepted" of the overall statistics, or "unstable"
    local out
    out=$("$booksim" "$tmp/$1.cfg" "injection_rate=$2" 2>&1 || true)
    # An unstable run (latency past BookSim's limit) ends without the overall statistics.
    awk '/Overall Traffic Statistics/ {o = 1}
         o && /Packet latency average/ {l = $5}
         o && /Accepted flit rate average/ {a = $6}
         END {if (l == "") print "unstable -"; else print l, a}' <<<"$out"
}
wsc_run() {  # preset vcs buf rate -> "latency accepted"
    "$wsc" traffic "$root/configs/mesh8x8.yaml" --rate "$4" --warmup 3000 --measure 20000 \
        --drain 20000 "--set=noc.router={preset: $1, vcs: $2, vc_buffer: $3 flits}" 2>&1 |
        awk '/packet latency/ {l = $4} /throughput/ {for (i = 1; i <= NF; ++i) if ($i == "accepted") a = $(i + 1)}
             END {sub(",", "", a); print l, a}'
}

echo "| case | rate | BookSim latency | wsc latency | wsc + 1 | difference | BookSim accepted | wsc accepted |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
while read -r name vcs buf spec rd preset; do
    bs_config "$name" "$vcs" "$buf" "$spec" "$rd"
    for r in $rates; do
        read -r bl ba < <(bs_run "$name" "$r")
        read -r wl wa < <(wsc_run "$preset" "$vcs" "$buf" "$r")
        if [ "$bl" = unstable ]; then
            echo "| $name ($preset, $vcs x $buf) | $r | unstable | $wl | | | - | $wa |"
            continue
        fi
        awk -v n="$name ($preset, $vcs x $buf)" -v r="$r" -v bl="$bl" -v wl="$wl" -v ba="$ba" -v wa="$wa" \
            'BEGIN {printf "| %s | %s | %.2f | %.2f | %.2f | %+.1f%% | %.4f | %.4f |\n", n, r, bl, wl, wl + 1, 100 * (wl + 1 - bl) / bl, ba, wa}'
    done
done <<CASES
A 2 4 0 1 four_stage
B 2 4 1 0 lookahead
C 4 8 0 1 four_stage
D 4 8 1 0 lookahead
CASES

[ "${SATURATION:-0}" = 1 ] || exit 0
# Saturation, one rule for both: the highest rate on a 0.01 grid whose packet latency stays under
# 3x the case's zero-load latency (BookSim's at 0.02; wsc + 1 compared with the same bound), over
# a long window (BookSim sample_period 10000, wsc 20000 measured cycles). A simulator that stops
# without statistics (BookSim's "unstable") is past it.
sat() {  # sim name start -> highest rate under the bound
    local sim=$1 name=$2 r=$3 best=none bound lat
    bound=$(awk -v z="$4" 'BEGIN {print 3 * z}')
    while :; do
        if [ "$sim" = booksim ]; then
            lat=$({ "$booksim" "$tmp/$name.cfg" "injection_rate=$r" sample_period=10000 2>&1 || true; } |
                awk '/Overall Traffic Statistics/ {o = 1} o && /Packet latency average/ {l = $5}
                     END {print (l == "" ? "unstable" : l)}')
        else
            # A wsc run that printed no latency counts as past saturation, not as 0 + 1.
            lat=$(wsc_run "$5" "$6" "$7" "$r" | awk '{print ($1 == "" ? "unstable" : $1 + 1)}')
        fi
        if [ "$lat" = unstable ] || awk -v l="$lat" -v b="$bound" 'BEGIN {exit !(l >= b)}'; then
            break
        fi
        best=$r
        r=$(awk -v r="$r" 'BEGIN {printf "%.2f", r + 0.01}')
        awk -v r="$r" 'BEGIN {exit !(r > 1)}' && break  # one flit per node per cycle at most
    done
    echo "$best"
}
echo
echo "| case | zero-load (BookSim) | bound | BookSim saturation | wsc saturation | difference |"
echo "|---|---:|---:|---:|---:|---:|"
while read -r name vcs buf spec rd preset start; do
    bs_config "$name" "$vcs" "$buf" "$spec" "$rd"
    read -r z _ < <(bs_run "$name" 0.02)
    b=$(sat booksim "$name" "$start" "$z")
    w=$(sat wsc "$name" "$start" "$z" "$preset" "$vcs" "$buf")
    awk -v n="$name ($preset, $vcs x $buf)" -v z="$z" -v b="$b" -v w="$w" \
        'BEGIN {d = (b == "none" || w == "none") ? "-" : sprintf("%+.1f%%", 100 * (w - b) / b)
                printf "| %s | %.2f | %.1f | %s | %s | %s |\n", n, z, 3 * z, b, w, d}'
done <<CASES
A 2 4 0 1 four_stage 0.22
B 2 4 1 0 lookahead 0.32
C 4 8 0 1 four_stage 0.36
D 4 8 1 0 lookahead 0.36
CASES
