// Unit tests of the policy classes, without SystemC and without the full controller.
#include <algorithm>
#include <catch2/catch.hpp>
#include <vector>

#include "dram/AllBankRefresh.h"
#include "dram/FrFcfsScheduler.h"
#include "dram/LatencyHistogram.h"
#include "dram/PerBankRefresh.h"
#include "dram/ProtocolChecker.h"
#include "dram/TimingTracker.h"
#include "dram/WriteDrainPolicy.h"

using namespace wsc::dram;
using Catch::Matchers::Contains;

namespace {
DramCommand cmd(CommandType t, unsigned bg = 0, unsigned bank = 0, uint32_t row = 0,
                uint32_t col = 0) {
    DramCommand c;
    c.type = t;
    c.bank_group = uint8_t(bg);
    c.bank = uint8_t(bank);
    c.row = row;
    c.column = col;
    return c;
}
}  // namespace

TEST_CASE("timing tracker: earliest cycles follow the JEDEC rules", "[dram][tracker]") {
    const HbmParams p = HbmParams::hbm3Default();
    TimingTracker t(p);
    CHECK(t.earliest(cmd(CommandType::ACT, 0, 0, 7)) == 0);
    t.issue(cmd(CommandType::ACT, 0, 0, 7), 100);
    CHECK(t.isOpen(0));
    CHECK(t.openRow(0) == 7);
    CHECK(t.earliest(cmd(CommandType::RD, 0, 0, 7)) == 100 + p.tRCD);
    CHECK(t.earliest(cmd(CommandType::PRE, 0, 0)) == 100 + p.tRAS);
    CHECK(t.earliest(cmd(CommandType::ACT, 0, 1, 3)) == 100 + p.tRRD_L);  // same group
    CHECK(t.earliest(cmd(CommandType::ACT, 1, 0, 3)) == 100 + p.tRRD_S);  // other group
    // Four ACTs in a row: the fifth waits for tFAW after the first.
    t.issue(cmd(CommandType::ACT, 1, 0, 1), 104);
    t.issue(cmd(CommandType::ACT, 2, 0, 1), 108);
    t.issue(cmd(CommandType::ACT, 3, 0, 1), 112);
    CHECK(t.earliest(cmd(CommandType::ACT, 0, 2, 1)) == 100 + p.tFAW);
    t.issue(cmd(CommandType::RD, 0, 0, 7), 132);
    CHECK(t.earliest(cmd(CommandType::RD, 0, 0, 7)) == 132 + p.tCCD_L);
    // Bank group 1's bank opened at 104: tRCD still binds there, tCCD_S is already met.
    CHECK(t.earliest(cmd(CommandType::RD, 1, 0, 1)) == std::max(132 + p.tCCD_S, 104 + p.tRCD));
    CHECK(t.earliest(cmd(CommandType::WR, 1, 0, 1)) ==
          132 + p.tCL + p.burstCycles() + p.tRTRS - p.tWL);
    CHECK(t.earliest(cmd(CommandType::PRE, 0, 0)) == 100 + p.tRAS);  // tRTP already satisfied
    CHECK(t.earliest(cmd(CommandType::PREA)) >= 112 + p.tRAS);
}

TEST_CASE("protocol checker accepts a legal sequence and names the rule of an illegal one",
          "[dram][checker]") {
    const HbmParams p = HbmParams::hbm3Default();
    {
        ProtocolChecker c(p, 0);
        c.onCommand(cmd(CommandType::ACT, 0, 0, 5), 10);
        c.onCommand(cmd(CommandType::RD, 0, 0, 5, 0), 10 + p.tRCD);
        c.onCommand(cmd(CommandType::RD, 0, 0, 5, 1), 10 + p.tRCD + p.tCCD_L);
        c.onCommand(cmd(CommandType::PRE, 0, 0), 10 + p.tRAS);
        // tRAS + tRP = 71 < tRC = 72 in HBM3: tRC is the binding one.
        c.onCommand(cmd(CommandType::ACT, 0, 0, 6), 10 + std::max(p.tRAS + p.tRP, p.tRC));
        CHECK(c.checked() == 5);
    }
    auto violation = [&](std::vector<std::pair<DramCommand, uint64_t>> seq) -> std::string {
        ProtocolChecker c(p, 3);
        try {
            for (auto& [k, t] : seq) {
                k.pseudo_channel = 3;
                c.onCommand(k, t);
            }
        } catch (const ProtocolViolation& v) {
            return v.rule() + " | " + v.what();
        }
        return "none";
    };
    const std::string rcd = violation(
        {{cmd(CommandType::ACT, 1, 2, 9), 10}, {cmd(CommandType::RD, 1, 2, 9), 10 + p.tRCD - 1}});
    CHECK_THAT(rcd, Contains("tRCD |") && Contains("RD on pseudo-channel 3") &&
                        Contains("bank group 1 bank 2") && Contains("cycle 41") &&
                        Contains("needs 32 cycles after ACT at cycle 10"));
    CHECK_THAT(violation({{cmd(CommandType::ACT, 0, 0, 1), 0},
                          {cmd(CommandType::ACT, 1, 0, 1), 4},
                          {cmd(CommandType::ACT, 2, 0, 1), 8},
                          {cmd(CommandType::ACT, 3, 0, 1), 12},
                          {cmd(CommandType::ACT, 0, 1, 1), 16}}),
               Contains("tFAW |"));
    CHECK_THAT(violation({{cmd(CommandType::ACT, 0, 0, 1), 0}, {cmd(CommandType::REF), 100}}),
               Contains("bank state |") && Contains("still has row 1 open"));
    CHECK_THAT(
        violation({{cmd(CommandType::ACT, 0, 0, 1), 0}, {cmd(CommandType::RD, 0, 0, 2), 40}}),
        Contains("bank state |") && Contains("open row is 1"));
    CHECK_THAT(violation({{cmd(CommandType::ACT, 0, 0, 1), 0},
                          {cmd(CommandType::WR, 0, 0, 1), 40},
                          {cmd(CommandType::RD, 1, 0, 1), 41}}),
               Contains("bank state |"));  // bank group 1 is closed
    CHECK_THAT(violation({{cmd(CommandType::ACT, 0, 0, 1), 0},
                          {cmd(CommandType::ACT, 1, 0, 1), 5},
                          {cmd(CommandType::WR, 0, 0, 1), 40},
                          {cmd(CommandType::RD, 1, 0, 1), 41}}),
               Contains("tWTR_S |"));
    CHECK_THAT(violation({{cmd(CommandType::ACT, 0, 0, 1), 0}, {cmd(CommandType::PRE), 44}}),
               Contains("tRAS |"));
    CHECK_THAT(
        violation({{cmd(CommandType::ACT, 0, 0, 1), 0}, {cmd(CommandType::ACT, 1, 0, 1), 0}}),
        Contains("command bus |"));
    // Refresh deadline: nothing refreshed for more than 2 x tREFI.
    ProtocolChecker late(p, 0);
    CHECK_THROWS_AS(late.finish(2 * p.tREFI + 1), ProtocolViolation);
}

TEST_CASE("FR-FCFS serves a younger row hit before an older row conflict", "[dram][scheduler]") {
    HbmParams p = HbmParams::hbm3Default();
    p.refresh_mode = RefreshMode::None;
    TimingTracker tr(p);
    tr.issue(cmd(CommandType::ACT, 0, 0, 5), 0);
    auto refresh = RefreshPolicy::create(p);
    FrFcfsScheduler s(p);
    std::vector<BurstRequest> reads, writes;
    BurstRequest older;  // same bank, other row: needs PRE
    older.row = 9;
    BurstRequest younger;  // hits open row 5
    younger.row = 5;
    younger.column = 3;
    reads.push_back(older);
    reads.push_back(younger);
    SchedulerView v{reads, writes, false, tr, *refresh, 0};
    // Before tRCD nothing is legal (PRE waits for tRAS, RD for tRCD): next = tRCD.
    Decision d = s.decide(v, 1);
    CHECK_FALSE(d.issue);
    CHECK(d.next == p.tRCD);
    d = s.decide(v, p.tRCD);
    REQUIRE(d.issue);
    CHECK(d.cmd.type == CommandType::RD);
    CHECK(d.request == 1);
    // With only the conflicting request left, the row is closed once tRAS allows it.
    reads.erase(reads.begin() + 1);
    tr.issue(d.cmd, p.tRCD);
    d = s.decide(v, p.tRCD + 1);
    CHECK_FALSE(d.issue);
    CHECK(d.next == p.tRAS);
    d = s.decide(v, p.tRAS);
    REQUIRE(d.issue);
    CHECK(d.cmd.type == CommandType::PRE);
}

TEST_CASE("a request starved by row hits is served after the starvation limit",
          "[dram][scheduler]") {
    HbmParams p = HbmParams::hbm3Default();
    p.refresh_mode = RefreshMode::None;
    p.starvation_limit = 1000;
    TimingTracker tr(p);
    tr.issue(cmd(CommandType::ACT, 0, 0, 5), 0);
    auto refresh = RefreshPolicy::create(p);
    FrFcfsScheduler s(p);
    std::vector<BurstRequest> reads(2), writes;
    reads[0].row = 9;  // conflicts with open row 5, arrived at cycle 0
    reads[1].row = 5;  // a hit, younger
    reads[1].arrival = 900;
    SchedulerView v{reads, writes, false, tr, *refresh, 0};
    Decision d = s.decide(v, 999);
    REQUIRE(d.issue);
    CHECK(d.cmd.type == CommandType::RD);  // FR-FCFS: the hit first
    d = s.decide(v, 1001);
    REQUIRE(d.issue);
    CHECK(d.cmd.type == CommandType::PRE);  // past the limit: the old request's row wins
    CHECK(d.request == 0);
}

TEST_CASE("closed-page policy precharges a row nobody waits for", "[dram][scheduler]") {
    HbmParams p = HbmParams::hbm3Default();
    p.refresh_mode = RefreshMode::None;
    p.page_policy = PagePolicy::Closed;
    TimingTracker tr(p);
    auto refresh = RefreshPolicy::create(p);
    FrFcfsScheduler s(p);
    std::vector<BurstRequest> reads(1), writes;
    reads[0].row = 4;
    SchedulerView v{reads, writes, false, tr, *refresh, 0};
    Decision d = s.decide(v, 0);
    REQUIRE(d.cmd.type == CommandType::ACT);
    tr.issue(d.cmd, 0);
    s.onIssued(d, v);
    d = s.decide(v, p.tRCD);
    REQUIRE(d.cmd.type == CommandType::RD);
    tr.issue(d.cmd, p.tRCD);
    s.onIssued(d, v);
    reads.clear();
    d = s.decide(v, p.tRCD + 1);
    CHECK_FALSE(d.issue);
    CHECK(d.next == p.tRAS);
    d = s.decide(v, p.tRAS);
    REQUIRE(d.issue);
    CHECK(d.cmd.type == CommandType::PRE);
}

TEST_CASE("write drain watermarks have hysteresis", "[dram][drain]") {
    WriteDrainPolicy w(8, 2);
    CHECK_FALSE(w.update(5, 3));  // reads waiting, writes below high
    CHECK(w.update(5, 8));        // high watermark reached
    CHECK(w.update(5, 5));        // keep draining above low
    CHECK_FALSE(w.update(5, 2));  // low watermark with reads waiting
    CHECK(w.update(0, 1));        // no reads: serve writes opportunistically
    CHECK_FALSE(w.update(0, 0));
    CHECK(w.drains() == 2);
}

TEST_CASE("refresh policies: due every interval, per-bank round robin", "[dram][refresh]") {
    HbmParams p = HbmParams::hbm3Default();
    TimingTracker tr(p);
    AllBankRefresh ab(p);
    CHECK(ab.nextDue() == p.tREFI);
    CHECK_FALSE(ab.pending(p.tREFI - 1));
    CHECK(ab.pending(p.tREFI));
    CHECK(ab.blocksBank(5, p.tREFI));
    CHECK(ab.command(tr, 0).type == CommandType::REF);
    tr.issue(cmd(CommandType::ACT, 0, 0, 1), 10);
    CHECK(ab.command(tr, 0).type == CommandType::PREA);
    ab.onIssued(cmd(CommandType::REF), p.tREFI + 30);
    CHECK(ab.nextDue() == 2 * p.tREFI);  // no drift from the late issue

    PerBankRefresh pb(p);
    CHECK(pb.nextDue() == p.tREFIpb);
    CHECK(pb.command(tr, 0).type == CommandType::PRE);  // bank 0 is open
    CHECK(pb.blocksBank(0, p.tREFIpb));
    CHECK_FALSE(pb.blocksBank(1, p.tREFIpb));
    pb.onIssued(cmd(CommandType::REFpb, 0, 0), p.tREFIpb);
    CHECK(pb.target() == 1);
    CHECK(pb.command(tr, 0).type == CommandType::REFpb);
    CHECK(pb.command(tr, 0).bank == 1);
}

TEST_CASE("latency histogram quantiles", "[dram][stats]") {
    LatencyHistogram h;
    for (uint64_t i = 1; i <= 1000; ++i) h.record(i);
    CHECK(h.count() == 1000);
    CHECK(h.mean() == Approx(500.5));
    CHECK(h.quantile(0.99) == 990);
    CHECK(h.quantile(0.5) == 500);
    h.record(100000);
    CHECK(h.max() == 100000);
    CHECK(h.quantile(1.0) == 100000);
}
