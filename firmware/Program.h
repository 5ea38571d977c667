#pragma once
// One core's firmware: the SRAM buffers it declares, the barrier groups it takes part in, and
// its instruction stream. Buffers are referred to by index in instructions and by name in text.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/Instruction.h"

namespace wsc::firmware {

struct BufferDecl {
    std::string name;
    uint32_t elems = 0;
    DType dtype = DType::FP32;
    uint64_t bytes() const { return uint64_t(elems) * dtypeBytes(dtype); }
};

struct GroupDecl {
    uint16_t id = 0;
    std::vector<uint32_t> members;  // core ids; the first is the barrier's master
};

class Program {
  public:
    // Returns the new buffer's index; a duplicate name throws std::invalid_argument.
    uint16_t addBuffer(const std::string& name, uint32_t elems, DType dtype = DType::FP32);
    void addGroup(uint16_t id, std::vector<uint32_t> members);
    void add(const Instruction& i) { code_.push_back(i); }

    // Index of the buffer called `name`, or kNoBuf.
    uint16_t findBuffer(const std::string& name) const;
    const BufferDecl& buffer(uint16_t i) const { return buffers_.at(i); }
    const std::vector<BufferDecl>& buffers() const { return buffers_; }
    const GroupDecl* group(uint16_t id) const;
    const std::vector<GroupDecl>& groups() const { return groups_; }
    const std::vector<Instruction>& code() const { return code_; }
    std::vector<Instruction>& code() { return code_; }
    bool empty() const { return code_.empty(); }

    // Checks buffer indices, shapes against buffer sizes, loop nesting and group references;
    // throws std::invalid_argument naming `who` (e.g. "core 3") and the instruction index.
    void validate(const std::string& who) const;
    // For every Loop the index of its EndLoop and vice versa (valid after validate()).
    std::vector<uint32_t> matchLoops() const;

  private:
    std::vector<BufferDecl> buffers_;
    std::vector<GroupDecl> groups_;
    std::vector<Instruction> code_;
};

}  // namespace wsc::firmware
