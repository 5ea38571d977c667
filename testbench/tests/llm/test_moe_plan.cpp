// MoEntwine's mappings as LLM placements and the step builder's full-token-domain dispatch:
// every dispatch and combine message stays inside the sender's FTD, the TP groups sum their
// partial expert outputs, and ER-Mapping's FTDs are 2 x 2 blocks where the baseline's span
// 3 x 3. Plain C++, no SystemC.
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "firmware/llm/StepBuilder.h"
#include "firmware/moe/MoeMapping.h"
#include "firmware/placement/MoePlacement.h"
#include "firmware/placement/Placement.h"
#include "firmware/plan/RankGrid.h"
#include "hw/ModelConfigLoader.h"
#include "testbench/tests/llm/TestDies.h"

using namespace wsc;
using namespace wsc::firmware;
using Catch::Matchers::Contains;
using plan::ParallelPlan;
using plan::RankGrid;
using wsc::test::b200Die;

namespace {

std::string src(const std::string& rel) {
    return std::string(WSC_SOURCE_DIR) + "/" + rel;
}

struct Sends {
    std::map<std::string, uint64_t> messages;           // by comm kind
    std::map<std::string, uint64_t> bytes;              // CommRecord bytes by kind
    std::map<std::string, uint32_t> max_hops;           // longest message by kind
    std::map<std::string, std::set<uint32_t>> outside;  // dies that sent outside their domain
};

// Every Send of the expert all-to-alls and of the TP group's sums, checked against the domain
// each must stay in (the sender's FTD, its TP group).
Sends sendsOf(const std::string& policy, const std::string& planText) {
    const auto m =
        hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/models/tiny-moe-16.json"));
    const auto p = ParallelPlan::parse(planText);
    const placement::DieArray a{4, 4};
    const auto pl = placement::Placement::byName(policy);
    const auto dies = pl->place(RankGrid(p), a);
    const auto mapping = dynamic_cast<const placement::MoePlacement&>(*pl).mapping(RankGrid(p), a);
    llm::StepSpec s;
    s.mode = llm::StepSpec::Mode::Prefill;
    s.batch = 16;
    s.seq = 64;
    const llm::StepBuilder b(m, p, dies, a, b200Die(), s);
    const llm::StepProgram prog = b.build(0);
    Sends out;
    for (const auto& c : prog.comms) {
        const bool a2a = c.kind == "ep dispatch" || c.kind == "ep combine";
        const bool red = c.kind == "moe all-reduce";
        if (!a2a && !red) continue;
        out.bytes[c.kind] += c.bytes;
        const auto& code = prog.fw.program(c.die).code();
        for (uint32_t pc = c.pc_begin; pc < c.pc_end; ++pc) {
            const Instruction& i = code[pc];
            if (i.op != Opcode::Send) continue;
            ++out.messages[c.kind];
            out.max_hops[c.kind] = std::max(out.max_hops[c.kind], a.hops(c.die, i.peer));
            const bool inside = a2a ? mapping.ftdOf(i.peer) == mapping.ftdOf(c.die)
                                    : mapping.groupOf(i.peer) == mapping.groupOf(c.die);
            if (!inside) out.outside[c.kind].insert(c.die);
        }
    }
    return out;
}

}  // namespace

TEST_CASE("MoE placements put rank g * tp + k on the mapping's die of rank k of group g",
          "[llm][moe][placement]") {
    const auto p = ParallelPlan::parse("dp=4,tp=4,ep=16");
    const placement::DieArray a{4, 4};
    const moe::DieMesh mesh(4, 4);
    for (const char* policy : {"moe-baseline", "er"}) {
        const auto dies = placement::Placement::byName(policy)->place(RankGrid(p), a);
        const auto m = std::string(policy) == "er" ? moe::MoeMapping::entwined(mesh, 4, 4)
                                                   : moe::MoeMapping::baseline(mesh, 4, 4);
        const RankGrid g(p);
        for (uint32_t r = 0; r < 16; ++r) {
            INFO(policy << " rank " << r);
            CHECK(dies[r] == m.groups()[g.coord(r).dp][g.coord(r).tp]);
            // The ranks that share a tp index are one FTD.
            CHECK(m.ftdOf(dies[r]) == m.ftdOf(m.groups()[0][g.coord(r).tp]));
        }
    }
    // ER on 4x4, dp = tp = 4: the paper's entwined groups (docs/MOE.md): 2 x 2 FTD blocks.
    const auto er = placement::Placement::byName("er")->place(RankGrid(p), a);
    CHECK(er[0] == 0);  // group 0 rank 0 at D11
    CHECK(er[4] == 1);  // group 1 rank 0 at D12
    CHECK(er[8] == 4);  // group 2 rank 0 at D21
    CHECK(er[12] == 5);
    // Plans with other dimensions are refused, saying which.
    CHECK_THROWS_WITH(placement::Placement::byName("er")->place(
                          RankGrid(ParallelPlan::parse("dp=2,tp=4,pp=2,ep=8")), a),
                      Contains("drop fsdp, sp, pp and tatp"));
}

TEST_CASE(
    "FTD dispatch: every all-to-all message stays in the sender's FTD, every sum in its "
    "TP group; ER halves the longest hop",
    "[llm][moe][ftd]") {
    const Sends base = sendsOf("moe-baseline", "dp=4,tp=4,ep=16");
    const Sends er = sendsOf("er", "dp=4,tp=4,ep=16");
    for (const Sends* s : {&base, &er}) {
        CHECK(s->outside.empty());
        // 2 layers x 16 dies x 3 peers per all-to-all (a die's share for itself is not sent).
        CHECK(s->messages.at("ep dispatch") >= 2 * 16 * 3);
        CHECK(s->messages.at("ep combine") == s->messages.at("ep dispatch"));
        CHECK(s->messages.at("moe all-reduce") > 0);
        // Per die: tokens/tp x top-k x hidden x 2 B per all-to-all (16 x 64 / 4 tokens a group,
        // 256 / 4 to a die), the group's whole activations for the sum.
        CHECK(s->bytes.at("ep dispatch") == 2 * 16 * (256 / 4) * 4 * 256 * 2);
        CHECK(s->bytes.at("moe all-reduce") == 2 * 16 * 256 * 256 * 2);
    }
    // The same bytes leave every die under both mappings; only the distances differ: the
    // baseline's FTD is rank k of four 2 x 2 TP blocks (a 3 x 3 box, 4 hops corner to corner),
    // ER's a 2 x 2 block.
    CHECK(base.bytes == er.bytes);
    CHECK(base.max_hops.at("ep dispatch") == 4);
    CHECK(er.max_hops.at("ep dispatch") == 2);
    // The price: ER's TP rings close over 2 hops, the baseline's over 1.
    CHECK(base.max_hops.at("moe all-reduce") == 1);
    CHECK(er.max_hops.at("moe all-reduce") == 2);
}

TEST_CASE("without FTDs (tp = 1) the expert all-to-all spans the EP group as before",
          "[llm][moe][ftd]") {
    const auto m =
        hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/models/tiny-moe-16.json"));
    const auto p = ParallelPlan::parse("dp=16,ep=16");
    const placement::DieArray a{4, 4};
    const auto dies = placement::Placement::byName("ring")->place(RankGrid(p), a);
    llm::StepSpec s;
    s.mode = llm::StepSpec::Mode::Prefill;
    s.batch = 16;
    s.seq = 64;
    const llm::StepProgram prog = llm::StepBuilder(m, p, dies, a, b200Die(), s).build(0);
    std::set<uint32_t> peers;
    bool reduce = false;
    for (const auto& c : prog.comms) {
        reduce |= c.kind == "moe all-reduce";
        if (c.kind != "ep dispatch" || c.die != dies[0]) continue;
        for (uint32_t pc = c.pc_begin; pc < c.pc_end; ++pc)
            if (prog.fw.program(c.die).code()[pc].op == Opcode::Send)
                peers.insert(prog.fw.program(c.die).code()[pc].peer);
    }
    CHECK(peers.size() == 15);
    CHECK_FALSE(reduce);
}

TEST_CASE(
    "hierarchical ER: all-to-alls stay on the sender's wafer, only same-place dies talk across "
    "wafers, and each all-to-all moves flat ER's bytes",
    "[llm][moe][ftd][her]") {
    // Two 4 x 4 wafers side by side (8 x 4 dies), dp = 8 TP groups of 4, 4 groups per wafer.
    const auto m =
        hw::ModelConfigLoader::loadFile(src("testbench/tests/llm/models/tiny-moe-16.json"));
    const auto p = ParallelPlan::parse("dp=8,tp=4,ep=32");
    const placement::DieArray a{8, 4};
    const placement::MoePlacement her(moe::MappingKind::Hierarchical, 2);
    const auto dies = her.place(RankGrid(p), a);
    const auto mapping = her.mapping(RankGrid(p), a);
    llm::StepSpec s;
    s.mode = llm::StepSpec::Mode::Prefill;
    s.batch = 16;
    s.seq = 64;
    auto run = [&](const std::vector<uint32_t>& rank_die, uint32_t wafers) {
        llm::StepSpec x = s;
        x.her_wafers = wafers;
        return llm::StepBuilder(m, p, rank_die, a, b200Die(), x).build(0);
    };
    const llm::StepProgram prog = run(dies, 2);
    std::map<std::string, uint64_t> bytes, sends;
    std::set<std::string> wrong;
    auto wafer = [&](uint32_t d) { return a.dx(d) / 4; };
    for (const auto& c : prog.comms) {
        bytes[c.kind] += c.bytes;
        const auto& code = prog.fw.program(c.die).code();
        for (uint32_t pc = c.pc_begin; pc < c.pc_end; ++pc) {
            const Instruction& i = code[pc];
            if (i.op != Opcode::Send) continue;
            ++sends[c.kind];
            bool ok = true;
            if (c.kind == "ep dispatch" || c.kind == "ep combine")
                ok = wafer(i.peer) == wafer(c.die);
            else if (c.kind == "her all-gather (inter-wafer)" ||
                     c.kind == "her reduce-scatter (inter-wafer)")
                ok = wafer(i.peer) != wafer(c.die) && a.dx(i.peer) % 4 == a.dx(c.die) % 4 &&
                     a.dy(i.peer) == a.dy(c.die);
            else if (c.kind == "her reduce-scatter (intra-wafer)" ||
                     c.kind == "her all-gather (intra-wafer)")
                ok = mapping.groupOf(i.peer) == mapping.groupOf(c.die);
            if (!ok) wrong.insert(c.kind);
        }
    }
    CHECK(wrong.empty());
    for (const char* k : {"ep dispatch", "ep combine", "her reduce-scatter (intra-wafer)",
                          "her all-gather (inter-wafer)", "her reduce-scatter (inter-wafer)",
                          "her all-gather (intra-wafer)"})
        CHECK(sends[k] > 0);
    // The attention all-reduce before each MoE layer and the TP group's sum after it are gone:
    // flat ER's tp all-reduce bytes (below) exceed HER's by exactly the two layers' attention
    // all-reduces (the embedding's and the head's stay in both).
    CHECK(bytes.count("moe all-reduce") == 0);
    // Per die: the intra-wafer reduce-scatter takes the group's T x hidden, the inter-wafer
    // all-gather gives W = 2 shares of T / tp: tp / W = 2 times less; its reverse the same.
    CHECK(bytes.at("her reduce-scatter (intra-wafer)") ==
          2 * bytes.at("her all-gather (inter-wafer)"));
    CHECK(bytes.at("her reduce-scatter (inter-wafer)") == bytes.at("her all-gather (inter-wafer)"));
    // The all-to-alls move what flat ER's do (the wafer hosts 1/W of the experts for W times
    // the tokens).
    const placement::MoePlacement er(moe::MappingKind::Entwined);
    const llm::StepProgram flat = run(er.place(RankGrid(p), a), 0);
    std::map<std::string, uint64_t> flat_bytes;
    for (const auto& c : flat.comms) flat_bytes[c.kind] += c.bytes;
    CHECK(bytes.at("ep dispatch") == flat_bytes.at("ep dispatch"));
    CHECK(bytes.at("ep combine") == flat_bytes.at("ep combine"));
    CHECK(flat_bytes.at("tp all-reduce") - bytes.at("tp all-reduce") == 2 * 32 * 128 * 256 * 2);
    // Absolute: a group's 16 x 64 / 8 = 128 tokens, a TP rank's quarter times top-4 = 128 rows
    // of 256 x 2 B per die, 32 dies, 2 layers.
    CHECK(bytes.at("ep dispatch") == 2 * 32 * 128 * 256 * 2);
    CHECK(bytes.at("her reduce-scatter (intra-wafer)") == 2 * 32 * 128 * 256 * 2);
    // Decode: one token per group, fewer than the TP ranks; every die still sends its (rounded
    // up) row and the shares still come back across the wafers.
    s.mode = llm::StepSpec::Mode::Decode;
    s.batch = 8;
    s.seq = 64;
    std::map<std::string, uint64_t> dec;
    for (const auto& c : run(dies, 2).comms) dec[c.kind] += c.bytes;
    CHECK(dec["ep dispatch"] > 0);
    CHECK(dec["her reduce-scatter (inter-wafer)"] > 0);
    // Refused where it does not apply, each case saying why.
    s.mode = llm::StepSpec::Mode::Train;
    s.batch = 16;
    CHECK_THROWS_WITH(run(dies, 2), Contains("inference only"));
    s.mode = llm::StepSpec::Mode::Prefill;
    CHECK_THROWS_WITH(run(dies, 8), Contains("tp >= the wafer count"));
    CHECK_THROWS_WITH(run(dies, 3), Contains("dp a multiple of 3"));
}
