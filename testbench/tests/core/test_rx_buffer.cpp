// Arrivals as memory (core.rx_buffer): a message that arrives before its recv is held in the
// receiver's SRAM (counted in its peak) up to the receive buffer; beyond it the flits stay in
// the network and back-pressure the sender through credits, so a producer faster than its
// consumer runs at the consumer's rate. A schedule that needs more buffering than it has stops
// with the core, the cycle and the bytes.
#include <fmt/format.h>

#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "../noc/NocTestUtil.h"
#include "core/CoreArray.h"
#include "core/SramOverflowError.h"
#include "firmware/ProgramText.h"
#include "hw/ConfigError.h"
#include "hw/HardwareLoader.h"

using namespace wsc;

namespace {

// Begin cycles of core `core`'s SEND and RECV work, in order.
struct Spans : core::CoreTraceSink {
    std::vector<uint64_t> sends, recvs;
    void onSpan(const core::TraceSpan& s) override {
        if (s.unit == core::TraceUnit::Send) sends.push_back(s.begin);
        if (s.unit == core::TraceUnit::Recv) recvs.push_back(s.end);
    }
    void onCharge(uint32_t, core::CoreState, core::StallCause, uint64_t, uint64_t) override {}
};

struct Run {
    std::unique_ptr<noc::Network> net;
    std::unique_ptr<core::CoreArray> cores;
    Spans producer, consumer;
    uint64_t last = 0;
};

// Core 0 sends `n` 64-byte messages to core 1 as fast as it can; core 1 takes each into Y and
// multiplies with it (a GEMM of `k` x 16 x 16 reading Y's 16 values) before taking the next.
// One VC of 4 flits per port (16 B flits): the network itself holds only a few messages.
std::unique_ptr<Run> producerConsumer(uint64_t rx_buffer, uint32_t n, uint32_t k = 16) {
    const std::string fw = fmt::format(R"(
.core 0
.buffer X 16
loop count={0}
send buf=X to=1 bytes=64
endloop
.core 1
.buffer Y 16
.buffer W {1}
.buffer C {1}
loop count={0}
recv buf=Y from=0 bytes=64
gemm a=Y b=W c=C m=1 k=16 n={2}
endloop
)",
                                       n, 16 * k, k);
    auto r = std::make_unique<Run>();
    r->net = std::make_unique<noc::Network>(test::meshParams(2, 1, 2, 1, 4));
    core::CoreParams cp;
    cp.rx_buffer_bytes = rx_buffer;
    cp.functional = false;
    r->cores = std::make_unique<core::CoreArray>(*r->net, cp);
    r->cores->load(firmware::ProgramText::parse(fw, "pc.fw", 2));
    r->cores->setTraceSink(0, &r->producer);
    r->cores->setTraceSink(1, &r->consumer);
    r->last = r->cores->run();
    r->cores->finish(r->last);
    r->net->checkConservation();
    return r;
}

double meanGap(const std::vector<uint64_t>& v, size_t from) {
    return double(v.back() - v[from]) / double(v.size() - 1 - from);
}

}  // namespace

TEST_CASE("a producer faster than its consumer is throttled to the consumer's rate", "[core][rx]") {
    const uint32_t n = 40;
    const auto held = producerConsumer(core::kRxFreeSram, n);  // arrivals held in SRAM
    const auto none = producerConsumer(0, n);                  // no receive buffer
    const auto& pc = none->cores->core(0).stats();
    const auto& cc = none->cores->core(1).stats();
    // The consumer's pace is its GEMM: one message per GEMM whatever the buffering.
    REQUIRE(none->consumer.recvs.size() == n);
    const double consumer_gap = meanGap(none->consumer.recvs, n / 2);
    CHECK(consumer_gap >= 16);
    CHECK(held->cores->core(1).stats().finish_cycle == cc.finish_cycle);

    // Unthrottled, the producer is done after about one message per link slot (4 flits).
    CHECK(held->cores->core(0).stats().finish_cycle < 5 * n);
    CHECK(held->producer.sends.size() == n);
    CHECK(meanGap(held->producer.sends, n / 2) <= 4.5);
    // Throttled: once the network's few slots are full, each send waits for the consumer to take
    // one message, so the producer sends at exactly the consumer's rate and ends a few messages
    // (what the network and its egress queue hold) before the consumer does.
    REQUIRE(none->producer.sends.size() == n);
    CHECK(meanGap(none->producer.sends, n / 2) == Approx(consumer_gap).epsilon(0.01));
    CHECK(pc.finish_cycle > cc.finish_cycle - 12 * consumer_gap);
    CHECK(pc.stall[static_cast<size_t>(core::StallCause::Credits)] > n * 8);
    CHECK(cc.rx_refusals > 0);
    CHECK(cc.rx_held_peak == 0);
    CHECK(none->cores->core(1).sram().peak() == none->cores->core(1).sram().used());
}

TEST_CASE("early arrivals occupy SRAM: in the peak, up to the receive buffer", "[core][rx]") {
    const uint32_t n = 40;
    // Default: all the SRAM the buffers leave free. Every message but the few whose recv was
    // already posted waits in SRAM; the peak counts them on top of the buffers.
    const auto all = producerConsumer(core::kRxFreeSram, n);
    const core::Sram& s = all->cores->core(1).sram();
    const auto& st = all->cores->core(1).stats();
    CHECK(st.rx_refusals == 0);
    CHECK(st.rx_held_peak % 64 == 0);
    CHECK(st.rx_held_peak >= (n - 3) * 64);
    CHECK(s.peak() == s.used() + st.rx_held_peak);
    CHECK(s.held() == 0);  // everything was taken by a recv in the end
    CHECK(all->cores->core(1).rxCapacity() == s.params().capacity_bytes - s.used());
    // 256 B: four messages wait in SRAM at most, the rest in the network.
    const auto four = producerConsumer(256, n);
    const auto& st4 = four->cores->core(1).stats();
    CHECK(st4.rx_held_peak == 256);
    CHECK(st4.rx_refusals > 0);
    CHECK(four->cores->core(1).sram().peak() == four->cores->core(1).sram().used() + 256);
    // Same consumer, so the same end; the producer is throttled but four messages further ahead.
    CHECK(four->cores->core(1).stats().finish_cycle == all->cores->core(1).stats().finish_cycle);
    CHECK(four->cores->core(0).stats().finish_cycle <
          producerConsumer(0, n)->cores->core(0).stats().finish_cycle);
}

TEST_CASE("a receive buffer that does not fit next to the buffers is refused", "[core][rx]") {
    noc::Network net(test::meshParams(2, 1));
    core::CoreParams cp;
    cp.sram.capacity_bytes = 1024;
    cp.rx_buffer_bytes = 512;
    core::CoreArray cores(net, cp);
    const auto fw = firmware::ProgramText::parse(".core 1\n.buffer Y 160\nwait.all\n", "x.fw", 2);
    CHECK_THROWS_WITH(cores.load(fw), Catch::Contains("core 1") &&
                                          Catch::Contains("receive buffer") &&
                                          Catch::Contains("needs 512 bytes but only 384 of 1024"));
}

TEST_CASE("a schedule that needs more receive buffering than it has stops naming core and bytes",
          "[core][rx]") {
    // Core 2 takes core 1's message before it posts the recv for core 0's, but core 0's 256-byte
    // message, sent first, holds the one VC into core 2 and its receive buffer is 0 bytes: core
    // 1's message, behind it on the same VC, can never arrive.
    const std::string fw = R"(
.core 0
.buffer X 64
send buf=X to=2 bytes=256
.core 1
.buffer W 256
.buffer C 256
gemm a=W b=W c=C m=16 k=16 n=16
send buf=C to=2 bytes=16
.core 2
.buffer A 64
.buffer B 4
recv buf=B from=1 bytes=16
wait.all
recv buf=A from=0 bytes=256
)";
    auto runWith = [&](uint64_t rx) {
        noc::Network net(test::meshParams(3, 1, 2, 1, 4));
        core::CoreParams cp;
        cp.rx_buffer_bytes = rx;
        core::CoreArray cores(net, cp);
        cores.load(firmware::ProgramText::parse(fw, "order.fw", 3));
        const uint64_t last = cores.run();
        cores.finish(last);
        return cores.core(2).sram().peak() - cores.core(2).sram().used();
    };
    CHECK_THROWS_WITH(runWith(0), Catch::Contains("firmware deadlock at cycle") &&
                                      Catch::Contains("core 2 (2,0): 4 flits held back") &&
                                      Catch::Contains("message from core 0") &&
                                      Catch::Contains("receive buffer 0 of 0 B in use"));
    // With room for core 0's message in SRAM (the default), it waits there and the run ends.
    CHECK(runWith(core::kRxFreeSram) == 256);
    CHECK(runWith(256) == 256);
}

TEST_CASE("core.rx_buffer is read from YAML, bounded by the SRAM", "[core][rx][config]") {
    auto load = [](const std::string& extra) {
        return hw::HardwareLoader::loadString(
            "noc:\n  clock: 1 GHz\n  flit_size: 4 B\n  topology: {mesh: {x: 2, y: 1}}\n"
            "  link: {latency: 1 cycle, width: 4 B}\n"
            "core:\n  sram: {capacity: 48 KB}\n" +
                extra,
            "rx.yaml");
    };
    CHECK(load("").core.rx_buffer_bytes == core::kRxFreeSram);
    CHECK(load("  rx_buffer: 0 B\n").core.rx_buffer_bytes == 0);
    CHECK(load("  rx_buffer: 4 KB\n").core.rx_buffer_bytes == 4096);
    CHECK_THROWS_WITH(load("  rx_buffer: 64 KB\n"),
                      Catch::Contains("rx.yaml:8") && Catch::Contains("core.rx_buffer"));
    CHECK_THROWS_WITH(load("  rx_buffer: 4\n"), Catch::Contains("core.rx_buffer"));
}
