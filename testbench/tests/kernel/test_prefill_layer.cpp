// The prefill of a prompt through dense layers as one per-core program (firmware/waferllm/
// PrefillLayerSchedule): a one-head tiny model prefilled on 4x4 and 8x8 meshes equals the plain
// reference (output, and every layer's k and v where the projection leaves them), and decoding
// 16 tokens on top of that prompt stays equal under both KV policies; the layer composition
// rule; cycles by operation; refusals.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "KernelTestUtil.h"
#include "firmware/waferllm/DecodeModelData.h"
#include "testbench/KernelTestbench.h"

using namespace wsc;
using Catch::Matchers::Contains;
using test::wseCore;
using test::wseNoc;

namespace {

// One head (the prefill's scores are one product over the embedding, WaferLLM's prefill
// kernel; for one head that is the model's attention): E 32, FFN 64.
firmware::waferllm::LayerShape oneHead() {
    firmware::waferllm::LayerShape s;
    s.hidden = 32, s.heads = 1, s.kv_heads = 1, s.head_dim = 32, s.ffn = 64;
    return s;
}

// tiny-dense's shape (configs/models/tiny-dense.json): E 64, 4 query heads over 2 KV heads of 16,
// FFN 176.
firmware::waferllm::LayerShape tinyGqa() {
    firmware::waferllm::LayerShape s;
    s.hidden = 64, s.heads = 4, s.kv_heads = 2, s.head_dim = 16, s.ffn = 176;
    return s;
}

tb::KernelSpec prefill(uint32_t p, uint32_t layers, uint64_t prompt) {
    tb::KernelSpec s;
    s.op = "prefill", s.algo = "meshgemm";
    s.p = p;
    s.layer = oneHead(), s.layers = layers;
    s.prompt = prompt;
    return s;
}

// Prefill `shape` on P x P (both attention forms for one head), then decode 16 tokens on its
// cache under both KV policies; every run equals the reference.
void prefillThenDecode(const firmware::waferllm::LayerShape& shape, uint32_t p, bool product,
                       const core::CoreParams& cp, uint64_t seed) {
    firmware::waferllm::DecodeModelData base(shape, 2, 0, seed);
    tb::KernelSpec s = prefill(p, 2, 16);
    s.layer = shape, s.decode_data = &base, s.product_attention = product;
    const auto r = tb::KernelTestbench::run(wseNoc(), cp, s);
    INFO("P=" << p << (product ? " (one product over E)" : "") << ": " << r.notes);
    REQUIRE(r.checked);
    CHECK(r.correct);
    CHECK(r.max_abs_error < 1e-4);
    // The prompt's k and v (checked above on the cores) become the decode's cache.
    base.setPrompt(base.prefillReference(base.promptInput(16), 16));
    for (const char* policy : {"shift", "concat"}) {
        firmware::waferllm::DecodeModelData data = base;
        for (uint64_t g = 0; g < 16; ++g) {
            tb::KernelSpec d;
            d.op = "decode", d.algo = policy, d.p = p;
            d.layer = shape, d.layers = 2, d.prompt = 16, d.generated = g;
            d.decode_data = &data;
            const auto dr = tb::KernelTestbench::run(wseNoc(), cp, d);
            INFO(policy << " decode step " << g + 1);
            REQUIRE(dr.checked);
            CHECK(dr.correct);
            data.advance(data.reference());
        }
    }
}

}  // namespace

TEST_CASE(
    "a one-head tiny model prefills on 4x4 and 8x8 meshes, per head and as WaferLLM's one "
    "product over E, and then decodes 16 tokens, equal to the reference",
    "[kernel][prefill]") {
    for (uint32_t p : {4u, 8u})
        for (bool product : {false, true}) prefillThenDecode(oneHead(), p, product, wseCore(), 11);
}

TEST_CASE(
    "tiny-dense (4 query heads over 2 KV heads) prefills per head on 4x4 and 8x8 and "
    "then decodes 16 tokens, equal to the reference",
    "[kernel][prefill]") {
    // 4 heads tile 4 columns (one each) and 8 columns (two each): attention per head, K and V
    // computed E wide (each query head's copy of its KV head).
    core::CoreParams cp = wseCore();
    cp.sram.capacity_bytes = 256 * 1024;  // two layers at 4x4 need more than 48 KB
    const firmware::waferllm::LayerShape gqa = tinyGqa();
    for (uint32_t p : {4u, 8u}) prefillThenDecode(gqa, p, false, cp, 5);
}

TEST_CASE("prefill: the reference the schedules are checked against is causal",
          "[kernel][prefill]") {
    // Token 0's output depends on token 0 alone, later ones on the prompt so far; so a schedule
    // that dropped or misplaced the mask would differ from the reference (the tests above).
    firmware::waferllm::DecodeModelData data(oneHead(), 1, 0, 3);
    std::vector<float> x = data.promptInput(8);
    const auto a = data.prefillReference(x, 8);
    for (size_t z = 32; z < x.size(); ++z) x[z] += 1.0f;  // change tokens 1..7
    const auto b = data.prefillReference(x, 8);
    for (size_t z = 0; z < 32; ++z) CHECK(a.out[z] == b.out[z]);
    bool later_differs = false;
    for (size_t z = 32; z < a.out.size(); ++z) later_differs |= a.out[z] != b.out[z];
    CHECK(later_differs);
}

TEST_CASE("prefill: L identical layers take at most L (T1 - 1) + 1 cycles, within 1%",
          "[kernel][prefill]") {
    // Unlike decode, prefill layers overlap a little: a row's allreduces couple only that row,
    // so rows that finish the down projection early start the next layer's norm and its qkv
    // alignment shifts. The rule is an upper bound; measured 0.2-0.7% above the whole run.
    for (uint32_t p : {4u, 8u})
        for (uint64_t prompt : {16u, 32u}) {
            tb::KernelSpec one = prefill(p, 1, prompt), two = prefill(p, 2, prompt);
            one.functional = two.functional = false;
            const uint64_t t1 = tb::KernelTestbench::run(wseNoc(), wseCore(), one).cycles;
            const uint64_t t2 = tb::KernelTestbench::run(wseNoc(), wseCore(), two).cycles;
            const uint64_t rule = 2 * (t1 - 1) + 1;
            INFO("P=" << p << " prompt " << prompt << ": rule " << rule << ", whole " << t2);
            CHECK(t2 <= rule);
            CHECK(t2 * 100 >= rule * 99);
            CHECK(t2 > t1);
        }
}

TEST_CASE("prefill: cycles by operation add up; GEMMs dominate", "[kernel][prefill]") {
    // Per-head attention (2 heads tile 4 columns) is one operation; WaferLLM's one product over
    // the embedding (3 heads do not tile 4 columns) is three: scores, softmax, context.
    core::CoreParams cp = wseCore();
    cp.sram.capacity_bytes = 1 << 20;
    for (uint32_t heads : {2u, 3u}) {
        tb::KernelSpec s = prefill(4, 1, 32);
        s.layer.heads = s.layer.kv_heads = heads, s.layer.head_dim = 32;
        s.layer.hidden = 32 * heads, s.layer.ffn = 176;
        s.functional = false;
        const auto r = tb::KernelTestbench::run(wseNoc(), cp, s);
        INFO(heads << " heads: " << r.notes);
        REQUIRE(r.phase_cycles.size() == (heads == 2 ? 7u : 9u));
        uint64_t sum = 0, gemm = 0;
        for (const auto& [name, c] : r.phase_cycles) {
            sum += c;
            if (name == "qkv" || name == "attention" || name == "scores" || name == "context" ||
                name == "o" || name == "up" || name == "down")
                gemm += c;
        }
        CHECK(sum == r.cycles);
        CHECK(gemm > r.cycles * 8 / 10);
    }
}

TEST_CASE(
    "prefill refuses shapes it cannot lay out, functional runs of several heads, and "
    "SRAM overflow",
    "[kernel][prefill]") {
    {
        tb::KernelSpec s = prefill(4, 1, 18);
        CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                          Contains("the prompt (18) does not split over the 4 rows"));
    }
    {
        tb::KernelSpec s = prefill(4, 1, 16);  // 3 heads of 16 do not tile 4 columns
        s.layer.hidden = 48, s.layer.heads = s.layer.kv_heads = 3, s.layer.head_dim = 16;
        CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                          Contains("3 heads do not tile the block's 4 columns") &&
                              Contains("functional runs need one head, or heads dividing P"));
        s.functional = false;
        CHECK(tb::KernelTestbench::run(wseNoc(), wseCore(), s).cycles > 0);
    }
    {
        tb::KernelSpec s = prefill(4, 1, 16);
        s.q = 8;
        CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), wseCore(), s),
                          Contains("square P x P block"));
    }
    {
        core::CoreParams cp = wseCore();
        cp.sram.capacity_bytes = 8 * 1024;
        tb::KernelSpec s = prefill(4, 1, 64);
        CHECK_THROWS_WITH(tb::KernelTestbench::run(wseNoc(), cp, s),
                          Contains("prefill layer: core 0 (row 0, column 0) needs") &&
                              Contains("for a 64-token prompt through 1 layer(s)") &&
                              Contains("over its 8192 B"));
    }
}

TEST_CASE(
    "kv-replace moves the prompt's KV cache from the prefill's layout to the decode's, "
    "exactly, as NoC traffic",
    "[kernel][prefill]") {
    // One head on 4x4 and 8x8, and tiny-dense's grouped-query shape (4 query heads over 2 KV
    // heads of 16) on 4x4 and a 4x8 decode block; both cache layouts.
    const firmware::waferllm::LayerShape gqa = tinyGqa();
    struct Case {
        firmware::waferllm::LayerShape shape;
        uint32_t p, q;
    };
    for (const Case& c :
         {Case{oneHead(), 4, 0}, Case{oneHead(), 8, 0}, Case{gqa, 4, 0}, Case{gqa, 4, 8}})
        for (const char* policy : {"shift", "concat"}) {
            tb::KernelSpec s;
            s.op = "kv-replace", s.algo = policy, s.p = c.p, s.q = c.q;
            s.layer = c.shape, s.layers = 2, s.prompt = 16;
            const auto r = tb::KernelTestbench::run(wseNoc(), wseCore(), s);
            INFO(policy << " " << c.p << "x" << (c.q ? c.q : c.p) << " heads " << c.shape.heads
                        << ": " << r.notes);
            REQUIRE(r.checked);
            CHECK(r.correct);
            CHECK(r.max_abs_error == 0);
            CHECK(r.cycles > 0);
            CHECK(r.relayed_paths == 0);
        }
}

TEST_CASE(
    "weight-replace moves a layer's weights from the prefill's placement to the decode's, "
    "exactly, as NoC traffic",
    "[kernel][prefill]") {
    // tiny-dense's shape (GQA 4/2, FFN 176) and a one-head model, prefill on P x P and decode on
    // P x P or P x 2P (E padded nowhere; the decode's FFN split over 8 columns).
    const firmware::waferllm::LayerShape gqa = tinyGqa();
    core::CoreParams cp = wseCore();
    cp.sram.capacity_bytes = 1 << 20;
    struct Case {
        firmware::waferllm::LayerShape shape;
        uint32_t p, q;
    };
    for (const Case& c :
         {Case{oneHead(), 4, 0}, Case{gqa, 4, 0}, Case{gqa, 4, 8}, Case{gqa, 8, 0}}) {
        tb::KernelSpec s;
        s.op = "weight-replace", s.algo = "shift", s.p = c.p, s.q = c.q;
        s.layer = c.shape, s.layers = 2, s.prompt = 16;
        const auto r = tb::KernelTestbench::run(wseNoc(), cp, s);
        INFO(c.p << "x" << (c.q ? c.q : c.p) << " heads " << c.shape.heads << ": " << r.notes);
        REQUIRE(r.checked);
        CHECK(r.correct);
        CHECK(r.max_abs_error == 0);
        CHECK(r.cycles > 0);
        // 8x8 passes the route limit: relayed paths, forwarded level by level in order.
        if (c.p == 8) CHECK(r.relayed_paths > 0);
    }
}
