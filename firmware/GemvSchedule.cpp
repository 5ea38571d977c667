#include "firmware/GemvSchedule.h"

#include <fmt/format.h>

#include <algorithm>

#include "firmware/KernelShape.h"
#include "firmware/RingOrder.h"
#include "firmware/RoutePlanner.h"
#include "firmware/TreeReduce.h"

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

GemvSchedule::GemvSchedule(Allreduce ar, uint32_t mesh_x, uint32_t mesh_y, uint32_t rows,
                           uint32_t cols, uint32_t k, uint32_t n, uint32_t tree_k, bool broadcast,
                           const CoreBlock& block)
    : ar_(ar),
      mesh_x_(mesh_x),
      mesh_y_(mesh_y),
      p_(rows),
      q_(cols),
      k_(k),
      n_(n),
      tree_k_(tree_k),
      broadcast_(broadcast),
      block_(block) {
    const char* algo = allreduceName(ar);
    if (rows == 0 || cols == 0)
        throw std::invalid_argument(fmt::format("{}: the block needs cores", algo));
    const CoreBlock& b = block;
    if (b.row0 + b.meshRows(rows, cols) > mesh_y || b.col0 + b.meshCols(rows, cols) > mesh_x)
        throw std::invalid_argument(
            fmt::format("{}: a {}x{} core block{} at row {}, column {} does not fit the {}x{} mesh",
                        algo, b.meshRows(rows, cols), b.meshCols(rows, cols),
                        b.transposed ? " (transposed)" : "", b.row0, b.col0, mesh_y, mesh_x));
    checkDivisible(algo, "k", k, rows), checkDivisible(algo, "n", n, cols);
    if (ar == Allreduce::KTree && tree_k == 0)
        throw std::invalid_argument("meshgemv: the tree needs K >= 1 levels");
    tk_ = k / rows, tn_ = n / cols;
}

KernelPlan GemvSchedule::build(noc::Network& net) const {
    return ar_ == Allreduce::Ring ? buildRing(net) : buildTree(net);
}

KernelPlan GemvSchedule::buildTree(noc::Network& net) const {
    const uint32_t P = p_, Q = q_, v = tn_;
    const uint64_t bytes = uint64_t(v) * 4;
    KernelPlan plan;
    plan.algo = allreduceName(ar_);
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    auto id = [&](uint32_t i, uint32_t j) { return block_.core(i, j, mesh_x_); };

    std::vector<TreeReduce::Buffers> bufs(P * Q);
    std::vector<uint16_t> Yb(P * Q);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < Q; ++j) {
            Program& prog = plan.fw.program(id(i, j));
            const uint16_t X = prog.addBuffer("x", tk_), W = prog.addBuffer("W", tk_ * tn_);
            TreeReduce::Buffers& b = bufs[j * P + i];  // column-major: one column is one line
            b.part = prog.addBuffer("y", v);
            b.r0 = prog.addBuffer("r0", v), b.r1 = prog.addBuffer("r1", v);
            if (broadcast_) Yb[i * Q + j] = prog.addBuffer("yb", v);
            plan.cores.push_back(id(i, j));
            plan.a.push_back({id(i, j), "x", 0, i * tk_, 1, tk_});
            plan.b.push_back({id(i, j), "W", i * tk_, j * tn_, tk_, tn_});
            Instruction g;
            g.op = Opcode::Gemv, g.a = X, g.b = W, g.c = b.part, g.k = tk_, g.n = tn_;
            prog.add(g);
        }

    // K-tree: groups reduce into their middles, K levels; pipeline: one chain into row 0.
    const ReduceTree tree =
        ar_ == Allreduce::Pipeline ? ReduceTree::chain(P, 0) : ReduceTree::kTree(P, tree_k_);
    TreeReduce tr(rp);
    CriticalPath total;
    for (uint32_t j = 0; j < Q; ++j) {
        std::vector<uint32_t> column(P);
        for (uint32_t i = 0; i < P; ++i) column[i] = id(i, j);
        const std::vector<TreeReduce::Buffers> cb(bufs.begin() + j * P, bufs.begin() + (j + 1) * P);
        tr.emit(plan.fw, tree, column, cb, v);
        if (j == 0) total = tr.path(tree, column, bytes);  // every column has the same geometry
    }
    const uint32_t root = tree.root();
    for (uint32_t j = 0; j < Q; ++j) plan.c.push_back({id(root, j), "y", 0, j * v, 1, v});
    if (broadcast_ && P > 1) {
        for (uint32_t j = 0; j < Q; ++j) {
            std::vector<uint32_t> north, south;  // logical rows before and after the root
            for (uint32_t i = 0; i < P; ++i)
                if (i < root)
                    north.push_back(i);
                else if (i > root)
                    south.push_back(i);
            for (const auto* part : {&north, &south}) {
                if (part->empty()) continue;
                std::vector<uint32_t> dsts;
                for (uint32_t i : *part) dsts.push_back(id(i, j));
                const uint32_t r = rp.multicast(id(root, j), dsts);
                if (r == kNoRouteId)
                    throw std::runtime_error(
                        fmt::format("{}: no route entry left for the result broadcast of column {}",
                                    plan.algo, j));
                Instruction s;
                s.op = Opcode::Send, s.a = bufs[j * P + root].part, s.route = r, s.bytes = bytes;
                plan.fw.program(id(root, j)).add(s);
                for (uint32_t i : *part) {
                    const uint32_t core = id(i, j);
                    Instruction rc;
                    rc.op = Opcode::Recv, rc.c = Yb[i * Q + j], rc.route = r, rc.bytes = bytes;
                    plan.fw.program(core).add(rc);
                    plan.c.push_back({core, "yb", 0, j * v, 1, v});
                }
            }
        }
        total.hops += std::max(root, P - 1 - root), total.stages += 1;
        total.legs.push_back({id(root, 0), id(root >= P - 1 - root ? 0 : P - 1, 0)});
    }
    plan.steps = uint32_t(tree.levels().size()) + (broadcast_ ? 1 : 0);
    plan.total_path = total;
    plan.step_path = total;
    plan.useful_macs = uint64_t(k_) * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    plan.notes = fmt::format("{} level(s): {}; root row {}{}", tree.levels().size(),
                             tree.describe(), root, broadcast_ ? ", result multicast back" : "");
    return plan;
}

KernelPlan GemvSchedule::buildRing(noc::Network& net) const {
    const uint32_t P = p_, Q = q_, v = tn_;
    const uint32_t chunk = (v + P - 1) / P;  // elements per chunk, the last ones zero-padded
    const uint64_t bytes = uint64_t(chunk) * 4;
    KernelPlan plan;
    plan.algo = allreduceName(ar_);
    plan.fw = Firmware(mesh_x_ * mesh_y_);
    RoutePlanner rp(net, mesh_x_);
    const RingOrder ring(RingOrder::Kind::Interleave, P);
    auto id = [&](uint32_t i, uint32_t j) { return block_.core(i, j, mesh_x_); };

    // Each core sends to its successor on the column's interleaved ring.
    std::vector<RoutePlanner::Path> to_next(P * Q);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < Q; ++j)
            to_next[i * Q + j] = rp.unicast(id(i, j), id(ring.next(i), j));

    std::vector<std::vector<uint16_t>> part(P * Q);
    std::vector<uint16_t> R(P * Q);
    for (uint32_t i = 0; i < P; ++i)
        for (uint32_t j = 0; j < Q; ++j) {
            Program& prog = plan.fw.program(id(i, j));
            const uint16_t X = prog.addBuffer("x", tk_);
            plan.cores.push_back(id(i, j));
            plan.a.push_back({id(i, j), "x", 0, i * tk_, 1, tk_});
            R[i * Q + j] = prog.addBuffer("r", chunk);
            // W is kept as P column slabs so each chunk of the partial is its own buffer (the ISA
            // addresses whole buffers); slabs past n / Q stay zero.
            for (uint32_t q = 0; q < P; ++q) {
                const uint16_t W = prog.addBuffer(fmt::format("W{}", q), tk_ * chunk);
                const uint16_t Y = prog.addBuffer(fmt::format("y{}", q), chunk);
                part[i * Q + j].push_back(Y);
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
            for (uint32_t c = 0; c < P * Q; ++c) {
                const uint32_t q = ring.position(c / Q);
                const uint32_t send = phase == 0 ? (q + P - s % P) % P : (q + 1 + P - s % P) % P;
                rp.emitSend(plan.fw.program(plan.cores[c]), to_next[c], part[c][send], bytes);
                rp.emitRelays(plan.fw, to_next[c], bytes);
            }
            for (uint32_t c = 0; c < P * Q; ++c) {
                const uint32_t i = c / Q, j = c % Q, q = ring.position(i);
                Program& prog = plan.fw.program(plan.cores[c]);
                const RoutePlanner::Path& in = to_next[ring.prev(i) * Q + j];
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
    CriticalPath step{ring.maxHop(), 1, bytes, {}};
    for (const auto& p : to_next) rp.keepWorst(step, rp.pathOf(p, bytes));
    plan.step_path = step;
    plan.total_path = {step.hops * plan.steps, step.stages * plan.steps, bytes, {}};
    plan.useful_macs = uint64_t(k_) * n_;
    plan.routes_per_core = rp.maxEntries();
    plan.direct_routes = rp.directRoutes(), plan.relayed_paths = rp.relayedPaths();
    plan.notes = fmt::format("interleaved ring, {} chunks of {} elements", P, chunk);
    return plan;
}

}  // namespace wsc::firmware
