// NiArrivalOrder puts a cycle's NI arrivals in NI order and keeps each NI's own in the order they
// were scheduled: the order std::stable_sort by target gives, on both of its paths (a counting
// sort where NIs are few against the events, keys sorted otherwise) and on sorted input.
#include <algorithm>
#include <catch2/catch.hpp>
#include <random>
#include <vector>

#include "noc/NiArrivalOrder.h"

using namespace wsc;

TEST_CASE("NI arrivals in NI order, each NI's in their scheduled order", "[noc][engine]") {
    noc::NiArrivalOrder order;
    std::mt19937_64 rng(5);
    // (events, NIs): 40 events among 64 NIs and 3000 among 4096 take the counting sort, 40
    // among a million NIs the keys; the last is sorted already.
    const std::pair<size_t, size_t> cases[] = {{40, 64}, {3000, 4096}, {40, 1u << 20}, {50, 8}};
    for (const auto& [n, nis] : cases) {
        // Few distinct targets, so most NIs get several events whose order must survive.
        const size_t targets = std::min<size_t>(nis, n / 4 + 1);
        std::vector<noc::NetEvent> ev(n);
        for (size_t k = 0; k < n; ++k) {
            ev[k].target = uint32_t(rng() % targets * (nis / targets));
            ev[k].kind = k % 3 ? noc::NetEvent::FlitToNi : noc::NetEvent::CreditToNi;
            ev[k].flit.packet = uint32_t(k);  // its scheduled position
        }
        if (nis == 8)
            std::sort(ev.begin(), ev.end(),
                      [](const auto& a, const auto& b) { return a.target < b.target; });
        std::vector<noc::NetEvent> want = ev;
        std::stable_sort(want.begin(), want.end(),
                         [](const auto& a, const auto& b) { return a.target < b.target; });
        order.sort(ev, nis);
        INFO(n << " events, " << nis << " NIs");
        REQUIRE(ev.size() == n);
        size_t moved = 0;
        for (size_t k = 0; k < n; ++k) {
            CHECK(ev[k].target == want[k].target);
            CHECK(ev[k].flit.packet == want[k].flit.packet);
            CHECK(ev[k].kind == want[k].kind);
            moved += ev[k].flit.packet != k;
        }
        if (nis != 8) CHECK(moved > n / 2);  // the input was far from sorted
    }
}
