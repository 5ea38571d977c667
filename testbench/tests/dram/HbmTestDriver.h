#pragma once
// Closed-loop traffic driver for the plain C++ HbmController (no SystemC): keeps up to
// `max_in_flight` transactions outstanding, advances time only to cycles the controller asks for,
// and counts responses per transaction.
#include <algorithm>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <vector>

#include "dram/HbmController.h"

namespace wsc::dram::test {

struct Access {
    uint64_t addr;
    bool write;
};

struct DriveResult {
    uint64_t end_cycle = 0;
    std::vector<uint32_t> responses;  // per transaction index
    HbmStats stats;
};

inline DriveResult drive(HbmController& c, uint64_t txns, uint32_t bytes,
                         const std::function<Access(uint64_t)>& gen,
                         uint32_t max_in_flight = 1u << 30, uint64_t start = 0) {
    DriveResult r;
    r.responses.assign(txns, 0);
    uint64_t now = start, issued = 0, done = 0;
    while (done < txns) {
        while (issued < txns && c.canAccept() && c.outstanding() < max_in_flight) {
            const Access a = gen(issued);
            c.submit(a.addr, bytes, a.write, now, issued);
            ++issued;
        }
        c.tick(now);
        HbmCompletion x;
        while (c.popCompletion(x)) {
            ++r.responses.at(x.user);
            ++done;
        }
        if (done == txns) break;
        uint64_t next = c.nextWake();
        if (issued < txns && c.canAccept() && c.outstanding() < max_in_flight)
            next = std::min(next, now + 1);
        if (next == HbmController::kNever)
            throw std::runtime_error("drive: controller idle with transactions outstanding");
        now = std::max(next, now + 1);
    }
    r.end_cycle = now;
    c.finish(now);
    r.stats = c.stats(now);
    return r;
}

// Runs the controller with no traffic until `end` (refresh only).
inline void idleUntil(HbmController& c, uint64_t end) {
    uint64_t now = 0;
    while (now <= end) {
        c.tick(now);
        const uint64_t next = c.nextWake();
        if (next == HbmController::kNever) break;
        now = std::max(next, now + 1);
    }
}

}  // namespace wsc::dram::test
