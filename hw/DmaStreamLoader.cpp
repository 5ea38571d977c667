#include "hw/DmaStreamLoader.h"

#include <fmt/format.h>

namespace wsc::hw {

firmware::DmaStreamWorkload loadDmaStream(const YamlReader& w, const noc::NocParams& noc,
                                          const HbmAttachParams* attach) {
    w.checkKeys({"type", "bytes", "cores", "chunk", "port", "memory", "header", "port_window",
                 "functional", "seed"});
    firmware::DmaStreamWorkload d;
    d.bytes = w.getBytes("bytes", 4, uint64_t{1} << 34, d.bytes);
    if (d.bytes % 4) w.fail("bytes", "a multiple of 4 B (fp32 elements)");
    const uint64_t nodes = uint64_t{noc.topology.x} * noc.topology.y * noc.topology.local_ports;
    d.cores = w.getUInt("cores", 1, static_cast<uint32_t>(nodes > 1 ? nodes - 1 : 1), d.cores);
    d.chunk = w.getBytes("chunk", 0, uint64_t{1} << 34, d.chunk);
    if (d.chunk % 4) w.fail("chunk", "a multiple of 4 B, or 0 for the whole tensor");
    const std::string portWhat =
        "a router {x: X, y: Y}, or 'attach' (the routers of the hardware's hbm.attach, first "
        "stack)";
    if (w.has("port") && !w.entry("port").isMap()) {
        const YamlReader p = w.entry("port");
        if (p.scalar(portWhat) != "attach") p.failHere(portWhat);
        if (!attach || attach->stacks.empty())
            p.failHere("a router {x: X, y: Y}: 'attach' needs an hbm: section with a stack");
        // Stack 0 of die (0, 0), whose routers start at the mesh origin.
        const noc::TopologyParams& t = noc.topology;
        const uint32_t dx = t.die_x ? t.die_x : t.x, dy = t.die_y ? t.die_y : t.y;
        const HbmAttachParams::Stack& s = attach->stacks[0];
        for (uint32_t at : s.at) {
            uint32_t x = 0, y = 0;
            HbmAttachParams::position(s.edge, at, dx, dy, x, y);
            d.attach_routers.push_back(y * t.x + x);
        }
    } else if (const auto p = w.optionalChild("port")) {
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
