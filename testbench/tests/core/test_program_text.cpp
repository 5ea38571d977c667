// Firmware text: dump and load round-trip, and malformed text names file, line and what was
// expected.
#include <catch2/catch.hpp>

#include "firmware/GemmWorkload.h"
#include "firmware/ParseError.h"
#include "firmware/ProgramText.h"
#include "firmware/ShiftGemmSchedule.h"

using namespace wsc::firmware;
using Catch::Matchers::Contains;

namespace {

const char* kAll = R"(# every opcode once
.core 0
.buffer A 64 fp32
.buffer B 64
.buffer C 64
.buffer s 1
.buffer h 32 fp16
.group 1 0,1
gemm a=A b=B c=C m=8 k=8 n=8 acc
gemv a=A b=B c=C k=8 n=8
vadd a=A b=B c=C n=64
vsub a=A b=B c=C n=64
vmul a=A b=B c=C n=64
vmax a=A b=B c=C n=64
vscale a=A c=C n=64 s=0.125
vexp a=A c=C n=64
vrecip a=A c=C n=64
vsilu a=A c=C n=64
vgelu a=A c=C n=64
vcopy a=A c=C n=64
vrsqrt a=s c=s n=1 eps=1e-05
vbsub a=A b=s c=C n=64
vbmul a=A b=s c=C n=64
vredsum a=A c=s n=64
vredmax a=A c=s n=64
vsqsum a=A c=s n=64
loop count=3
  send buf=A to=1 bytes=256
  recv buf=B from=1 bytes=256
endloop
send buf=h route=40 bytes=64
relay from=1 to_route=41 bytes=128
dma.load buf=A addr=0x1000 bytes=256 event=2
dma.store buf=C addr=0x2000 bytes=256
dma.put buf=A core=1 dst=X bytes=256 event=5
dma.get buf=B core=1 src=X bytes=256
wait event=2
wait event=5 count=3
wait.all
barrier group=1
.core 1
.buffer X 64
.group 1 0,1
recv buf=X route=40 bytes=64
)";

void expectError(const std::string& text, int line, const std::string& what) {
    try {
        ProgramText::parse(text, "bad.fw");
        FAIL("no error for: " << text);
    } catch (const ParseError& e) {
        INFO(e.what());
        CHECK(e.file() == "bad.fw");
        CHECK(e.line() == line);
        CHECK_THAT(std::string(e.what()), Contains("bad.fw:" + std::to_string(line) + ":"));
        CHECK_THAT(e.message(), Contains(what));
    }
}

}  // namespace

TEST_CASE("firmware text dumps and loads back unchanged", "[core][isa]") {
    const Firmware fw = ProgramText::parse(kAll, "all.fw");
    REQUIRE(fw.cores() == 2);
    CHECK(fw.program(0).code().size() == 32);
    CHECK(fw.program(0).code()[0].flags == Instruction::kAccumulate);
    CHECK(fw.program(0).code()[26].rbuf == 0);  // X on core 1
    const std::string once = ProgramText::dump(fw);
    const std::string twice = ProgramText::dump(ProgramText::parse(once, "dump.fw"));
    CHECK(once == twice);

    GemmWorkload w;
    w.m = w.k = w.n = 40;
    w.mesh = 5;
    const Firmware g = ShiftGemmSchedule(5, 5, w).build();
    const std::string gd = ProgramText::dump(g);
    CHECK(ProgramText::dump(ProgramText::parse(gd, "gemm.fw")) == gd);
    CHECK_THAT(gd, Contains("loop count=2"));  // P = 5: two loop pairs, then one last step
}

TEST_CASE("malformed firmware text names the file, the line and what was expected", "[core][isa]") {
    expectError(".core 0\n.buffer A 16\ngemm a=A b=A c=A m=4 k=x4 n=4\n", 3,
                "expected an integer for 'k', got 'x4'");
    expectError(".core 0\n\n  frobnicate a=1\n", 3, "expected an opcode");
    expectError("gemm a=A\n", 1, "expected '.core <id>' before the first statement");
    expectError(".core 0\n.buffer A 16\nvadd a=A c=A n=16\n", 3, "expected key 'b' for 'vadd'");
    expectError(".core 0\n.buffer A 16\nvadd a=A b=Q c=A n=16\n", 3,
                "expected a declared buffer for 'b', got 'Q'");
    expectError(".core 0\n.buffer A 16\nsend buf=A to=1 bytes=64 color=3\n", 3,
                "expected one of the keys of 'send'");
    expectError(".core 0\n.buffer A 16 fp64\n", 2, "expected a dtype");
    expectError(".core 0\n.buffer A 16\n.buffer A 8\n", 3, "declared before");
    expectError(".core 0\n.buffer A 16\ngemm a=A b=A c=A m=4 k=4 n=4 acc=1\n", 3,
                "flag 'acc' without a value");
    expectError(".core 0\n.buffer A 16\n.core 0\n", 3, "core 0 is defined twice");
    expectError(".core 0\n.buffer A 4\n.core 1\n.buffer B 4\ndma.get buf=B core=0 src=Z bytes=16\n",
                5, "expected a buffer declared on core 0, got 'Z'");
    expectError(".core 0\n.buffer A 16\nsend buf=A to=1 bytes=64=2\n", 3,
                "expected an integer for 'bytes'");
    // Semantic checks after parsing name the core and the instruction.
    try {
        ProgramText::parse(".core 0\n.buffer A 16\nvadd a=A b=A c=A n=32\n", "big.fw");
        FAIL("no error");
    } catch (const ParseError& e) {
        CHECK_THAT(std::string(e.what()),
                   Contains("big.fw") && Contains("core 0") && Contains("holds 16 elements"));
    }
    CHECK_THROWS_WITH(ProgramText::loadFile("/nonexistent/x.fw"), Contains("/nonexistent/x.fw"));
}
