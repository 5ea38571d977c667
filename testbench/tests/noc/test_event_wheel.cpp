// EventWheel: scheduleAll puts a block of events where schedule() one by one would (same order
// in every bucket, the far heap beyond the ring, the same error for the past), and the spare
// storages follow the events in flight: reused through a steady load, given back after a burst.
#include <catch2/catch.hpp>
#include <stdexcept>
#include <vector>

#include "noc/EventWheel.h"

using namespace wsc;

namespace {
noc::NetEvent ev(uint32_t target) {
    noc::NetEvent e;
    e.target = target;
    return e;
}

std::vector<uint32_t> targets(const std::vector<noc::NetEvent>& v) {
    std::vector<uint32_t> t;
    for (const auto& e : v) t.push_back(e.target);
    return t;
}
}  // namespace

TEST_CASE("event wheel: scheduleAll equals schedule one by one", "[noc][engine]") {
    noc::EventWheel a(10), b(10);  // a 16-bucket ring
    uint32_t id = 0;
    for (uint64_t now = 0; now < 40; ++now) {
        // Three blocks per cycle: due next cycle, 7 cycles on, and 100 on (beyond the ring).
        for (const uint64_t d : {1u, 7u, 100u}) {
            std::vector<noc::NetEvent> block;
            for (uint32_t k = 0; k < 1 + (now + d) % 5; ++k) block.push_back(ev(id++));
            a.scheduleAll(now, now + d, block);
            for (const auto& e : block) b.schedule(now, now + d, e);
        }
        CHECK(a.pending() == b.pending());
        CHECK(a.nextAfter(now) == b.nextAfter(now));
        std::vector<noc::NetEvent> da, db;
        a.collect(now + 1, da);
        b.collect(now + 1, db);
        CHECK(targets(da) == targets(db));
        REQUIRE(!da.empty());
    }
    for (uint64_t c = 41; c < 200; ++c) {
        std::vector<noc::NetEvent> da, db;
        a.collect(c, da);
        b.collect(c, db);
        CHECK(targets(da) == targets(db));
    }
    CHECK(a.pending() == 0);
    CHECK(b.pending() == 0);
    CHECK_THROWS_AS(a.scheduleAll(5, 5, {ev(1)}), std::logic_error);
    CHECK_THROWS_AS(a.scheduleAll(5, 3, {ev(1)}), std::logic_error);
    CHECK_NOTHROW(a.scheduleAll(5, 3, {}));  // nothing to schedule
}

TEST_CASE("event wheel: spare storage is reused under load and given back after it",
          "[noc][engine]") {
    noc::EventWheel w(1);
    std::vector<noc::NetEvent> due;
    const std::vector<noc::NetEvent> burst(100000, ev(3));
    uint64_t c = 0;
    // A steady 100000 events a cycle, all due the next cycle (one-cycle links on a big mesh):
    // each emptied bucket's storage is kept as a spare for the next one.
    for (; c < 10; ++c) {
        w.scheduleAll(c, c + 1, burst);
        w.collect(c + 1, due);
        if (c > 0) CHECK(due.size() == burst.size());
    }
    CHECK(w.spareCapacity() >= burst.size());
    CHECK(w.spareCapacity() <= 4 * 2 * 2 * burst.size());  // kSpares x 2 in flight, doubling
    // Quiet cycles: nothing in flight, so the spares go (the bound is twice the events in
    // flight, at least 1024 events a spare).
    for (; c < 20; ++c) {
        w.schedule(c, c + 1, ev(1));
        w.collect(c + 1, due);
    }
    CHECK(w.spareCapacity() <= 4 * 1024);
    CHECK(w.pending() == 0);
}
