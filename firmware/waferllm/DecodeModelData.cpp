#include "firmware/waferllm/DecodeModelData.h"

#include <algorithm>
#include <cmath>
#include <random>
#include <stdexcept>

namespace wsc::firmware::waferllm {

namespace {

DecodeModelData::Mat randomMat(std::mt19937_64& rng, uint32_t rows, uint32_t cols, float scale) {
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    DecodeModelData::Mat m{rows, cols, std::vector<float>(size_t(rows) * cols)};
    for (float& x : m.v) x = u(rng) * scale;
    return m;
}

std::vector<double> matvec(const std::vector<double>& x, const DecodeModelData::Mat& w) {
    std::vector<double> y(w.cols, 0.0);
    for (uint32_t r = 0; r < w.rows; ++r)
        for (uint32_t c = 0; c < w.cols; ++c) y[c] += x[r] * double(w.at(r, c));
    return y;
}

std::vector<double> rmsNorm(const std::vector<double>& x, const std::vector<float>& g, float eps) {
    double ss = 0;
    for (double v : x) ss += v * v;
    const double s = 1.0 / std::sqrt(ss / double(x.size()) + double(eps));
    std::vector<double> h(x.size());
    for (size_t i = 0; i < x.size(); ++i) h[i] = x[i] * s * double(g[i]);
    return h;
}

std::vector<float> randomVec(uint64_t seed, uint64_t n) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> v(n);
    for (float& x : v) x = u(rng);
    return v;
}

}  // namespace

DecodeModelData::DecodeModelData(const LayerShape& shape, uint32_t layers, uint64_t tokens,
                                 uint64_t seed)
    : shape_(shape), tokens_(tokens), seed_(seed) {
    const uint32_t E = shape.hidden, H = shape.heads, Hkv = shape.kv_heads, D = shape.head_dim,
                   F = shape.ffn;
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> ug(0.5f, 1.5f);
    const float se = 1.0f / std::sqrt(float(E)), sf = 1.0f / std::sqrt(float(F)),
                sh = 1.0f / std::sqrt(float(H * D)), sd = 1.0f / std::sqrt(float(D));
    for (uint32_t l = 0; l < layers; ++l) {
        Layer w;
        w.g1.resize(E), w.g2.resize(E);
        for (float& v : w.g1) v = ug(rng);
        for (float& v : w.g2) v = ug(rng);
        w.wq = randomMat(rng, E, H * D, se * sd);
        w.wk = randomMat(rng, E, Hkv * D, se), w.wv = randomMat(rng, E, Hkv * D, se);
        w.wo = randomMat(rng, H * D, E, sh);
        w.wg = randomMat(rng, E, F, se), w.wu = randomMat(rng, E, F, se);
        w.wd = randomMat(rng, F, E, sf);
        for (uint32_t h = 0; h < Hkv; ++h) {
            w.kc.push_back(randomMat(rng, uint32_t(tokens), D, 1.0f).v);
            w.vc.push_back(randomMat(rng, uint32_t(tokens), D, 1.0f).v);
        }
        layers_.push_back(std::move(w));
    }
    x_ = randomVec(seed_ ^ 0x9e3779b97f4a7c15ull, E);
}

DecodeModelData::Step DecodeModelData::reference() const {
    const uint32_t E = shape_.hidden, H = shape_.heads, Hkv = shape_.kv_heads, D = shape_.head_dim,
                   F = shape_.ffn, G = H / Hkv;
    const uint64_t T = tokens_ + 1;
    Step st;
    std::vector<double> x(x_.begin(), x_.end());
    for (const Layer& w : layers_) {
        const std::vector<double> h1 = rmsNorm(x, w.g1, shape_.eps);
        const std::vector<double> q = matvec(h1, w.wq), k = matvec(h1, w.wk), v = matvec(h1, w.wv);
        std::vector<double> o(size_t(H) * D, 0.0);
        for (uint32_t hq = 0; hq < H; ++hq) {
            const uint32_t h = hq / G;
            auto K = [&](uint64_t t, uint32_t z) {
                return t < tokens_ ? double(w.kc[h][t * D + z]) : k[h * D + z];
            };
            auto V = [&](uint64_t t, uint32_t z) {
                return t < tokens_ ? double(w.vc[h][t * D + z]) : v[h * D + z];
            };
            std::vector<double> sc(T);
            double mx = -1e300;
            for (uint64_t t = 0; t < T; ++t) {
                double acc = 0;
                for (uint32_t z = 0; z < D; ++z) acc += q[hq * D + z] * K(t, z);
                sc[t] = acc, mx = std::max(mx, acc);
            }
            double sum = 0;
            for (uint64_t t = 0; t < T; ++t) {
                const double p = std::exp(sc[t] - mx);
                sum += p;
                for (uint32_t z = 0; z < D; ++z) o[hq * D + z] += p * V(t, z);
            }
            for (uint32_t z = 0; z < D; ++z) o[hq * D + z] /= sum;
        }
        const std::vector<double> ao = matvec(o, w.wo);
        for (uint32_t z = 0; z < E; ++z) x[z] += ao[z];
        const std::vector<double> h2 = rmsNorm(x, w.g2, shape_.eps);
        const std::vector<double> gt = matvec(h2, w.wg), ut = matvec(h2, w.wu);
        std::vector<double> act(F);
        for (uint32_t z = 0; z < F; ++z) act[z] = gt[z] / (1.0 + std::exp(-gt[z])) * ut[z];
        const std::vector<double> dn = matvec(act, w.wd);
        for (uint32_t z = 0; z < E; ++z) x[z] += dn[z];
        st.k.push_back(k), st.v.push_back(v);
    }
    st.out = x;
    return st;
}

void DecodeModelData::advance(const Step& s) {
    const uint32_t D = shape_.head_dim;
    for (size_t l = 0; l < layers_.size(); ++l)
        for (uint32_t h = 0; h < shape_.kv_heads; ++h)
            for (uint32_t z = 0; z < D; ++z) {
                layers_[l].kc[h].push_back(float(s.k[l][h * D + z]));
                layers_[l].vc[h].push_back(float(s.v[l][h * D + z]));
            }
    ++tokens_;
    x_ = randomVec(seed_ ^ (0x9e3779b97f4a7c15ull * (++draws_ + 1)), shape_.hidden);
}

std::vector<float> DecodeModelData::promptInput(uint32_t tokens) const {
    return randomVec(seed_ ^ 0x5851f42d4c957f2dull, uint64_t(tokens) * shape_.hidden);
}

DecodeModelData::Prefill DecodeModelData::prefillReference(const std::vector<float>& x,
                                                           uint32_t tokens) const {
    const uint32_t E = shape_.hidden, H = shape_.heads, Hkv = shape_.kv_heads, D = shape_.head_dim,
                   F = shape_.ffn, G = H / Hkv;
    if (x.size() != size_t(tokens) * E)
        throw std::invalid_argument("prefill reference: the input is not tokens x hidden");
    Prefill p;
    p.tokens = tokens;
    std::vector<std::vector<double>> xs(tokens);
    for (uint32_t t = 0; t < tokens; ++t)
        xs[t].assign(x.begin() + size_t(t) * E, x.begin() + size_t(t + 1) * E);
    for (const Layer& w : layers_) {
        std::vector<std::vector<double>> q(tokens), k(tokens), v(tokens);
        for (uint32_t t = 0; t < tokens; ++t) {
            const std::vector<double> h1 = rmsNorm(xs[t], w.g1, shape_.eps);
            q[t] = matvec(h1, w.wq), k[t] = matvec(h1, w.wk), v[t] = matvec(h1, w.wv);
        }
        for (uint32_t t = 0; t < tokens; ++t) {  // causal: query t attends keys 0..t
            std::vector<double> o(size_t(H) * D, 0.0);
            for (uint32_t hq = 0; hq < H; ++hq) {
                const uint32_t h = hq / G;
                std::vector<double> sc(t + 1);
                double mx = -1e300;
                for (uint32_t u = 0; u <= t; ++u) {
                    double acc = 0;
                    for (uint32_t z = 0; z < D; ++z) acc += q[t][hq * D + z] * k[u][h * D + z];
                    sc[u] = acc, mx = std::max(mx, acc);
                }
                double sum = 0;
                for (uint32_t u = 0; u <= t; ++u) {
                    const double e = std::exp(sc[u] - mx);
                    sum += e;
                    for (uint32_t z = 0; z < D; ++z) o[hq * D + z] += e * v[u][h * D + z];
                }
                for (uint32_t z = 0; z < D; ++z) o[hq * D + z] /= sum;
            }
            const std::vector<double> ao = matvec(o, w.wo);
            for (uint32_t z = 0; z < E; ++z) xs[t][z] += ao[z];
            const std::vector<double> h2 = rmsNorm(xs[t], w.g2, shape_.eps);
            const std::vector<double> gt = matvec(h2, w.wg), ut = matvec(h2, w.wu);
            std::vector<double> act(F);
            for (uint32_t z = 0; z < F; ++z) act[z] = gt[z] / (1.0 + std::exp(-gt[z])) * ut[z];
            const std::vector<double> dn = matvec(act, w.wd);
            for (uint32_t z = 0; z < E; ++z) xs[t][z] += dn[z];
        }
        std::vector<double> kl, vl;
        for (uint32_t t = 0; t < tokens; ++t) {
            kl.insert(kl.end(), k[t].begin(), k[t].end());
            vl.insert(vl.end(), v[t].begin(), v[t].end());
        }
        p.k.push_back(std::move(kl)), p.v.push_back(std::move(vl));
    }
    for (const auto& r : xs) p.out.insert(p.out.end(), r.begin(), r.end());
    return p;
}

void DecodeModelData::setPrompt(const Prefill& p) {
    if (tokens_ != 0 || p.k.size() != layers_.size())
        throw std::invalid_argument(
            "model data: a prompt needs an empty cache and one k/v set per layer");
    const uint32_t D = shape_.head_dim, Hkv = shape_.kv_heads;
    for (size_t l = 0; l < layers_.size(); ++l)
        for (uint32_t t = 0; t < p.tokens; ++t)
            for (uint32_t h = 0; h < Hkv; ++h)
                for (uint32_t z = 0; z < D; ++z) {
                    const size_t at = (size_t(t) * Hkv + h) * D + z;
                    layers_[l].kc[h].push_back(float(p.k[l][at]));
                    layers_[l].vc[h].push_back(float(p.v[l][at]));
                }
    tokens_ = p.tokens;
}

}  // namespace wsc::firmware::waferllm
