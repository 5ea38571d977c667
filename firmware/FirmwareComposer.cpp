#include "firmware/FirmwareComposer.h"

#include <fmt/format.h>

#include <stdexcept>
#include <vector>

namespace wsc::firmware {

void FirmwareComposer::append(Firmware& dst, const Firmware& src, const std::string& prefix,
                              const Bind& bind) {
    if (src.cores() > dst.cores())
        throw std::invalid_argument(fmt::format("compose '{}': {} cores into a firmware of {}",
                                                prefix, src.cores(), dst.cores()));
    for (uint32_t c = 0; c < src.cores(); ++c) {
        const Program& s = src.program(c);
        if (s.empty() && s.buffers().empty()) continue;
        Program& d = dst.program(c);
        if (!s.groups().empty())
            throw std::invalid_argument(
                fmt::format("compose '{}': core {} declares barrier groups", prefix, c));
        // A second stream would start with the composed program, not after it: program order
        // is the only dependency the composer keeps.
        if (s.streams() > 1 || d.streams() > 1)
            throw std::invalid_argument(
                fmt::format("compose '{}': core {} has several instruction streams", prefix, c));
        std::vector<uint16_t> map(s.buffers().size(), kNoBuf);
        for (size_t b = 0; b < s.buffers().size(); ++b) {
            const BufferDecl& sb = s.buffer(static_cast<uint16_t>(b));
            const std::string to = bind ? bind(c, sb.name) : std::string();
            if (!to.empty()) {
                const uint16_t t = d.findBuffer(to);
                if (t == kNoBuf)
                    throw std::invalid_argument(fmt::format(
                        "compose '{}': core {} binds '{}' to '{}', which is not declared", prefix,
                        c, sb.name, to));
                const BufferDecl& tb = d.buffer(t);
                if (tb.elems < sb.elems || tb.dtype != sb.dtype)
                    throw std::invalid_argument(fmt::format(
                        "compose '{}': core {} binds '{}' ({} x {}) to '{}' ({} x {})", prefix, c,
                        sb.name, sb.elems, dtypeName(sb.dtype), to, tb.elems, dtypeName(tb.dtype)));
                map[b] = t;
            } else if (sb.isView()) {
                map[b] = d.addView(prefix + sb.name, map[sb.view_of], sb.view_offset, sb.elems);
            } else {
                map[b] = d.addBuffer(prefix + sb.name, sb.elems, sb.dtype);
            }
        }
        auto remap = [&](uint16_t& b) {
            if (b != kNoBuf) b = map.at(b);
        };
        for (uint32_t st = 0; st < s.streams(); ++st) {
            d.setStream(st);
            for (uint32_t pc = s.streamBegin(st); pc < s.streamEnd(st); ++pc) {
                Instruction i = s.at(pc);
                switch (i.op) {
                    case Opcode::Barrier:
                    case Opcode::Signal:
                    case Opcode::Wait:
                    case Opcode::DmaPut:
                    case Opcode::DmaGet:
                    case Opcode::DmaLoad:
                    case Opcode::DmaStore:
                        throw std::invalid_argument(fmt::format(
                            "compose '{}': core {} instruction {} ({}) uses ids or addresses the "
                            "composer does not remap",
                            prefix, c, pc, opcodeName(i.op)));
                    default:
                        break;
                }
                remap(i.a), remap(i.b), remap(i.c);
                d.add(i);
            }
        }
        d.setStream(0);
    }
}

}  // namespace wsc::firmware
