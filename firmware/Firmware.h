#pragma once
// The firmware of a whole chip: one Program per core, indexed by core id (= NoC node id).
#include <cstdint>
#include <vector>

#include "firmware/Program.h"

namespace wsc::firmware {

class Firmware {
  public:
    explicit Firmware(uint32_t cores = 0) : programs_(cores) {}
    uint32_t cores() const { return static_cast<uint32_t>(programs_.size()); }
    void resize(uint32_t cores) { programs_.resize(cores); }
    Program& program(uint32_t core) { return programs_.at(core); }
    const Program& program(uint32_t core) const { return programs_.at(core); }
    // Validates every program and every cross-core reference (peers, remote buffers, groups).
    void validate() const;

  private:
    std::vector<Program> programs_;
};

}  // namespace wsc::firmware
