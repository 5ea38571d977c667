#pragma once
// Firmware that breaks a rule of the instruction set (a shape larger than its buffer, a missing
// peer, an unbalanced loop, a flag the opcode does not take). Carries the core and instruction
// index so the text parser can point at the line that declared it.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <string>

namespace wsc::firmware {

class ValidationError : public std::invalid_argument {
  public:
    static constexpr uint32_t kNoCoreId = std::numeric_limits<uint32_t>::max();
    static constexpr size_t kNoPc = std::numeric_limits<size_t>::max();

    ValidationError(uint32_t core, size_t pc, const std::string& message);
    uint32_t core() const { return core_; }  // kNoCoreId: not known where thrown
    size_t pc() const { return pc_; }        // kNoPc: about the program as a whole

  private:
    uint32_t core_;
    size_t pc_;
};

}  // namespace wsc::firmware
