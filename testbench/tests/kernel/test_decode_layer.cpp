// A decode step through dense layers as one per-core program (firmware/waferllm/
// DecodeLayerSchedule): a tiny model decoded for 16 tokens on 4x4 and 8x8 meshes equals the
// plain reference under both KV policies (the cache of each step holds what the earlier steps
// computed, and every step's new k and v land in the cache's last slot); the layer composition
// rule; SRAM overflow and shape refusals.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <tuple>
#include <utility>

#include "KernelTestUtil.h"
#include "firmware/waferllm/DecodeModelData.h"
#include "testbench/KernelTestbench.h"

using namespace wsc;
using Catch::Matchers::Contains;
using test::wseCore;
using test::wseNoc;

namespace {

// configs/models/tiny-dense.json's shape: E 64, 4 query heads over 2 KV heads of 16, FFN 176.
firmware::waferllm::LayerShape tiny() {
    firmware::waferllm::LayerShape s;
    s.hidden = 64, s.heads = 4, s.kv_heads = 2, s.head_dim = 16, s.ffn = 176;
    return s;
}

tb::KernelSpec decode(const char* policy, uint32_t p, uint32_t layers, uint64_t prompt,
                      uint64_t generated) {
    tb::KernelSpec s;
    s.op = "decode", s.algo = policy;
    s.p = p;
    s.layer = tiny(), s.layers = layers;
    s.prompt = prompt, s.generated = generated;
    return s;
}

}  // namespace

TEST_CASE("a tiny model decodes 16 tokens on 4x4 and 8x8 meshes equal to the reference",
          "[kernel][decode]") {
    for (uint32_t p : {4u, 8u})
        for (const char* policy : {"shift", "concat"}) {
            firmware::waferllm::DecodeModelData data(tiny(), 2, 16, 7);
            for (uint64_t g = 0; g < 16; ++g) {
                tb::KernelSpec s = decode(policy, p, 2, 16, g);
                s.decode_data = &data;
                const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
                INFO(policy << " P=" << p << " step " << g + 1 << ": " << r.notes);
                REQUIRE(r.checked);
                CHECK(r.correct);
                CHECK(r.max_abs_error < 1e-5);
                data.advance(data.reference());
            }
            CHECK(data.tokens() == 32);
        }
}

TEST_CASE("decode: L identical layers take L (T1 - 1) + 1 cycles", "[kernel][decode]") {
    // Every layer ends with the down projection's row multicast and the residual add, and the
    // next starts with the column allreduce of its norm, which waits for the whole column: the
    // layers do not overlap, so the model's step is the layer's cycles L times (cycles count
    // from 0 to the last retire, hence the -1 and +1).
    for (uint32_t p : {4u, 8u})
        for (const char* policy : {"shift", "concat"})
            for (uint64_t g : {0u, 9u}) {
                tb::KernelSpec one = decode(policy, p, 1, 16, g), two = decode(policy, p, 2, 16, g);
                one.functional = two.functional = false;
                const uint64_t t1 = tb::KernelTestbench::run(wseNoc(), wseCore(), one).cycles;
                const uint64_t t2 = tb::KernelTestbench::run(wseNoc(), wseCore(), two).cycles;
                INFO(policy << " P=" << p << " generated " << g);
                CHECK(t2 == 2 * (t1 - 1) + 1);
            }
}

TEST_CASE("decode: the routes of operations with the same trees are shared", "[kernel][decode]") {
    tb::KernelSpec s = decode("shift", 8, 1, 16, 0);
    s.functional = false;
    const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
    // The two norms, the two column GEMVs and the heads' output broadcast use the same column
    // trees and multicasts; the route limit (24) holds with room.
    CHECK_THAT(r.notes, Contains("route(s) shared between operations"));
    CHECK(r.relayed_paths == 0);
    CHECK(r.rejected_multicasts == 0);
    CHECK(r.routes_per_core <= 24);
}

TEST_CASE("decode stops a layer that outgrows a core's SRAM naming core, step and bytes",
          "[kernel][decode]") {
    core::CoreParams cp = wseCore();
    cp.sram.capacity_bytes = 6 * 1024;
    tb::KernelSpec s = decode("concat", 4, 1, 16, 40);
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), cp, s),
                      Contains("decode layer (concat): core 0 (row 0, column 0) needs") &&
                          Contains("at decode step 41 (token 56)") &&
                          Contains("B of KV cache for the 4 tokens its row holds") &&
                          Contains("over its 6144 B"));
}

TEST_CASE("decode pads a hidden size or FFN that does not split evenly, with the same values",
          "[kernel][decode]") {
    // E 64 over 5 or 12 rows, FFN 176 over 8 columns split evenly; FFN 100 over 8 does not.
    for (auto [p, q, ffn] :
         {std::tuple<uint32_t, uint32_t, uint32_t>{5, 4, 176}, {12, 8, 176}, {8, 8, 100}}) {
        tb::KernelSpec s = decode("shift", p, 2, 16, 1);
        s.q = q == p ? 0 : q;
        s.layer.ffn = ffn;
        const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
        INFO(p << "x" << q << " ffn " << ffn);
        REQUIRE(r.checked);
        CHECK(r.correct);
        uint64_t sum = 0;
        for (const auto& ph : r.phase_cycles) sum += ph.second;
        CHECK(sum == r.cycles);  // the split adds up
    }
}

TEST_CASE("decode: cycles by operation add up and follow the cache", "[kernel][decode]") {
    core::CoreParams cp = wseCore();
    cp.sram.capacity_bytes = 1 << 20;
    auto share = [&](uint64_t generated) {
        tb::KernelSpec s = decode("concat", 8, 1, 16, generated);
        s.functional = false;
        const auto r = tb::KernelTestbench::run(wseNoc(), cp, s);
        REQUIRE(r.phase_cycles.size() == 7);
        uint64_t sum = 0, attn = 0;
        for (const auto& [name, c] : r.phase_cycles) {
            sum += c;
            if (name == "attention") attn = c;
        }
        CHECK(sum == r.cycles);
        return std::make_pair(attn, r.cycles - attn);
    };
    // Concatenation piles the decoded tokens on the last row: attention grows, the rest not.
    const auto a = share(0), b = share(200);
    CHECK(b.first > 5 * a.first);
    CHECK(b.second == a.second);
}

TEST_CASE("decode refuses shapes its layout cannot take", "[kernel][decode]") {
    tb::KernelSpec s = decode("shift", 3, 1, 16, 0);  // 3 columns for 2 KV heads
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                      Contains("do not split over the 2 KV heads"));
    s = decode("shift", 8, 1, 16, 0);
    s.layer.head_dim = 6;  // 4 columns per KV head
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                      Contains("head_dim 6 does not split over the 4 columns of a KV head"));
    s = decode("shift", 8, 1, 4, 0);  // 5 tokens over 8 rows
    CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s), Contains("holds no token"));
}
