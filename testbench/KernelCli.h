#pragma once
// The `wsc kernel gemm|gemv` subcommand and `wsc bench kernels`, kept out of main.cpp so the CLI
// front end only wires them in. Bad input throws std::invalid_argument (main maps it to exit 2).
#include <CLI/CLI.hpp>
#include <cstdint>
#include <iosfwd>
#include <string>

#include "firmware/model/ModelConfig.h"
#include "firmware/waferllm/LayerShape.h"
#include "testbench/RunProvenance.h"

namespace wsc::tb {

class KernelCli {
  public:
    struct Options {
        std::string config = "configs/wse2_kernels.yaml";
        std::vector<std::string> set;  // --set overrides of the config
        uint32_t threads = 0;          // --threads: the network's (0: the config's noc.threads)
        const RunProvenance* provenance = nullptr;  // the --stats header (main sets it)
        std::string algo, mesh = "4", shape, table;
        uint32_t tree_k = 2;
        bool compare = false, timing_only = false, broadcast = false, shift_align = false,
             unroll = false;
        uint64_t seed = 1;
        // kernel attention: query heads per KV head, the prompt and the tokens decoded before
        // the simulated step.
        uint32_t q_heads = 1;
        uint64_t prompt = 1024, generated = 0;
        // kernel decode: the model file (HuggingFace config.json) and the layers in the program.
        std::string model;
        uint32_t layers = 1;
        // wsc bench kernels: meshes, which kernels, and the GEMM tile edge (shape = tile x P).
        std::string bench_meshes = "64,128,256,512", bench_ops = "gemm,gemv", bench_shape;
        std::string bench_model = "configs/models/llama3-8b.json";  // --ops decode
        uint32_t bench_tile = 2;
        // Run outputs (RunOutputs, as `wsc run`): with several runs (--compare, a mesh list)
        // each run writes its own file, ".<algo>.<mesh>" inserted before the extension.
        std::string stats, heatmap, perfetto, perfetto_cores, firmware_text;
        std::string perfetto_unit = "ns";
        uint64_t perfetto_max_spans = 1000000;  // CoreTimelineRecorder::kDefaultMaxSpans
        uint64_t max_memory = 0;                // --max-memory; 0: the memory available
    };
    // Adds `kernel` (with gemm and gemv) under `app`; returns it.
    static CLI::App* add(CLI::App& app, Options& o);
    // Adds `kernels` under the `bench` subcommand.
    static CLI::App* addBench(CLI::App* bench, Options& o);
    // Runs whichever was parsed; returns the exit code (1 if a functional check failed).
    static int run(CLI::App* kernel, const Options& o, std::ostream& os);
    static int runBench(const Options& o, std::ostream& os);
    // The decode layer's shape from a model file: dense, gated SiLU FFN, RMSNorm, multi-head or
    // grouped-query attention; anything else throws std::invalid_argument naming the file.
    static firmware::waferllm::LayerShape decodeShape(const firmware::model::ModelConfig& m);
};

}  // namespace wsc::tb
