// Traffic tests on the plain C++ controller (fast, no SystemC). The protocol checker is attached
// to every pseudo-channel in all of them (check_protocol defaults to true).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <random>

#include "HbmTestDriver.h"
#include "dram/HbmController.h"
#include "dram/ProtocolChecker.h"

using namespace wsc::dram;
using namespace wsc::dram::test;

namespace {
void report(const char* name, const HbmParams& p, const DriveResult& r) {
    std::printf("---- %s\n%s\n", name, r.stats.summary(p).c_str());
}

void requireEachAnsweredOnce(const DriveResult& r) {
    const auto bad =
        std::count_if(r.responses.begin(), r.responses.end(), [](uint32_t n) { return n != 1; });
    REQUIRE(bad == 0);
}

double fractionOfPeak(const HbmParams& p, const DriveResult& r) {
    return r.stats.bandwidthBytesPerSec(p) / p.stackPeakBandwidthBytesPerSec();
}
}  // namespace

TEST_CASE("sequential reads reach at least 90% of peak bandwidth", "[dram][traffic]") {
    for (RefreshMode mode : {RefreshMode::PerBank, RefreshMode::AllBank}) {
        HbmParams p = HbmParams::hbm3Default();
        p.refresh_mode = mode;
        HbmController c(p);
        const uint32_t bytes = 64;
        const uint64_t n = 300000;  // 19.2 MB: several refresh intervals
        const DriveResult r = drive(c, n, bytes, [&](uint64_t i) {
            return Access{i * bytes, false};
        });
        report(mode == RefreshMode::PerBank ? "sequential reads, per-bank refresh"
                                            : "sequential reads, all-bank refresh",
               p, r);
        requireEachAnsweredOnce(r);
        CHECK(r.stats.bytes_read == n * bytes);
        CHECK(c.commandsChecked() > n);  // every RD went past the checker
        CHECK(r.stats.rowHitRate() > 0.9);
        if (mode == RefreshMode::PerBank)
            CHECK(fractionOfPeak(p, r) >= 0.90);
        else
            CHECK(fractionOfPeak(p, r) >= 0.85);  // tRFC/tREFI = 9% of time is lost
    }
}

TEST_CASE("random reads reach less bandwidth and report their row-hit rate", "[dram][traffic]") {
    HbmParams p = HbmParams::hbm3Default();
    HbmController c(p);
    std::mt19937_64 rng(7);
    const uint64_t n = 100000;
    const DriveResult r = drive(c, n, 32, [&](uint64_t) {
        return Access{(rng() % c.mapper().capacity()) & ~uint64_t(31), false};
    });
    report("random 32 B reads", p, r);
    requireEachAnsweredOnce(r);
    const double f = fractionOfPeak(p, r);
    CHECK(f < 0.6);  // tRC/tFAW-bound, far from peak
    CHECK(f > 0.05);
    CHECK(r.stats.rowHitRate() < 0.1);
    CHECK(c.commandsChecked() > 2 * n);  // ACT + RD (+ PRE) each
}

TEST_CASE("mixed random reads and writes, open and closed page, pass the checker",
          "[dram][traffic]") {
    for (PagePolicy policy : {PagePolicy::Open, PagePolicy::Closed}) {
        HbmParams p = HbmParams::hbm3Default();
        p.page_policy = policy;
        HbmController c(p);
        std::mt19937_64 rng(11);
        const uint64_t n = 60000;
        // Half the traffic is in 2 KB chunks (row-local), half scattered: both kinds of banks.
        const DriveResult r = drive(c, n, 128, [&](uint64_t i) {
            const uint64_t base =
                (i % 2) ? (rng() % c.mapper().capacity()) : ((i / 2) * 128) % (uint64_t(64) << 20);
            return Access{base & ~uint64_t(127), (rng() % 3) == 0};
        });
        report(
            policy == PagePolicy::Open ? "mixed 2:1 R/W, open page" : "mixed 2:1 R/W, closed page",
            p, r);
        requireEachAnsweredOnce(r);
        CHECK(r.stats.bytes_written > 0);
        CHECK(r.stats.channels.write_drains > 0);
        CHECK(r.stats.energyPj(p) > 0);
        CHECK(r.stats.read_latency.quantile(0.99) >= r.stats.read_latency.mean());
    }
}

TEST_CASE("a scheduler that ignores a timing rule is caught by the protocol checker",
          "[dram][checker]") {
    // Each rule with traffic that exercises it; the checker must name the broken rule.
    struct Case {
        const char* rule;
        bool writes;
        bool random;
    };
    for (const Case k :
         {Case{"tRCD", false, true}, Case{"tRP", false, true}, Case{"tFAW", false, true},
          Case{"tWTR_S", true, true}, Case{"tCCD_L", false, false}}) {
        HbmParams p = HbmParams::hbm3Default();
        p.address_mapping = k.random ? "RoBaCoBgPcCh" : "RoBaBgCoPcCh";  // same-group streams
        p.debug_break_rule = k.rule;
        HbmController c(p);
        std::mt19937_64 rng(3);
        INFO(k.rule);
        std::string caught;
        try {
            drive(c, 20000, 64, [&](uint64_t i) {
                const uint64_t a = k.random ? rng() % c.mapper().capacity() : i * 64;
                return Access{a & ~uint64_t(63), k.writes && (rng() % 2)};
            });
        } catch (const ProtocolViolation& v) {
            caught = v.rule();
            if (std::string(k.rule) == "tRCD") std::printf("caught: %s\n", v.what());
        }
        CHECK(caught == k.rule);
    }
    // And without the knob the same traffic passes.
    HbmParams p = HbmParams::hbm3Default();
    HbmController c(p);
    std::mt19937_64 rng(3);
    CHECK_NOTHROW(drive(c, 20000, 64, [&](uint64_t) {
        return Access{(rng() % c.mapper().capacity()) & ~uint64_t(63), (rng() % 2) == 1};
    }));
}

namespace {
// Records when refresh commands issue on one pseudo-channel.
struct RefreshLog : CommandObserver {
    std::vector<uint64_t> ref, refpb;
    std::vector<unsigned> banks;
    void onCommand(const DramCommand& c, uint64_t t) override {
        if (c.type == CommandType::REF) ref.push_back(t);
        if (c.type == CommandType::REFpb) {
            refpb.push_back(t);
            banks.push_back(c.bank_group * 4u + c.bank);
        }
    }
};
}  // namespace

TEST_CASE("an idle stack refreshes every pseudo-channel on schedule", "[dram][refresh]") {
    for (RefreshMode mode : {RefreshMode::AllBank, RefreshMode::PerBank}) {
        HbmParams p = HbmParams::hbm3Default();
        p.refresh_mode = mode;
        HbmController c(p);
        const uint64_t intervals = 10, end = intervals * p.tREFI + 100;
        idleUntil(c, end);
        c.finish(end);
        const auto s = c.stats(end);
        if (mode == RefreshMode::AllBank)
            CHECK(s.channels.commands[unsigned(CommandType::REF)] ==
                  intervals * p.pseudoChannelCount());
        else
            CHECK(s.channels.commands[unsigned(CommandType::REFpb)] ==
                  intervals * p.pseudoChannelCount() * p.banksPerPseudoChannel());
    }
}

namespace {
struct NullSink : BurstSink {
    uint64_t done = 0;
    void burstDone(uint32_t, bool, uint64_t) override { ++done; }
};

// Drives one pseudo-channel with random traffic for `cycles` and returns the refresh log.
RefreshLog runChannel(const HbmParams& p, uint64_t cycles) {
    NullSink sink;
    ChannelController ch(p, 0, sink);
    ProtocolChecker checker(p, 0);
    RefreshLog log;
    ch.addObserver(&checker);
    ch.addObserver(&log);
    std::mt19937_64 rng(9);
    for (uint64_t now = 0; now < cycles; ++now) {
        // Offered load ~0.3 bursts/cycle: keeps banks open so refresh must precharge first.
        if (rng() % 10 < 3) {
            BurstRequest r;
            r.row = uint32_t(rng() % 64);
            r.column = uint32_t(rng() % 32);
            r.bank_group = uint8_t(rng() % 4);
            r.bank = uint8_t(rng() % 4);
            r.write = rng() % 4 == 0;
            if (ch.canAccept(r.write)) ch.enqueue(r, now);
        }
        if (ch.nextWake() <= now) ch.tick(now);
    }
    checker.finish(cycles);
    return log;
}
}  // namespace

TEST_CASE("refresh is issued every tREFI (all-bank) and every bank each tREFI (per-bank)",
          "[dram][refresh]") {
    HbmParams p = HbmParams::hbm3Default();
    const uint64_t intervals = 12;
    // Worst delay from due to issue: wait for tRAS/tWR of open rows, PREA, tRP.
    const uint64_t slack = p.tRAS + p.tWL + p.burstCycles() + p.tWR + p.tRP + 8;

    p.refresh_mode = RefreshMode::AllBank;
    RefreshLog ab = runChannel(p, intervals * p.tREFI + p.tREFI / 2);
    REQUIRE(ab.ref.size() == intervals);
    for (size_t k = 0; k < ab.ref.size(); ++k) {
        INFO("REF " << k << " at cycle " << ab.ref[k]);
        CHECK(ab.ref[k] >= (k + 1) * p.tREFI);
        CHECK(ab.ref[k] <= (k + 1) * p.tREFI + slack);
    }
    CHECK(ab.refpb.empty());

    p.refresh_mode = RefreshMode::PerBank;
    RefreshLog pb = runChannel(p, intervals * p.tREFI + p.tREFIpb / 2);
    REQUIRE(pb.refpb.size() == intervals * p.banksPerPseudoChannel());
    for (size_t k = 0; k < pb.refpb.size(); ++k) {
        INFO("REFpb " << k << " at cycle " << pb.refpb[k]);
        CHECK(pb.banks[k] == k % p.banksPerPseudoChannel());
        CHECK(pb.refpb[k] >= (k + 1) * p.tREFIpb);
        CHECK(pb.refpb[k] <= (k + 1) * p.tREFIpb + slack);
    }
    CHECK(pb.ref.empty());
}

TEST_CASE("every transaction gets exactly one response, unaligned and under back-pressure",
          "[dram][traffic]") {
    HbmParams p = HbmParams::hbm3Default();
    p.max_outstanding = 64;  // force front-end back-pressure
    HbmController c(p);
    std::mt19937_64 rng(21);
    const uint64_t n = 20000;
    const DriveResult r = drive(c, n, 100, [&](uint64_t) {
        return Access{rng() % (c.mapper().capacity() - 4096), (rng() % 2) == 0};
    });
    requireEachAnsweredOnce(r);
    CHECK(r.stats.transactions == n);
    CHECK(c.idle());
}
