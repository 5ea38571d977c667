#include "testbench/CoreDecodeRun.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <ostream>
#include <stdexcept>
#include <vector>

#include "hw/ModelConfigLoader.h"
#include "testbench/KernelCli.h"
#include "testbench/KernelTestbench.h"

namespace wsc::tb {

bool CoreDecodeRun::applies(const hw::HardwareConfig& h) {
    return h.wafer.present && h.wafer.dies() == 1 && h.wafer.coresPerDie() > 1;
}

int CoreDecodeRun::run(const Request& r, std::ostream& os) {
    if (r.kv != "shift" && r.kv != "concat")
        throw std::invalid_argument(fmt::format("--kv: expected shift or concat, got '{}'", r.kv));
    const firmware::model::ModelConfig mc = hw::ModelConfigLoader::loadFile(r.model);
    const uint32_t rows = r.hw.wafer.cores_y, cols = r.hw.wafer.cores_x;
    KernelSpec base;
    base.op = "decode", base.algo = r.kv;
    base.p = rows, base.q = cols == rows ? 0 : cols;
    base.layer = KernelCli::decodeShape(mc), base.layers = 1;
    base.model_layers = uint32_t(std::min<uint64_t>(mc.layers, UINT32_MAX));
    base.m = uint32_t(mc.heads / mc.kv_heads), base.k = uint32_t(mc.head_dim);
    base.n = uint32_t(mc.hidden);
    base.prompt = r.prompt, base.functional = r.functional;
    // The first, middle and last decode steps (fewer when --generate is small).
    std::vector<uint64_t> steps{0};
    if (r.generate > 2) steps.push_back((r.generate - 1) / 2);
    if (r.generate > 1) steps.push_back(r.generate - 1);

    fmt::print(os,
               "llm infer {} on {} ({}x{} cores, one die): WaferLLM's decode, {} KV cache, "
               "prompt {}, {} decode step{}\n",
               mc.name, r.hw_path, rows, cols, r.kv, r.prompt, r.generate,
               r.generate == 1 ? "" : "s");
    fmt::print(os,
               "  prefill                not modelled on cores yet (no time to first token); "
               "the cache holds the prompt as the prefill would leave it\n");
    if (r.generate == 0) {
        fmt::print(os, "  decode                 --generate 0: nothing to decode\n");
        return 0;
    }
    bool ok = true;
    std::vector<uint64_t> token_cycles;
    for (uint64_t g : steps) {
        KernelSpec s = base;
        s.generated = g;
        KernelRunOptions ro;
        ro.energy = r.hw.energy;  // the config's prices (link energies come with the NoC's)
        const KernelResult k = KernelTestbench::run(r.hw.noc, r.hw.core, s, ro);
        const uint64_t per = k.cycles - 1;  // one layer, then the layer rule
        const uint64_t step = uint64_t(base.model_layers) * per + 1;
        token_cycles.push_back(step);
        std::string split;
        for (const auto& [name, c] : k.phase_cycles)
            split += fmt::format("{}{} {}", split.empty() ? "" : ", ", name, c);
        fmt::print(os,
                   "  decode step {:>6}      token {}: {} cycles per layer ({}), {} layers: {} "
                   "cycles = {:.1f} us, {}; peak SRAM per core {} B{}\n",
                   g + 1, r.prompt + g, k.cycles, split, base.model_layers, step,
                   double(step) / k.clock_hz * 1e6,
                   // the layer's events (every core and link of the mesh) times the layers
                   k.energy.total_pj > 0
                       ? fmt::format("{:.3g} uJ", k.energy.total_pj * 1e-6 * base.model_layers)
                       : std::string("no energy (the config prices none)"),
                   k.sram_bytes,
                   k.checked
                       ? (k.correct ? "; equals the reference" : "; DIFFERS from the reference")
                       : "");
        ok &= !k.checked || k.correct;
    }
    const double clock = r.hw.noc.clock_hz;
    const uint64_t mid = token_cycles[token_cycles.size() == 3 ? 1 : token_cycles.size() - 1];
    fmt::print(os,
               "  decode rate            {:.0f} tokens/s at the middle step ({} cycles a token; "
               "first {:.0f}, last {:.0f} tokens/s); embedding and LM head not simulated\n",
               clock / double(mid), mid, clock / double(token_cycles.front()),
               clock / double(token_cycles.back()));
    fmt::print(os, "  decode time            {:.3f} ms for {} tokens at that rate\n",
               double(mid) * double(r.generate) / clock * 1e3, r.generate);
    return ok ? 0 : 1;
}

}  // namespace wsc::tb
