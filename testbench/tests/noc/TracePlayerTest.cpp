// Trace replay (testbench/TrafficTrace, TracePlayer): a message is sent at its cycle, a message
// with after= in the cycle after the last one it names arrived; in an empty network each takes
// the zero-load latency. The text format's errors name file and line.
#include <catch2/catch.hpp>

#include "NocTestUtil.h"
#include "hw/ConfigError.h"
#include "noc/Network.h"
#include "noc/NocShell.h"
#include "noc/ZeroLoadModel.h"
#include "testbench/TracePlayer.h"
#include "testbench/TrafficTrace.h"

using namespace wsc;

TEST_CASE("trace replay: a request and its dependent reply take zero-load latencies",
          "[noc][trace]") {
    const noc::NocParams np = test::meshParams(8, 8);
    noc::Network net(np, 1);
    // One flit each way; the reply waits for the request; a third message starts at cycle 500.
    const tb::TrafficTrace trace = tb::TrafficTrace::parse(
        "0 5 0 63 16\n"
        "1 0 63 0 16 after=0  # reply\n"
        "2 500 9 18 16\n",
        "t.trace", 64);
    noc::NocShell shell("noc", np.clock_hz);
    tb::TracePlayer player(net, trace);
    shell.run(net, player);
    net.checkConservation();
    tb::TraceResult r;
    player.fill(r);
    const noc::ZeroLoadModel zl(net);
    const uint64_t there = zl.packetLatency(0, 63, 1), back = zl.packetLatency(63, 0, 1);
    const uint64_t near = zl.packetLatency(9, 18, 1);
    REQUIRE(there == back);
    CHECK(r.messages == 3);
    CHECK(r.bytes == 48);
    CHECK(r.latency_max == std::max(there, near));
    // The request arrives at 5 + there; the reply leaves one cycle later and takes `back`.
    const uint64_t reply_arrival = 5 + there + 1 + back;
    CHECK(r.cycles == std::max(reply_arrival, 500 + near) + 1);
    CHECK(r.delayed_by_deps == 1);
}

TEST_CASE("trace format errors name the file, the line and what was expected", "[noc][trace]") {
    auto err = [](const std::string& text) {
        try {
            tb::TrafficTrace::parse(text, "t.trace", 64);
        } catch (const hw::ConfigError& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK(err("0 0 0 1 16\n1 0 1 64 16\n") ==
          "t.trace:2:7: expected a destination node below 64 (the NoC's nodes), got '64'");
    CHECK(err("# c\n0 0 0 1\n") ==
          "t.trace:2:1: expected 'ID CYCLE SRC DST BYTES [after=ID,...]', got 4 fields");
    CHECK(err("0 0 0 1 0\n") == "t.trace:1:9: expected a size in bytes in [1, 2^30], got '0'");
    CHECK(err("0 -1 0 1 16\n") == "t.trace:1:3: expected a cycle in [0, 2^40], got '-1'");
    CHECK(err("0 0 0 1 16 after=3\n") ==
          "t.trace:1:12: expected 'after=' to name a message of an earlier line, got 3");
    CHECK(err("0 0 0 1 16\n0 0 0 1 16\n") ==
          "t.trace:2:1: expected a unique message id, got 0 again (line 1)");
    CHECK(err("0 0 0 1 16 before=0\n") ==
          "t.trace:1:12: expected after=ID[,ID...], got 'before=0'");
    CHECK(err("0 0 0 1 16\n1 0 1 0 16 after=0,0\n") ==
          "t.trace:2:12: expected distinct ids after 'after=', got 0 twice");
    CHECK(err("# only comments\n\n") == "t.trace: expected at least one message, got none");
}
