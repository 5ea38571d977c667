// noc/CheckedMath (issue 13): input quantities never wrap silently; and the structures that once
// did (EventWheel sized by the largest latency, Link's 32-bit sums) are bounded.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>

#include "noc/CheckedMath.h"
#include "noc/EventWheel.h"
#include "noc/Link.h"

using namespace wsc;

TEST_CASE("checked add and mul report overflow instead of wrapping", "[noc][checked]") {
    const uint64_t max = std::numeric_limits<uint64_t>::max();
    CHECK(checked::add<uint64_t>(1, 2) == 3u);
    CHECK_FALSE(checked::add<uint64_t>(max, 1));
    CHECK_FALSE(checked::add<uint32_t>(0xFFFFFFFFu, 1u));
    CHECK(checked::mul<uint64_t>(1u << 20, 1u << 20) == uint64_t{1} << 40);
    CHECK_FALSE(checked::mul<uint64_t>(uint64_t{1} << 32, uint64_t{1} << 32));
    CHECK(checked::addSat<uint64_t>(max - 1, 5) == max);
    CHECK(checked::mulSat<uint32_t>(1u << 16, 1u << 16) == 0xFFFFFFFFu);
    CHECK_THROWS_AS(checked::addOrThrow<uint32_t>(0xFFFFFFFFu, 1u, "x"), std::overflow_error);
    CHECK(checked::narrow<uint32_t>(uint64_t{1} << 32) == std::nullopt);
    CHECK(checked::narrow<uint32_t>(uint64_t{7}) == 7u);
    CHECK(checked::narrow<uint32_t>(-1) == std::nullopt);
}

TEST_CASE("checked double to integer refuses NaN, negatives and out-of-range", "[noc][checked]") {
    CHECK(checked::fromDouble<uint64_t>(3.9) == 3u);
    CHECK(checked::fromDouble<uint64_t>(-0.0) == 0u);
    CHECK_FALSE(checked::fromDouble<uint64_t>(std::nan("")));
    CHECK_FALSE(checked::fromDouble<uint64_t>(-1.0));
    CHECK_FALSE(checked::fromDouble<uint64_t>(18446744073709551616.0));  // 2^64
    CHECK(checked::fromDouble<uint64_t>(18446744073709549568.0) == 18446744073709549568u);
    CHECK_FALSE(checked::fromDouble<uint32_t>(4294967296.0));
    CHECK(checked::fromDoubleSat<uint64_t>(1e300) == std::numeric_limits<uint64_t>::max());
    CHECK(checked::fromDoubleSat<uint64_t>(INFINITY) == std::numeric_limits<uint64_t>::max());
    CHECK_FALSE(checked::fromDoubleSat<uint64_t>(std::nan("")));
}

TEST_CASE("the event wheel's ring is capped: far events wait in a heap", "[noc][checked]") {
    // Sized by a 2^20-cycle latency the ring used to take 2^21 buckets (and 1e8 cycles, 1 GB).
    noc::EventWheel w(uint64_t{1} << 40);
    noc::NetEvent e;
    e.target = 1;
    w.schedule(0, 5, e);
    e.target = 2;
    w.schedule(0, 100000000, e);  // far beyond the ring
    e.target = 3;
    w.schedule(0, noc::EventWheel::kMaxBuckets + 1, e);
    CHECK(w.pending() == 3);
    CHECK(w.nextAfter(0) == 5);
    std::vector<noc::NetEvent> out;
    w.collect(5, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].target == 1);
    CHECK(w.nextAfter(5) == noc::EventWheel::kMaxBuckets + 1);
    w.collect(noc::EventWheel::kMaxBuckets + 1, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].target == 3);
    CHECK(w.nextAfter(noc::EventWheel::kMaxBuckets + 1) == 100000000);
    w.collect(100000000, out);
    REQUIRE(out.size() == 1);
    CHECK(out[0].target == 2);
    CHECK(w.pending() == 0);
}

TEST_CASE("a link's cycle counts are formed in 64 bits and bounded", "[noc][checked]") {
    noc::Link::Spec s;
    s.kind = noc::Link::Kind::D2D;
    s.latency = 0xFFFFFFFFu;  // wrapped to a short flight in 32 bits
    s.fec = 0xFFFFFFFFu;
    s.width_bytes = 16;
    CHECK_THROWS_WITH(noc::Link(s, 16, 0), Catch::Contains("exceeds the engine's limit"));
    s.latency = 1u << 20, s.fec = 1u << 20, s.serdes = 1u << 20;
    const noc::Link l(s, 16, 0);
    CHECK(l.flight() == 3u * (1u << 20));
    CHECK(l.maxFlight() == l.flight());
    // A width near 2^32 no longer wraps ceil(flit / width) to 0.
    noc::Link::Spec w;
    w.width_bytes = 0xFFFFFFFFu;
    CHECK(noc::Link(w, 16, 0).serialization() == 1);
    w.width_bytes = 0;
    CHECK_THROWS_AS(noc::Link(w, 16, 0), std::invalid_argument);
}
