#include "firmware/GemvSchedule.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "firmware/KernelShape.h"
#include "firmware/RingOrder.h"
#include "firmware/RoutePlanner.h"

namespace wsc::firmware {

namespace {

const char* allreduceName(GemvSchedule::Allreduce a) {
    switch (a) {
        case GemvSchedule::Allreduce::KTree:
            return "meshgemv";
        case GemvSchedule::Allreduce::Pipeline:
            return "pipeline";
        case GemvSchedule::Allreduce::Ring:
            return "ring";
    }
    return "?";
}

}  // namespace

GemvSchedule::GemvSchedule(Allreduce ar, uint32_t mesh_x, uint32_t mesh_y, uint32_t p, uint32_t k,
                           uint32_t n, uint32_t tree_k, bool broadcast)
    : ar_(ar),
      mesh_x_(mesh_x),
      mesh_y_(mesh_y),
      p_(p),
      k_(k),
      n_(n),
      tree_k_(tree_k),
      broadcast_(broadcast) {
    const char* algo = allreduceName(ar);
    checkKernelMesh(algo, mesh_x, mesh_y, p);
    checkDivisible(algo, "k", k, p), checkDivisible(algo, "n", n, p);
    if (ar == Allreduce::KTree && tree_k == 0)
        throw std::invalid_argument("meshgemv: the tree needs K >= 1 levels");
    tk_ = k / p, tn_ = n / p;
}

uint32_t GemvSchedule::groupsFor(uint32_t p) {
    uint32_t g = 1;
    while (uint64_t(2 * g) * (2 * g) <= p) g *= 2;
    return g;
}

KernelPlan GemvSchedule::build(noc::Network& net) const {
    return ar_ == Allreduce::Ring ? buildRing(net) : buildTree(net);
}

KernelPlan GemvSchedule::buildTree(noc::Network& net) const {
    const uint32_t P = p_, v = tn_;
    const uint64_t bytes = uint64_t(v) * 4;
    KernelPlan plan;
    plan.algo = allreduceName(ar_);
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    auto id = [&](uint32_t i, uint32_t j) { return i * mesh_x_ + j; };

    std::vector<uint16_t> Y(P * P), R0(P * P), R1(P * P), Yb(P * P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            Program& prog = plan.fw.program(id(i, j));
            const uint16_t X = prog.addBuffer("x", tk_), W = prog.addBuffer("W", tk_ * tn_);
            Y[i * P + j] = prog.addBuffer("y", v);
            R0[i * P + j] = prog.addBuffer("r0", v), R1[i * P + j] = prog.addBuffer("r1", v);
            if (broadcast_) Yb[i * P + j] = prog.addBuffer("yb", v);
            plan.cores.push_back(id(i, j));
            plan.a.push_back({id(i, j), "x", 0, i * tk_, 1, tk_});
            plan.b.push_back({id(i, j), "W", i * tk_, j * tn_, tk_, tn_});
            Instruction g;
            g.op = Opcode::Gemv, g.a = X, g.b = W, g.c = Y[i * P + j], g.k = tk_, g.n = tn_;
            prog.add(g);
        }

    // Levels of the tree as lists of groups of row indices; the root of a group is its
    // `root` member (the middle for K-tree, row 0's end for the pipeline).
    struct Group {
        std::vector<uint32_t> rows;
        uint32_t root;  // index into rows
    };
    std::vector<std::vector<Group>> levels;
    std::vector<uint32_t> rows(P);
    for (uint32_t i = 0; i < P; ++i) rows[i] = i;
    if (ar_ == Allreduce::Pipeline) {
        levels.push_back({Group{rows, 0}});
    } else {
        for (uint32_t lvl = 0; lvl < tree_k_ && rows.size() > 1; ++lvl) {
            const uint32_t left = tree_k_ - lvl;  // levels still to go, this one included
            uint32_t groups = 1;
            if (left > 1)
                groups = tree_k_ == 2 ? groupsFor(uint32_t(rows.size()))
                                      : uint32_t(std::lround(std::pow(double(rows.size()),
                                                                      double(left - 1) / left)));
            groups = std::clamp<uint32_t>(groups, 1, uint32_t(rows.size()));
            std::vector<Group> lv;
            std::vector<uint32_t> roots;
            for (uint32_t g = 0; g < groups; ++g) {
                const size_t b = rows.size() * g / groups, e = rows.size() * (g + 1) / groups;
                Group gr{std::vector<uint32_t>(rows.begin() + b, rows.begin() + e), 0};
                gr.root = uint32_t(gr.rows.size() - 1) / 2;
                roots.push_back(gr.rows[gr.root]);
                lv.push_back(std::move(gr));
            }
            levels.push_back(std::move(lv));
            rows = roots;
        }
    }

    CriticalPath total;
    total.bytes = bytes;
    for (const auto& lv : levels) {
        uint32_t lv_hops = 0, lv_stages = 0;
        for (const Group& g : lv) {
            const uint32_t n = uint32_t(g.rows.size());
            lv_hops = std::max(
                {lv_hops, g.rows[g.root] - g.rows.front(), g.rows.back() - g.rows[g.root]});
            lv_stages = std::max({lv_stages, g.root, n - 1 - g.root});
        }
        total.hops += lv_hops, total.stages += lv_stages;
        for (uint32_t j = 0; j < P; ++j)
            for (const Group& g : lv) {
                const uint32_t n = uint32_t(g.rows.size());
                // Each member sends its (accumulated) partial one member towards the root.
                std::vector<RoutePlanner::Path> to_inner(n);
                for (uint32_t x = 0; x < n; ++x)
                    if (x != g.root)
                        to_inner[x] =
                            rp.unicast(id(g.rows[x], j), id(g.rows[x < g.root ? x + 1 : x - 1], j));
                // Emit outer members first so relays (if any) appear in chain order.
                std::vector<uint32_t> order;
                for (uint32_t x = 0; x < g.root; ++x) order.push_back(x);
                for (uint32_t x = n; x-- > g.root + 1;) order.push_back(x);
                order.push_back(g.root);
                for (uint32_t x : order) {
                    const uint32_t c = g.rows[x] * P + j;
                    Program& prog = plan.fw.program(id(g.rows[x], j));
                    const bool from_left = x > 0 && x <= g.root,
                               from_right = x + 1 < n && x >= g.root;
                    if (from_left) rp.emitRecv(prog, to_inner[x - 1], R0[c], bytes);
                    if (from_right) rp.emitRecv(prog, to_inner[x + 1], R1[c], bytes);
                    Instruction add;
                    add.op = Opcode::VAdd, add.a = Y[c], add.c = Y[c], add.n = v;
                    if (from_left) add.b = R0[c], prog.add(add);
                    if (from_right) add.b = R1[c], prog.add(add);
                    if (x != g.root) {
                        rp.emitSend(prog, to_inner[x], Y[c], bytes);
                        rp.emitRelays(plan.fw, to_inner[x], bytes);
                    }
                }
            }
    }
    const uint32_t root =
        levels.empty() ? 0 : levels.back().front().rows[levels.back().front().root];
    for (uint32_t j = 0; j < P; ++j) plan.c.push_back({id(root, j), "y", 0, j * v, 1, v});
    if (broadcast_ && P > 1) {
        uint32_t bc_hops = 0;
        for (uint32_t j = 0; j < P; ++j) {
            std::vector<uint32_t> north, south;
            for (uint32_t i = 0; i < P; ++i)
                if (i < root)
                    north.push_back(id(i, j));
                else if (i > root)
                    south.push_back(id(i, j));
            for (const auto* part : {&north, &south}) {
                if (part->empty()) continue;
                const uint32_t r = rp.multicast(id(root, j), *part);
                if (r == kNoRouteId)
                    throw std::runtime_error(
                        fmt::format("{}: no route entry left for the result broadcast of column {}",
                                    plan.algo, j));
                Instruction s;
                s.op = Opcode::Send, s.a = Y[root * P + j], s.route = r, s.bytes = bytes;
                plan.fw.program(id(root, j)).add(s);
                for (uint32_t core : *part) {
                    const uint32_t i = core / mesh_x_;
                    Instruction rc;
                    rc.op = Opcode::Recv, rc.c = Yb[i * P + j], rc.route = r, rc.bytes = bytes;
                    plan.fw.program(core).add(rc);
                    plan.c.push_back({core, "yb", 0, j * v, 1, v});
                }
            }
        }
        bc_hops = std::max(root, P - 1 - root);
        total.hops += bc_hops, total.stages += 1;
    }
    plan.steps = uint32_t(levels.size()) + (broadcast_ ? 1 : 0);
    plan.total_path = total;
    plan.step_path = total;
    plan.useful_macs = uint64_t(k_) * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    std::string shape;
    for (const auto& lv : levels)
        shape += fmt::format("{}{} groups", shape.empty() ? "" : ", then ", lv.size());
    plan.notes = fmt::format("{} level(s): {}; root row {}{}", levels.size(), shape, root,
                             broadcast_ ? ", result multicast back" : "");
    return plan;
}

KernelPlan GemvSchedule::buildRing(noc::Network& net) const {
    const uint32_t P = p_, v = tn_;
    const uint32_t chunk = (v + P - 1) / P;  // elements per chunk, the last ones zero-padded
    const uint64_t bytes = uint64_t(chunk) * 4;
    KernelPlan plan;
    plan.algo = allreduceName(ar_);
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    const RingOrder ring(RingOrder::Kind::Interleave, P);
    auto id = [&](uint32_t i, uint32_t j) { return i * mesh_x_ + j; };

    // Each core sends to its successor on the column's interleaved ring.
    std::vector<RoutePlanner::Path> to_next(P * P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j)
            to_next[i * P + j] = rp.unicast(id(i, j), id(ring.next(i), j));

    std::vector<std::vector<uint16_t>> part(P * P);
    std::vector<uint16_t> R(P * P);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < P; ++j) {
            Program& prog = plan.fw.program(id(i, j));
            const uint16_t X = prog.addBuffer("x", tk_);
            plan.cores.push_back(id(i, j));
            plan.a.push_back({id(i, j), "x", 0, i * tk_, 1, tk_});
            R[i * P + j] = prog.addBuffer("r", chunk);
            // W is kept as P column slabs so each chunk of the partial is its own buffer (the ISA
            // addresses whole buffers); slabs past n / P stay zero.
            for (uint32_t q = 0; q < P; ++q) {
                const uint16_t W = prog.addBuffer(fmt::format("W{}", q), tk_ * chunk);
                const uint16_t Y = prog.addBuffer(fmt::format("y{}", q), chunk);
                part[i * P + j].push_back(Y);
                const uint32_t c0 = q * chunk, cols = c0 < v ? std::min(chunk, v - c0) : 0;
                if (cols) {
                    plan.b.push_back(
                        {id(i, j), fmt::format("W{}", q), i * tk_, j * v + c0, tk_, cols, chunk});
                    plan.c.push_back({id(i, j), fmt::format("y{}", q), 0, j * v + c0, 1, cols});
                }
                Instruction g;
                g.op = Opcode::Gemv, g.a = X, g.b = W, g.c = Y, g.k = tk_, g.n = chunk;
                prog.add(g);
            }
        }
    for (uint32_t phase = 0; phase < 2; ++phase)
        for (uint32_t s = 0; s + 1 < P; ++s) {
            for (uint32_t c = 0; c < P * P; ++c) {
                const uint32_t q = ring.position(c / P);
                const uint32_t send = phase == 0 ? (q + P - s % P) % P : (q + 1 + P - s % P) % P;
                rp.emitSend(plan.fw.program(plan.cores[c]), to_next[c], part[c][send], bytes);
                rp.emitRelays(plan.fw, to_next[c], bytes);
            }
            for (uint32_t c = 0; c < P * P; ++c) {
                const uint32_t i = c / P, j = c % P, q = ring.position(i);
                Program& prog = plan.fw.program(plan.cores[c]);
                const RoutePlanner::Path& in = to_next[ring.prev(i) * P + j];
                const uint32_t idx = (q + 2 * P - s - 1) % P;
                if (phase == 0) {
                    rp.emitRecv(prog, in, R[c], bytes);
                    Instruction add;
                    add.op = Opcode::VAdd, add.a = part[c][idx], add.b = R[c], add.c = part[c][idx],
                    add.n = chunk;
                    prog.add(add);
                } else {
                    rp.emitRecv(prog, in, part[c][(q + 2 * P - s) % P], bytes);
                }
            }
        }
    (void)broadcast_;  // the allgather half already leaves the result on every core
    plan.steps = 2 * (P - 1);
    CriticalPath step{ring.maxHop(), 1, bytes};
    for (const auto& p : to_next)
        step.stages = std::max<uint32_t>(step.stages, 1 + uint32_t(p.relays.size()));
    plan.step_path = step;
    plan.total_path = {step.hops * plan.steps, step.stages * plan.steps, bytes};
    plan.useful_macs = uint64_t(k_) * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    plan.notes = fmt::format("interleaved ring, {} chunks of {} elements", P, chunk);
    return plan;
}

}  // namespace wsc::firmware
