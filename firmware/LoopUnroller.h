#pragma once
// The straight-line form of a looped program: every loop body repeated its count times and every
// swap applied to the buffer names of the instructions after it, so the result issues the same
// instructions on the same storage with no loop, endloop or swap left. It states what the looped
// forms mean (tests run both and compare cycles and results) and measures what looping saves.
#include "firmware/Firmware.h"
#include "firmware/Program.h"

namespace wsc::firmware {

class LoopUnroller {
  public:
    // `p` must be valid (Program::validate). Buffers, groups and streams are kept.
    static Program unroll(const Program& p);
    static Firmware unroll(const Firmware& fw);
};

}  // namespace wsc::firmware
