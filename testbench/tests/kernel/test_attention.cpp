// Decode attention over a KV cache on a core mesh (firmware/waferllm/DecodeAttentionSchedule):
// the output equals a plain softmax attention on 4x4 and 8x8 meshes under both policies, the
// shift's moves deliver the right tokens, concat's last row slows the step as it grows, and a
// cache that outgrows a core's SRAM stops the run with the core, the step and the bytes.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "KernelTestUtil.h"
#include "firmware/ReduceTree.h"
#include "firmware/waferllm/DecodeAttentionSchedule.h"
#include "noc/Network.h"
#include "testbench/KernelTestbench.h"

using namespace wsc;
using test::wseCore;
using test::wseNoc;

namespace {

tb::KernelSpec attention(const char* policy, uint32_t p, uint32_t q, uint32_t d, uint64_t prompt,
                         uint64_t generated, uint32_t heads = 1) {
    tb::KernelSpec s;
    s.op = "attention", s.algo = policy;
    s.p = p, s.q = q == p ? 0 : q;
    s.k = s.n = d, s.m = heads;
    s.prompt = prompt, s.generated = generated;
    return s;
}

}  // namespace

TEST_CASE("decode attention equals the reference on 4x4 and 8x8 meshes under both KV policies",
          "[kernel][attention]") {
    // 16 decode steps from a 12-token prompt, as the functional check asks, with the
    // shift's moves (checked too: each receiver's Ki and Vi hold the oldest token of the row
    // below) on every step where the cascade runs.
    for (uint32_t p : {4u, 8u})
        for (const char* policy : {"shift", "concat"})
            for (uint64_t g = 0; g < 16; ++g) {
                const auto r = tb::KernelTestbench::run(
                    wseNoc(), wseCore(), attention(policy, p, p, 2 * p, 12, g, g % 2 ? 2 : 1));
                INFO(policy << " P=" << p << " step " << g + 1 << ": " << r.notes);
                REQUIRE(r.checked);
                CHECK(r.correct);
                CHECK(r.max_abs_error < 1e-5);
            }
}

TEST_CASE("decode attention: the shift moves one token per row below the cascade's end",
          "[kernel][attention]") {
    // 4 rows, 13 + 3 = 16 tokens before the step: all rows hold 4, so the new token cascades to
    // the top: 3 moves (rows 3, 2, 1 each send one up), checked by the functional run.
    const auto r =
        tb::KernelTestbench::run(wseNoc(), wseCore(), attention("shift", 4, 4, 8, 13, 3));
    CHECK(r.notes.find("3 KV moves") != std::string::npos);
    CHECK(r.correct);
    const auto c =
        tb::KernelTestbench::run(wseNoc(), wseCore(), attention("concat", 4, 4, 8, 13, 3));
    CHECK(c.notes.find("0 KV moves") != std::string::npos);
}

TEST_CASE("decode attention: concat's last row makes the step grow with the decoded tokens",
          "[kernel][attention]") {
    // 4x4 cores, a 64-token prompt: 64 decoded tokens later concat's last row holds 80 tokens
    // against the shift's 32 or 33, and its step (timing only) is that much longer; the shift's
    // grows only with the whole cache's share per row.
    auto cycles = [](const char* policy, uint64_t g) {
        auto s = attention(policy, 4, 4, 16, 64, g);
        s.functional = false;
        return tb::KernelTestbench::run(wseNoc(), wseCore(), s).cycles;
    };
    const uint64_t s0 = cycles("shift", 0), s64 = cycles("shift", 64);
    const uint64_t c0 = cycles("concat", 0), c64 = cycles("concat", 64);
    CHECK(s64 >= s0);
    CHECK(c64 > s64);
    CHECK(double(c64 - c0) > 2.0 * double(s64 - s0));
}

TEST_CASE("decode attention stops a cache that outgrows a core's SRAM naming core, step and bytes",
          "[kernel][attention]") {
    core::CoreParams cp = wseCore();
    cp.sram.capacity_bytes = 4096;
    auto s = attention("concat", 4, 4, 16, 32, 100);
    s.functional = false;
    // Concat: the last row holds 8 + 100 + 1 tokens of 2 x 4 fp32 features: 3488 B of K and V.
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), cp, s),
                      Catch::Contains("concat): core 12 (row 3, column 0) needs") &&
                          Catch::Contains("at decode step 101 (token 132): 3488 B of K and V for "
                                          "the 109 tokens its row holds") &&
                          Catch::Contains("kept for early arrivals, over its 4096 B"));
    // The shift spreads the same cache: 133 tokens over 4 rows fit.
    s.algo = "shift";
    CHECK_NOTHROW(tb::KernelTestbench::run(wseNoc(), cp, s));
}

TEST_CASE("decode attention: coreBytes is every buffer a core declares", "[kernel][attention]") {
    using firmware::waferllm::DecodeAttentionSchedule;
    using firmware::waferllm::KvCache;
    for (const char* policy : {"shift", "concat"}) {
        DecodeAttentionSchedule::Spec a;
        a.mesh_x = a.mesh_y = 4, a.rows = a.cols = 4, a.head_dim = 8, a.q_heads = 3;
        a.policy = KvCache::parse(policy), a.prompt = 13, a.generated = 3;
        const DecodeAttentionSchedule sched(a);
        noc::NocParams np = wseNoc();
        np.topology.x = np.topology.y = 4;
        noc::Network net(np);
        const firmware::KernelPlan plan = sched.build(net);
        KvCache kv(a.policy, 4, 13);
        kv.advance(3);
        std::vector<uint8_t> gets(4, 0);
        for (const auto& m : kv.nextMoves()) gets[m.to] = 1;
        const uint32_t root = firmware::ReduceTree::kTree(4, 2).root();
        for (uint32_t r = 0; r < 4; ++r)
            for (uint32_t j = 0; j < 4; ++j) {
                uint64_t all = 0;
                for (const auto& b : plan.fw.program(r * 4 + j).buffers()) all += b.bytes();
                CHECK(all == sched.coreBytes(kv.count(r) + (r == 3), gets[r], r == root));
            }
        // The capacity is the largest row that fits: one token more does not.
        const uint64_t cap = sched.rowCapacity(4096);
        CHECK(sched.coreBytes(cap + 1, true, true) + sched.rxReserve(cap + 1) <= 4096);
        CHECK(sched.coreBytes(cap + 2, true, true) + sched.rxReserve(cap + 2) > 4096);
    }
}

TEST_CASE(
    "decode attention runs at its reported row capacity and is refused well past it, never a "
    "deadlock",
    "[kernel][attention]") {
    // 48 KB cores, 8 x 4 block, D = 64, 4 query heads: fill the shift's rows to the capacity the
    // schedule computes (its receive reserve keeps room for the heads' early score partials).
    using firmware::waferllm::DecodeAttentionSchedule;
    DecodeAttentionSchedule::Spec a;
    a.rows = 8, a.cols = 4, a.head_dim = 64, a.q_heads = 4, a.mesh_x = 4, a.mesh_y = 8;
    const uint64_t cap = DecodeAttentionSchedule(a).rowCapacity(48 * 1024);
    auto s = attention("shift", 8, 4, 64, 64, 8 * cap - 64 - 8, 4);  // 8 cap - 8 tokens
    s.functional = false;
    const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
    CHECK(r.cycles > 0);
    s.generated += 80;  // 10 tokens more per row: over the capacity on every row
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                      Catch::Contains("kept for early arrivals"));
}

TEST_CASE("decode attention refuses a layout with an empty row, naming the prompt it needs",
          "[kernel][attention]") {
    // 4 rows, 2 prompt tokens: rows 2 and 3 would hold nothing to attend over (concat never
    // fills them; shift only once 3 tokens are in the cache).
    for (const char* policy : {"concat", "shift"})
        CHECK_THROWS_WITH(
            tb::KernelTestbench::run(wseNoc(), wseCore(), attention(policy, 4, 4, 8, 2, 0)),
            Catch::Contains("holds no token at decode step 1") &&
                Catch::Contains("a prompt of at least 4 tokens"));
    // Shift fills every row once the cache holds P - 1 tokens before the step.
    CHECK(tb::KernelTestbench::run(wseNoc(), wseCore(), attention("shift", 4, 4, 8, 2, 1)).correct);
}
