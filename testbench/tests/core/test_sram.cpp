// SRAM capacity (PLMR "M"): a buffer past capacity is an error naming the core, the buffer and
// the sizes; and the optional TLM-2.0 target reaches a core's buffers.
#include <tlm_utils/simple_initiator_socket.h>

#include <catch2/catch.hpp>
#include <systemc>
#include <tlm>

#include "../noc/NocTestUtil.h"
#include "core/CoreArray.h"
#include "core/PeArray.h"
#include "core/SramOverflowError.h"
#include "core/SramTarget.h"
#include "core/VectorUnit.h"

using namespace wsc;
using Catch::Matchers::Contains;

TEST_CASE("SRAM overflow names the core, the buffer and the sizes", "[core][sram]") {
    core::SramParams sp;
    sp.capacity_bytes = 48 * 1024;
    core::Sram sram(sp, false);
    sram.allocate("core 7 (3,0)", "A", 40 * 1024, 10 * 1024);
    try {
        sram.allocate("core 7 (3,0)", "B", 16 * 1024, 4 * 1024);
        FAIL("no error");
    } catch (const core::SramOverflowError& e) {
        const std::string m = e.what();
        CHECK_THAT(m, Contains("core 7 (3,0)"));
        CHECK_THAT(m, Contains("'B'"));
        CHECK_THAT(m, Contains("16384 bytes"));
        CHECK_THAT(m, Contains("8192 of 49152 bytes are free"));
        CHECK_THAT(m, Contains("40960 already allocated"));
    }
    CHECK(sram.used() == 40 * 1024);  // the failed buffer took nothing

    // Through the chip: loading firmware whose buffers do not fit core 1 of a 2x1 mesh.
    auto np = test::meshParams(2, 1);
    noc::Network net(np);
    core::CoreParams cp;
    cp.sram.capacity_bytes = 4096;
    core::CoreArray cores(net, cp);
    firmware::Firmware fw(2);
    fw.program(1).addBuffer("tileA", 512);  // 2048 B
    fw.program(1).addBuffer("tileB", 600);  // 2400 B: 4448 > 4096
    CHECK_THROWS_WITH(cores.load(fw), Contains("core 1 (1,0)") && Contains("'tileB'") &&
                                          Contains("2400 bytes") && Contains("4096"));
}

namespace {

struct Initiator : sc_core::sc_module {
    tlm_utils::simple_initiator_socket<Initiator> socket;
    std::vector<float> read_back;
    sc_core::sc_time b_delay, nb_delay;
    tlm::tlm_response_status bad_status = tlm::TLM_INCOMPLETE_RESPONSE;
    bool write_ok = false, read_ok = false;
    tlm::tlm_sync_enum nb_status = tlm::TLM_ACCEPTED;
    SC_HAS_PROCESS(Initiator);
    explicit Initiator(sc_core::sc_module_name n) : sc_module(n), socket("socket") {
        SC_THREAD(run);
    }
    void run() {
        tlm::tlm_generic_payload t;
        std::vector<float> data = {1.5f, -2.0f, 3.25f, 4.0f};
        t.set_command(tlm::TLM_WRITE_COMMAND);
        t.set_address(64 * 4 + 8);  // buffer "y" starts after "x" (64 fp32); element 2
        t.set_data_ptr(reinterpret_cast<unsigned char*>(data.data()));
        t.set_data_length(16);
        t.set_streaming_width(16);
        t.set_byte_enable_ptr(nullptr);
        sc_core::sc_time d = sc_core::SC_ZERO_TIME;
        socket->b_transport(t, d);
        b_delay = d;
        write_ok = t.is_response_ok();
        // Read it back with the AT forward path.
        read_back.assign(4, 0.0f);
        t.set_command(tlm::TLM_READ_COMMAND);
        t.set_data_ptr(reinterpret_cast<unsigned char*>(read_back.data()));
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        tlm::tlm_phase ph = tlm::BEGIN_REQ;
        d = sc_core::SC_ZERO_TIME;
        nb_status = socket->nb_transport_fw(t, ph, d);
        read_ok = t.is_response_ok();
        nb_delay = d;
        // Outside every buffer.
        t.set_address(1 << 20);
        t.set_response_status(tlm::TLM_INCOMPLETE_RESPONSE);
        d = sc_core::SC_ZERO_TIME;
        socket->b_transport(t, d);
        bad_status = t.get_response_status();
    }
};

}  // namespace

TEST_CASE("a core's SRAM is reachable as a TLM-2.0 target", "[core][sram][tlm]") {
    auto np = test::meshParams(2, 1);
    noc::Network net(np);
    core::CoreParams cp;
    core::CoreArray cores(net, cp);
    firmware::Firmware fw(2);
    fw.program(1).addBuffer("x", 64);
    fw.program(1).addBuffer("y", 16);
    cores.load(fw);
    core::SramTarget target("sram1", cores.core(1).sram(), sc_core::sc_time(1, sc_core::SC_NS));
    Initiator init("init");
    init.socket.bind(target.socket);
    sc_core::sc_start();
    CHECK(init.write_ok);
    CHECK(init.read_ok);
    CHECK(init.nb_status == tlm::TLM_COMPLETED);
    const float* y = cores.core(1).buffer("y");
    REQUIRE(y);
    CHECK(y[2] == 1.5f);
    CHECK(y[3] == -2.0f);
    CHECK(y[4] == 3.25f);
    CHECK(y[5] == 4.0f);
    CHECK(init.read_back == std::vector<float>{1.5f, -2.0f, 3.25f, 4.0f});
    // access latency 1 + 16 B over a 16 B/cycle port = 2 cycles of 1 ns
    CHECK(init.b_delay == sc_core::sc_time(2, sc_core::SC_NS));
    CHECK(init.nb_delay == sc_core::sc_time(2, sc_core::SC_NS));
    CHECK(init.bad_status == tlm::TLM_ADDRESS_ERROR_RESPONSE);
    CHECK(target.accesses() == 3);
}

namespace {

struct BankRun {
    uint64_t finish, sram_stall;
};

// A 4x4x4 GEMM (A, B, C) and then a 16-element VCOPY D -> E on a second port. With 16 B banks
// and 16 B ports each stream holds one bank per operand: A @0 -> bank 0, B @64 -> 4, C @128 -> 0,
// then `pad` values, D @192+4*pad, E 64 B later.
BankRun bankCase(uint32_t bank_width, uint32_t pad, bool functional) {
    auto np = test::meshParams(1, 1);
    noc::Network net(np);
    core::CoreParams cp;
    cp.functional = functional;
    cp.sram.banks = 8, cp.sram.ports = 2, cp.sram.port_bytes = 16, cp.sram.bank_width = bank_width;
    core::CoreArray cores(net, cp);
    firmware::Firmware fw(1);
    auto& prog = fw.program(0);
    const uint16_t a = prog.addBuffer("A", 16), b = prog.addBuffer("B", 16),
                   c = prog.addBuffer("C", 16);
    if (pad) prog.addBuffer("pad", pad);
    const uint16_t d = prog.addBuffer("D", 16), e = prog.addBuffer("E", 16);
    firmware::Instruction g;
    g.op = firmware::Opcode::Gemm, g.a = a, g.b = b, g.c = c, g.m = 4, g.k = 4, g.n = 4;
    prog.add(g);
    firmware::Instruction v;
    v.op = firmware::Opcode::VCopy, v.a = d, v.c = e, v.n = 16;
    prog.add(v);
    cores.load(fw);
    const uint64_t last = cores.run();
    cores.finish(last);
    const auto& s = cores.core(0).stats();
    return {s.finish_cycle, s.stall[static_cast<size_t>(core::StallCause::Sram)]};
}

}  // namespace

TEST_CASE("SRAM bank conflicts serialize streams on one bank", "[core][sram][banks]") {
    core::CoreParams cp;
    const uint64_t G = core::PeArray(cp.pe).timing(4, 4, 4, firmware::DType::FP32).cycles;
    const uint64_t V =
        core::VectorUnit(cp.vector, 16).cycles(firmware::Opcode::VCopy, 16, firmware::DType::FP32);
    REQUIRE(G > 2);
    for (bool functional : {true, false}) {
        INFO("functional " << functional);
        // Different banks (pad 4 values = 16 B: D -> bank 5, E -> bank 1): the copy issues at cycle
        // 1 and overlaps the GEMM.
        const BankRun apart = bankCase(16, 4, functional);
        CHECK(apart.finish == std::max(G, 1 + V));
        CHECK(apart.sram_stall == 0);
        // Same bank (D @192 -> bank 4, held by B): the copy waits for the GEMM's stream to end.
        const BankRun same = bankCase(16, 0, functional);
        CHECK(same.finish == G + V);
        CHECK(same.sram_stall == G - 1);  // cycles 1 .. G-1
        // bank_width 0: ideal interleaving, no conflict (the model before banks).
        const BankRun ideal = bankCase(0, 0, functional);
        CHECK(ideal.finish == apart.finish);
        CHECK(ideal.sram_stall == 0);
    }
    // A 64 B access over 16 B banks spans ceil(64 / 16) = 4 consecutive banks, wrapping.
    core::SramParams sp;
    sp.banks = 8, sp.port_bytes = 64, sp.bank_width = 16, sp.ports = 2;
    core::Sram sram(sp, false);
    sram.allocate("c", "x", 96, 24);  // @0 -> banks 0..3
    sram.allocate("c", "y", 64, 16);  // @96 -> banks 6,7,0,1
    CHECK(sram.banksOf({0}) == std::vector<uint32_t>{0, 1, 2, 3});
    CHECK(sram.banksOf({1}) == std::vector<uint32_t>{0, 1, 6, 7});
    sram.claimPort(0, 10, {0});
    CHECK_FALSE(sram.portFree(5, {1}));
    CHECK(sram.portFree(10, {1}));
}
