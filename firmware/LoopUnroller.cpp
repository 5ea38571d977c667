#include "firmware/LoopUnroller.h"

#include <utility>
#include <vector>

namespace wsc::firmware {

Program LoopUnroller::unroll(const Program& p) {
    Program out;
    for (const auto& b : p.buffers())
        if (b.isView())
            out.addView(b.name, b.view_of, b.view_offset, b.elems);
        else
            out.addBuffer(b.name, b.elems, b.dtype);
    for (const auto& g : p.groups()) out.addGroup(g.id, g.members);
    const auto& code = p.code();
    const std::vector<uint32_t> match = p.matchLoops();
    // Renames are per core (shared by its streams), applied in program order as the controller
    // meets them; streams are unrolled one after the other, which is the same order only when
    // at most one stream swaps (what the generators emit).
    std::vector<uint16_t> name(p.buffers().size());
    for (size_t b = 0; b < name.size(); ++b) name[b] = static_cast<uint16_t>(b);
    auto map = [&](uint16_t b) { return b == kNoBuf ? b : name[b]; };
    for (uint32_t s = 0; s < p.streams(); ++s) {
        if (s > 0) out.beginStream();
        struct Frame {
            uint32_t pc, left;
        };
        std::vector<Frame> loops;
        for (uint32_t pc = p.streamBegin(s); pc < p.streamEnd(s);) {
            const Instruction& i = code[pc];
            if (i.op == Opcode::Loop) {
                if (i.n == 0)
                    pc = match[pc] + 1;
                else
                    loops.push_back({pc, i.n}), ++pc;
            } else if (i.op == Opcode::EndLoop) {
                if (--loops.back().left > 0) {
                    pc = loops.back().pc + 1;
                } else {
                    loops.pop_back();
                    ++pc;
                }
            } else if (i.op == Opcode::Swap) {
                std::swap(name[i.a], name[i.b]);
                ++pc;
            } else {
                Instruction r = i;
                r.a = map(r.a), r.b = map(r.b), r.c = map(r.c);
                out.add(r);
                ++pc;
            }
        }
    }
    return out;
}

Firmware LoopUnroller::unroll(const Firmware& fw) {
    Firmware out(fw.cores());
    for (uint32_t c = 0; c < fw.cores(); ++c) out.program(c) = unroll(fw.program(c));
    return out;
}

}  // namespace wsc::firmware
