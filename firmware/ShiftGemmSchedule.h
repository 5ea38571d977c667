#pragma once
// A small distributed GEMM for the core model's checks and the gemm scenario: Cannon's algorithm
// on the top-left P x P cores of the mesh, with plain mesh neighbours as the ring (the wrap-around
// shift crosses the row, as in textbook Cannon; issue 7 builds MeshGEMM's interleaved ring).
// Core (row i, col j) loads A(i, (i+j) mod P) and B((i+j) mod P, j) from memory, which performs
// Cannon's alignment by addressing instead of by messages, then runs P double-buffered steps:
// send the current A tile left and B tile up, receive the next ones from the right and from
// below, multiply-accumulate the current pair; finally it stores its C tile. Tiles live in
// memory tile-major (each tile contiguous, row-major inside).
#include <cstdint>

#include "firmware/Firmware.h"
#include "firmware/GemmWorkload.h"

namespace wsc::firmware {

class ShiftGemmSchedule {
  public:
    // mesh_x, mesh_y: NoC mesh (cores = mesh_x * mesh_y); P taken from w.mesh.
    ShiftGemmSchedule(uint32_t mesh_x, uint32_t mesh_y, const GemmWorkload& w);
    Firmware build() const;

    uint32_t p() const { return p_; }
    uint32_t tileM() const { return tm_; }
    uint32_t tileK() const { return tk_; }
    uint32_t tileN() const { return tn_; }
    uint32_t core(uint32_t row, uint32_t col) const { return row * mesh_x_ + col; }
    // Byte addresses of tiles in memory (fp32).
    uint64_t aTile(uint32_t bi, uint32_t bk) const {
        return a_base_ + (uint64_t(bi) * p_ + bk) * tileBytes(tm_, tk_);
    }
    uint64_t bTile(uint32_t bk, uint32_t bj) const {
        return b_base_ + (uint64_t(bk) * p_ + bj) * tileBytes(tk_, tn_);
    }
    uint64_t cTile(uint32_t bi, uint32_t bj) const {
        return c_base_ + (uint64_t(bi) * p_ + bj) * tileBytes(tm_, tn_);
    }
    uint64_t memoryBytes() const { return c_base_ + uint64_t(p_) * p_ * tileBytes(tm_, tn_); }
    // SRAM bytes per core: double-buffered A and B tiles plus the C tile.
    uint64_t sramBytes() const {
        return 2 * (tileBytes(tm_, tk_) + tileBytes(tk_, tn_)) + tileBytes(tm_, tn_);
    }

  private:
    static uint64_t tileBytes(uint32_t r, uint32_t c) { return uint64_t(r) * c * 4; }
    uint32_t mesh_x_, mesh_y_, p_;
    uint32_t tm_, tk_, tn_;
    uint64_t a_base_ = 0, b_base_, c_base_;
};

}  // namespace wsc::firmware
