// LLM steps on a die-level wafer, simulated (SystemC: one test case per process).
#include <catch2/catch.hpp>

#include "hw/HardwareLoader.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/LlmTestbench.h"

using namespace wsc;

namespace {

std::string src(const std::string& rel) {
    return std::string(WSC_SOURCE_DIR) + "/" + rel;
}

}  // namespace

TEST_CASE("a tiny model trains one step on 2 x 2 dies under dp x tp", "[llm][step]") {
    const hw::HardwareConfig hwc = hw::HardwareLoader::loadFile(src("configs/llm_die_2x2.yaml"));
    hw::Wafer wafer("wafer", hwc, hw::MemoryTarget::Simple);
    tb::LlmSpec s;
    s.model = hw::ModelConfigLoader::loadFile(src("configs/models/tiny-dense.json"));
    s.plan = firmware::plan::ParallelPlan::parse("dp=2,tp=2");
    s.batch = 4;
    s.seq = 64;
    const tb::LlmResult r = tb::LlmTestbench::run(wafer, s);
    tb::LlmTestbench::printReport(std::cout, r);
    CHECK(r.phases.size() == 1);
    CHECK(r.phases[0].cycles > 0);
}
