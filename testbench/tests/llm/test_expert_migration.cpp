// Expert migration as traffic (ExpertRouting::migrations, RoutingSource, StepBuilder): the
// NI-Balancer's parts follow XY routes over links of their own phase and chain from die to die;
// invasive balancers install exactly the copies their plan adds; the step builder emits every
// part on the migration stream with the model's expert bytes, keeps only the MoE layers a build
// holds, and puts the received copies in the ledger. Plain C++, no SystemC.
#include <catch2/catch.hpp>
#include <map>

#include "firmware/llm/DieEmitter.h"
#include "firmware/llm/RoutingSource.h"
#include "firmware/llm/StepBuilder.h"
#include "firmware/moe/MoeMapping.h"
#include "firmware/moe/NiBalancer.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/RankGrid.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/tests/llm/TestDies.h"

using namespace wsc;
using namespace wsc::firmware;
using llm::MigrationTransfer;
using plan::ParallelPlan;

namespace {

model::ModelConfig tinyMoe() {
    return hw::ModelConfigLoader::loadFile(std::string(WSC_SOURCE_DIR) +
                                           "/testbench/tests/llm/models/tiny-moe-16.json");
}

struct Setup {
    model::ModelConfig m = tinyMoe();
    ParallelPlan p = ParallelPlan::parse("dp=4,tp=4,ep=16");
    placement::DieArray a{4, 4};
    std::vector<uint32_t> dies = placement::Placement::byName("er")->place(plan::RankGrid(p), a);
    llm::RoutingOptions opts(const std::string& balancer, uint32_t iteration) const {
        llm::RoutingOptions o;
        o.source = llm::RoutingOptions::Source::Gating;
        o.gating.kind = moe::GatingKind::Temporal;
        o.iteration = iteration;
        o.balancer = balancer;
        o.mapping = "er";
        return o;
    }
};

// The XY route of a part (x first), as links.
std::vector<moe::Link> xyRoute(const moe::DieMesh& mesh, uint32_t from, uint32_t to) {
    std::vector<moe::Link> out;
    uint32_t x = mesh.x(from), y = mesh.y(from);
    while (x != mesh.x(to)) {
        const uint32_t nx = x < mesh.x(to) ? x + 1 : x - 1;
        out.push_back({mesh.id(x, y), mesh.id(nx, y)});
        x = nx;
    }
    while (y != mesh.y(to)) {
        const uint32_t ny = y < mesh.y(to) ? y + 1 : y - 1;
        out.push_back({mesh.id(x, y), mesh.id(x, ny)});
        y = ny;
    }
    return out;
}

// Whether a part's sender holds its expert during the step: natively or as a copy in place.
bool senderHolds(const llm::ExpertRouting& r, const MigrationTransfer& t,
                 const std::vector<uint32_t>& dies) {
    for (uint32_t m : r.hosts[t.moe_layer][t.expert])
        if (dies[m] == t.from) return true;
    return false;
}

}  // namespace

TEST_CASE(
    "expert migration: NI-Balancer parts are XY routes over links of their own phase, chained "
    "die to die, in non-decreasing phase slots (ER, 4x4, dp = tp = 4)",
    "[llm][routing][migration]") {
    const Setup su;
    const llm::RoutingSource src(su.opts("ni", 1), su.m, su.p, su.dies, su.a, 64);
    const auto r = src.forTokens(64);
    REQUIRE(r);
    REQUIRE(!r->migrations.empty());
    const moe::DieMesh mesh(4, 4);
    const moe::NiBalancer nb(moe::MoeMapping::entwined(mesh, 4, 4), 4);
    const uint64_t params = 3 * 256 * 256;  // gated expert: gate, up, down of 256 x 256
    uint32_t local = 0, global = 0;
    for (size_t i = 0; i < r->migrations.size(); ++i) {
        const MigrationTransfer& t = r->migrations[i];
        CHECK(t.when == MigrationTransfer::When::Phase);
        CHECK(t.params == params);
        REQUIRE(t.from != t.to);
        const bool is_local = t.kind == "expert migration (local)";
        CHECK((is_local || t.kind == "expert migration (global)"));
        (is_local ? local : global)++;
        // Local parts run during the all-reduce (even slots), global during the all-to-all.
        CHECK(t.slot % 2 == (is_local ? 0u : 1u));
        for (const moe::Link& l : xyRoute(mesh, t.from, t.to))
            CHECK(nb.linkPhase()[mesh.linkIndex(l)] ==
                  (is_local ? moe::MigrationPhase::AllReduce : moe::MigrationPhase::AllToAll));
        if (t.after >= 0) {
            const MigrationTransfer& prev = r->migrations[size_t(t.after)];
            CHECK(prev.to == t.from);
            CHECK(prev.moe_layer == t.moe_layer);
            CHECK(prev.slot <= t.slot);
        }
    }
    CHECK(local + global == r->migrations.size());
    // A part with no predecessor sends from a die that holds the expert during the step (its
    // native die or a copy in place); every other part waits for the one that brought it.
    for (const MigrationTransfer& t : r->migrations)
        if (t.after < 0) {
            INFO(t.label);
            CHECK(senderHolds(*r, t, su.dies));
        }
    // ER's FTDs are 2x2 blocks: a move between blocks crosses inter-FTD (global) links.
    CHECK(global > 0);
    INFO(src.describe());
    CHECK_THAT(src.describe(), Catch::Matchers::Contains("of the next iteration's copies in") &&
                                   Catch::Matchers::Contains("on the cold links during this step"));
}

TEST_CASE(
    "expert migration: with two slots per die a copy made from a copy this plan brings starts "
    "after it lands, for NI and invasive balancers alike",
    "[llm][routing][migration]") {
    const Setup su;
    uint32_t chained = 0;
    for (const char* b : {"ni", "topo"}) {
        auto o = su.opts(b, 1);
        o.slots = 2;
        const llm::RoutingSource src(o, su.m, su.p, su.dies, su.a, 64);
        const auto r = src.forTokens(64);
        std::map<std::pair<uint64_t, uint32_t>, std::vector<uint32_t>> holders;  // (layer, expert)
        for (size_t i = 0; i < r->migrations.size(); ++i) {
            const MigrationTransfer& t = r->migrations[i];
            if (t.after < 0) {
                INFO(b << ": " << t.label);
                CHECK(senderHolds(*r, t, su.dies));
                continue;
            }
            const MigrationTransfer& prev = r->migrations[size_t(t.after)];
            CHECK(size_t(t.after) < i);
            CHECK(prev.to == t.from);
            CHECK(prev.expert == t.expert);
            CHECK(prev.slot <= t.slot);
            if (prev.label.substr(0, prev.label.find(',')) != t.label.substr(0, t.label.find(',')))
                ++chained;  // across two migrations
        }
    }
    CHECK(chained > 0);
}

TEST_CASE(
    "expert migration: an invasive balancer installs its copies before the step, one direct "
    "part per copy it adds (iteration 1: every copy)",
    "[llm][routing][migration]") {
    const Setup su;
    for (const char* b : {"topo", "greedy"}) {
        const llm::RoutingSource src(su.opts(b, 1), su.m, su.p, su.dies, su.a, 64);
        const auto r = src.forTokens(64);
        // Copies: hosts beyond the native one, over all MoE layers.
        size_t copies = 0;
        for (const auto& layer : r->hosts)
            for (const auto& h : layer) copies += h.size() - 1;
        REQUIRE(copies > 0);
        CHECK(r->migrations.size() == copies);
        for (const MigrationTransfer& t : r->migrations) {
            CHECK(t.when == MigrationTransfer::When::Start);
            // A copy made from a copy of this plan waits for it.
            if (t.after >= 0) CHECK(r->migrations[size_t(t.after)].to == t.from);
            CHECK(t.kind == "expert migration (invasive)");
        }
    }
    // A decode token of the iteration finds the copies in place: no migrations.
    {
        const llm::RoutingSource src(su.opts("topo", 1), su.m, su.p, su.dies, su.a, 64);
        CHECK(!src.forTokens(64)->migrations.empty());
        CHECK(src.forTokens(64, /*prefill=*/false)->migrations.empty());
    }
    // --no-migration: the same copies, no traffic.
    auto o = su.opts("topo", 1);
    o.migrate = false;
    const llm::RoutingSource off(o, su.m, su.p, su.dies, su.a, 64);
    CHECK(off.forTokens(64)->migrations.empty());
    CHECK_THAT(off.describe(), Catch::Matchers::Contains("migrations not simulated"));
}

TEST_CASE("expert migration: ni needs a MoEntwine mapping and tp >= 2",
          "[llm][routing][migration]") {
    const Setup su;
    auto o = su.opts("ni", 1);
    o.mapping = "ring";
    CHECK_THROWS_WITH(llm::RoutingSource(o, su.m, su.p, su.dies, su.a, 64),
                      Catch::Matchers::Contains("needs --mapping er or baseline"));
}

TEST_CASE(
    "expert migration: the step emits every part on the migration stream with the expert's "
    "bytes on both dies, keeps the MoE layers a build holds, and ledgers the received copies",
    "[llm][routing][migration]") {
    const Setup su;
    const llm::RoutingSource src(su.opts("ni", 1), su.m, su.p, su.dies, su.a, 64);
    llm::StepSpec s;
    s.mode = llm::StepSpec::Mode::Prefill;
    s.batch = 4, s.seq = 16;
    s.routing = src.forTokens(64);
    const auto& parts = s.routing->migrations;
    const uint64_t bytes = 3 * 256 * 256 * 2;  // fp16
    const llm::StepBuilder b(su.m, su.p, su.dies, su.a, wsc::test::b200Die(), s);
    const llm::StepProgram whole = b.build(0);
    CHECK(whole.migration_parts == parts.size());
    CHECK(whole.migration_bytes == parts.size() * bytes);
    uint64_t recorded = 0;
    std::map<uint32_t, uint64_t> received;
    for (const auto& c : whole.comms)
        if (c.kind.rfind("expert migration", 0) == 0) {
            CHECK(c.stream == llm::kStreams);
            recorded += c.bytes;
        }
    CHECK(recorded == 2 * parts.size() * bytes);  // each part on its sender and its receiver
    // The ledger: each receiving die keeps the next iteration's copies it receives for the
    // whole step, against the same step without the parts.
    for (const MigrationTransfer& t : parts) received[t.to] += bytes;
    auto still = std::make_shared<llm::ExpertRouting>(*s.routing);
    still->migrations.clear();
    llm::StepSpec s0 = s;
    s0.routing = still;
    const llm::StepProgram none =
        llm::StepBuilder(su.m, su.p, su.dies, su.a, wsc::test::b200Die(), s0).build(0);
    for (const auto& [d, n] : received)
        CHECK(whole.ledger.used(d, llm::MemKind::Buffers) -
                  none.ledger.used(d, llm::MemKind::Buffers) ==
              n);
    // One layer built: only MoE layer 0's parts (a part of layer 0 that would run in layer 1's
    // slots wraps to this build's slots).
    size_t layer0 = 0;
    for (const MigrationTransfer& t : parts) layer0 += t.moe_layer == 0;
    CHECK(b.build(1).migration_parts == layer0);
}
