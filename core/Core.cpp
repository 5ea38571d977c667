#include "core/Core.h"

#include "core/SramOverflowError.h"

namespace wsc::core {

Core::Core(uint32_t id, const CoreParams& p, const PeArray& pe, const VectorUnit& vu,
           CoreEnvironment& env)
    : id_(id),
      p_(p),
      sram_(p.sram, p.functional),
      dma_(p.dma),
      ctrl_(id, p, pe, vu, sram_, dma_, mb_, stats_, env) {}

void Core::load(const firmware::Program& prog, const std::string& who) {
    prog_ = &prog;
    for (const auto& b : prog.buffers())
        if (b.isView())
            sram_.allocateView(b.view_of, b.view_offset, b.elems);
        else
            sram_.allocate(who, b.name, b.bytes(), b.elems);
    // An explicit receive buffer is SRAM set aside next to the buffers (PLMR M counts both).
    const uint64_t rx = sram_.params().capacity_bytes - sram_.used();
    if (p_.rx_buffer_bytes != kRxFreeSram && p_.rx_buffer_bytes > rx)
        throw SramOverflowError(who, "receive buffer (core.rx_buffer)", p_.rx_buffer_bytes,
                                sram_.used(), sram_.params().capacity_bytes);
    ctrl_.load(prog);
}

// By name as the program means it now: after a swap the name refers to the other storage.
const float* Core::buffer(const std::string& name) const {
    if (!prog_) return nullptr;
    const uint16_t b = prog_->findBuffer(name);
    return b == firmware::kNoBuf ? nullptr : sram_.data(ctrl_.storage(b));
}

float* Core::buffer(const std::string& name) {
    if (!prog_) return nullptr;
    const uint16_t b = prog_->findBuffer(name);
    return b == firmware::kNoBuf ? nullptr : sram_.data(ctrl_.storage(b));
}

}  // namespace wsc::core
