// Instruction streams: independent in-order queues of one core. A receive that waits for late
// data in one stream does not hold back compute in another; `signal` / `wait` order work across
// streams; a one-stream program is unchanged.
#include <catch2/catch.hpp>

#include "../noc/NocTestUtil.h"
#include "core/CoreArray.h"
#include "firmware/ProgramText.h"

using namespace wsc;
using Catch::Matchers::Contains;

namespace {

struct Run {
    std::unique_ptr<noc::Network> net;
    std::unique_ptr<core::CoreArray> cores;
    uint64_t last = 0;
};

Run run(uint32_t x, const std::string& text, bool functional = false) {
    Run r;
    r.net = std::make_unique<noc::Network>(test::meshParams(x, 1));
    core::CoreParams cp;
    cp.functional = functional;
    r.cores = std::make_unique<core::CoreArray>(*r.net, cp);
    r.cores->load(firmware::ProgramText::parse(text, "streams.fw", x));
    r.last = r.cores->run();
    r.cores->finish(r.last);
    r.net->checkConservation();
    return r;
}

// Core 0 computes a long GEMM before it sends; core 1 has its own GEMM and must add what core 0
// sends. In one stream core 1's add blocks its GEMM behind the late message; with the
// communication in a second stream the two overlap.
// Messages are matched per stream, so the producer sends from stream 1 too.
const char* kProducer = R"(
.core 0
.buffer A 4096
.buffer C 4096
.buffer X 256
gemm a=A b=A c=C m=64 k=64 n=64
signal event=1
.stream 1
wait event=1
send buf=X to=1 bytes=1024
)";

}  // namespace

TEST_CASE("a second stream overlaps communication with compute", "[core][streams]") {
    const std::string one = std::string(kProducer) + R"(
.core 1
.buffer A 4096
.buffer C 4096
.buffer R 256
.buffer S 256
vcopy a=S c=S n=1
.stream 1
recv buf=R from=0 bytes=1024
vadd a=R b=S c=S n=256
gemm a=A b=A c=C m=64 k=64 n=64
)";
    const std::string two = std::string(kProducer) + R"(
.core 1
.buffer A 4096
.buffer C 4096
.buffer R 256
.buffer S 256
gemm a=A b=A c=C m=64 k=64 n=64
.stream 1
recv buf=R from=0 bytes=1024
vadd a=R b=S c=S n=256
)";
    Run a = run(2, one), b = run(2, two);
    const uint64_t gemm = a.cores->peArray().timing(64, 64, 64, firmware::DType::FP32).cycles;
    const uint64_t t0 = a.cores->core(0).stats().finish_cycle;
    const uint64_t serial = a.cores->core(1).stats().finish_cycle;
    const uint64_t overlapped = b.cores->core(1).stats().finish_cycle;
    INFO("gemm " << gemm << " core0 done " << t0 << " serial " << serial << " overlapped "
                 << overlapped);
    // Serial: core 1's GEMM starts only after the message (sent after core 0's GEMM) arrived and
    // was added, so core 1 ends after two GEMMs.
    CHECK(serial > 2 * gemm);
    // Overlapped: core 1's GEMM runs while the message is on its way; core 1 ends shortly after
    // core 0's send lands, well before two GEMMs.
    CHECK(overlapped < serial);
    CHECK(overlapped < 2 * gemm);
    CHECK(overlapped >= gemm);
    // Every cycle is charged exactly once, and the overlapped core is never idle before it ends.
    const auto& s = b.cores->core(1).stats();
    uint64_t stalls = 0;
    for (uint64_t x : s.stall) stalls += x;
    CHECK(s.busy + s.idle + stalls == b.last + 1);
    // The only stalls of the two-stream core are cycles where its GEMM had finished and the
    // second stream still waited for the message.
    CHECK(s.busy >= gemm);
}

TEST_CASE("signal and wait order work across streams", "[core][streams]") {
    // Stream 0 scales X into Y and signals; stream 1 waits for the signal before sending Y. The
    // receiver must get the scaled values, which only holds if the send waited.
    const std::string text = R"(
.core 0
.buffer X 64
.buffer Y 64
.buffer A 4096
.buffer C 4096
gemm a=A b=A c=C m=64 k=64 n=64
vscale a=X c=Y n=64 s=2
signal event=3
.stream 1
wait event=3
send buf=Y to=1 bytes=256
.core 1
.buffer Z 64
vcopy a=Z c=Z n=1
.stream 1
recv buf=Z from=0 bytes=256
)";
    Run r;
    r.net = std::make_unique<noc::Network>(test::meshParams(2, 1));
    r.cores = std::make_unique<core::CoreArray>(*r.net, core::CoreParams{});
    r.cores->load(firmware::ProgramText::parse(text, "signal.fw", 2));
    float* x = r.cores->core(0).buffer("X");
    for (int i = 0; i < 64; ++i) x[i] = float(i);
    r.last = r.cores->run();
    r.cores->finish(r.last);
    const float* z = r.cores->core(1).buffer("Z");
    for (int i = 0; i < 64; ++i) REQUIRE(z[i] == 2.0f * float(i));
    // The send could only leave after the GEMM (the signal fences stream 0).
    const uint64_t gemm = r.cores->peArray().timing(64, 64, 64, firmware::DType::FP32).cycles;
    CHECK(r.cores->core(1).stats().finish_cycle > gemm);
}

TEST_CASE("a stuck stream is named in the deadlock report", "[core][streams]") {
    // Stream 1 waits for an event nobody signals: the run ends with the core unfinished and its
    // status names the stream and the instruction.
    const std::string text = R"(
.core 0
.buffer X 64
vcopy a=X c=X n=64
.stream 1
wait event=9
.core 1
.buffer Y 4
vcopy a=Y c=Y n=4
)";
    Run r;
    r.net = std::make_unique<noc::Network>(test::meshParams(2, 1));
    r.cores = std::make_unique<core::CoreArray>(*r.net, core::CoreParams{});
    r.cores->load(firmware::ProgramText::parse(text, "stuck.fw", 2));
    try {
        r.cores->run();
        FAIL("no error for a stream waiting forever");
    } catch (const std::exception& e) {
        CHECK_THAT(std::string(e.what()), Contains("stream 1 at instruction 1 (wait)"));
    }
}

TEST_CASE("a generator can append to any stream in any order", "[core][streams]") {
    firmware::Program p;
    const uint16_t x = p.addBuffer("x", 8);
    auto op = [&](uint32_t n) {
        firmware::Instruction i;
        i.op = firmware::Opcode::VCopy, i.a = x, i.c = x, i.n = n;
        return i;
    };
    p.setStream(1);  // creates streams 0 and 1
    p.add(op(1));
    p.setStream(0);
    p.add(op(2));
    p.add(op(3));
    p.setStream(2);
    p.add(op(4));
    p.setStream(1);
    p.add(op(5));
    REQUIRE(p.streams() == 3);
    std::vector<std::vector<uint32_t>> got(3);
    for (uint32_t s = 0; s < 3; ++s)
        for (uint32_t pc = p.streamBegin(s); pc < p.streamEnd(s); ++pc)
            got[s].push_back(p.code()[pc].n);
    CHECK(got[0] == std::vector<uint32_t>{2, 3});
    CHECK(got[1] == std::vector<uint32_t>{1, 5});
    CHECK(got[2] == std::vector<uint32_t>{4});
    p.validate("core 0");
}

TEST_CASE("messages are matched per source and stream", "[core][streams]") {
    // Core 0 sends A then B from stream 0 and C from stream 1, all to core 1. Core 1's stream 1
    // receives before its stream 0 does, and must still get C, not A.
    const std::string text = R"(
.core 0
.buffer A 16
.buffer B 16
.buffer C 16
send buf=A to=1 bytes=64
send buf=B to=1 bytes=64
.stream 1
send buf=C to=1 bytes=64
.core 1
.buffer X 16
.buffer Y 16
.buffer Z 16
.buffer W 4096
.buffer V 4096
gemm a=W b=W c=V m=64 k=64 n=64
recv buf=X from=0 bytes=64
recv buf=Y from=0 bytes=64
.stream 1
recv buf=Z from=0 bytes=64
)";
    Run r;
    r.net = std::make_unique<noc::Network>(test::meshParams(2, 1));
    r.cores = std::make_unique<core::CoreArray>(*r.net, core::CoreParams{});
    r.cores->load(firmware::ProgramText::parse(text, "match.fw", 2));
    const char* names[] = {"A", "B", "C"};
    for (int b = 0; b < 3; ++b) {
        float* p = r.cores->core(0).buffer(names[b]);
        for (int i = 0; i < 16; ++i) p[i] = float(100 * (b + 1) + i);
    }
    r.last = r.cores->run();
    CHECK(r.cores->core(1).buffer("X")[3] == 103.0f);
    CHECK(r.cores->core(1).buffer("Y")[3] == 203.0f);
    CHECK(r.cores->core(1).buffer("Z")[3] == 303.0f);
}
