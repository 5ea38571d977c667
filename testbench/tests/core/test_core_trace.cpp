// The exact core timeline a CoreTraceSink is told (issue 5, Perfetto): state charges tile the run
// and sum to the CoreStats counters per state and stall cause; each unit span lasts exactly the
// instruction's timing (PE fold model, vector latency, SRAM stream) from its issue cycle; a
// receive ends when its data lands, and what depends on it issues that very cycle. A sink never
// changes the cycles.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "../noc/NocTestUtil.h"
#include "core/CoreArray.h"
#include "firmware/ProgramText.h"

using namespace wsc;
using core::CoreState;
using core::StallCause;
using core::TraceUnit;

namespace {

struct Charge {
    CoreState state;
    StallCause cause;
    uint64_t begin, end;
};

class Collect : public core::CoreTraceSink {
  public:
    void onSpan(const core::TraceSpan& s) override { spans[s.core].push_back(s); }
    void onCharge(uint32_t c, CoreState st, StallCause cause, uint64_t b, uint64_t e) override {
        charges[c].push_back({st, cause, b, e});
    }
    std::vector<core::TraceSpan> on(uint32_t c, TraceUnit u) const {
        std::vector<core::TraceSpan> r;
        if (spans.count(c))
            for (const auto& s : spans.at(c))
                if (s.unit == u) r.push_back(s);
        return r;
    }
    std::map<uint32_t, std::vector<core::TraceSpan>> spans;
    std::map<uint32_t, std::vector<Charge>> charges;
};

struct Run {
    std::unique_ptr<noc::Network> net;
    std::unique_ptr<core::CoreArray> cores;
    uint64_t last = 0;
};

Run run(uint32_t x, uint32_t y, const std::string& text, core::CoreTraceSink* sink,
        core::CoreParams cp = {}) {
    Run r;
    r.net = std::make_unique<noc::Network>(test::meshParams(x, y));
    r.cores = std::make_unique<core::CoreArray>(*r.net, cp);
    r.cores->load(firmware::ProgramText::parse(text, "trace.fw", x * y));
    if (sink)
        for (uint32_t c = 0; c < x * y; ++c) r.cores->setTraceSink(c, sink);
    r.last = r.cores->run();
    r.cores->finish(r.last);
    return r;
}

uint64_t total(const std::vector<core::TraceSpan>& v) {
    uint64_t n = 0;
    for (const auto& s : v) n += s.end - s.begin;
    return n;
}

// Core 0 computes, then sends two messages (the second waits for the vector op: a data stall);
// core 1 receives both and multiplies them (a data stall until the second lands); core 2 has no
// program.
const char* const kTwoCores = R"(
.core 0
.buffer A 64
.buffer B 64
.buffer C 64
.buffer X 64
gemm a=A b=B c=C m=8 k=8 n=8
vexp a=C c=C n=64
send buf=X to=1 bytes=256
send buf=C to=1 bytes=256
.core 1
.buffer Y 64
.buffer Z 64
.buffer W 64
recv buf=Y from=0 bytes=256
recv buf=Z from=0 bytes=256
gemm a=Y b=Z c=W m=8 k=8 n=8
.core 2
)";

}  // namespace

TEST_CASE("trace: state charges tile the run and sum to the stall and busy counters",
          "[core][trace]") {
    Collect sink;
    Run r = run(3, 1, kTwoCores, &sink);
    for (uint32_t c = 0; c < 3; ++c) {
        INFO("core " << c);
        const core::CoreStats& st = r.cores->core(c).stats();
        const auto& ch = sink.charges[c];
        REQUIRE(!ch.empty());
        CHECK(ch.front().begin == 0);
        CHECK(ch.back().end == r.last + 1);
        uint64_t busy = 0, idle = 0;
        std::array<uint64_t, size_t(StallCause::Count)> stall{};
        for (size_t i = 0; i < ch.size(); ++i) {
            if (i) CHECK(ch[i].begin == ch[i - 1].end);  // no gap, no overlap
            CHECK(ch[i].end > ch[i].begin);
            const uint64_t n = ch[i].end - ch[i].begin;
            if (ch[i].state == CoreState::Busy) busy += n;
            if (ch[i].state == CoreState::Idle) idle += n;
            if (ch[i].state == CoreState::Stall) stall[size_t(ch[i].cause)] += n;
        }
        CHECK(busy == st.busy);
        CHECK(idle == st.idle);
        CHECK(stall == st.stall);
        CHECK(busy + idle + st.stalls() == r.last + 1);
    }
    // The receiver waited on data, and the sender's second send waited for the vector unit.
    CHECK(r.cores->core(1).stats().stall[size_t(StallCause::Data)] > 0);
    CHECK(r.cores->core(0).stats().stall[size_t(StallCause::Data)] > 0);
    // A core without a program is idle the whole run, not busy.
    CHECK(r.cores->core(2).stats().idle == r.last + 1);
    CHECK(r.cores->core(2).stats().busy == 0);
}

TEST_CASE("trace: unit spans last exactly the instruction timing from their issue cycle",
          "[core][trace]") {
    Collect sink;
    Run r = run(3, 1, kTwoCores, &sink);
    const core::PeArray& pe = r.cores->peArray();
    const core::PeTiming g = pe.timing(8, 8, 8, firmware::DType::FP32);
    const core::Sram& sram = r.cores->core(0).sram();

    // Core 0 issues one instruction per cycle while nothing stalls: gemm at 0, vexp at 1.
    const auto pe0 = sink.on(0, TraceUnit::Pe);
    REQUIRE(pe0.size() == 1);
    CHECK(pe0[0].begin == 0);
    CHECK(pe0[0].end - pe0[0].begin == g.cycles);
    CHECK(pe0[0].work == g.macs);
    CHECK(pe0[0].op == firmware::Opcode::Gemm);
    CHECK(pe0[0].pc == 0);
    const auto vec0 = sink.on(0, TraceUnit::Vector);
    REQUIRE(vec0.size() == 1);
    // vexp reads C, which the GEMM writes: it issues the cycle the GEMM completes.
    CHECK(vec0[0].begin == pe0[0].end);
    CHECK(vec0[0].work == 64);
    CHECK(total(vec0) == r.cores->core(0).stats().vector_busy);
    CHECK(total(pe0) == r.cores->core(0).stats().pe_busy);

    // Sends stream 256 B out of SRAM; the second (C) waits for vexp to finish writing C.
    const auto send = sink.on(0, TraceUnit::Send);
    REQUIRE(send.size() == 2);
    for (const auto& s : send) {
        CHECK(s.end - s.begin == sram.transferCycles(256));
        CHECK(s.peer == 1);
        CHECK(s.bytes == 256);
    }
    CHECK(send[1].begin == vec0[0].end);

    // Receives run from their issue (cycles 0 and 1) until the data has landed; the GEMM that
    // reads both issues the cycle the second one lands, after a data stall since cycle 2.
    const auto recv = sink.on(1, TraceUnit::Recv);
    REQUIRE(recv.size() == 2);
    std::map<uint32_t, core::TraceSpan> byPc;
    for (const auto& s : recv) byPc[s.pc] = s;
    CHECK(byPc.at(0).begin == 0);
    CHECK(byPc.at(1).begin == 1);
    CHECK(byPc.at(0).peer == 0);
    CHECK(byPc.at(1).end > send[1].end);  // lands after core 0 finished sending it
    const auto pe1 = sink.on(1, TraceUnit::Pe);
    REQUIRE(pe1.size() == 1);
    CHECK(pe1[0].begin == byPc.at(1).end);
    CHECK(pe1[0].end - pe1[0].begin == g.cycles);
    CHECK(r.cores->core(1).stats().stall[size_t(StallCause::Data)] == pe1[0].begin - 2);
    CHECK(r.cores->core(1).stats().finish_cycle == pe1[0].end);
    CHECK(sink.spans.count(2) == 0);
}

TEST_CASE("trace: relay and remote DMA spans match the relay and transfer cycles",
          "[core][trace]") {
    const std::string text = R"(
.core 0
.buffer X 64
.buffer A 32
.buffer G 32
send buf=X to=1 bytes=256
dma.put buf=A core=2 dst=B bytes=128 event=3
dma.get buf=G core=2 src=D bytes=128 event=4
wait event=4
.core 1
relay from=0 to=2 bytes=256
.core 2
.buffer Y 64
.buffer B 32
.buffer D 32
recv buf=Y from=1 bytes=256
wait event=3
)";
    core::CoreParams cp;
    cp.relay_cycles = 8;
    Collect sink;
    Run r = run(3, 1, text, &sink, cp);
    const core::Sram& sram = r.cores->core(0).sram();
    const auto relay = sink.on(1, TraceUnit::Relay);
    REQUIRE(relay.size() == 1);
    CHECK(relay[0].end - relay[0].begin == 8 + sram.transferCycles(256));
    CHECK(total(relay) == r.cores->core(1).stats().relay_cycles);
    CHECK(relay[0].peer == 0);
    CHECK(relay[0].peer2 == 2);
    // The relayed message reaches core 2 after the relay work.
    const auto recv = sink.on(2, TraceUnit::Recv);
    REQUIRE(recv.size() == 1);
    CHECK(recv[0].end > relay[0].end);

    const auto dma = sink.on(0, TraceUnit::Dma);
    REQUIRE(dma.size() == 2);
    const auto& put = dma[0].op == firmware::Opcode::DmaPut ? dma[0] : dma[1];
    const auto& get = dma[0].op == firmware::Opcode::DmaGet ? dma[0] : dma[1];
    CHECK(put.op == firmware::Opcode::DmaPut);
    CHECK(get.op == firmware::Opcode::DmaGet);
    CHECK(put.end - put.begin == sram.transferCycles(128));
    CHECK(get.bytes == 128);
    CHECK(get.peer == 2);
    // The get is a round trip: request out, 128 B back; the wait on its event ends with it.
    CHECK(get.end - get.begin > 4);
    const auto& ch = sink.charges[0];
    // The get's completion raises event 4, the wait passes that cycle, the core ends the next.
    CHECK(r.cores->core(0).stats().finish_cycle == get.end + 1);
    CHECK(ch.back().state == CoreState::Idle);
}

TEST_CASE("trace: a trace sink does not change a single counter or cycle", "[core][trace]") {
    Collect sink;
    Run traced = run(3, 1, kTwoCores, &sink);
    Run plain = run(3, 1, kTwoCores, nullptr);
    CHECK(traced.last == plain.last);
    for (uint32_t c = 0; c < 3; ++c) {
        nlohmann::json a, b;
        traced.cores->core(c).stats().toJson(a, 16);
        plain.cores->core(c).stats().toJson(b, 16);
        CHECK(a == b);
    }
    CHECK(traced.cores->evaluations() == plain.cores->evaluations());
}
