#pragma once
// Composes one per-core program from kernel plans built one after the other on the same network:
// each plan's instructions are appended after what the core already runs, so an operation starts
// on a core when that core has issued the previous one (data dependencies then hold by program
// order: what a core sends was computed by it before). A plan's buffers are declared under a
// prefix ("qkv.W"), or bound to a buffer the composed program already has (the projection's
// input `x` is the layer's normalised `h`): the binding is per core and by name.
//
// Route ids need no remapping: every plan installed its routes in the one network. Plans with
// barrier groups, events, DMA (memory addresses, remote buffers) or several instruction streams
// are refused: their ids or their order would need remapping, and no kernel schedule emits them.
#include <cstdint>
#include <functional>
#include <string>

#include "firmware/Firmware.h"

namespace wsc::firmware {

class FirmwareComposer {
  public:
    // bind(core, name) returns the name of a buffer in the composed program that src's buffer
    // `name` on `core` is, or "" to declare it as prefix + name. A bound buffer must hold at
    // least as many elements of the same dtype (std::invalid_argument otherwise).
    using Bind = std::function<std::string(uint32_t core, const std::string& name)>;
    static void append(Firmware& dst, const Firmware& src, const std::string& prefix,
                       const Bind& bind = nullptr);
};

}  // namespace wsc::firmware
