#include "firmware/waferllm/KvCache.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::waferllm {

KvCache::Policy KvCache::parse(const std::string& name) {
    if (name == "concat") return Policy::Concat;
    if (name == "shift") return Policy::Shift;
    throw std::invalid_argument(
        fmt::format("KV cache policy '{}': expected shift or concat", name));
}

const char* KvCache::name(Policy p) {
    return p == Policy::Concat ? "concat" : "shift";
}

KvCache::KvCache(Policy p, uint32_t rows, uint64_t prompt) : policy_(p), tokens_(prompt) {
    if (rows == 0) throw std::invalid_argument("KV cache: needs at least one core row");
    counts_.assign(rows, prompt / rows);
    for (uint32_t r = 0; r < prompt % rows; ++r) ++counts_[r];
}

uint64_t KvCache::maxCount() const {
    return *std::max_element(counts_.begin(), counts_.end());
}

uint64_t KvCache::first(uint32_t row) const {
    uint64_t f = 0;
    for (uint32_t r = 0; r < row; ++r) f += counts_[r];
    return f;
}

std::vector<KvCache::Move> KvCache::nextMoves() const {
    std::vector<Move> moves;
    if (policy_ == Policy::Concat) return moves;
    // The last row takes the token; every row then holding more than the row above passes its
    // oldest up. With the extras on the first rows, that is every row below the first one
    // holding fewer than row 0.
    const uint32_t P = rows();
    std::vector<uint64_t> c = counts_;
    ++c[P - 1];
    for (uint32_t r = P - 1; r > 0 && c[r] > c[r - 1]; --r) {
        moves.push_back({r, r - 1});
        --c[r], ++c[r - 1];
    }
    return moves;
}

std::vector<KvCache::Move> KvCache::append() {
    std::vector<Move> moves = nextMoves();
    ++counts_.back();
    for (const Move& m : moves) --counts_[m.from], ++counts_[m.to];
    ++tokens_;
    return moves;
}

void KvCache::advance(uint64_t n) {
    tokens_ += n;
    if (policy_ == Policy::Concat) {
        counts_.back() += n;
        return;
    }
    const uint32_t P = rows();
    std::fill(counts_.begin(), counts_.end(), tokens_ / P);
    for (uint32_t r = 0; r < tokens_ % P; ++r) ++counts_[r];
}

uint64_t KvCache::maxGenerate(Policy p, uint32_t rows, uint64_t prompt, uint64_t row_capacity) {
    const KvCache c(p, rows, prompt);
    if (c.maxCount() > row_capacity) return 0;
    if (p == Policy::Concat) return row_capacity - c.count(rows - 1);
    return uint64_t(rows) * row_capacity - prompt;
}

std::vector<uint64_t> KvCache::stepTokens(const std::string& who, uint32_t d, uint64_t prompt,
                                          uint64_t generated) const {
    const uint32_t P = rows();
    std::vector<uint64_t> n(P);
    for (uint32_t r = 0; r < P; ++r) n[r] = count(r) + (r + 1 == P ? 1 : 0);
    for (uint32_t r = 0; r < P; ++r) {
        if (n[r] == 0)
            throw std::invalid_argument(fmt::format(
                "{}: row {} of the {} rows holds no token at decode step {} ({} prompt tokens, "
                "{} decoded); every row needs one: give a prompt of at least {} tokens",
                who, r, P, generated + 1, prompt, generated, P));
        if (n[r] * d > UINT32_MAX)
            throw std::invalid_argument(
                fmt::format("{}: row {} holds {} tokens of {} features, more elements than a "
                            "buffer holds",
                            who, r, n[r], d));
    }
    return n;
}

}  // namespace wsc::firmware::waferllm
