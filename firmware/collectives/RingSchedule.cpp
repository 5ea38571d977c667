#include "firmware/collectives/RingSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::coll {

void RingSchedule::emit(CollectiveEmitter& e, const std::vector<RingLane>& lanes, uint32_t first,
                        uint32_t last) {
    if (lanes.empty()) return;
    const uint32_t n = static_cast<uint32_t>(lanes[0].ranks.size());
    if (n < 2 || first >= last) return;
    if (last > 2 * n - 2) throw std::logic_error("ring schedule: step past the all-gather");
    const size_t slots = lanes[0].chunks.at(0).size();
    for (const RingLane& l : lanes) {
        if (l.ranks.size() != n || l.chunks.size() != n)
            throw std::logic_error("ring schedule: lanes of different sizes");
        for (const auto& c : l.chunks)
            if (c.size() != slots) throw std::logic_error("ring schedule: ragged chunks");
    }
    const bool reduces = first < n - 1;

    struct At {
        uint32_t pos = 0;
        std::vector<std::vector<uint16_t>> buf;  // [chunk][slot]
        std::vector<uint16_t> rx;                // [slot]
    };
    for (uint32_t rank : lanes[0].ranks) {
        std::vector<At> at(lanes.size());
        for (size_t L = 0; L < lanes.size(); ++L) {
            const RingLane& lane = lanes[L];
            const auto it = std::find(lane.ranks.begin(), lane.ranks.end(), rank);
            if (it == lane.ranks.end()) throw std::logic_error("ring schedule: lanes differ");
            At& a = at[L];
            a.pos = static_cast<uint32_t>(it - lane.ranks.begin());
            a.buf.assign(n, std::vector<uint16_t>(slots, kNoBuf));
            for (uint32_t c = 0; c < n; ++c)
                for (size_t x = 0; x < slots; ++x)
                    if (lane.chunks[c][x].elems)
                        a.buf[c][x] =
                            e.buffer(rank, lane.chunks[c][x].buffer, lane.chunks[c][x].elems);
            if (reduces) {
                a.rx.assign(slots, kNoBuf);
                for (size_t x = 0; x < slots; ++x) {
                    uint64_t most = 0;
                    for (uint32_t c = 0; c < n; ++c) most = std::max(most, lane.chunks[c][x].elems);
                    if (most) a.rx[x] = e.buffer(rank, fmt::format("{}.{}", lane.rx, x), most);
                }
            }
        }
        if (e.dry()) continue;

        // (q - s - 1) mod n and (q - s - 2) mod n for s < 2n - 2.
        auto sent = [n](uint32_t q, uint32_t s) { return (q + 3 * n - s - 1) % n; };
        auto received = [n](uint32_t q, uint32_t s) { return (q + 3 * n - s - 2) % n; };
        auto send = [&](size_t L, uint32_t s, size_t x) {
            const RingLane& lane = lanes[L];
            const uint32_t q = at[L].pos, c = sent(q, s);
            const uint64_t elems = lane.chunks[c][x].elems;
            if (elems) e.send(rank, at[L].buf[c][x], lane.ranks[(q + 1) % n], elems);
        };
        auto receive = [&](size_t L, uint32_t s, size_t x) {
            const RingLane& lane = lanes[L];
            const uint32_t q = at[L].pos, c = received(q, s);
            const uint64_t elems = lane.chunks[c][x].elems;
            if (!elems) return;
            const uint32_t from = lane.ranks[(q + n - 1) % n];
            if (s < n - 1) {
                e.recv(rank, at[L].rx[x], from, elems);
                e.add(rank, at[L].buf[c][x], at[L].rx[x], elems);
            } else {
                e.recv(rank, at[L].buf[c][x], from, elems);
            }
        };
        for (size_t x = 0; x < slots; ++x)
            for (size_t L = 0; L < lanes.size(); ++L) send(L, first, x);
        for (uint32_t s = first; s < last; ++s)
            for (size_t x = 0; x < slots; ++x)
                for (size_t L = 0; L < lanes.size(); ++L) {
                    receive(L, s, x);
                    if (s + 1 < last) send(L, s + 1, x);
                }
    }
}

}  // namespace wsc::firmware::coll
