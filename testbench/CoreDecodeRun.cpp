#include "testbench/CoreDecodeRun.h"

#include <fmt/format.h>
#include <fmt/ostream.h>

#include <algorithm>
#include <memory>
#include <ostream>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "firmware/waferllm/HeadAttentionSchedule.h"
#include "firmware/waferllm/PrefillLayerSchedule.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/KernelCli.h"
#include "testbench/KernelTestbench.h"
#include "testbench/RunOutputs.h"

namespace wsc::tb {

bool CoreDecodeRun::applies(const hw::HardwareConfig& h) {
    return h.wafer.present && h.wafer.dies() == 1 && h.wafer.coresPerDie() > 1;
}

namespace {

// The first line of an error (a deadlock report goes on for a line per core).
std::string firstLine(const char* what) {
    const std::string s(what);
    const size_t nl = s.find('\n');
    return nl == std::string::npos ? s : s.substr(0, nl) + " (...)";
}

// The closed-form network work of the prefill layer of `s` (throws on a shape it refuses).
uint64_t prefillWordHops(const KernelSpec& s) {
    firmware::waferllm::PrefillLayerSchedule::Spec ps;
    ps.mesh_x = ps.mesh_y = s.p, ps.p = s.p, ps.layer = s.layer;
    ps.prompt = uint32_t(std::min<uint64_t>(s.prompt, UINT32_MAX));
    ps.product_attention = s.product_attention;
    return firmware::waferllm::PrefillLayerSchedule(ps).wordHops();
}

}  // namespace

bool CoreDecodeRun::scaledLayer(const KernelSpec& s, uint32_t pp, KernelSpec& out) {
    const firmware::waferllm::LayerShape& L = s.layer;
    const uint32_t p = s.p;
    if (pp == 0 || p == 0 || L.hidden % p || L.ffn % p || s.prompt % p) return false;
    out = s;
    out.p = pp;
    out.layer.hidden = L.hidden / p * pp, out.layer.ffn = L.ffn / p * pp;
    out.prompt = s.prompt / p * pp;
    using firmware::waferllm::HeadAttentionSchedule;
    if (!s.product_attention && HeadAttentionSchedule::applies(p, L.hidden, L.heads)) {
        // Per head, P / H columns a head: the same columns per head on the smaller block.
        if (uint64_t(L.heads) * pp % p) return false;
        out.layer.heads = out.layer.kv_heads = L.heads * pp / p;  // K and V are E wide anyway
        return HeadAttentionSchedule::applies(pp, out.layer.hidden, out.layer.heads);
    }
    // One product over the embedding: its cost does not depend on the head count.
    out.product_attention = true;
    out.layer.heads = out.layer.kv_heads = 1, out.layer.head_dim = out.layer.hidden;
    return true;
}

KernelResult CoreDecodeRun::simulate(const Request& r, const KernelSpec& s,
                                     const std::string& phase, std::ostream& os) {
    KernelRunOptions ro;
    ro.energy = r.hw.energy;  // the config's prices (link energies come with the NoC's)
    std::unique_ptr<RunOutputs> out;
    if (!r.perfetto.empty()) {
        hw::ScenarioConfig sc;
        sc.setHardware(r.hw);
        sc.noc = KernelTestbench::meshNoc(r.hw.noc, s);
        sc.workload_type = "kernel";
        sc.name = fmt::format("llm infer {} on {}: {}", r.model, r.hw_path, phase);
        out = std::make_unique<RunOutputs>(sc, "", RunOutputs::phasePath(r.perfetto, phase));
        out->setPerfettoUnit(r.perfetto_unit);
        ro.observers = out->observers();
    }
    KernelResult k = KernelTestbench::run(r.hw.noc, r.hw.core, s, ro);
    if (out) {
        std::ostringstream written;
        out->finishKernel(k, written, nullptr);
        // The trace's summary lines, indented under the run's line.
        std::istringstream lines(written.str());
        for (std::string line; std::getline(lines, line);)
            if (line.find("perfetto") != std::string::npos ||
                line.find("trace") != std::string::npos)
                fmt::print(os, "  {:<22} {}\n", "", line.substr(line.find_first_not_of(' ')));
    }
    return k;
}

double CoreDecodeRun::prefill(const Request& r, const firmware::model::ModelConfig&,
                              const KernelSpec& decode, std::ostream& os, bool& complete) {
    complete = true;
    const uint32_t p = std::min(r.hw.wafer.cores_x, r.hw.wafer.cores_y);
    KernelSpec s;
    s.op = "prefill", s.algo = "meshgemm", s.p = p;
    s.layer = decode.layer, s.layers = 1, s.model_layers = decode.model_layers;
    s.prompt = r.prompt, s.functional = false;
    uint64_t hops = 0;
    try {
        hops = prefillWordHops(s);
    } catch (const std::invalid_argument& e) {
        fmt::print(os, "  prefill                not run: {}\n", e.what());
        return 0;
    }
    KernelResult k;
    std::ostringstream trace;  // printed after the prefill's line
    std::string how;           // how the layer's cycles were found, when not simulated whole
    // The two largest blocks P / 2^k (and half of it) within the budget, tiles unchanged.
    KernelSpec s1, s2;
    bool scaled = false;
    if (hops > r.prefill_word_hops)
        for (uint32_t p2 = p / 2; p2 >= 4 && !scaled; p2 /= 2) {
            if (p % p2 || p2 % 2 || !scaledLayer(s, p2, s2) || !scaledLayer(s, p2 / 2, s1))
                continue;
            try {
                scaled = prefillWordHops(s2) <= r.prefill_word_hops;
            } catch (const std::invalid_argument&) {
            }
        }
    if (hops > r.prefill_word_hops && !scaled) {
        fmt::print(os,
                   "  prefill                not simulated: a layer on {}x{} cores moves ~{:.2g} "
                   "word-hops (MeshGEMM shifts every weight tile every step), over the budget "
                   "of {:.2g} (--prefill-word-hops), and its per-core tiles do not scale to a "
                   "smaller block within it; `wsc kernel prefill --model {} --mesh {} --prompt "
                   "{} --timing-only --config {}` runs it\n",
                   p, p, double(hops), double(r.prefill_word_hops), r.model, p, r.prompt,
                   r.hw_path);
        return 0;
    }
    try {
        if (!scaled) {
            k = simulate(r, s, "prefill", trace);
        } else {
            const KernelResult k1 = simulate(r, s1, fmt::format("prefill-{}", s1.p), trace);
            k = simulate(r, s2, fmt::format("prefill-{}", s2.p), trace);
            const uint64_t k2buf = k.sram_buffer_bytes;
            // T(P) = a + b P through the two blocks, per phase and whole, read at P.
            auto at = [&](double t1, double t2) {
                const double b = (t2 - t1) / double(s2.p - s1.p);
                return uint64_t(std::max(0.0, std::round(t2 + b * double(p - s2.p))));
            };
            if (k1.phase_cycles.size() != k.phase_cycles.size())
                throw std::logic_error("prefill: the scaled blocks have different phases");
            for (size_t i = 0; i < k.phase_cycles.size(); ++i)
                k.phase_cycles[i].second =
                    at(double(k1.phase_cycles[i].second), double(k.phase_cycles[i].second));
            how = fmt::format(
                "extrapolated: {}x{} cores would move ~{:.2g} word-hops, over --prefill-word-hops "
                "{:.2g}, so the same per-core tiles ran on {}x{} ({} cycles) and {}x{} ({} "
                "cycles) and T(P) = a + b P through them is read at P = {}; ",
                p, p, double(hops), double(r.prefill_word_hops), s1.p, s1.p, k1.cycles, s2.p, s2.p,
                k.cycles, p);
            k.cycles = at(double(k1.cycles), double(k.cycles));
            // The buffers too (what a core must hold; the peak beyond them is early arrivals,
            // which adapt to the room left): per-head buffers grow with the heads a row holds,
            // which grow with the block, the rest is the same tiles. A layer whose buffers would
            // not fit gets no time, as a direct run would stop at its build.
            const uint64_t buffers = at(double(k1.sram_buffer_bytes), double(k2buf));
            if (buffers > r.hw.core.sram.capacity_bytes)
                throw std::runtime_error(fmt::format(
                    "the layer on {}x{} cores needs about {} B of buffers per core (extrapolated "
                    "from {} B on {}x{} and {} B on {}x{}), over its {} B of SRAM",
                    p, p, buffers, k1.sram_buffer_bytes, s1.p, s1.p, k2buf, s2.p, s2.p,
                    r.hw.core.sram.capacity_bytes));
            k.sram_bytes = buffers;
        }
    } catch (const std::exception& e) {
        // A layer that does not fit the SRAM (at build or as it runs) or that stalls the network:
        // the prefill is a result here, the decode still runs.
        fmt::print(os, "  prefill                not run: {}\n", firstLine(e.what()));
        return 0;
    }
    const uint64_t per = k.cycles - 1;
    const uint64_t all = uint64_t(s.model_layers) * per + 1;
    const double sec = double(all) / k.clock_hz;
    std::string split;
    for (const auto& [name, c] : k.phase_cycles)
        split += fmt::format("{}{} {}", split.empty() ? "" : ", ", name, c);
    fmt::print(os,
               "  prefill                {} tokens on {}x{} cores: {}{} cycles per layer ({}), {} "
               "layers: at most {} cycles = {:.3f} ms to the first token, {:.0f} prompt "
               "tokens/s, {}; peak SRAM per core {} B{}\n",
               r.prompt, p, p, how, k.cycles, split, s.model_layers, all, sec * 1e3,
               double(r.prompt) / sec,
               scaled ? std::string("energy not extrapolated")
               : k.energy.total_pj > 0
                   ? fmt::format("{:.3g} uJ", k.energy.total_pj * 1e-6 * s.model_layers)
                   : std::string("no energy (the config prices none)"),
               k.sram_bytes,
               scaled ? " in buffers, extrapolated like the cycles (the early arrivals a core "
                        "also holds are not: with little room left the layer may need more)"
                      : "");
    os << trace.str();
    // The re-placements move every layer at once: simulated under the same budget, with a word
    // taken to travel P / 2 hops on average.
    const firmware::waferllm::LayerShape& L = s.layer;
    const uint64_t kv_words = 2ull * r.prompt * L.kv_heads * L.head_dim,
                   w_words = 4ull * L.hidden * L.hidden + 3ull * L.hidden * L.ffn;
    if ((kv_words + w_words) * s.model_layers * (p / 2 + 1) > r.prefill_word_hops) {
        fmt::print(os,
                   "  prefill to decode      not simulated: the KV cache and weights of {} layers "
                   "({:.3g} words) over ~{} hops each pass the budget; `wsc kernel kv-replace` "
                   "and `wsc kernel weight-replace` run it\n",
                   s.model_layers, double(kv_words + w_words) * s.model_layers, p / 2);
        complete = false;
        return sec;
    }
    // The prompt's KV cache of every layer from the prefill's layout to the decode's, all at
    // once (the layers' messages share the network).
    KernelSpec kv = s;
    kv.op = "kv-replace", kv.algo = r.kv, kv.p = decode.p, kv.q = decode.q;
    kv.layers = decode.model_layers;
    double move = 0;
    try {
        std::ostringstream kv_trace;
        const KernelResult m = simulate(r, kv, "kv-replace", kv_trace);
        move = double(m.cycles) / m.clock_hz;
        fmt::print(os,
                   "  prefill to decode      the prompt's KV cache of {} layers re-placed as NoC "
                   "traffic: {} cycles = {:.2f} us ({})\n",
                   kv.layers, m.cycles, move * 1e6, m.notes);
        os << kv_trace.str();
    } catch (const std::exception& e) {
        fmt::print(os, "  prefill to decode      the KV cache's re-placement not run: {}\n",
                   firstLine(e.what()));
        complete = false;
    }
    // Then the weights, from the prefill's MeshGEMM placement to the decode's GEMV one.
    try {
        KernelSpec w = s;
        w.op = "weight-replace", w.algo = "shift", w.p = decode.p, w.q = decode.q;
        w.layers = decode.model_layers;
        std::ostringstream w_trace;
        const KernelResult wm = simulate(r, w, "weight-replace", w_trace);
        const double wsec = double(wm.cycles) / wm.clock_hz;
        move += wsec;
        fmt::print(os,
                   "  {:<22} the weights of {} layers re-placed as NoC traffic: {} cycles = {:.2f} "
                   "us ({})\n",
                   "", w.layers, wm.cycles, wsec * 1e6, wm.notes);
        os << w_trace.str();
    } catch (const std::exception& e) {
        fmt::print(os, "  {:<22} the weights' re-placement not run: {}\n", "", firstLine(e.what()));
        complete = false;
    }
    return sec + move;
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
    const double clock = r.hw.noc.clock_hz;
    bool replaced = true;                                    // both re-placements simulated
    const double ttft = prefill(r, mc, base, os, replaced);  // seconds, 0: not simulated
    if (r.generate == 0) {
        fmt::print(os, "  decode                 --generate 0: nothing to decode\n");
        return 0;
    }
    bool ok = true;
    std::vector<uint64_t> token_cycles;
    for (uint64_t g : steps) {
        KernelSpec s = base;
        s.generated = g;
        std::ostringstream trace;
        const KernelResult k = simulate(r, s, fmt::format("decode-step-{}", g + 1), trace);
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
        os << trace.str();
        ok &= !k.checked || k.correct;
    }
    const uint64_t mid = token_cycles[token_cycles.size() == 3 ? 1 : token_cycles.size() - 1];
    fmt::print(os,
               "  decode rate            {:.0f} tokens/s at the middle step ({} cycles a token; "
               "first {:.0f}, last {:.0f} tokens/s); embedding and LM head not simulated\n",
               clock / double(mid), mid, clock / double(token_cycles.front()),
               clock / double(token_cycles.back()));
    const double decode_s = double(mid) * double(r.generate) / clock;
    fmt::print(os, "  decode time            {:.3f} ms for {} tokens at that rate\n",
               decode_s * 1e3, r.generate);
    if (ttft > 0)
        fmt::print(os,
                   "  end to end             {:.3f} ms (prefill and re-placement {:.3f} + decode "
                   "{:.3f}): {:.0f} generated tokens/s (WaferLLM's end-to-end throughput){}\n",
                   (ttft + decode_s) * 1e3, ttft * 1e3, decode_s * 1e3,
                   double(r.generate) / (ttft + decode_s),
                   replaced ? "" : "; without the re-placement that was not simulated (above)");
    return ok ? 0 : 1;
}

}  // namespace wsc::tb
