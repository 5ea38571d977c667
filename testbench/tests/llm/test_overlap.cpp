// Overlapped micro-batches in inference (StepSpec::overlap, MoEntwine Fig. 11e): the same work
// as the sequential schedule, each micro-batch's collectives on its own stream, a scratch pair
// per micro-batch in flight, every collective waited for once, and the plans it refuses. Plain
// C++, no SystemC.
#include <catch2/catch.hpp>
#include <map>

#include "firmware/llm/DieEmitter.h"
#include "firmware/llm/StepBuilder.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/RankGrid.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/tests/llm/TestDies.h"

using namespace wsc;
using namespace wsc::firmware;
using Catch::Matchers::Contains;
using plan::ParallelPlan;

namespace {

struct Case {
    model::ModelConfig m = hw::ModelConfigLoader::loadFile(
        std::string(WSC_SOURCE_DIR) + "/testbench/tests/llm/models/tiny-moe-16.json");
    ParallelPlan p = ParallelPlan::parse("dp=4,tp=4,ep=16,mb=2");
    placement::DieArray a{4, 4};
    std::vector<uint32_t> dies = placement::Placement::byName("er")->place(plan::RankGrid(p), a);
    llm::StepProgram build(bool overlap) const {
        llm::StepSpec s;
        s.mode = llm::StepSpec::Mode::Prefill;
        s.batch = 16, s.seq = 64;
        s.overlap = overlap;
        return llm::StepBuilder(m, p, dies, a, wsc::test::b200Die(), s).build(0);
    }
};

}  // namespace

TEST_CASE(
    "overlapped micro-batches: the same work, micro-batch 1's collectives on their own "
    "stream, one more scratch pair, every collective waited for once",
    "[llm][overlap]") {
    const Case c;
    const llm::StepProgram seq = c.build(false), ov = c.build(true);
    CHECK(ov.model_flops == seq.model_flops);
    CHECK(ov.die_flops == seq.die_flops);
    // Collectives: the same kinds, counts and bytes; micro-batch 0's on the tensor stream,
    // micro-batch 1's on stream kStreams + 2.
    std::map<std::string, uint64_t> bs, bo;
    std::map<std::string, uint32_t> ns, no;
    for (const auto& r : seq.comms) bs[r.kind] += r.bytes, ns[r.kind]++;
    for (const auto& r : ov.comms) {
        bo[r.kind] += r.bytes, no[r.kind]++;
        const bool mb1 = r.label.rfind("mb 1 ", 0) == 0;
        CHECK(r.stream == (mb1 ? llm::kStreams + 2 : uint32_t(llm::kTensorComm)));
    }
    CHECK(bo == bs);
    CHECK(no == ns);
    CHECK(ov.waits.size() == seq.waits.size());
    // Memory: micro-batch 1 keeps its own activation scratch pair: the buffers grow by exactly
    // that much on every die.
    for (uint32_t d : c.dies) {
        const uint64_t grow =
            ov.ledger.used(d, llm::MemKind::Buffers) - seq.ledger.used(d, llm::MemKind::Buffers);
        CHECK(grow > 0);
        CHECK(grow % 2 == 0);
    }
}

TEST_CASE("overlapped micro-batches: refused for training, pipeline stages and one micro-batch",
          "[llm][overlap]") {
    const Case c;
    llm::StepSpec s;
    s.mode = llm::StepSpec::Mode::Prefill;
    s.batch = 16, s.seq = 64;
    s.overlap = true;
    CHECK_THROWS_WITH(
        llm::StepBuilder(c.m, ParallelPlan::parse("dp=4,tp=4,ep=16"), c.dies, c.a,
                         wsc::test::b200Die(), s),
        Contains("overlapped micro-batches are for inference with pp = 1, no tatp and 2..200"));
    s.mode = llm::StepSpec::Mode::Train;
    CHECK_THROWS_WITH(llm::StepBuilder(c.m, c.p, c.dies, c.a, wsc::test::b200Die(), s),
                      Contains("overlapped micro-batches"));
}
