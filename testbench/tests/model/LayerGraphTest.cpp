// LayerGraph: the operator graph's shapes, FLOPs and saved activations against closed forms
// (6 N T for the linear layers, the attention products, Korthikanti et al.'s activation memory,
// balanced MoE routing).
#include <catch2/catch.hpp>
#include <cmath>
#include <stdexcept>
#include <string>
#include <vector>

#include "ModelTestUtil.h"

using namespace wsc::firmware::model;
using wsc::test::loadModel;
using wsc::test::shape;
using wsc::test::sumOps;

namespace {

const Block& blockOf(const LayerGraph& g, Block::Kind k) {
    for (const Block& b : g.blocks())
        if (b.kind == k) return b;
    throw std::logic_error("no such block");
}

const Operator& op(const Block& b, const std::string& name) {
    const Operator* o = b.find(name);
    if (!o) throw std::logic_error("no operator " + name);
    return *o;
}

std::vector<std::string> names(const Block& b) {
    std::vector<std::string> v;
    for (const Operator& o : b.ops) v.push_back(o.name);
    return v;
}

// Training FLOPs (fwd + dX + dW) of every Linear outside the LM head: the 6 N T part.
uint64_t linearTrainFlops(const LayerGraph& g) {
    return sumOps(g, [](const Operator& o) {
        return o.kind == OpKind::Linear && o.name != "head.lm"
                   ? o.totalFwdFlops() + o.totalBwdFlops()
                   : 0;
    });
}

}  // namespace

TEST_CASE("Operators of a dense, an MoE, an embedding and a head block, in order",
          "[model][graph]") {
    const LayerGraph llama = LayerGraph::build(loadModel("tiny-dense"), shape(1, 8));
    CHECK(names(blockOf(llama, Block::Kind::Dense)) ==
          std::vector<std::string>{"attn.norm", "attn.qkv", "attn.score", "attn.softmax",
                                   "attn.context", "attn.out", "attn.residual", "mlp.norm",
                                   "mlp.gate_up", "mlp.act", "mlp.down", "mlp.residual"});
    CHECK(names(llama.embedding()) == std::vector<std::string>{"embed.tokens"});
    CHECK(names(llama.head()) == std::vector<std::string>{"head.norm", "head.lm", "head.loss"});
    const LayerGraph mix = LayerGraph::build(loadModel("tiny-moe"), shape(1, 8));
    CHECK(names(blockOf(mix, Block::Kind::Moe)) ==
          std::vector<std::string>{"attn.norm", "attn.qkv", "attn.score", "attn.softmax",
                                   "attn.context", "attn.out", "attn.residual", "mlp.norm",
                                   "moe.router", "moe.route", "moe.expert.gate_up",
                                   "moe.expert.act", "moe.expert.down", "mlp.residual"});
    const LayerGraph gpt = LayerGraph::build(loadModel("gpt3-6.7b"), shape(1, 8));
    CHECK(names(gpt.embedding()) == std::vector<std::string>{"embed.tokens", "embed.positions"});
    CHECK(blockOf(gpt, Block::Kind::Dense).find("mlp.up"));
    const LayerGraph ds = LayerGraph::build(loadModel("deepseek-v3"), shape(1, 8));
    CHECK(names(blockOf(ds, Block::Kind::Moe)) ==
          std::vector<std::string>{
              "attn.norm",       "attn.q_a",        "attn.q_a_norm",      "attn.q_b",
              "attn.kv_a",       "attn.kv_a_norm",  "attn.kv_b",          "attn.score",
              "attn.softmax",    "attn.context",    "attn.out",           "attn.residual",
              "mlp.norm",        "moe.router",      "moe.route",          "moe.expert.gate_up",
              "moe.expert.act",  "moe.expert.down", "moe.shared.gate_up", "moe.shared.act",
              "moe.shared.down", "mlp.residual"});
}

TEST_CASE("Shapes, TP splits and parameters of a GQA layer", "[model][graph]") {
    // tiny-dense: h 64, 4 heads of 16, 2 KV heads, gated MLP 176, vocab 256.
    const uint64_t B = 3, s = 8, T = B * s, h = 64, d = 16, i = 176;
    const LayerGraph g = LayerGraph::build(loadModel("tiny-dense"), shape(B, s));
    const Block& L = blockOf(g, Block::Kind::Dense);
    CHECK(L.repeat == 2);
    CHECK(L.layers == std::vector<uint64_t>{0, 1});
    const Operator& qkv = op(L, "attn.qkv");
    CHECK(qkv.tp == TpSplit::Column);
    CHECK((qkv.rows == T && qkv.in == h && qkv.out == (4 + 2 * 2) * d));
    CHECK(qkv.params == h * 8 * d);
    CHECK(qkv.fwd_flops == 2 * T * h * 8 * d);
    CHECK(qkv.bwd_dx_flops == qkv.fwd_flops);
    CHECK(qkv.bwd_dw_flops == qkv.fwd_flops);
    const Operator& score = op(L, "attn.score");
    CHECK(score.tp == TpSplit::Heads);
    CHECK((score.batch == B * 4 && score.rows == s && score.in == d && score.out == s));
    const Operator& ctx = op(L, "attn.context");
    CHECK((ctx.batch == B * 4 && ctx.rows == s && ctx.in == s && ctx.out == d));
    const Operator& out = op(L, "attn.out");
    CHECK(out.tp == TpSplit::Row);
    CHECK((out.in == 4 * d && out.out == h && out.params == 4 * d * h));
    const Operator& up = op(L, "mlp.gate_up");
    CHECK(up.tp == TpSplit::Column);
    CHECK(up.ffn == FfnRole::Dense);
    CHECK((up.out == 2 * i && up.params == 2 * h * i));
    const Operator& down = op(L, "mlp.down");
    CHECK(down.tp == TpSplit::Row);
    CHECK((down.in == i && down.out == h));
    CHECK(op(L, "attn.norm").params == h);
    CHECK(op(L, "attn.norm").fwd_flops == 4 * T * h);  // RMSNorm: 4 per element
    CHECK(op(L, "mlp.act").fwd_flops == 5 * T * i);    // SiLU 4 + gate multiply 1
    CHECK(op(g.head(), "head.lm").params == 256 * h);
    CHECK(op(g.head(), "head.loss").elems == T * 256);
    // Whole model: embedding, 2 layers, final norm, LM head.
    const uint64_t layer = h * 8 * d + 4 * d * h + 3 * h * i + 2 * h;
    CHECK(g.params() == 256 * h + 2 * layer + h + 256 * h);
    CHECK(&g.layer(1) == &L);
    CHECK_THROWS_AS(g.layer(2), std::out_of_range);
}

TEST_CASE("Linear-layer training FLOPs are 6 N T for every dense shipped model",
          "[model][graph][flops]") {
    const uint64_t B = 2, s = 128, T = B * s;
    for (const char* name : {"tiny-dense", "llama2-7b", "llama2-13b", "llama3-8b", "llama3-70b",
                             "llama-30b", "gpt3-6.7b", "gpt3-76b", "gpt3-175b", "opt-175b"}) {
        INFO(name);
        const LayerGraph g = LayerGraph::build(loadModel(name), shape(B, s));
        // N = the weights of the Linear operators outside the LM head; biases cost 2 per
        // element and token (forward add, dW reduction) instead of 6.
        uint64_t weights = 0, biases = 0;
        for (const Block& b : g.blocks())
            for (const Operator& o : b.ops)
                if (o.kind == OpKind::Linear && o.name != "head.lm") {
                    weights += b.repeat * o.in * o.out * o.instances;
                    biases += b.repeat * (o.params - o.in * o.out) * o.instances;
                }
        CHECK(linearTrainFlops(g) == 6 * T * weights + 2 * T * biases);
        // ... within 1% of 6 T times the non-embedding parameters (norms and biases differ).
        CHECK(std::abs(double(linearTrainFlops(g)) / (6.0 * T * g.nonEmbeddingParams()) - 1) <
              0.01);
        // The LM head adds 6 T h V; embedding and element-wise work are on top of that.
        const Operator& lm = op(g.head(), "head.lm");
        CHECK(lm.totalFwdFlops() + lm.totalBwdFlops() == 6 * T * lm.in * lm.out);
    }
}

TEST_CASE("MoE linear training FLOPs are 6 N_active T", "[model][graph][flops]") {
    // tiny-moe: 4 experts of 3 h i (h 64, i 128), top-2, router 4 h.
    const uint64_t B = 2, s = 16, T = B * s, h = 64, i = 128, d = 16;
    const LayerGraph g = LayerGraph::build(loadModel("tiny-moe"), shape(B, s));
    const uint64_t attn = h * 8 * d + 4 * d * h, router = 4 * h, expert = 3 * h * i;
    CHECK(linearTrainFlops(g) == 2 * 6 * T * (attn + router + 2 * expert));
    for (const char* name : {"mixtral-8x7b", "mixtral-8x22b", "qwen3-235b-a22b", "deepseek-v3",
                             "deepseek-v2", "dbrx", "qwen1.5-moe-a2.7b"}) {
        INFO(name);
        const LayerGraph big = LayerGraph::build(loadModel(name), shape(1, 1024));
        const uint64_t lmHead = op(big.head(), "head.lm").params;
        const double n = double(big.activeParams() - big.embeddingParams() - lmHead);
        CHECK(std::abs(double(linearTrainFlops(big)) / (6.0 * 1024 * n) - 1) < 0.01);
    }
}

TEST_CASE("Attention FLOPs equal their closed form", "[model][graph][flops]") {
    const ModelConfig m = loadModel("llama2-7b");
    const uint64_t B = 2, s = 4096, a = 32, d = 128;
    GraphShape sh = shape(B, s);
    const LayerGraph g = LayerGraph::build(m, sh);
    const Block& L = blockOf(g, Block::Kind::Dense);
    // Causal: query i attends i + 1 keys, s (s + 1) / 2 pairs per (sequence, head).
    const uint64_t pairs = s * (s + 1) / 2;
    const Operator& score = op(L, "attn.score");
    const Operator& ctx = op(L, "attn.context");
    CHECK(score.fwd_flops == 2 * B * a * pairs * d);
    CHECK(ctx.fwd_flops == 2 * B * a * pairs * d);
    CHECK(score.bwd_dx_flops == 2 * score.fwd_flops);  // dQ and dK
    CHECK(ctx.bwd_dx_flops == 2 * ctx.fwd_flops);      // dP and dV
    CHECK(score.bwd_dw_flops == 0);
    CHECK(score.causal_fraction == Approx((s + 1) / (2.0 * s)));
    CHECK(op(L, "attn.softmax").elems == B * a * pairs);
    // The full square (Megatron's MFU formula): 4 B s^2 h forward per layer.
    sh.skip_masked = false;
    const LayerGraph full = LayerGraph::build(m, sh);
    const Block& F = blockOf(full, Block::Kind::Dense);
    CHECK(op(F, "attn.score").fwd_flops + op(F, "attn.context").fwd_flops == 4 * B * s * s * a * d);
    CHECK(op(F, "attn.score").causal_fraction == 1.0);
    // Flash attention recomputes Q K^T and the softmax in backward.
    sh.skip_masked = true;
    sh.flash_attention = true;
    const LayerGraph flash = LayerGraph::build(m, sh);
    const Block& FA = blockOf(flash, Block::Kind::Dense);
    CHECK(op(FA, "attn.score").bwd_dx_flops == 3 * score.fwd_flops);
    CHECK(op(FA, "attn.softmax").bwd_dx_flops == 3 * op(L, "attn.softmax").fwd_flops);
}

TEST_CASE("Decode attention spans the KV cache", "[model][graph][flops]") {
    GraphShape sh = shape(4, 1);
    sh.past_len = 999;
    const LayerGraph g = LayerGraph::build(loadModel("llama3-8b"), sh);
    const Operator& score = op(blockOf(g, Block::Kind::Dense), "attn.score");
    CHECK((score.rows == 1 && score.out == 1000));
    CHECK(score.causal_fraction == 1.0);
    CHECK(score.fwd_flops == 2 * 4 * 32 * 1000 * 128);
    // Prefill of 10 tokens after 90 cached: 10 x 90 + 10 x 11 / 2 pairs.
    sh.seq_len = 10;
    sh.past_len = 90;
    const LayerGraph prefill = LayerGraph::build(loadModel("llama3-8b"), sh);
    const Operator& pre = op(blockOf(prefill, Block::Kind::Dense), "attn.score");
    CHECK(pre.fwd_flops == 2 * 4 * 32 * (10 * 90 + 55) * 128);
    CHECK(pre.causal_fraction == Approx((10 * 90 + 55) / 1000.0));
}

TEST_CASE("GPT-3 activation memory is Korthikanti et al.'s s b h (34 + 5 a s / h)",
          "[model][graph][memory]") {
    for (const char* name : {"gpt3-6.7b", "gpt3-76b", "gpt3-175b"}) {
        INFO(name);
        const ModelConfig m = loadModel(name);
        const uint64_t b = 2, s = 2048, h = m.hidden, a = m.heads;
        const LayerGraph g = LayerGraph::build(m, shape(b, s));
        const Block& L = blockOf(g, Block::Kind::Dense);
        CHECK(L.savedBytes(2) == s * b * h * 34 + 5 * a * s * s * b);
        // The same in Korthikanti's split: 16 sbh + 2 a s^2 b fp16 elements, 2 sbh + a s^2 b
        // one-byte dropout masks.
        CHECK(L.savedElems() == 16 * s * b * h + 2 * a * s * s * b);
        CHECK(L.savedMaskElems() == 2 * s * b * h + a * s * s * b);
        // Flash attention keeps no score matrix: one fp32 log-sum-exp per row instead.
        GraphShape fl = shape(b, s);
        fl.flash_attention = true;
        CHECK(blockOf(LayerGraph::build(m, fl), Block::Kind::Dense).savedBytes(2) ==
              s * b * h * 34 + 4 * a * s * b);
        // Without dropout (inference, or a model trained without): 32 sbh + 2 a s^2 b, the
        // probabilities stored once.
        GraphShape nd = shape(b, s);
        nd.dropout = false;
        CHECK(blockOf(LayerGraph::build(m, nd), Block::Kind::Dense).savedBytes(2) ==
              s * b * h * 32 + 2 * a * s * s * b);
    }
}

TEST_CASE("Llama activation memory: GQA and the gated MLP change the closed form",
          "[model][graph][memory]") {
    const ModelConfig m = loadModel("llama3-70b");
    const uint64_t b = 1, s = 4096, h = 8192, a = 64, g = 8, d = 128, i = 28672, T = b * s;
    const LayerGraph graph = LayerGraph::build(m, shape(b, s));
    const Block& L = blockOf(graph, Block::Kind::Dense);
    // Elements: 2 norm inputs, QKV and gate_up inputs (4 T h), Q and K, V, the output
    // projection's input, the score matrix, gate and up, the down projection's input.
    const uint64_t elems = T * (4 * h + (a + g) * d + g * d + a * d + 3 * i) + a * s * s * b;
    CHECK(L.savedElems() == elems);
    CHECK(L.savedMaskElems() == 0);  // attention_dropout 0.0
    CHECK(L.savedBytes(2) == 2 * elems);
}

TEST_CASE("Routed experts see tokens x top-k / experts rows", "[model][graph][moe]") {
    // tiny-moe: 4 experts, top-2, h 64, i 128.
    const ModelConfig m = loadModel("tiny-moe");
    const uint64_t h = 64, i = 128;
    {
        const LayerGraph g = LayerGraph::build(m, shape(3, 8));
        const Block& M = blockOf(g, Block::Kind::Moe);
        const Operator& up = op(M, "moe.expert.gate_up");
        CHECK(up.ffn == FfnRole::RoutedExpert);
        CHECK(up.instances == 4);
        CHECK(up.rows == 24 * 2 / 4);
        CHECK(up.extra_rows == 0);
        CHECK(up.totalRows() == 48);
        CHECK(up.totalFwdFlops() == 2 * 48 * h * 2 * i);
        CHECK(op(M, "moe.router").out == 4);
        CHECK(op(M, "moe.route").elems == 24 * 4);
    }
    {
        // 5 tokens x 2 = 10 pairs over 4 experts: two experts get 3 rows, two get 2.
        const LayerGraph g = LayerGraph::build(m, shape(1, 5));
        const Block& M = blockOf(g, Block::Kind::Moe);
        const Operator& down = op(M, "moe.expert.down");
        CHECK(down.rows == 2);
        CHECK(down.extra_rows == 2);
        CHECK(down.totalRows() == 10);
        CHECK(down.totalFwdFlops() == 2 * 10 * i * h);
        CHECK(down.totalSavedElems() == 10 * i);
    }
    {
        // One token: two experts get it, two get nothing.
        const LayerGraph g = LayerGraph::build(m, shape(1, 1));
        const Block& M = blockOf(g, Block::Kind::Moe);
        const Operator& up = op(M, "moe.expert.gate_up");
        CHECK(up.rows == 0);
        CHECK(up.extra_rows == 2);
        CHECK(up.fwd_flops == 0);
        CHECK(up.totalFwdFlops() == 2 * 2 * h * 2 * i);
    }
}

TEST_CASE("DeepSeek-V3: dense and MoE blocks, MLA shapes, shared expert", "[model][graph][moe]") {
    const LayerGraph g = LayerGraph::build(loadModel("deepseek-v3"), shape(1, 16));
    REQUIRE(g.blocks().size() == 4);
    const Block& D = blockOf(g, Block::Kind::Dense);
    const Block& M = blockOf(g, Block::Kind::Moe);
    CHECK(D.layers == std::vector<uint64_t>{0, 1, 2});
    CHECK(M.repeat == 58);
    CHECK(&g.layer(2) == &D);
    CHECK(&g.layer(3) == &M);
    CHECK(&g.layer(60) == &M);
    // MLA: q 1536 -> 128 x 192, kv 512 -> 128 x (128 + 128), scores over 192, values 128.
    CHECK(op(M, "attn.q_b").out == 128 * 192);
    CHECK(op(M, "attn.kv_a").out == 512 + 64);
    CHECK(op(M, "attn.kv_b").out == 128 * 256);
    CHECK(op(M, "attn.score").in == 192);
    CHECK(op(M, "attn.context").out == 128);
    CHECK(op(M, "attn.out").in == 128 * 128);
    const Operator& shared = op(M, "moe.shared.gate_up");
    CHECK(shared.ffn == FfnRole::SharedExpert);
    CHECK((shared.instances == 1 && shared.rows == 16 && shared.out == 2 * 2048));
    CHECK(op(M, "moe.expert.gate_up").rows == 16 * 8 / 256);
    CHECK(op(M, "moe.expert.gate_up").extra_rows == 16 * 8 % 256);
}

TEST_CASE("Tied embeddings: parameters once, the LM head's gradient still computed",
          "[model][graph]") {
    const LayerGraph g = LayerGraph::build(loadModel("gpt3-175b"), shape(1, 16));
    const Operator& lm = op(g.head(), "head.lm");
    CHECK(lm.params == 0);
    CHECK(lm.tied_to == "embed.tokens");
    CHECK(lm.bwd_dw_flops == 2ULL * 16 * 12288 * 50257);
    CHECK(op(g.embedding(), "embed.tokens").params == 50257ULL * 12288);
    CHECK(op(g.embedding(), "embed.positions").params == 2048ULL * 12288);
    CHECK(g.embeddingParams() == (50257ULL + 2048) * 12288);
}

TEST_CASE("Impossible shapes are refused naming the field", "[model][graph][errors]") {
    const ModelConfig m = loadModel("opt-175b");
    CHECK_THROWS_WITH(LayerGraph::build(m, shape(1, 4096)),
                      Catch::Contains("seq_len 4096 (+ past_len 0) exceeds the model's "
                                      "max_position_embeddings 2048"));
    CHECK_THROWS_WITH(LayerGraph::build(m, shape(0, 16)), Catch::Contains("sequences"));
    CHECK_THROWS_WITH(LayerGraph::build(loadModel("deepseek-v3"), shape(uint64_t{1} << 40, 4096)),
                      Catch::Contains("overflow 64 bits"));
    ModelConfig bad = loadModel("tiny-dense");
    bad.kv_heads = 3;
    CHECK_THROWS_WITH(LayerGraph::build(bad, shape(1, 1)),
                      Catch::Contains("num_key_value_heads 3 does not divide"));
}

TEST_CASE("Element-wise costs are the documented per-element counts", "[model][graph][flops]") {
    // GPT-3 6.7B: LayerNorm with shift, GeLU, learned positions, tied head.
    const uint64_t T = 2 * 16, h = 4096, i = 16384, V = 50257, a = 32;
    const LayerGraph g = LayerGraph::build(loadModel("gpt3-6.7b"), shape(2, 16));
    const Block& L = blockOf(g, Block::Kind::Dense);
    CHECK(op(L, "attn.norm").fwd_flops == 7 * T * h);
    CHECK(op(L, "attn.norm").bwd_dx_flops == 14 * T * h);
    CHECK(op(L, "attn.norm").bwd_dw_flops == 3 * T * h);
    CHECK(op(L, "attn.norm").params == 2 * h);
    CHECK(op(L, "mlp.act").fwd_flops == 8 * T * i);
    CHECK(op(L, "mlp.act").bwd_dx_flops == 16 * T * i);
    CHECK(op(L, "attn.softmax").fwd_flops == 5 * 2 * a * (16 * 17 / 2));
    CHECK(op(L, "attn.residual").fwd_flops == T * h);
    CHECK(op(L, "attn.residual").bwd_dx_flops == 0);
    CHECK(op(L, "attn.qkv").params == h * 3 * h + 3 * h);                 // biases
    CHECK(op(L, "attn.qkv").fwd_flops == 2 * T * h * 3 * h + T * 3 * h);  // + bias adds
    CHECK(op(L, "attn.qkv").bwd_dw_flops == 2 * T * h * 3 * h + T * 3 * h);
    CHECK(op(g.head(), "head.loss").fwd_flops == 5 * T * V);
    CHECK(op(g.head(), "head.loss").bwd_dx_flops == 10 * T * V);
    CHECK(op(g.embedding(), "embed.tokens").fwd_flops == 0);
    CHECK(op(g.embedding(), "embed.tokens").bwd_dw_flops == T * h);
    CHECK(op(g.embedding(), "embed.positions").fwd_flops == T * h);
    CHECK(op(g.embedding(), "embed.positions").saved_mask_elems == T * h);  // embd_pdrop
    // The router: softmax and top-k over T x n, plus the weighted combine of k outputs.
    const LayerGraph moe = LayerGraph::build(loadModel("tiny-moe"), shape(1, 8));
    const Operator& route = op(blockOf(moe, Block::Kind::Moe), "moe.route");
    CHECK(route.fwd_flops == 5 * 8 * 4 + 2 * 8 * 2 * 64);
    CHECK(route.saved_elems == 8 * 4);
    // OPT's ReLU: 1 per element.
    CHECK(op(blockOf(LayerGraph::build(loadModel("opt-175b"), shape(1, 4)), Block::Kind::Dense),
             "mlp.act")
              .fwd_flops == 4 * 49152);
}

TEST_CASE("OPT projections, post-norm and the Qwen2-MoE shared-expert gate", "[model][graph]") {
    const ModelConfig opt = wsc::hw::ModelConfigLoader::loadString(
        "{\"model_type\": \"opt\", \"hidden_size\": 1024, \"num_hidden_layers\": 24,\n"
        " \"num_attention_heads\": 16, \"ffn_dim\": 4096, \"max_position_embeddings\": 2048,\n"
        " \"vocab_size\": 50272, \"word_embed_proj_dim\": 512, \"do_layer_norm_before\": false}",
        "opt-350m.json");
    const LayerGraph g = LayerGraph::build(opt, shape(1, 8));
    CHECK(names(g.embedding()) ==
          std::vector<std::string>{"embed.tokens", "embed.proj_in", "embed.positions"});
    CHECK(names(g.head()) == std::vector<std::string>{"head.proj_out", "head.lm", "head.loss"});
    CHECK(op(g.embedding(), "embed.positions").params == (2048 + 2) * 1024);
    CHECK(op(g.head(), "head.lm").in == 512);
    // OPT-350m has 331,196,416 parameters (HuggingFace's count).
    CHECK(g.params() == 331196416);
    const LayerGraph q = LayerGraph::build(loadModel("qwen1.5-moe-a2.7b"), shape(1, 8));
    const Block& M = blockOf(q, Block::Kind::Moe);
    CHECK(op(M, "moe.shared.gate").params == 2048);
    CHECK(op(M, "moe.shared.gate_up").out == 2 * 5632);
    CHECK(op(M, "attn.qkv").params == 2048 * 3 * 2048 + 3 * 2048);  // QKV biases
    CHECK(op(M, "attn.out").params == 2048 * 2048);                 // no output bias
}

TEST_CASE("MLA saves its compressed inputs and the per-head Q, K and V", "[model][graph][memory]") {
    // DeepSeek-V3: a 128, nope 128, rope 64, v 128, q_lora 1536, kv_lora 512, h 7168.
    const uint64_t T = 8, h = 7168, a = 128;
    const LayerGraph g = LayerGraph::build(loadModel("deepseek-v3"), shape(1, T));
    const Block& M = blockOf(g, Block::Kind::Moe);
    CHECK(op(M, "attn.q_a").saved_elems == T * h);
    CHECK(op(M, "attn.kv_a").saved_elems == 0);
    CHECK(op(M, "attn.q_b").saved_elems == T * 1536);
    CHECK(op(M, "attn.kv_b").saved_elems == T * 512);
    CHECK(op(M, "attn.score").saved_elems == T * (a * 192 + a * 128 + 64));
    CHECK(op(M, "attn.context").saved_elems == T * a * 128);
    CHECK(op(M, "attn.out").saved_elems == T * a * 128);
}
