#include "hw/CoreConfigLoader.h"

#include <fmt/format.h>

#include <cmath>

#include "firmware/Instruction.h"
#include "hw/InputLimits.h"

namespace wsc::hw {

core::CoreParams CoreConfigLoader::load(const YamlReader& c, const noc::NocParams& noc) {
    c.checkKeys(
        {"pe_array", "vector", "sram", "dma", "memory", "relay_latency", "tx_queue", "rx_buffer"});
    core::CoreParams p;
    const double hz = noc.clock_hz;
    if (const auto pe = c.optionalChild("pe_array")) {
        pe->checkKeys({"rows", "cols", "macs_per_cycle", "data_bits", "dataflow", "arrays"});
        p.pe.arrays = pe->getUInt("arrays", 1, 65536, p.pe.arrays);
        p.pe.rows = pe->getUInt("rows", 1, 4096, p.pe.rows);
        p.pe.cols = pe->getUInt("cols", 1, 4096, p.pe.cols);
        p.pe.macs_per_cycle = pe->getUInt("macs_per_cycle", 1, 1024, p.pe.macs_per_cycle);
        const std::string bits = pe->getEnum("data_bits", {"8", "16", "32"}, "32");
        p.pe.data_bits = static_cast<uint32_t>(std::stoul(bits));
        const std::string df = pe->getEnum("dataflow", {"os", "ws", "is"}, "os");
        p.pe.dataflow = df == "ws"   ? core::DataflowKind::WeightStationary
                        : df == "is" ? core::DataflowKind::InputStationary
                                     : core::DataflowKind::OutputStationary;
    }
    if (const auto v = c.optionalChild("vector")) {
        v->checkKeys({"lanes", "latency", "special_latency", "op_latency"});
        p.vector.lanes = v->getUInt("lanes", 1, 65536, p.vector.lanes);
        p.vector.latency = v->getCycles("latency", hz, 1, 1u << 20, p.vector.latency);
        p.vector.special_latency =
            v->getCycles("special_latency", hz, 1, 1u << 20, p.vector.special_latency);
        if (const auto ol = v->optionalChild("op_latency")) {
            // Mnemonics in Opcode order from vadd (firmware/Instruction.h); unset ops keep their
            // class.
            ol->checkKeys({"vadd", "vsub", "vmul", "vmax", "vscale", "vexp", "vrecip", "vsilu",
                           "vgelu", "vcopy", "vrsqrt", "vbsub", "vbmul", "vredsum", "vredmax",
                           "vsqsum"});
            for (size_t i = 0; i < core::VectorParams::kOps; ++i) {
                const auto op =
                    static_cast<firmware::Opcode>(static_cast<size_t>(firmware::Opcode::VAdd) + i);
                p.vector.op_latency[i] =
                    ol->getCycles(firmware::opcodeName(op), hz, 1, 1u << 20,
                                  p.vector.latencyOf(i, firmware::isSpecialVectorOp(op)));
            }
        }
    }
    if (const auto s = c.optionalChild("sram")) {
        s->checkKeys({"capacity", "banks", "bank_width", "ports", "port_width", "latency"});
        p.sram.capacity_bytes =
            s->getBytes("capacity", 1, limits::kMaxSramBytes, p.sram.capacity_bytes);
        p.sram.banks = s->getUInt("banks", 1, 1024, p.sram.banks);
        p.sram.ports = s->getUInt("ports", 1, 64, p.sram.ports);
        if (p.sram.ports > p.sram.banks)
            s->fail("ports", fmt::format("at most as many ports as banks ({})", p.sram.banks));
        p.sram.port_bytes =
            static_cast<uint32_t>(s->getBytes("port_width", 1, 1u << 20, p.sram.port_bytes));
        p.sram.bank_width =
            static_cast<uint32_t>(s->getBytes("bank_width", 0, 1u << 20, p.sram.bank_width));
        p.sram.access_latency = s->getCycles("latency", hz, 1, 1u << 20, p.sram.access_latency);
    }
    if (const auto d = c.optionalChild("dma")) {
        d->checkKeys({"queue", "burst"});
        p.dma.queue = d->getUInt("queue", 1, 1024, p.dma.queue);
        p.dma.burst_bytes =
            static_cast<uint32_t>(d->getBytes("burst", 1, 1u << 20, p.dma.burst_bytes));
    }
    if (const auto m = c.optionalChild("memory")) {
        m->checkKeys({"ports", "latency", "bandwidth", "capacity", "max_outstanding"});
        // Core c uses port c mod ports: more ports than cores would never be used, and each one
        // is a SystemC module with its own copy of the operands.
        const uint64_t nodes = uint64_t{noc.topology.x} * noc.topology.y * noc.topology.local_ports;
        const uint32_t maxPorts = static_cast<uint32_t>(std::min<uint64_t>(nodes, 1u << 16));
        p.memory.ports = m->getUInt("ports", 1, maxPorts, p.memory.ports);
        // Latency: a time (the port's own, in picoseconds) of at most 2^20 NoC cycles.
        const double lat = m->getQuantity("latency", Dim::Time, p.memory.latency_ps * 1e-12);
        if (lat * hz > limits::kMaxLatencyCycles)
            m->fail("latency", fmt::format("a latency of at most {} cycles ({:g} us at the {:g} "
                                           "GHz NoC clock)",
                                           limits::kMaxLatencyCycles,
                                           limits::kMaxLatencyCycles / hz * 1e6, hz / 1e9));
        p.memory.latency_ps = static_cast<uint64_t>(std::llround(lat * 1e12));
        const double bw = m->getQuantity("bandwidth", Dim::Bandwidth, p.memory.bytes_per_ns * 1e9);
        if (!(bw >= limits::kMinMemoryBandwidth) || bw > limits::kMaxMemoryBandwidth)
            m->fail("bandwidth", "a bandwidth between 1 MB/s and 1000 TB/s");
        p.memory.bytes_per_ns = bw / 1e9;
        p.memory.capacity_bytes =
            m->getBytes("capacity", 1, limits::kMaxMemoryBytes, p.memory.capacity_bytes);
        p.memory.max_outstanding = m->getUInt("max_outstanding", 1, 4096, p.memory.max_outstanding);
    }
    p.relay_cycles = c.getCycles("relay_latency", hz, 0, 1u << 20, p.relay_cycles);
    p.tx_queue = c.getUInt("tx_queue", 1, 1u << 16, p.tx_queue);
    // Absent: every byte of SRAM the buffers leave free (core::kRxFreeSram).
    if (c.has("rx_buffer"))
        p.rx_buffer_bytes = c.getBytes("rx_buffer", 0, p.sram.capacity_bytes, 0);
    return p;
}

}  // namespace wsc::hw
