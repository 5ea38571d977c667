#!/usr/bin/env bash
# stats_check.sh WSC SRC OUT: every --stats writer's file holds only documented keys
# (`wsc stats check`, against testbench/StatsSchema.cpp), and the check does fail on an
# undocumented key.
set -u
wsc=$1; src=$2; out=$3
C=$src/../configs; T=$src/tests
rm -rf "$out"; mkdir -p "$out"; cd "$out" || exit 1
run() { local f=$1; shift; "$wsc" "$@" --stats "$f" > "$f.log" 2>&1 || { echo "failed: $*"; tail -5 "$f.log"; exit 1; }; }
run traffic.json traffic "$C/mesh8x8.yaml" --rate 0.1 --measure 200
run sweep.json traffic "$C/mesh8x8.yaml" --sweep --rates 0.1,0.2 --measure 100
run replay.json traffic "$C/mesh8x8.yaml" --trace-file "$C/traces/request_reply_8x8.trace"
run scenario.json run "$C/default.yaml"
run firmware.json run "$C/firmware_two_core.yaml"
run gemm.json run "$C/small_wafer_gemm.yaml"
run hbm.json run "$C/small_wafer_hbm.yaml"
run dma.json run "$C/hbm_stream.yaml"
run trace.json run "$C/trace_replay.yaml"
run meshgemm.json kernel gemm --algo meshgemm --mesh 4 --shape 8 --config "$C/wse2_kernels.yaml"
run meshgemv.json kernel gemv --mesh 4 --config "$C/wse2_kernels.yaml"
run attention.json kernel attention --mesh 4 --shape 8 --prompt 10 --config "$C/wse2_kernels.yaml"
run train.json llm train --model "$T/llm/tiny-dense-8l.json" --hw "$T/llm/hw_offload_2x2.yaml" --plan pp=4,mb=8 --batch 24 --seq 64 --recompute uniform
run offload.json llm train --model "$T/llm/tiny-dense-8l.json" --hw "$T/llm/hw_offload_2x2.yaml" --plan pp=4,mb=8 --batch 24 --seq 64 --offload --recompute gcmr
run tcme.json llm train --model "$T/llm/tiny-dense-8l.json" --hw "$T/llm/hw_offload_2x2.yaml" "--set=wafer.dies={x: 4, y: 2}" --set hbm.rows=8 --plan tp=2,tatp=4 --batch 8 --seq 64 --mapping tcme
run infer.json llm infer --model "$C/models/tiny-moe.json" --hw "$T/llm/hw_offload_2x2.yaml" --plan ep=4,dp=4 --batch 4 --prompt 64 --generate 2 --gating zipf
"$wsc" stats check ./*.json || exit 1
# The check fails on a key it does not know.
sed 's/"header"/"no_such_section": {"latency avg": 1}, "header"/' traffic.json > unknown.json.x
if "$wsc" stats check unknown.json.x > unknown.log 2>&1; then echo "an unknown key passed"; exit 1; fi
grep -q 'undocumented key no_such_section.latency avg' unknown.log || { cat unknown.log; exit 1; }
echo "ok: $(ls ./*.json | wc -l) files, every key documented"
