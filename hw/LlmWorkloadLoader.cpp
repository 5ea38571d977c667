#include "hw/LlmWorkloadLoader.h"

#include <filesystem>
#include <stdexcept>

#include "hw/ModelConfigLoader.h"

namespace wsc::hw {

firmware::llm::LlmWorkload loadLlmWorkload(const YamlReader& w) {
    w.checkKeys({"type", "mode", "model", "plan", "placement", "batch", "seq", "prompt", "generate",
                 "dtype", "memory", "full", "seed"});
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
    l.placement = w.getEnum("placement", {"ring", "snake", "row-major"}, l.placement);
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
    l.seed = w.getUInt64("seed", 0, YamlReader::kMaxU64, 1);
    return l;
}

}  // namespace wsc::hw
