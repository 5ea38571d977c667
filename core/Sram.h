#pragma once
// A core's SRAM: a hard capacity that firmware buffers are allocated from (overflow is an error
// naming the core and buffer), `ports` concurrent streams of `port_bytes` per cycle that the PE
// array, vector unit, egress and DMA claim while they run, and in functional mode the fp32 values
// of every buffer. Banks: with bank_width = 0 streams are assumed interleaved across banks (no
// conflicts); with bank_width > 0 a stream holds ceil(port_bytes / bank_width) consecutive banks
// starting at each operand buffer's base bank ((offset / bank_width) % banks) until it ends, and a
// stream needing a held bank waits (charged as an SRAM stall). A stream never conflicts with
// itself.
#include <cstdint>
#include <initializer_list>
#include <string>
#include <utility>
#include <vector>

#include "core/CoreParams.h"

namespace wsc::core {

class Sram {
  public:
    Sram(const SramParams& p, bool functional);
    const SramParams& params() const { return p_; }

    // Allocates `bytes` (holding `elems` values) for buffer `name`; `who` names the core in the
    // error. Returns the buffer's index (allocation order).
    // Throws SramOverflowError naming `who` and the first buffer that would not fit when
    // `buffers` (name, bytes) are allocated in order: the rule allocate() applies, checked before
    // a run (testbench/Preflight) without building a core.
    static void checkFits(const std::string& who,
                          const std::vector<std::pair<std::string, uint64_t>>& buffers,
                          const SramParams& p);
    uint16_t allocate(const std::string& who, const std::string& name, uint64_t bytes,
                      uint32_t elems);
    // A view of `elems` values from value `offset` of buffer `parent` (firmware BufferDecl): no
    // SRAM of its own, the parent's addresses and values.
    uint16_t allocateView(uint16_t parent, uint32_t offset, uint32_t elems);
    uint64_t used() const { return used_; }
    // Early arrivals held in SRAM (core.rx_buffer): they count against the capacity and in the
    // peak; the caller keeps them within what allocate() left free.
    void hold(uint64_t bytes);
    void release(uint64_t bytes);
    uint64_t held() const { return held_; }
    uint64_t heldPeak() const { return held_peak_; }
    // Most bytes in use at any time: buffers plus held arrivals.
    uint64_t peak() const { return peak_; }
    uint64_t offset(uint16_t b) const { return bufs_[b].offset; }
    uint64_t bytes(uint16_t b) const { return bufs_[b].bytes; }
    uint32_t elems(uint16_t b) const { return bufs_[b].elems; }
    uint32_t buffers() const { return static_cast<uint32_t>(bufs_.size()); }
    bool functional() const { return functional_; }
    // Values of buffer b (functional mode; nullptr otherwise).
    float* data(uint16_t b) { return functional_ ? store_.data() + bufs_[b].elem_offset : nullptr; }
    const float* data(uint16_t b) const {
        return functional_ ? store_.data() + bufs_[b].elem_offset : nullptr;
    }

    // Ports: a stream claims a free port until `until` (exclusive).
    // With operand buffers `bufs` (kNoBuf entries ignored), also their banks must be free.
    bool portFree(uint64_t now, std::initializer_list<uint16_t> bufs = {}) const;
    void claimPort(uint64_t now, uint64_t until, std::initializer_list<uint16_t> bufs = {});
    // Banks a stream over `bufs` holds (sorted, unique); empty when bank_width = 0.
    std::vector<uint32_t> banksOf(std::initializer_list<uint16_t> bufs) const;
    uint64_t transferCycles(uint64_t bytes) const {
        return (bytes + p_.port_bytes - 1) / p_.port_bytes;
    }

    // Byte-addressed access for the TLM target: only whole fp32 values of fp32 buffers
    // (4-byte aligned, inside one buffer). Returns false otherwise.
    bool read(uint64_t addr, uint8_t* dst, uint64_t len) const;
    bool write(uint64_t addr, const uint8_t* src, uint64_t len);

  private:
    struct Buf {
        uint64_t offset, bytes;
        uint32_t elems;
        uint64_t elem_offset;
    };
    const Buf* locate(uint64_t addr, uint64_t len, uint64_t& elem) const;

    SramParams p_;
    bool functional_;
    uint64_t used_ = 0, held_ = 0, held_peak_ = 0, peak_ = 0;
    std::vector<Buf> bufs_;
    std::vector<float> store_;
    std::vector<uint64_t> port_busy_until_;
    std::vector<uint64_t> bank_busy_until_;
};

}  // namespace wsc::core
