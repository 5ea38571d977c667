#include "hw/LlmWorkloadLoader.h"

#include <fmt/format.h>

#include <filesystem>
#include <stdexcept>

#include "hw/ModelConfigLoader.h"

namespace wsc::hw {

firmware::llm::LlmWorkload loadLlmWorkload(const YamlReader& w) {
    w.checkKeys({"type", "mode", "model", "plan", "placement", "batch", "seq", "prompt", "generate",
                 "dtype", "memory", "full", "seed", "recompute", "offload", "pp_links"});
    firmware::llm::LlmWorkload l;
    l.train = w.getEnum("mode", {"train", "infer"}, std::string("train")) == "train";
    const std::string rel = w.getString("model");
    if (rel.empty()) w.fail("model", "the path of a HuggingFace config.json");
    std::filesystem::path path(rel);
    if (path.is_relative()) path = std::filesystem::path(w.file()).parent_path() / path;
    l.model_path = path.string();
    try {
        l.model = ModelConfigLoader::loadFile(l.model_path);
    } catch (const ConfigError& e) {
        if (e.line() != 0 || e.file() != l.model_path) throw;  // located inside the model file
        throw w.errorAt("model", "cannot load model file '" + l.model_path + "': " + e.message());
    }
    const std::string plan = w.getString("plan");
    try {
        l.plan = firmware::plan::ParallelPlan::parse(plan);
    } catch (const std::invalid_argument& e) {
        throw w.errorAt("plan", e.what());
    }
    if (w.has("placement") && w.entry("placement").isSequence()) {
        // An explicit placement: the die (y * dies_x + x) of every rank, in rank order (tp
        // fastest); its length and range against the wafer are checked with the hardware.
        std::vector<int> owner;
        for (const YamlReader& e : w.entry("placement").elements()) {
            const std::string text = e.scalar("a die index");
            if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
                text.size() > 7 || std::stoull(text) >= (1u << 20))
                e.failHere("a die index (y * dies_x + x) in [0, 2^20)");
            const uint32_t d = static_cast<uint32_t>(std::stoull(text));
            if (d >= owner.size()) owner.resize(d + 1, -1);
            if (owner[d] >= 0)
                e.failHere(fmt::format("a die no other rank has (die {} is rank {}'s already)", d,
                                       owner[d]));
            owner[d] = static_cast<int>(l.placement_list.size());
            l.placement_list.push_back(d);
        }
        if (l.placement_list.empty())
            w.fail("placement", "ring, snake, row-major, watos, or a list of one die per rank");
        l.placement = "list";
    } else {
        l.placement = w.getEnum("placement", {"ring", "snake", "row-major", "watos"}, l.placement);
    }
    l.batch = w.getUInt64("batch", 1, uint64_t{1} << 32,
                          l.train ? std::nullopt : std::optional<uint64_t>(1));
    if (l.train) {
        if (w.has("prompt") || w.has("generate"))
            w.fail(w.has("prompt") ? "prompt" : "generate",
                   "no 'prompt' or 'generate' in a training step (mode: train; 'seq' is its "
                   "sequence length)");
        l.seq = w.getUInt64("seq", 1, uint64_t{1} << 24);
    } else {
        if (w.has("seq")) w.fail("seq", "'prompt' (and 'generate') for mode: infer, not 'seq'");
        l.seq = w.getUInt64("prompt", 1, uint64_t{1} << 24);
        l.generate = w.getUInt64("generate", 0, uint64_t{1} << 24, 0);
    }
    l.dtype = w.getEnum("dtype", {"fp16", "bf16"}, l.dtype);
    l.memory = w.getEnum("memory", {"bandwidth", "hbm"}, l.memory);
    l.full = w.getBool("full", false);
    if (w.has("recompute") && !l.train)
        w.fail("recompute", "no 'recompute' in inference (mode: infer): it is a training choice");
    l.recompute = w.getEnum("recompute", {"none", "uniform", "gcmr"}, l.recompute);
    if (w.has("offload") && !l.train)
        w.fail("offload", "no 'offload' in inference (mode: infer): it is a training choice");
    l.offload = w.getBool("offload", false);
    if (w.has("pp_links") && !l.train)
        w.fail("pp_links", "no 'pp_links' in inference (mode: infer): it is a training choice");
    l.pp_links = w.getEnum("pp_links", {"routing", "watos"}, l.pp_links);
    l.seed = w.getUInt64("seed", 0, YamlReader::kMaxU64, 1);
    return l;
}

}  // namespace wsc::hw
