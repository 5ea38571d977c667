#pragma once
// `wsc llm infer` on a core mesh (one die of many cores: the WSE-2 configs): WaferLLM's decode,
// a step through the model's dense layers composed per core (`wsc kernel decode`'s program), at
// the first, middle and last of --generate decode steps. The decode rate is the middle step's
// (the average time per output token when the step grows linearly with the cache; the first and
// last steps show the spread). A step's energy is the layer's (every core's and link's events,
// priced by the config's energy: section) times the layers. Before it, the prefill of the
// prompt (`wsc kernel prefill`'s program, one layer and the layer rule) on the largest square
// block, when a layer's network work is small enough to simulate here, then the prompt's KV
// cache and the weights moved into the decode's layout (KvReplacement, WeightReplacement, every
// layer at once, one after the other). A layer too large to simulate is extrapolated, as
// docs/results/waferllm_prefill.md does by hand: the same per-core tiles (E / P, F / P, prompt /
// P, and the attention form) on the two largest blocks P2 = P / 2^k and P2 / 2 within the budget,
// a line T(P) = a + b P through their cycles (a MeshGEMM is P steps of a P-independent step, plus
// shifts), read at P; the report says so. When neither applies (shape, SRAM) it says why and no
// time to first token is given.
#include <cstdint>
#include <iosfwd>
#include <string>

#include "firmware/model/ModelConfig.h"
#include "hw/HardwareConfig.h"
#include "testbench/KernelTestbench.h"

namespace wsc::tb {

class CoreDecodeRun {
  public:
    struct Request {
        std::string model, hw_path;
        hw::HardwareConfig hw;
        uint64_t prompt = 0, generate = 0;
        std::string kv = "shift";  // shift | concat
        bool functional = false;   // values through every sampled step (small meshes)
        // One Perfetto trace per simulated run beside this path (out.prefill.json, or
        // out.prefill-P.json for each block of an extrapolated layer,
        // out.kv-replace.json, out.weight-replace.json, out.decode-step-N.json); empty: none.
        std::string perfetto, perfetto_unit = "ns";
        // Word-hops per prefill layer (PrefillLayerSchedule::wordHops) up to which the layer is
        // simulated on the whole block; beyond, it is extrapolated (prefillScaled).
        uint64_t prefill_word_hops = 300'000'000;
    };
    // A one-die wafer of more than one core: the layout this run needs.
    static bool applies(const hw::HardwareConfig& h);
    // Prints the report; returns 0, or 1 if a functional check failed.
    static int run(const Request& r, std::ostream& os);

  private:
    // One simulation of the run, with its Perfetto trace (`phase` names the file) if asked;
    // the trace's summary line goes to `os`.
    static KernelResult simulate(const Request& r, const KernelSpec& s, const std::string& phase,
                                 std::ostream& os);
    // Runs and prints the prefill and the re-placement of the KV cache and the weights into the
    // decode's layout; returns their time in seconds, 0 if the prefill was not simulated (the
    // line says why). `complete`: false when a re-placement was not simulated.
    static double prefill(const Request& r, const firmware::model::ModelConfig& mc,
                          const KernelSpec& decode, std::ostream& os, bool& complete);
    // The layer of `s` (on its p x p block) scaled to a pp x pp block with the same per-core
    // tiles; false if the tiles do not scale (per-head attention whose heads do not divide).
    static bool scaledLayer(const KernelSpec& s, uint32_t pp, KernelSpec& out);
};

}  // namespace wsc::tb
