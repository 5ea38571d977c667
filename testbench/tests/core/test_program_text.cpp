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

namespace {

// One program per core exercising every opcode with every flag and optional key it takes, built
// through the C++ API (as schedule generators do), not through the text form.
Firmware everyOpcode() {
    Firmware fw(3);
    Program& p = fw.program(0);
    const uint16_t A = p.addBuffer("A", 64), B = p.addBuffer("B", 64), C = p.addBuffer("C", 64);
    const uint16_t S = p.addBuffer("s", 1), H = p.addBuffer("h", 64, DType::FP16);
    p.addGroup(1, {0, 1});
    fw.program(1).addBuffer("X", 64);
    fw.program(1).addGroup(1, {0, 1});
    fw.program(2).addBuffer("Y", 16, DType::INT8);
    auto ins = [](Opcode op) {
        Instruction i;
        i.op = op;
        return i;
    };
    for (uint32_t o = 0; o < uint32_t(Opcode::Count); ++o) {
        const Opcode op = Opcode(o);
        Instruction i = ins(op);
        switch (op) {
            case Opcode::Gemm:
                for (uint8_t f : {uint8_t(0), Instruction::kAccumulate, Instruction::kTransB,
                                  uint8_t(Instruction::kAccumulate | Instruction::kTransB)})
                    for (DType t : {DType::FP32, DType::BF16}) {
                        i.a = A, i.b = B, i.c = C, i.m = 4, i.k = 8, i.n = 2, i.flags = f,
                        i.dtype = t;
                        p.add(i);
                    }
                continue;
            case Opcode::Gemv:
                for (uint8_t f : {uint8_t(0), Instruction::kAccumulate}) {
                    i.a = H, i.b = B, i.c = C, i.k = 8, i.n = 8, i.flags = f, i.dtype = DType::FP16;
                    p.add(i);
                }
                continue;
            case Opcode::VAdd:
            case Opcode::VSub:
            case Opcode::VMul:
            case Opcode::VMax:
                i.a = A, i.b = B, i.c = C, i.n = 64;
                break;
            case Opcode::VBSub:
            case Opcode::VBMul:
                i.a = A, i.b = S, i.c = C, i.n = 64;
                break;
            case Opcode::VScale:
                i.a = A, i.c = C, i.n = 64, i.imm = -0.1f;
                break;
            case Opcode::VRsqrt:
                i.a = S, i.c = S, i.n = 1, i.imm = 1e-5f;
                break;
            case Opcode::VExp:
            case Opcode::VRecip:
            case Opcode::VSilu:
            case Opcode::VGelu:
            case Opcode::VCopy:
                i.a = A, i.c = C, i.n = 64;
                break;
            case Opcode::VRedSum:
            case Opcode::VRedMax:
            case Opcode::VSqSum:
                i.a = A, i.c = S, i.n = 64;
                break;
            case Opcode::Send:
                i.a = A, i.peer = 1, i.bytes = 256, p.add(i);
                i.a = H, i.peer = kNoCore, i.route = 40, i.bytes = 128;
                break;
            case Opcode::Recv:
                i.c = B, i.peer = 2, i.bytes = 256, p.add(i);
                i.c = B, i.peer = kNoCore, i.route = 7, i.bytes = 12;
                break;
            case Opcode::Relay:
                i.peer = 1, i.peer2 = 2, i.bytes = 64, p.add(i);
                i.peer = kNoCore, i.route = 3, i.peer2 = kNoCore, i.route2 = 4, p.add(i);
                i.peer = 2, i.route = kNoRouteId;
                break;
            case Opcode::DmaLoad:
                i.c = A, i.addr = 0x1000, i.bytes = 256, p.add(i);
                i.event = 2, i.raise = true;
                break;
            case Opcode::DmaStore:
                i.a = C, i.addr = 0xdeadbeef00, i.bytes = 256, i.event = 3, i.raise = true,
                p.add(i);
                i.event = 0, i.raise = false;
                break;
            case Opcode::DmaPut:
                i.a = A, i.peer = 1, i.rbuf = 0, i.bytes = 256, i.event = 5, i.raise = true;
                p.add(i);
                i.event = 0, i.raise = false;
                break;
            case Opcode::DmaGet:
                i.c = B, i.peer = 2, i.rbuf = 0, i.bytes = 16;
                break;
            case Opcode::Wait:
                i.event = 2, i.n = 1, p.add(i);
                i.event = 5, i.n = 3;
                break;
            case Opcode::WaitAll:
                break;
            case Opcode::EndLoop:
                continue;  // closes the loop body below
            case Opcode::Barrier:
                i.group = 1;
                break;
            case Opcode::Signal:
                i.event = 7;
                break;
            case Opcode::Loop:
                i.n = 4;
                p.add(i);
                i = ins(Opcode::VCopy), i.a = A, i.c = B, i.n = 8;
                break;
            case Opcode::Swap:
                i.a = A, i.b = B;
                break;
            case Opcode::Count:
                break;
        }
        p.add(i);
        if (op == Opcode::Loop) p.add(ins(Opcode::EndLoop));
    }
    // A second stream (with a loop of its own) that waits for the first one's signal.
    p.beginStream();
    Instruction w = ins(Opcode::Wait);
    w.event = 7, w.n = 1;
    p.add(w);
    Instruction l = ins(Opcode::Loop);
    l.n = 2;
    p.add(l);
    Instruction cp = ins(Opcode::VCopy);
    cp.a = B, cp.c = A, cp.n = 8;
    p.add(cp);
    p.add(ins(Opcode::EndLoop));
    fw.validate();
    return fw;
}

}  // namespace

TEST_CASE("every opcode and flag survives dump then parse unchanged", "[core][isa]") {
    const Firmware fw = everyOpcode();
    // Every opcode is present, so a new opcode without a text form fails here.
    std::vector<bool> seen(size_t(Opcode::Count), false);
    for (const Instruction& i : fw.program(0).code()) seen[size_t(i.op)] = true;
    for (size_t o = 0; o < seen.size(); ++o) {
        INFO("opcode " << opcodeName(Opcode(o)));
        CHECK(seen[o]);
    }
    const std::string text = ProgramText::dump(fw);
    INFO(text);
    CHECK_THAT(text, Contains(" acc transb") && Contains(" transb") && Contains("dtype=bf16") &&
                         Contains(".stream 1\nwait event=7 count=1\nloop count=2\n  vcopy"));
    const Firmware back = ProgramText::parse(text, "roundtrip.fw", fw.cores());
    REQUIRE(back.cores() == fw.cores());
    for (uint32_t c = 0; c < fw.cores(); ++c) {
        const Program &a = fw.program(c), &b = back.program(c);
        REQUIRE(a.buffers().size() == b.buffers().size());
        for (size_t x = 0; x < a.buffers().size(); ++x) {
            CHECK(a.buffers()[x].name == b.buffers()[x].name);
            CHECK(a.buffers()[x].elems == b.buffers()[x].elems);
            CHECK(a.buffers()[x].dtype == b.buffers()[x].dtype);
        }
        REQUIRE(a.groups().size() == b.groups().size());
        for (size_t x = 0; x < a.groups().size(); ++x) {
            CHECK(a.groups()[x].id == b.groups()[x].id);
            CHECK(a.groups()[x].members == b.groups()[x].members);
        }
        REQUIRE(a.code().size() == b.code().size());
        REQUIRE(a.streams() == b.streams());
        for (uint32_t s = 0; s < a.streams(); ++s) CHECK(a.streamBegin(s) == b.streamBegin(s));
        for (size_t pc = 0; pc < a.code().size(); ++pc) {
            INFO("core " << c << " instruction " << pc << " (" << opcodeName(a.code()[pc].op)
                         << ")");
            CHECK(a.code()[pc] == b.code()[pc]);
        }
    }
    CHECK(ProgramText::dump(back) == text);

    // A flag an opcode does not take is refused, not dropped on the way to text.
    Firmware bad(1);
    const uint16_t x = bad.program(0).addBuffer("x", 16);
    Instruction g;
    g.op = Opcode::Gemv, g.a = g.b = g.c = x, g.k = 4, g.n = 4, g.flags = Instruction::kTransB;
    bad.program(0).add(g);
    CHECK_THROWS_WITH(bad.validate(), Contains("flags 0x2 are not valid"));
    CHECK_THROWS_WITH(ProgramText::dump(bad), Contains("have no text form"));
    expectError(".core 0\n.buffer A 16\ngemv a=A b=A c=A k=4 n=4 transb\n", 3,
                "expected one of the keys of 'gemv' (a, b, c, k, n, dtype, acc), got 'transb'");
    expectError(".core 0\n.buffer A 16\ngemm a=A b=A c=A m=4 k=4 n=4 transb=1\n", 3,
                "expected the flag 'transb' without a value");
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
    // Semantic checks after parsing name the core, the instruction and its line.
    try {
        ProgramText::parse(".core 0\n.buffer A 16\n\nvadd a=A b=A c=A n=32\n", "big.fw");
        FAIL("no error");
    } catch (const ParseError& e) {
        CHECK(e.line() == 4);
        CHECK_THAT(std::string(e.what()),
                   Contains("big.fw:4:") && Contains("core 0") && Contains("holds 16 elements"));
    }
    // ... or the line of the core's `.core` when the fault is the program's as a whole.
    expectError(".core 0\n.buffer A 4\n.core 1\n.buffer B 4\nloop count=2\nwait.all\n", 3,
                "loop(s) without endloop");
    expectError(".core 0\n.buffer A 4\nsend buf=A to=7 bytes=16\n", 3, "core 7 does not exist");
    // A swap renames storage: both names must describe the same size and type.
    expectError(".core 0\n.buffer A 4\n.buffer B 8\nswap a=A b=B\n", 4,
                "buffers 'A' (4 x fp32) and 'B' (8 x fp32) differ");
    expectError(".core 0\n.buffer A 4\n.buffer B 4 fp16\nswap a=A b=B\n", 4, "differ");
    expectError(".core 0\n.buffer A 4\nswap a=A b=A\n", 3, "swaps a buffer with itself");
    expectError(".core 0\n.buffer A 4\nswap a=A\n", 3, "expected key 'b' for 'swap'");
    // Streams are numbered in order, hold instructions, and close their loops.
    expectError(".core 0\n.buffer A 4\nwait.all\n.stream 2\n", 4, "expected '.stream 1'");
    expectError(".core 0\n.buffer A 4\nloop count=2\nwait.all\n.stream 1\nwait.all\nendloop\n", 4,
                "stream 0 ends inside a loop");
    CHECK_THROWS_WITH(ProgramText::loadFile("/nonexistent/x.fw"), Contains("/nonexistent/x.fw"));
    // Core ids are bounded: `.core 11111111` alone made 11 million programs (found by
    // fuzz_firmware).
    expectError("# x\n.core 11111111\n", 2, "expected an integer <= 1048575 for 'core'");
    CHECK(ProgramText::parse(".core 1048575\n", "max.fw").cores() == 1048576);
    // A text without a program points at its last line (line 1 when empty), not at line 0.
    expectError("", 1, "expected at least one '.core <id>' section");
    expectError("# only\n# comments\n", 2, "expected at least one '.core <id>' section");
}

TEST_CASE("empty programs keep the core count through dump and parse", "[core][isa]") {
    // Found by fuzz_firmware: `.core 0` alone parsed, but dumped to a text without any `.core`.
    const Firmware one = ProgramText::parse(".core 0 # nothing yet\n", "empty.fw");
    CHECK(one.cores() == 1);
    const std::string text = ProgramText::dump(one);
    CHECK_THAT(text, Contains(".core 0\n"));
    CHECK(ProgramText::parse(text, "dump.fw").cores() == 1);
    // Trailing empty cores are kept by the last one; empty ones in between are left out.
    const Firmware three = ProgramText::parse(".core 1\n.buffer A 4\n.core 2\n", "three.fw");
    const std::string t3 = ProgramText::dump(three);
    CHECK_THAT(t3, !Contains(".core 0") && Contains(".core 1") && Contains(".core 2"));
    CHECK(ProgramText::parse(t3, "dump.fw").cores() == 3);
    CHECK(ProgramText::dump(ProgramText::parse(t3, "dump.fw")) == t3);
}
