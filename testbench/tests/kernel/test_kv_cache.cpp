// KV cache layouts (firmware/waferllm/KvCache, WaferLLM Fig. 5): stepping against the closed
// form, the shift's balance and its moves, concat's growing last row, and token capacity.
#include <algorithm>
#include <catch2/catch.hpp>
#include <stdexcept>

#include "firmware/waferllm/KvCache.h"

using wsc::firmware::waferllm::KvCache;

TEST_CASE("KV shift keeps rows within one token and moves the cascade up one row each") {
    for (uint32_t rows : {1u, 2u, 5u, 8u})
        for (uint64_t prompt : {1u, 7u, 40u}) {
            KvCache c(KvCache::Policy::Shift, rows, prompt);
            for (int step = 0; step < 50; ++step) {
                // Rows 0..k-1 hold one more than the others: the cascade runs from the last row
                // up to row k, one move per row below it.
                const uint64_t k = c.tokens() % rows;
                const auto moves = c.append();
                CHECK(moves.size() == (k + 1 == rows ? 0 : rows - 1 - k));
                for (size_t i = 0; i < moves.size(); ++i) {
                    CHECK(moves[i].from == rows - 1 - i);
                    CHECK(moves[i].to + 1 == moves[i].from);
                }
                CHECK(c.maxCount() - *std::min_element(c.counts().begin(), c.counts().end()) <= 1);
                KvCache closed(KvCache::Policy::Shift, rows, prompt);
                closed.advance(uint64_t(step) + 1);
                CHECK(closed.counts() == c.counts());
                CHECK(c.first(rows - 1) + c.count(rows - 1) == c.tokens());
            }
        }
}

TEST_CASE("KV concat puts every decoded token on the last row") {
    KvCache c(KvCache::Policy::Concat, 4, 10);  // 3, 3, 2, 2
    CHECK(c.counts() == std::vector<uint64_t>{3, 3, 2, 2});
    for (int i = 0; i < 5; ++i) CHECK(c.append().empty());
    CHECK(c.counts() == std::vector<uint64_t>{3, 3, 2, 7});
    KvCache d(KvCache::Policy::Concat, 4, 10);
    d.advance(5);
    CHECK(d.counts() == c.counts());
    CHECK(c.first(3) == 8);
}

TEST_CASE("KV capacity: concat fills one row, shift fills them all") {
    // 8 rows of 100 tokens each, 200 tokens of prompt (25 per row).
    CHECK(KvCache::maxGenerate(KvCache::Policy::Concat, 8, 200, 100) == 75);
    CHECK(KvCache::maxGenerate(KvCache::Policy::Shift, 8, 200, 100) == 600);
    CHECK(KvCache::maxGenerate(KvCache::Policy::Shift, 8, 801, 100) == 0);  // prompt too long
    // Stepping agrees: the next token past the capacity puts some row over it.
    for (auto p : {KvCache::Policy::Concat, KvCache::Policy::Shift}) {
        const uint64_t g = KvCache::maxGenerate(p, 8, 200, 100);
        KvCache c(p, 8, 200);
        c.advance(g);
        CHECK(c.maxCount() <= 100);
        c.append();
        CHECK(c.maxCount() > 100);
    }
}

TEST_CASE("KV policy names are parsed and a bad one is refused") {
    CHECK(KvCache::parse("shift") == KvCache::Policy::Shift);
    CHECK(KvCache::parse("concat") == KvCache::Policy::Concat);
    CHECK_THROWS_WITH(KvCache::parse("paged"), Catch::Contains("expected shift or concat"));
    CHECK_THROWS_AS(KvCache(KvCache::Policy::Shift, 0, 4), std::invalid_argument);
}
