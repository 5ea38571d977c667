// Communication and synchronisation instructions on small meshes, stepped without SystemC:
// a relay costs the relaying core its cycles; barriers hold cores until the last arrives;
// one-sided DMA put/get with events; vector-op pieces of softmax and RMSNorm compute correctly.
#include <catch2/catch.hpp>
#include <cmath>

#include "../noc/NocTestUtil.h"
#include "core/CoreArray.h"
#include "firmware/ProgramText.h"

using namespace wsc;

namespace {

struct Run {
    std::unique_ptr<noc::Network> net;
    std::unique_ptr<core::CoreArray> cores;
    firmware::Firmware fw;
    uint64_t last = 0;
};

// Loads `text` on an x-by-y mesh; `init` may fill buffers before the run.
template <typename Init>
Run run(uint32_t x, uint32_t y, const std::string& text, Init init, core::CoreParams cp = {}) {
    Run r;
    r.net = std::make_unique<noc::Network>(test::meshParams(x, y));
    r.cores = std::make_unique<core::CoreArray>(*r.net, cp);
    r.fw = firmware::ProgramText::parse(text, "test.fw", x * y);
    r.cores->load(r.fw);
    init(*r.cores);
    r.last = r.cores->run();
    r.cores->finish(r.last);
    r.net->checkConservation();
    return r;
}

auto noInit = [](core::CoreArray&) {};

void fill(core::CoreArray& c, uint32_t core, const char* buf, uint32_t n, float base) {
    float* p = c.core(core).buffer(buf);
    for (uint32_t i = 0; i < n; ++i) p[i] = base + float(i);
}

}  // namespace

TEST_CASE("a relay through a core costs that core's cycles", "[core][relay]") {
    // 3x1 mesh. Relayed: core 0 -> core 1 (RELAY, software forwarding) -> core 2. Direct: core 0
    // -> core 2, the router of core 1 forwards without its core. Core 1 also has a GEMM to run.
    const std::string relayed = R"(
.core 0
.buffer X 64
send buf=X to=1 bytes=256
.core 1
.buffer A 16
.buffer C 16
relay from=0 to=2 bytes=256
gemm a=A b=A c=C m=4 k=4 n=4
.core 2
.buffer Y 64
recv buf=Y from=1 bytes=256
)";
    const std::string direct = R"(
.core 0
.buffer X 64
send buf=X to=2 bytes=256
.core 1
.buffer A 16
.buffer C 16
gemm a=A b=A c=C m=4 k=4 n=4
.core 2
.buffer Y 64
recv buf=Y from=0 bytes=256
)";
    core::CoreParams cp;
    cp.relay_cycles = 8;
    auto init = [](core::CoreArray& c) { fill(c, 0, "X", 64, 100.0f); };
    Run a = run(3, 1, relayed, init, cp);
    Run b = run(3, 1, direct, init, cp);
    const auto& r1 = a.cores->core(1).stats();
    const uint64_t gemm = a.cores->peArray().timing(4, 4, 4, firmware::DType::FP32).cycles;
    // beta (8 cycles) + copying 256 B through a 16 B/cycle SRAM port (16 cycles)
    CHECK(r1.relays == 1);
    CHECK(r1.relay_cycles == 8 + 16);
    CHECK(r1.bytes_in == 256);
    CHECK(r1.bytes_out == 256);
    CHECK(r1.stall[static_cast<size_t>(core::StallCause::Data)] > 0);  // waited for the message
    // Without the relay core 1 finishes its GEMM at once; with it the GEMM waits for the relay.
    CHECK(b.cores->core(1).stats().finish_cycle == gemm);
    CHECK(r1.finish_cycle >= r1.stall[static_cast<size_t>(core::StallCause::Data)] + 24 + gemm);
    // The destination pays for the relay too.
    CHECK(a.cores->core(2).stats().finish_cycle >= b.cores->core(2).stats().finish_cycle + 24);
    // The data arrives intact either way.
    for (Run* r : {&a, &b}) {
        const float* y = r->cores->core(2).buffer("Y");
        for (int i = 0; i < 64; ++i) CHECK(y[i] == 100.0f + float(i));
    }
}

TEST_CASE("a barrier holds every member until the last one arrives", "[core][barrier]") {
    // Core 3 works longest before the barrier; everyone's post-barrier vadd starts after it.
    std::string text;
    for (int c = 0; c < 4; ++c) {
        text += ".core " + std::to_string(c) + "\n.buffer v 1024\n.group 7 0,1,2,3\n";
        text += "vexp a=v c=v n=" + std::to_string(64 * (c + 1) * (c + 1)) + "\n";
        text += "barrier group=7\nvadd a=v b=v c=v n=4\n";
    }
    Run r = run(2, 2, text, noInit);
    const uint64_t slowest = r.cores->core(3).stats().vector_busy;
    for (int c = 0; c < 4; ++c) {
        const auto& s = r.cores->core(c).stats();
        INFO("core " << c);
        CHECK(s.finish_cycle > slowest);
        if (c < 3) CHECK(s.stall[static_cast<size_t>(core::StallCause::Sync)] > 0);
        CHECK(s.cycles() == r.last + 1);
    }
}

TEST_CASE("DMA put and get move remote SRAM and raise events", "[core][dma]") {
    const std::string text = R"(
.core 0
.buffer A 32
.buffer G 32
dma.put buf=A core=1 dst=B bytes=128 event=3
dma.get buf=G core=1 src=D bytes=128 event=4
wait event=4
.core 1
.buffer B 32
.buffer C 32
.buffer D 32
wait event=3
vscale a=B c=C n=32 s=2
)";
    Run r = run(2, 1, text, [](core::CoreArray& c) {
        fill(c, 0, "A", 32, 1.0f);
        fill(c, 1, "D", 32, -50.0f);
    });
    const float* cbuf = r.cores->core(1).buffer("C");
    const float* g = r.cores->core(0).buffer("G");
    for (int i = 0; i < 32; ++i) {
        CHECK(cbuf[i] == 2.0f * (1.0f + float(i)));
        CHECK(g[i] == -50.0f + float(i));
    }
    CHECK(r.cores->core(1).stats().stall[static_cast<size_t>(core::StallCause::Sync)] > 0);
}

TEST_CASE("vector pieces compute softmax and RMSNorm", "[core][vector]") {
    const std::string text = R"(
.core 0
.buffer x 16
.buffer m 1
.buffer t 16
.buffer y 16
.buffer w 16
.buffer r 16
vredmax a=x c=m n=16
vbsub a=x b=m c=t n=16
vexp a=t c=t n=16
vredsum a=t c=m n=16
vrecip a=m c=m n=1
vbmul a=t b=m c=y n=16
vsqsum a=x c=m n=16
vscale a=m c=m n=1 s=0.0625
vrsqrt a=m c=m n=1 eps=1e-06
vbmul a=x b=m c=r n=16
vmul a=r b=w c=r n=16
vsilu a=x c=t n=16
)";
    Run r = run(1, 1, text, [](core::CoreArray& c) {
        float* x = c.core(0).buffer("x");
        float* w = c.core(0).buffer("w");
        for (int i = 0; i < 16; ++i) x[i] = 0.25f * float(i) - 1.5f, w[i] = 1.0f + 0.1f * float(i);
    });
    const auto& c = r.cores->core(0);
    const float* x = c.buffer("x");
    double mx = -1e9, sum = 0, sq = 0;
    for (int i = 0; i < 16; ++i) mx = std::max<double>(mx, x[i]);
    for (int i = 0; i < 16; ++i) sum += std::exp(x[i] - mx), sq += double(x[i]) * x[i];
    const double inv_rms = 1.0 / std::sqrt(sq / 16 + 1e-6);
    for (int i = 0; i < 16; ++i) {
        CHECK(c.buffer("y")[i] == Approx(std::exp(x[i] - mx) / sum).epsilon(1e-5));
        CHECK(c.buffer("r")[i] == Approx(x[i] * inv_rms * (1.0 + 0.1 * i)).epsilon(1e-5));
        CHECK(c.buffer("t")[i] == Approx(x[i] / (1.0 + std::exp(-x[i]))).epsilon(1e-5));
    }
    CHECK(c.stats().vector_ops == 12);
    // In-order on one vector unit: the last op retires after the sum of all op latencies.
    CHECK(c.stats().finish_cycle >= c.stats().vector_busy);
}

TEST_CASE("a firmware deadlock is reported with the stuck cores", "[core][deadlock]") {
    const std::string text =
        ".core 0\n.buffer A 4\nrecv buf=A from=1 bytes=16\n.core 1\n.buffer B 4\n";
    auto net = std::make_unique<noc::Network>(test::meshParams(2, 1));
    core::CoreArray cores(*net, core::CoreParams{});
    cores.load(firmware::ProgramText::parse(text, "dl.fw", 2));
    CHECK_THROWS_WITH(cores.run(), Catch::Matchers::Contains("firmware deadlock") &&
                                       Catch::Matchers::Contains("core 0 (0,0)") &&
                                       Catch::Matchers::Contains("recv"));
}
