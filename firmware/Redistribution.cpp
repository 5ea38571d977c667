#include "firmware/Redistribution.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <utility>

#include "firmware/RoutePlanner.h"

namespace wsc::firmware {

Redistribution::Redistribution(uint32_t mesh_x, uint32_t mesh_y, std::vector<Buffer> buffers,
                               std::vector<Move> moves)
    : mesh_x_(mesh_x), mesh_y_(mesh_y), buffers_(std::move(buffers)), moves_(std::move(moves)) {
    const uint32_t cores = mesh_x * mesh_y;
    std::map<std::pair<uint32_t, std::string>, uint32_t> size;
    for (const Buffer& b : buffers_) {
        if (b.core >= cores)
            throw std::invalid_argument(
                fmt::format("redistribution: buffer '{}' on core {} of {}", b.name, b.core, cores));
        if (!size.emplace(std::make_pair(b.core, b.name), b.elems).second)
            throw std::invalid_argument(fmt::format(
                "redistribution: buffer '{}' declared twice on core {}", b.name, b.core));
    }
    auto fits = [&](uint32_t core, const std::string& name, uint64_t off, uint64_t n) {
        const auto it = size.find({core, name});
        if (it == size.end())
            throw std::invalid_argument(
                fmt::format("redistribution: no buffer '{}' on core {}", name, core));
        if (off + n > it->second)
            throw std::invalid_argument(fmt::format(
                "redistribution: elements [{}, {}) pass buffer '{}' ({} elements) on core {}", off,
                off + n, name, it->second, core));
    };
    for (const Move& m : moves_) {
        if (m.elems == 0) throw std::invalid_argument("redistribution: a move of no elements");
        fits(m.src_core, m.src_buf, m.src_off, m.elems);
        fits(m.dst_core, m.dst_buf, m.dst_off, m.elems);
    }
}

KernelPlan Redistribution::build(noc::Network& net) const {
    KernelPlan plan;
    plan.algo = "redistribution";
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    std::set<uint32_t> cores;
    for (const Buffer& b : buffers_) plan.fw.program(b.core).addBuffer(b.name, b.elems);
    auto buf = [&](uint32_t core, const std::string& name) {
        return plan.fw.program(core).findBuffer(name);
    };
    auto copy = [&](uint32_t core, uint16_t from, uint16_t to, uint32_t n) {
        Instruction i;
        i.op = Opcode::VCopy, i.a = from, i.c = to, i.n = n;
        plan.fw.program(core).add(i);
    };
    uint32_t views = 0;  // view names only need to be unique per core
    auto view = [&](uint32_t core, uint16_t parent, uint32_t off, uint32_t n) {
        return plan.fw.program(core).addView(fmt::format("rd.v{}", views++), parent, off, n);
    };

    // Messages by (source, destination) in a fixed order; local moves are copies.
    std::map<std::pair<uint32_t, uint32_t>, std::vector<const Move*>> pairs;
    std::vector<const Move*> local;
    for (const Move& m : moves_) {
        cores.insert(m.src_core), cores.insert(m.dst_core);
        if (m.src_core == m.dst_core)
            local.push_back(&m);
        else
            pairs[{m.src_core, m.dst_core}].push_back(&m);
    }
    struct Msg {
        uint32_t src, dst, elems;
        uint16_t tx, rx;
        RoutePlanner::Path path;
        const std::vector<const Move*>* moves;
    };
    std::vector<Msg> msgs;
    for (const auto& [sd, ms] : pairs) {
        uint32_t n = 0;
        for (const Move* m : ms) n += m->elems;
        Msg g{sd.first, sd.second, n, 0, 0, rp.unicast(sd.first, sd.second), &ms};
        g.tx = plan.fw.program(g.src).addBuffer(fmt::format("rd.tx{}", g.dst), n);
        g.rx = plan.fw.program(g.dst).addBuffer(fmt::format("rd.rx{}", g.src), n);
        msgs.push_back(std::move(g));
    }
    // Receives on direct routes are posted before anything is sent: each message has a route of
    // its own, so it streams into its buffer whatever the order, and nothing waits in the
    // receive buffer (sending everything first deadlocked tight SRAM: every core's arrivals
    // filled its receive buffer before it posted a receive). Relayed paths share the peer's
    // sequence and are taken level by level below.
    for (const Msg& g : msgs)
        if (g.path.direct())
            rp.emitRecv(plan.fw.program(g.dst), g.path, g.rx, uint64_t(g.elems) * 4);
    CriticalPath worst;
    for (const Msg& g : msgs) {  // gather and send
        uint32_t at = 0;
        for (const Move* m : *g.moves) {
            copy(g.src, view(g.src, buf(g.src, m->src_buf), m->src_off, m->elems),
                 view(g.src, g.tx, at, m->elems), m->elems);
            at += m->elems;
        }
        rp.emitSend(plan.fw.program(g.src), g.path, g.tx, uint64_t(g.elems) * 4);
        rp.keepWorst(worst, rp.pathOf(g.path, uint64_t(g.elems) * 4));
    }
    // Local moves after the gathers, so a buffer that is both a source and a destination on one
    // core is read before it is written.
    for (const Move* m : local) {
        const uint32_t c = m->src_core;
        copy(c, view(c, buf(c, m->src_buf), m->src_off, m->elems),
             view(c, buf(c, m->dst_buf), m->dst_off, m->elems), m->elems);
    }
    // Relayed paths, level t: the hop from the path's t-th core to its next (level 0: the sends
    // above). A core takes level t in message order (a relay forwards it as level t + 1; the
    // destination posts its receive), level after level, so what one core sends another
    // (sends, then relays level by level, each in message order) is what that core takes, in
    // the order the peer's sequence numbers give.
    size_t levels = 0;
    for (const Msg& g : msgs)
        if (!g.path.direct()) levels = std::max(levels, g.path.relays.size() + 1);
    for (size_t t = 0; t < levels; ++t)
        for (const Msg& g : msgs) {
            if (g.path.direct()) continue;
            const size_t m = g.path.relays.size();
            if (t < m)
                rp.emitRelay(plan.fw, g.path, t, uint64_t(g.elems) * 4);
            else if (t == m)
                rp.emitRecv(plan.fw.program(g.dst), g.path, g.rx, uint64_t(g.elems) * 4);
        }
    for (const Msg& g : msgs) {  // scatter, last: nothing waits behind an arrival
        uint32_t at = 0;
        for (const Move* mv : *g.moves) {
            copy(g.dst, view(g.dst, g.rx, at, mv->elems),
                 view(g.dst, buf(g.dst, mv->dst_buf), mv->dst_off, mv->elems), mv->elems);
            at += mv->elems;
        }
    }
    plan.cores.assign(cores.begin(), cores.end());
    plan.steps = uint32_t(msgs.size());
    plan.step_path = worst, plan.total_path = worst;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    uint64_t words = 0;
    for (const Move& m : moves_) words += m.elems;
    plan.notes = fmt::format("{} blocks, {} words, {} messages between {} cores", moves_.size(),
                             words, msgs.size(), cores.size());
    return plan;
}

}  // namespace wsc::firmware
