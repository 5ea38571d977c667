#include "hw/DmaStreamLoader.h"

#include <fmt/format.h>

namespace wsc::hw {

firmware::DmaStreamWorkload loadDmaStream(const YamlReader& w, const noc::NocParams& noc) {
    w.checkKeys({"type", "bytes", "cores", "chunk", "port", "memory", "header", "port_window",
                 "functional", "seed"});
    firmware::DmaStreamWorkload d;
    d.bytes = w.getBytes("bytes", 4, uint64_t{1} << 34, d.bytes);
    if (d.bytes % 4) w.fail("bytes", "a multiple of 4 B (fp32 elements)");
    const uint64_t nodes = uint64_t{noc.topology.x} * noc.topology.y * noc.topology.local_ports;
    d.cores = w.getUInt("cores", 1, static_cast<uint32_t>(nodes > 1 ? nodes - 1 : 1), d.cores);
    d.chunk = w.getBytes("chunk", 0, uint64_t{1} << 34, d.chunk);
    if (d.chunk % 4) w.fail("chunk", "a multiple of 4 B, or 0 for the whole tensor");
    if (const auto p = w.optionalChild("port")) {
        p->checkKeys({"x", "y"});
        d.port_x = p->getUInt("x", 0, noc.topology.x - 1, d.port_x);
        d.port_y = p->getUInt("y", 0, noc.topology.y - 1, d.port_y);
    }
    d.memory = w.getEnum("memory", {"hbm", "simple"}, d.memory);
    d.header_bytes = static_cast<uint32_t>(w.getBytes("header", 1, 4096, d.header_bytes));
    d.port_window = w.getUInt("port_window", 1, 1u << 20, d.port_window);
    d.functional = w.getBool("functional", d.functional);
    d.seed = w.getUInt64("seed", 0, YamlReader::kMaxU64, d.seed);
    return d;
}

}  // namespace wsc::hw
