#include "firmware/Firmware.h"

#include <fmt/format.h>

#include <stdexcept>

#include "firmware/ValidationError.h"

namespace wsc::firmware {

void Firmware::validate() const {
    for (uint32_t c = 0; c < cores(); ++c) {
        const Program& p = programs_[c];
        const std::string who = fmt::format("core {}", c);
        try {
            p.validate(who);
        } catch (const ValidationError& e) {
            throw ValidationError(c, e.pc(), e.what());  // the program does not know its core
        }
        for (size_t pc = 0; pc < p.code().size(); ++pc) {
            const Instruction& i = p.code()[pc];
            auto fail = [&](const std::string& what) {
                throw ValidationError(
                    c, pc,
                    fmt::format("{}: instruction {} ({}): {}", who, pc, opcodeName(i.op), what));
            };
            for (uint32_t peer : {i.peer, i.peer2})
                if (peer != kNoCore && peer >= cores())
                    fail(fmt::format("core {} does not exist (the chip has {} cores)", peer,
                                     cores()));
            if ((i.op == Opcode::DmaPut || i.op == Opcode::DmaGet) &&
                i.rbuf >= programs_[i.peer].buffers().size())
                fail(fmt::format("remote buffer {} is not declared on core {}", i.rbuf, i.peer));
        }
        for (const auto& g : p.groups()) {
            bool self = false;
            for (uint32_t m : g.members) {
                if (m >= cores())
                    throw ValidationError(
                        c, ValidationError::kNoPc,
                        fmt::format("{}: group {} names core {}, which does not exist", who, g.id,
                                    m));
                self |= m == c;
            }
            if (!self)
                throw ValidationError(
                    c, ValidationError::kNoPc,
                    fmt::format("{}: group {} does not include the core itself", who, g.id));
        }
    }
}

}  // namespace wsc::firmware
