#pragma once
// The logical ring a shift-based kernel rotates tiles along, laid on one row or column of P
// cores. Linear is textbook Cannon flattened onto the mesh: position = physical index, so the
// hop from the tail back to the head crosses the whole line (P - 1 hops). Interleave is
// MeshGEMM's ring (WaferLLM Sec. 5.2, Algorithm 1): it visits 0, 2, 4, ..., the last even index,
// the last odd index, ..., 3, 1 and back to 0, so every logical hop spans at most two physical
// hops and the core in between only forwards in its router.
#include <cstdint>
#include <vector>

namespace wsc::firmware {

class RingOrder {
  public:
    enum class Kind { Linear, Interleave };
    RingOrder(Kind kind, uint32_t p);

    uint32_t size() const { return p_; }
    Kind kind() const { return kind_; }
    // Ring position of physical index i (facts file: r(i) = i/2 for even i, P - (i+1)/2 for odd).
    uint32_t position(uint32_t i) const { return pos_[i]; }
    // Physical index at ring position q (taken mod P).
    uint32_t at(uint64_t q) const { return phys_[q % p_]; }
    // Physical index of the ring successor / predecessor of physical index i.
    uint32_t next(uint32_t i) const { return at(pos_[i] + 1); }
    uint32_t prev(uint32_t i) const { return at(pos_[i] + p_ - 1); }
    // Physical distance of the longest logical hop (the per-step critical path of a shift).
    uint32_t maxHop() const;

    // WaferLLM's Algorithm 1 verbatim (send_index, recv_index), for cross-checking in tests.
    static void interleave(uint32_t index, uint32_t n, uint32_t& send_index, uint32_t& recv_index);

  private:
    Kind kind_;
    uint32_t p_;
    std::vector<uint32_t> pos_, phys_;
};

}  // namespace wsc::firmware
