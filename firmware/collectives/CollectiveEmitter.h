#pragma once
// The one place a collective touches a Firmware: declares (or reuses) buffers by name on the
// ranks' programs and collects each rank's SEND / RECV / VADD (and the staging DMA that
// emitStaged spreads among them) on the side; commit() appends them with Program::add, so they
// land in whichever stream the caller chose on each program (firmware/Program.h), and positions
// inside the collective are positions in its own code, not in the program. With no firmware it is a
// dry run that only adds up the bytes of the buffers each rank would hold, which is how memory
// staging sizes its segments without building a scratch firmware. Ranks are indices into the
// collective's group.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "firmware/Firmware.h"

namespace wsc::firmware::coll {

class CollectiveEmitter {
  public:
    // `fw` null: dry run. `what` names the collective in errors.
    CollectiveEmitter(Firmware* fw, std::vector<uint32_t> nodes, DType dtype, std::string what);

    bool dry() const { return fw_ == nullptr; }
    uint32_t ranks() const { return static_cast<uint32_t>(nodes_.size()); }
    uint32_t node(uint32_t rank) const { return nodes_[rank]; }
    DType dtype() const { return dtype_; }
    uint64_t bytesOf(uint64_t elems) const { return elems * dtypeBytes(dtype_); }

    // Index of buffer `name` on `rank`'s program, declared with `elems` elements unless a buffer
    // of that name exists; an existing one must be of this dtype and hold at least `elems`
    // (std::invalid_argument otherwise, naming node, buffer and both sizes). Dry run: kNoBuf.
    uint16_t buffer(uint32_t rank, const std::string& name, uint64_t elems);
    void send(uint32_t rank, uint16_t buf, uint32_t to_rank, uint64_t elems);
    void recv(uint32_t rank, uint16_t buf, uint32_t from_rank, uint64_t elems);
    void add(uint32_t rank, uint16_t acc, uint16_t rx, uint64_t elems);  // acc += rx
    // Bytes of the buffers this collective used on `rank` (declared or reused, each once).
    uint64_t bytes(uint32_t rank) const { return bytes_[rank]; }
    uint64_t maxBytes() const;
    // The most SRAM any rank's buffers named "<prefix>.*" take once this collective's buffers
    // join those `fw` already declares (reused names grow to the larger size): what a set
    // shared by the collectives of one stream costs. Equals maxBytes() for a fresh prefix.
    uint64_t unionBytes(const Firmware& fw, const std::string& prefix) const;
    // Instructions of this collective on `rank` so far (0 in a dry run), and that code.
    size_t codeSize(uint32_t rank) const { return code_[rank].size(); }
    std::vector<Instruction>& code(uint32_t rank) { return code_[rank]; }
    Program& program(uint32_t rank) { return fw_->program(nodes_[rank]); }
    // Appends every rank's collected code to its program (current stream) and clears it.
    void commit();

  private:
    Firmware* fw_;
    std::vector<uint32_t> nodes_;
    DType dtype_;
    std::string what_;
    std::vector<uint64_t> bytes_;
    std::vector<std::unordered_map<std::string, uint64_t>> used_;  // per rank: name -> elems
    std::vector<std::vector<Instruction>> code_;                   // per rank, not yet committed
};

}  // namespace wsc::firmware::coll
