# Issue 13 (input hardening): every reproducer of the issue runs through the CLI and must exit 2
# with a located message (file:line:col: key '...', or the flag), or run correctly where the input
# is valid. Each has a timeout: a hang is a failure. Included from testbench/CMakeLists.txt.
set(h13 ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli/issue13)
set(h13_mesh ${PROJECT_SOURCE_DIR}/configs/mesh8x8.yaml)
set(h13_kernel_cfg --config ${PROJECT_SOURCE_DIR}/configs/wse2_kernels.yaml)

# wsc_h13(NAME CODE REGEX ARGS...): `wsc ARGS` exits CODE and its output matches REGEX.
function(wsc_h13 name code regex)
  add_test(NAME "issue13: ${name}"
           COMMAND ${expect_fail} ${code} "${regex}" -- $<TARGET_FILE:wsc> ${ARGN})
  set_tests_properties("issue13: ${name}" PROPERTIES TIMEOUT 60)
endfunction()

# Integer wrap-around in configs.
wsc_h13("warm-up near 2^64 is refused at its key" 2
        "warmup_wraps.yaml:4:[0-9]+: key 'scenario.workload.warmup': expected a duration <= 1099511627776 cycles"
        run ${h13}/warmup_wraps.yaml)
wsc_h13("drain near 2^64 is refused at its key" 2
        "drain_wraps.yaml:4:[0-9]+: key 'scenario.workload.drain': expected a duration <= 1099511627776 cycles"
        run ${h13}/drain_wraps.yaml)
wsc_h13("a rate of 1e-300 runs and injects nothing" 0
        "throughput +offered 0.0000, accepted 0.0000"
        run ${h13}/tiny_rate.yaml)
wsc_h13("a D2D FEC latency past 2^20 cycles is refused at its key" 2
        "fec_latency_wraps.yaml:7:[0-9]+: key 'noc.d2d.fec_latency': expected a duration <= 1048576 cycles"
        validate ${h13}/fec_latency_wraps.yaml)
wsc_h13("a link width past 1 MB is refused at its key" 2
        "link_width_wraps.yaml:6:[0-9]+: key 'noc.link.width': expected a size <= 1 MB"
        validate ${h13}/link_width_wraps.yaml)
wsc_h13("a link latency past 2^20 cycles is refused at its key" 2
        "link_latency_wraps.yaml:7:[0-9]+: key 'noc.link.latency': expected a duration <= 1048576 cycles"
        validate ${h13}/link_latency_wraps.yaml)
wsc_h13("the longest link latency runs without a false deadlock" 0
        "SRAM equals the tensor in memory: yes"
        run ${h13}/long_link_runs.yaml)

# Hangs: clocks and memory rates outside their ranges.
wsc_h13("a 1 Hz NoC clock is refused at its key" 2
        "clock_1hz.yaml:7:[0-9]+: key 'scenario.hardware.noc.clock': expected a frequency between 1 MHz and 1000 GHz"
        run ${h13}/clock_1hz.yaml)
wsc_h13("a huge memory latency is refused at its key" 2
        "memory_latency_huge.yaml:13:[0-9]+: key 'scenario.hardware.core.memory.latency': expected a latency of at most 1048576 cycles"
        run ${h13}/memory_latency_huge.yaml)
wsc_h13("a memory bandwidth of 1 B/s is refused at its key" 2
        "memory_bandwidth_tiny.yaml:14:[0-9]+: key 'scenario.hardware.core.memory.bandwidth': expected a bandwidth between 1 MB/s and 1000 TB/s"
        run ${h13}/memory_bandwidth_tiny.yaml)

# Strict CLI numbers.
wsc_h13("--warmup -1 is refused" 2 "--warmup: expected an integer in \\[0, 1099511627776\\].*got '-1'"
        traffic ${h13_mesh} --warmup -1)
wsc_h13("--drain -1 is refused" 2 "--drain: expected an integer in \\[0, 1099511627776\\].*got '-1'"
        traffic ${h13_mesh} --drain -1)
wsc_h13("--seed -1 is refused" 2 "--seed: expected an integer >= 0.*got '-1'"
        traffic ${h13_mesh} --seed -1)
wsc_h13("--rate nan is refused" 2 "--rate: expected a number in \\(0, 1\\], got 'nan'"
        traffic ${h13_mesh} --rate nan)
wsc_h13("--rate inf is refused" 2 "--rate: expected a number in \\(0, 1\\], got 'inf'"
        traffic ${h13_mesh} --rate inf)
wsc_h13("--packet-size with trailing characters is refused" 2
        "--packet-size: expected an integer in \\[1, 65535\\].*got '4x'"
        traffic ${h13_mesh} --packet-size 4x)
wsc_h13("--trace 2^32 is refused, not router 0" 2
        "--trace: expected an integer in \\[0, 63\\].*got 4294967296"
        traffic ${h13_mesh} --vcd h13_trace.vcd --trace 4294967296)
wsc_h13("--pipelines 2^32+1 is refused, not depth 1" 2
        "--pipelines: expected an integer in \\[1, 4\\].*got 4294967297"
        traffic ${h13_mesh} --sweep --pipelines 4294967297)
wsc_h13("kernel --mesh 4x is refused" 2 "--mesh: expected a 'x'-separated list without empty elements, got '4x'"
        kernel gemm --mesh 4x --shape 8 ${h13_kernel_cfg})
wsc_h13("kernel --mesh 4, is refused" 2 "--mesh: expected a ','-separated list without empty elements, got '4,'"
        kernel gemm --mesh 4, --shape 8 ${h13_kernel_cfg})
wsc_h13("kernel --seed -1 is refused" 2 "--seed: expected an integer >= 0.*got '-1'"
        kernel gemm --mesh 2 --shape 8 ${h13_kernel_cfg} --seed -1)
wsc_h13("--perfetto-cores past the chip is refused" 2
        "--perfetto-cores: expected comma-separated core indices or ranges \\(0-15,32\\) below 4, got '99999'"
        run ${PROJECT_SOURCE_DIR}/configs/gemm_2x2.yaml --perfetto h13_p.json --perfetto-cores 99999)

# Checks a run makes, made by validate too (testbench/Preflight), located at their key.
wsc_h13("a route table over route_limit is located (exit 2, not 1)" 2
        "route_limit.yaml:7:[0-9]+: key 'noc.route_limit': routing: table routing needs more than 4 route entries"
        validate ${h13}/route_limit.yaml)
wsc_h13("a route table over the default route_limit points at the noc section" 2
        "route_limit_default.yaml:3:[0-9]+: key 'noc.route_limit': .*\\(not set: its default applies\\)"
        validate ${h13}/route_limit_default.yaml)
wsc_h13("faults that cut routers off are located (exit 2, not 1)" 2
        "fault_partition.yaml:7:[0-9]+: key 'noc.faults': faults: 1 routers are cut off"
        validate ${h13}/fault_partition.yaml)
wsc_h13("a traffic run refuses a partition before simulating" 2
        "fault_partition.yaml:7:[0-9]+: key 'noc.faults'"
        traffic ${h13}/fault_partition.yaml --measure 100)
wsc_h13("a watchdog shorter than a link round trip is located" 2
        "watchdog_short.yaml:7:[0-9]+: key 'noc.watchdog': watchdog of 10000 cycles is shorter"
        validate ${h13}/watchdog_short.yaml)
wsc_h13("validate refuses a pattern that needs a power-of-two mesh" 2
        "pattern_pow2.yaml:4:[0-9]+: key 'scenario.workload.pattern': traffic pattern 'bitrev' needs a power-of-two"
        validate ${h13}/pattern_pow2.yaml)
wsc_h13("run refuses a pattern that needs a power-of-two mesh at its key" 2
        "pattern_pow2.yaml:4:[0-9]+: key 'scenario.workload.pattern'"
        run ${h13}/pattern_pow2.yaml)
wsc_h13("a --pattern the mesh cannot run names the flag" 2
        "--pattern: traffic pattern 'shuffle' needs a power-of-two"
        traffic ${h13}/pattern_pow2.yaml --pattern shuffle)
wsc_h13("validate refuses a 1x1 dma_stream at its cores key" 2
        "dma_1x1.yaml:4:[0-9]+: key 'scenario.workload.cores': dma_stream: no core can stream"
        validate ${h13}/dma_1x1.yaml)
wsc_h13("run refuses a 1x1 dma_stream before simulating" 2
        "dma_1x1.yaml:4:[0-9]+: key 'scenario.workload.cores'"
        run ${h13}/dma_1x1.yaml)
wsc_h13("validate refuses GEMM tiles that overflow SRAM" 2
        "sram_overflow.yaml:4:[0-9]+: key 'scenario.workload': the GEMM's tiles do not fit a core's SRAM.*core.sram.capacity is 1024 B"
        validate ${h13}/sram_overflow.yaml)
wsc_h13("run refuses GEMM tiles that overflow SRAM before simulating" 2
        "sram_overflow.yaml:4:[0-9]+: key 'scenario.workload': the GEMM's tiles do not fit"
        run ${h13}/sram_overflow.yaml)
wsc_h13("a 2^40-byte GEMM tile is refused, not wrapped to 0 bytes" 2
        "gemm_buffer_2p40.yaml:4:[0-9]+: key 'scenario.workload': gemm: a 524288x524288x16 tile per core needs buffers of 274877906944 elements"
        validate ${h13}/gemm_buffer_2p40.yaml)
wsc_h13("a 65536-flit packet is refused at load time" 2
        "packet_65536.yaml:4:[0-9]+: key 'scenario.workload.packet_size': expected at most 65535 flits"
        validate ${h13}/packet_65536.yaml)
wsc_h13("traffic on a gemm scenario is refused instead of replacing its workload" 2
        "gemm_2x2.yaml: a gemm scenario; `wsc traffic` runs synthetic traffic"
        traffic ${PROJECT_SOURCE_DIR}/configs/gemm_2x2.yaml)

# Unbounded and non-regular inputs.
wsc_h13("validate /dev/zero is refused, not read forever" 2
        "/dev/zero: cannot read file: it is a character device"
        validate /dev/zero)
wsc_h13("validate of a directory is refused" 2 "cannot read file: it is a directory"
        validate ${h13})
add_test(NAME "issue13: validate of a FIFO is refused, not blocked on"
         COMMAND sh -c "rm -f h13_fifo && mkfifo h13_fifo && ${expect_fail} 2 'h13_fifo: cannot read file: it is a FIFO' -- $<TARGET_FILE:wsc> validate h13_fifo; rc=$?; rm -f h13_fifo; exit $rc")
set_tests_properties("issue13: validate of a FIFO is refused, not blocked on" PROPERTIES TIMEOUT 60)

# Found by the fuzz targets (testbench/fuzz/regressions/), through the CLI.
wsc_h13("malformed JSON on which yaml-cpp's LoadAll never returns is refused at once" 2
        "loadall_never_returns.json:[0-9]+:[0-9]+: expected a single YAML document"
        validate ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/regressions/model/loadall_never_returns.json)

# Outputs checked before simulating; flags a mode does not use are errors.
add_test(NAME "issue13: --stats equal to the input config is refused and the input kept"
         COMMAND sh -c "cp ${h13_mesh} h13_input.yaml && ${expect_fail} 2 \"--stats: 'h13_input.yaml' is an input of this run\" -- $<TARGET_FILE:wsc> traffic h13_input.yaml --measure 100 --stats h13_input.yaml && cmp -s h13_input.yaml ${h13_mesh}")
set_tests_properties("issue13: --stats equal to the input config is refused and the input kept"
                     PROPERTIES TIMEOUT 60)
wsc_h13("--stats into an unwritable place is refused before simulating" 2
        "--stats: cannot write '/proc/h13.json'"
        traffic ${h13_mesh} --measure 100 --stats /proc/h13.json)
wsc_h13("two outputs naming one file are refused" 2 "--stats and --perfetto name the same file"
        traffic ${h13_mesh} --measure 100 --stats h13_same.json --perfetto h13_same.json)
wsc_h13("--trace without --vcd is refused" 2 "--trace needs --vcd"
        traffic ${h13_mesh} --measure 100 --trace 0)
wsc_h13("--vcd on a gemm scenario is refused" 2 "--vcd is not used by a gemm run"
        run ${PROJECT_SOURCE_DIR}/configs/gemm_2x2.yaml --vcd h13.vcd)
wsc_h13("--heatmap on a dma_stream scenario is refused" 2 "--heatmap is not used by a dma_stream run"
        run ${PROJECT_SOURCE_DIR}/configs/hbm_stream.yaml --heatmap h13.svg)
wsc_h13("--perfetto on a dma_stream scenario is refused" 2 "--perfetto is not used by a dma_stream run"
        run ${PROJECT_SOURCE_DIR}/configs/hbm_stream.yaml --perfetto h13.json)
wsc_h13("--perfetto-cores on a traffic run is refused" 2
        "--perfetto-cores is not used by a traffic run \\(it has no core tracks\\)"
        traffic ${h13_mesh} --measure 100 --perfetto h13_t.json --perfetto-cores 1)
wsc_h13("--pipelines without --sweep is refused" 2 "--pipelines need --sweep"
        traffic ${h13_mesh} --measure 100 --pipelines 1,2)
wsc_h13("--rate in a sweep is refused" 2 "--rate is not used by a sweep"
        traffic ${h13_mesh} --sweep --rate 0.1)
wsc_h13("--sweep with --fault-rates is refused" 2 "--sweep is not used by a fault sweep"
        traffic ${h13_mesh} --fault-rates 0,0.1 --sweep)
wsc_h13("--rtl-fst without RTL routers is refused" 2
        "--rtl-fst is not used by a run whose config has no noc.rtl_routers"
        traffic ${h13_mesh} --measure 100 --rtl-fst h13.fst)
wsc_h13("kernel --stats equal to its config is refused" 2 "--stats: '.*wse2_kernels.yaml' is an input of this run"
        kernel gemm --mesh 2 --shape 8 ${h13_kernel_cfg} --stats ${PROJECT_SOURCE_DIR}/configs/wse2_kernels.yaml)
wsc_h13("kernel --tree-k on an algorithm without a K-tree is refused" 2 "--tree-k is not used by meshgemm"
        kernel gemm --mesh 2 --shape 8 ${h13_kernel_cfg} --tree-k 3)

# wsc kernel --config: keys the kernel mesh would drop are refused at their key.
foreach(k faults rtl wrap local_ports)
  set(key_faults "noc.faults")
  set(key_rtl "noc.rtl_routers")
  set(key_wrap "noc.topology.wrap")
  set(key_local_ports "noc.topology.local_ports")
  wsc_h13("kernel --config refuses ${key_${k}} instead of dropping it" 2
          "kernel_${k}.yaml:[0-9]+:[0-9]+: key '${key_${k}}':"
          kernel gemm --mesh 2 --shape 8 --config ${h13}/kernel_${k}.yaml)
endforeach()
# Several dies (issue 12): the kernel mesh is laid onto them and its die-crossing hops use the
# D2D links; a mesh larger than the dies is refused at the dies key.
add_test(NAME "issue12: kernel on a config of several dies sends over D2D links"
         COMMAND $<TARGET_FILE:wsc> kernel gemm --mesh 8 --shape 16
                 --config ${h13}/kernel_dies.yaml)
set_tests_properties("issue12: kernel on a config of several dies sends over D2D links"
                     PROPERTIES PASS_REGULAR_EXPRESSION "d2d links +[0-9.]+ uJ +[0-9.]+% +[1-9][0-9]* bit")
add_test(NAME "issue12: kernel refuses a mesh larger than the config's dies"
         COMMAND ${expect_fail} 2
                 "kernel_dies.yaml:[0-9]+:[0-9]+: key 'noc.topology.die':.*16x16 core mesh does not fit the config's 8x8 cores"
                 -- $<TARGET_FILE:wsc> kernel gemm --mesh 16 --shape 16 --config ${h13}/kernel_dies.yaml)

# Resource bounds: the memory estimate refuses what would exhaust the machine, before building it
# (testbench/ResourceEstimate), at the key of its largest term.
wsc_h13("a 65535x64 mesh over the memory budget is refused at once with the estimate" 2
        "mesh_65535x64.yaml:6:[0-9]+: key 'noc.topology': the run needs an estimated [0-9.]+ GB \\(network [0-9.]+ GB: 4194240 routers x [0-9.]+ KB; link records [0-9.]+ GB; process [0-9.]+ MB\\), more than the 1.0 GB allowed by --max-memory"
        validate ${h13}/mesh_65535x64.yaml --max-memory 1GB)
wsc_h13("the largest mesh the keys allow is refused on any machine" 2
        "mesh_65535x65535.yaml:5:[0-9]+: key 'noc.topology': the run needs an estimated [0-9.]+ TB \\(network [0-9.]+ TB: 4294836225 routers"
        validate ${h13}/mesh_65535x65535.yaml)
wsc_h13("the default budget is a share of the memory available" 2
        "more than the [0-9.]+ [GT]B allowed by default \\(80% of the [0-9.]+ [GT]B available, MemAvailable\\)"
        traffic ${h13}/mesh_65535x65535.yaml)
wsc_h13("fault-routing tables of a faulty wafer count in the estimate" 2
        "faults_256x256.yaml:9:[0-9]+: key 'noc.faults': the run needs an estimated [0-9.]+ GB \\(network .*; routing tables 12.0 GB; "
        validate ${h13}/faults_256x256.yaml --max-memory 4GB)
wsc_h13("65536 memory ports on a 2x2 mesh are refused at their key" 2
        "memory_ports_65536.yaml:[0-9]+:[0-9]+: key 'scenario.hardware.core.memory.ports': expected an integer <= 4, got '65536'"
        validate ${h13}/memory_ports_65536.yaml)
wsc_h13("65536 memory ports holding the operands are refused with the estimate" 2
        "memory_ports_wafer.yaml:[0-9]+:[0-9]+: key 'scenario.hardware.core.memory.ports': the run needs an estimated [0-9.]+ TB \\(.*; memory ports [0-9.]+ TB: 65536 x 20.0 KB and the data they hold; "
        validate ${h13}/memory_ports_wafer.yaml --max-memory 8GB)
add_test(NAME "issue13: a traffic run whose source queues outgrow the budget stops with exit 2"
         COMMAND ${h13}/queue_budget.sh $<TARGET_FILE:wsc> ${h13_mesh} ${expect_fail})
set_tests_properties("issue13: a traffic run whose source queues outgrow the budget stops with exit 2"
                     PROPERTIES TIMEOUT 60)
wsc_h13("kernel --mesh over the memory budget is refused before the run" 2
        "--mesh 8192: the run needs an estimated [0-9.]+ GB .*cores [0-9.]+ GB"
        kernel gemv --mesh 8192 --shape 8192 ${h13_kernel_cfg} --max-memory 1GB)
wsc_h13("--max-memory takes a size" 2 "--max-memory: expected a size with a unit"
        validate ${h13_mesh} --max-memory 1x)
wsc_h13("validate prints the memory estimate" 0
        "mesh8x8.yaml: ok \\(8x8 mesh.*; estimated memory [0-9.]+ MB\\)"
        validate ${h13_mesh})

# wsc kernel decode (issue 17): models its layout cannot run and flags it does not use are refused.
wsc_h13("kernel decode refuses an MoE model naming the file" 2
        "tiny-moe.json: WaferLLM.s decode and prefill layers .* are dense decoder layers .* this model has mixture-of-experts layers"
        kernel decode --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-moe.json --mesh 4 --prompt 16
        ${h13_kernel_cfg})
wsc_h13("kernel decode refuses --shape" 2 "--shape is not used by kernel decode"
        kernel decode --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json --mesh 4
        --shape 8 ${h13_kernel_cfg})
wsc_h13("kernel decode needs --model" 2 "--model is required"
        kernel decode --mesh 4 ${h13_kernel_cfg})
wsc_h13("kernel decode of a tiny model runs and checks" 0
        "model step +2 layers x [0-9]+ \\+ 1 = [0-9]+ cycles"
        kernel decode --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json --mesh 4
        --prompt 16 --generated 3 --layers 2 ${h13_kernel_cfg})
wsc_h13("bench kernels --ops decode runs a small mesh" 0
        "\\| decode \\| 8 \\| 64 \\| [0-9]+ \\|"
        bench kernels --ops decode --meshes 8 --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        ${h13_kernel_cfg})
wsc_h13("bench noc --repeat prints each round's speed-up (a small mesh: one thread either way)" 0
        "\\| 8x8 \\| 0\\.100 \\| 2 \\| [0-9.]+, [0-9.]+ \\| [0-9.]+ \\| [0-9.]+ \\| yes \\|"
        bench noc --quick --meshes 8 --threads 1,2 --repeat 2)
wsc_h13("bench noc refuses --repeat 0" 2 "--repeat: Value 0 not in range 1 to 100"
        bench noc --repeat 0)
wsc_h13("bench kernels --ops refuses an unknown kernel" 2 "--ops: expected gemm, gemv or decode, got 'gemn'"
        bench kernels --ops gemn --meshes 8 ${h13_kernel_cfg})
wsc_h13("llm infer on a core mesh runs WaferLLM's decode" 0
        "decode rate +[0-9]+ tokens/s at the middle step"
        llm infer --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        --hw ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli/core_mesh_8x8.yaml --prompt 16 --generate 8 --kv concat)
wsc_h13("llm infer on a core mesh runs the prefill before the decode" 0
        "end to end +[0-9.]+ ms \\(prefill and re-placement [0-9.]+ \\+ decode [0-9.]+\\): [0-9]+ generated tokens/s"
        llm infer --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        --hw ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli/core_mesh_8x8.yaml --prompt 16 --generate 2)
wsc_h13("llm infer on a core mesh writes a Perfetto trace per simulated run" 0
        "perfetto trace +h13_core_mesh.decode-step-2.json \\(64 cores"
        llm infer --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        --hw ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli/core_mesh_8x8.yaml --prompt 16 --generate 2
        --perfetto h13_core_mesh.json)
wsc_h13("llm infer on a core mesh says why a prompt that does not split is not prefilled" 0
        "prefill +not run: prefill layer: the prompt \\(18\\) does not split over the 8 rows"
        llm infer --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        --hw ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli/core_mesh_8x8.yaml --prompt 18 --generate 1)
wsc_h13("kernel prefill runs a model's layer" 0
        "model prefill +2 layers x [0-9]+ \\+ 1 = [0-9]+ cycles \\(at most\\)"
        kernel prefill --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json --mesh 4 --prompt 16
        --timing-only ${h13_kernel_cfg})
wsc_h13("kernel prefill refuses a prompt that does not split" 2
        "the prompt \\(10\\) does not split over the 4 rows and columns"
        kernel prefill --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json --mesh 4 --prompt 10
        --timing-only ${h13_kernel_cfg})
wsc_h13("kernel prefill refuses --shape" 2 "--shape is not used by kernel prefill"
        kernel prefill --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json --mesh 4 --shape 8
        ${h13_kernel_cfg})
wsc_h13("kernel kv-replace refuses a prompt that does not split" 2
        "the prompt \\(10\\) does not split over the 4 rows and columns"
        kernel kv-replace --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json --mesh 4 --prompt 10
        --timing-only ${h13_kernel_cfg})
wsc_h13("kernel weight-replace refuses an unknown --algo" 2
        "--algo: unknown weight-replace algorithm 'concat' \\(expected one of shift\\)"
        kernel weight-replace --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json --mesh 4
        --prompt 16 --algo concat ${h13_kernel_cfg})
wsc_h13("kernel weight-replace moves a model's weights exactly" 0
        "result +equals the reference \\(max \\|C - reference\\| = 0\\)"
        kernel weight-replace --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json --mesh 8
        --prompt 16 --layers 2 ${h13_kernel_cfg})
wsc_h13("llm infer on a core mesh reports a prefill that does not fit and still decodes" 0
        "prefill +not run: .*SRAM"
        llm infer --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        --hw ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli/core_mesh_8x8.yaml --prompt 16 --generate 2
        --set "core.sram.capacity=8 KB")
wsc_h13("llm infer on a core mesh says the end to end leaves out a re-placement that did not fit" 0
        "end-to-end throughput\\); without the re-placement that was not simulated"
        llm infer --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        --hw ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli/core_mesh_8x8.yaml --prompt 16 --generate 2
        --set "core.sram.capacity=16 KB")
wsc_h13("llm infer --kv is refused on a die-level wafer" 2 "--kv is for WaferLLM's decode on a core mesh"
        llm infer --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        --hw ${PROJECT_SOURCE_DIR}/configs/llm_die_2x2.yaml --plan tp=2 --prompt 16 --kv concat)
wsc_h13("llm infer on a core mesh refuses die-level flags" 2
        "--stats is not used by WaferLLM's decode on a core mesh"
        llm infer --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        --hw ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli/core_mesh_8x8.yaml --prompt 16 --generate 2 --stats x.json)
wsc_h13("llm infer on a core mesh prices a step's energy as the layers' (2 x 0.110156 uJ)" 0
        "2 layers: [0-9]+ cycles = [0-9.]+ us, 0.22 uJ"
        llm infer --model ${PROJECT_SOURCE_DIR}/configs/models/tiny-dense.json
        --hw ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli/core_mesh_8x8.yaml --prompt 16 --generate 1
        --set "energy.compute=1 pJ/FLOP")
