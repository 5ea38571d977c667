#include "firmware/TreeReduce.h"

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware {

const RoutePlanner::Path& TreeReduce::pathFor(uint32_t src, uint32_t dst) {
    auto it = paths_.find({src, dst});
    if (it == paths_.end())
        it = paths_.emplace(std::make_pair(src, dst), rp_.unicast(src, dst)).first;
    return it->second;
}

void TreeReduce::emit(Firmware& fw, const ReduceTree& tree, const std::vector<uint32_t>& cores,
                      const std::vector<Buffers>& bufs, uint32_t elems, uint16_t out,
                      Opcode combine) {
    if (cores.size() != bufs.size())
        throw std::invalid_argument("tree reduce: one buffer set per core expected");
    const uint64_t bytes = uint64_t(elems) * 4;
    const auto& levels = tree.levels();
    // A member whose partial went on at an earlier level (dist-GEMM-T's last hop to a root that
    // sat inside a group) must not add it again when the sum comes back to it.
    std::vector<uint8_t> spent(cores.size(), 0);
    for (size_t l = 0; l < levels.size(); ++l)
        for (const ReduceTree::Group& g : levels[l]) {
            const auto& mem = g.members;
            const uint32_t n = uint32_t(mem.size());
            // Each member sends its (accumulated) partial one member towards the root.
            std::vector<const RoutePlanner::Path*> to_inner(n, nullptr);
            for (uint32_t x = 0; x < n; ++x)
                if (x != g.root)
                    to_inner[x] =
                        &pathFor(cores.at(mem[x]), cores.at(mem[x < g.root ? x + 1 : x - 1]));
            // Outer members first, so relays (if any) appear in chain order.
            std::vector<uint32_t> order;
            for (uint32_t x = 0; x < g.root; ++x) order.push_back(x);
            for (uint32_t x = n; x-- > g.root + 1;) order.push_back(x);
            order.push_back(g.root);
            for (uint32_t x : order) {
                const uint32_t at = mem[x];
                Program& prog = fw.program(cores[at]);
                const Buffers& b = bufs[at];
                const bool from_low = x > 0 && x <= g.root, from_high = x + 1 < n && x >= g.root;
                // The tree's root writes its last sum to `out`: one add fewer than a copy.
                const bool last = x == g.root && l + 1 == levels.size() && out != kNoBuf;
                const uint16_t sum = last ? out : b.part;
                Instruction add;
                add.op = combine, add.n = elems;
                if (spent[at]) {
                    // Nothing of its own left: one message lands in place, two are added.
                    if (from_low && from_high) {
                        rp_.emitRecv(prog, *to_inner[x - 1], b.r0, bytes);
                        rp_.emitRecv(prog, *to_inner[x + 1], b.r1, bytes);
                        add.a = b.r0, add.b = b.r1, add.c = sum, prog.add(add);
                    } else if (from_low || from_high) {
                        rp_.emitRecv(prog, *to_inner[from_low ? x - 1 : x + 1], sum, bytes);
                    }
                    spent[at] = sum != b.part;  // holds the running sum again unless it went out
                } else {
                    if (from_low) rp_.emitRecv(prog, *to_inner[x - 1], b.r0, bytes);
                    if (from_high) rp_.emitRecv(prog, *to_inner[x + 1], b.r1, bytes);
                    add.a = b.part, add.c = b.part;
                    if (from_low) {
                        add.b = b.r0;
                        if (last && !from_high) add.c = out;
                        prog.add(add);
                    }
                    if (from_high) {
                        add.b = b.r1;
                        if (last) add.c = out;
                        prog.add(add);
                    }
                }
                if (x != g.root) {
                    rp_.emitSend(prog, *to_inner[x], b.part, bytes);
                    rp_.emitRelays(fw, *to_inner[x], bytes);
                    spent[at] = 1;
                }
            }
        }
}

CriticalPath TreeReduce::path(const ReduceTree& tree, const std::vector<uint32_t>& cores,
                              uint64_t bytes) const {
    CriticalPath total;
    total.bytes = bytes;
    for (const auto& lv : tree.levels()) {
        uint32_t lv_hops = 0, lv_stages = 0;
        CriticalPath lv_worst;  // the level's slowest chain, for its legs
        lv_worst.bytes = bytes;
        for (const ReduceTree::Group& g : lv) {
            const auto& mem = g.members;
            // Both chains into the root: hops and stages add up along each.
            for (int side : {-1, 1}) {
                uint32_t hops = 0, stages = 0;
                CriticalPath chain;
                chain.bytes = bytes;
                for (uint32_t x = g.root; side < 0 ? x > 0 : x + 1 < mem.size();) {
                    const uint32_t from = side < 0 ? x - 1 : x + 1;
                    const uint32_t src = cores[mem[from]], dst = cores[mem[x]];
                    hops += rp_.hops(src, dst);
                    const auto it = paths_.find({src, dst});
                    stages += 1 + (it == paths_.end() ? 0 : uint32_t(it->second.relays.size()));
                    if (it != paths_.end()) {
                        const CriticalPath leg = rp_.pathOf(it->second, bytes);
                        chain.legs.insert(chain.legs.end(), leg.legs.begin(), leg.legs.end());
                    } else {
                        chain.legs.push_back({src, dst});
                    }
                    x = from;
                }
                chain.hops = hops, chain.stages = stages;
                rp_.keepWorst(lv_worst, chain);
                lv_hops = std::max(lv_hops, hops), lv_stages = std::max(lv_stages, stages);
            }
        }
        total.hops += lv_hops, total.stages += lv_stages;
        total.legs.insert(total.legs.end(), lv_worst.legs.begin(), lv_worst.legs.end());
    }
    return total;
}

}  // namespace wsc::firmware
