// Program storage: instructions are kept as (address, index of their other fields in a pool of
// distinct ones). What a reader gets back must be exactly what was added, in stream order, and a
// repetitive generated step must take far less host memory than sizeof(Instruction) per pc.
#include <catch2/catch.hpp>
#include <cmath>

#include "firmware/Program.h"

using namespace wsc::firmware;

namespace {

Instruction load(uint16_t buf, uint64_t addr, uint64_t bytes) {
    Instruction i;
    i.op = Opcode::DmaLoad;
    i.c = buf;
    i.addr = addr;
    i.bytes = bytes;
    return i;
}

}  // namespace

TEST_CASE("program storage returns every instruction as added, in stream order",
          "[core][program]") {
    Program p;
    const uint16_t b = p.addBuffer("B", 256);
    p.beginStream();  // two streams, appended to alternately as a step generator does
    std::vector<Instruction> s0, s1;
    for (uint32_t k = 0; k < 20000; ++k) {
        const Instruction a = load(b, 4096ull * k, 1024);
        Instruction c = load(b, 1ull << 40 | k, 512 + 512 * (k % 2));
        c.imm = k % 3 == 0 ? -0.0f : 0.0f;  // kept bit for bit
        p.setStream(0);
        p.add(a);
        s0.push_back(a);
        p.setStream(1);
        p.add(c);
        s1.push_back(c);
    }
    REQUIRE(p.code().size() == s0.size() + s1.size());
    REQUIRE(p.streamEnd(0) == s0.size());
    for (uint32_t pc = 0; pc < s0.size(); ++pc) REQUIRE(p.at(pc) == s0[pc]);
    for (uint32_t k = 0; k < s1.size(); ++k) {
        const Instruction got = p.code()[s0.size() + k];
        REQUIRE(got == s1[k]);
        REQUIRE(std::signbit(got.imm) == std::signbit(s1[k].imm));
    }
    // Iteration walks the same sequence.
    size_t n = 0;
    for (const Instruction i : p.code()) {
        REQUIRE(i == (n < s0.size() ? s0[n] : s1[n - s0.size()]));
        ++n;
    }
    REQUIRE(n == p.code().size());

    // Four distinct shapes (addr aside) for 40000 pcs: 16 bytes a pc plus the pool, against
    // sizeof(Instruction) a pc for the model's program memory.
    REQUIRE(p.codeBytes() == 40000 * sizeof(Instruction));
    REQUIRE(p.storedBytes() < 40000 * 17);
    REQUIRE(p.storedBytes() * 4 < p.codeBytes());

    // set() replaces one instruction, shape and address, and nothing else.
    Instruction w;
    w.op = Opcode::WaitAll;
    p.set(7, w);
    REQUIRE(p.at(7) == w);
    REQUIRE(p.at(6) == s0[6]);
    REQUIRE(p.at(8) == s0[8]);
    REQUIRE_NOTHROW(p.validate("core 0"));

    Program q = p;
    REQUIRE(q.code() == p.code());
    q.set(9, w);
    REQUIRE(q.code() != p.code());
}
