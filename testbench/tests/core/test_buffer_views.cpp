// Buffer views: a named slice of a buffer with no SRAM of its own. Data received into the parent
// is read through the view, data written through the view lands in the parent, the scoreboard
// orders the two, and the text form, validation and SRAM accounting know them.
#include <catch2/catch.hpp>

#include "../noc/NocTestUtil.h"
#include "core/CoreArray.h"
#include "firmware/LoopUnroller.h"
#include "firmware/ProgramText.h"

using namespace wsc;
using Catch::Matchers::Contains;

namespace {

// Core 0 computes for a while (A is zero: X + C[0..7] is X), then sends 8 values into core 1's
// parent P. Core 1 reads the second half through view V before the message can have arrived (the
// scoreboard must hold the copy until the receive completes) and writes the doubled values through
// view W into the first half of Q.
const char* kText = R"(
.core 0
.buffer A 4096
.buffer C 4096
.buffer X 8
gemm a=A b=A c=C m=64 k=64 n=64
vadd a=C b=X c=X n=8
send buf=X to=1 bytes=32
.core 1
.buffer P 8
.view V P 4 4
.buffer Q 8
.view W Q 0 4
.view W2 W 2 2
recv buf=P from=0 bytes=32
vscale a=V c=W n=4 s=2
vcopy a=W2 c=V n=2
)";

}  // namespace

TEST_CASE("buffer views read and write their parent's elements in order", "[core][views]") {
    auto net = std::make_unique<noc::Network>(test::meshParams(2, 1));
    core::CoreParams cp;
    cp.functional = true;
    core::CoreArray cores(*net, cp);
    const firmware::Firmware fw = firmware::ProgramText::parse(kText, "views.fw", 2);
    cores.load(fw);
    float* x = cores.core(0).buffer("X");
    REQUIRE(x != nullptr);
    for (int i = 0; i < 8; ++i) x[i] = float(i + 1);
    const uint64_t last = cores.run();
    cores.finish(last);
    net->checkConservation();

    const float* p = cores.core(1).buffer("P");
    const float* q = cores.core(1).buffer("Q");
    // P got X; then V (P[4..7]) was overwritten by W2 = W[2..3] = Q[2..3] = 2 * P[6..7].
    CHECK(std::vector<float>(p, p + 8) == std::vector<float>{1, 2, 3, 4, 14, 16, 7, 8});
    CHECK(std::vector<float>(q, q + 8) == std::vector<float>{10, 12, 14, 16, 0, 0, 0, 0});
    // The view reads what its parent holds, by name too.
    CHECK(cores.core(1).buffer("V") == p + 4);
    CHECK(cores.core(1).buffer("W2") == q + 2);
    // Views take no SRAM: core 1 holds P and Q only.
    CHECK(cores.core(1).sram().used() == 2 * 8 * 4);
    // The copy waited for the receive: it issued after the GEMM-delayed message landed.
    const uint64_t gemm = cores.peArray().timing(64, 64, 64, firmware::DType::FP32).cycles;
    CHECK(cores.core(1).stats().finish_cycle > gemm);
}

TEST_CASE("buffer views survive the text round trip and unrolling", "[core][views]") {
    const firmware::Firmware fw = firmware::ProgramText::parse(kText, "views.fw", 2);
    const std::string text = firmware::ProgramText::dump(fw);
    CHECK_THAT(text, Contains(".view V P 4 4"));
    CHECK_THAT(text, Contains(".view W2 Q 2 2"));  // a view of a view names the first parent
    const firmware::Firmware back = firmware::ProgramText::parse(text, "dump.fw", 2);
    const firmware::Program& a = fw.program(1);
    const firmware::Program& b = back.program(1);
    REQUIRE(a.buffers().size() == b.buffers().size());
    for (size_t i = 0; i < a.buffers().size(); ++i) {
        CHECK(a.buffer(uint16_t(i)).name == b.buffer(uint16_t(i)).name);
        CHECK(a.buffer(uint16_t(i)).view_of == b.buffer(uint16_t(i)).view_of);
        CHECK(a.buffer(uint16_t(i)).view_offset == b.buffer(uint16_t(i)).view_offset);
        CHECK(a.buffer(uint16_t(i)).elems == b.buffer(uint16_t(i)).elems);
    }
    CHECK(a.code() == b.code());
    const firmware::Program u = firmware::LoopUnroller::unroll(a);
    CHECK(u.buffer(u.findBuffer("W2")).view_of == u.findBuffer("Q"));
    CHECK(u.buffer(u.findBuffer("W2")).allocBytes() == 0);
}

TEST_CASE("malformed buffer views are refused with the line and what was expected",
          "[core][views]") {
    auto parseError = [](const std::string& body) {
        try {
            firmware::ProgramText::parse(".core 0\n.buffer P 8\n" + body, "bad.fw", 1);
        } catch (const std::exception& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    CHECK_THAT(parseError(".view V P 6 4\n"),
               Contains("bad.fw:3") && Contains("elements [6, 10) are not inside buffer 'P'"));
    CHECK_THAT(parseError(".view V Z 0 1\n"),
               Contains("bad.fw:3") && Contains("expected a declared parent buffer, got 'Z'"));
    CHECK_THAT(parseError(".view V P 0\n"), Contains("expected '.view <name> <parent buffer>"));
    CHECK_THAT(parseError(".view P P 0 1\n"), Contains("expected a new buffer name"));
    CHECK_THAT(parseError(".view V P 0 0\n"), Contains("not inside"));
    // An output that partly overlaps an input is refused; in place is fine.
    CHECK_THAT(parseError(".view A P 0 4\n.view B P 2 4\nvcopy a=A c=B n=4\n"),
               Contains("output 'B' partly overlaps input 'A' (views of 'P')"));
    CHECK_THAT(
        parseError(".view A P 0 4\nvscale a=A c=A n=4 s=2\n.view B P 4 4\nvcopy a=A c=B n=4\n"),
        Contains("no error"));
    // A view, or a buffer with views, cannot be renamed by swap.
    CHECK_THAT(parseError(".buffer R 8\n.view V P 0 8\nswap a=P b=R\n"),
               Contains("has view 'V' and cannot be swapped"));
    CHECK_THAT(parseError(".buffer R 8\n.buffer S 8\n.view V S 0 8\nswap a=V b=R\n"),
               Contains("'V' is a view and cannot be swapped"));
}
