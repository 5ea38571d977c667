#pragma once
// Where a kernel schedule's logical block of cores sits on the mesh: a schedule speaks of core
// (i, j) of its P x Q block (i the row it splits K over, j the column it splits N over); the
// block starts at mesh row row0, column col0, and a transposed block puts logical row i on mesh
// column col0 + i (a GEMV that reduces along the mesh's rows instead of its columns). A composed
// program (a decode layer) lays several schedules side by side and alternates orientations so
// one operation's output is already where the next one's input must be (no transpose).
#include <cstdint>

namespace wsc::firmware {

struct CoreBlock {
    uint32_t row0 = 0, col0 = 0;
    bool transposed = false;
    // Mesh rows and columns a rows x cols logical block covers.
    uint32_t meshRows(uint32_t rows, uint32_t cols) const { return transposed ? cols : rows; }
    uint32_t meshCols(uint32_t rows, uint32_t cols) const { return transposed ? rows : cols; }
    // The core (NoC node) of logical (i, j) on a mesh mesh_x routers wide.
    uint32_t core(uint32_t i, uint32_t j, uint32_t mesh_x) const {
        const uint32_t r = transposed ? j : i, c = transposed ? i : j;
        return (row0 + r) * mesh_x + col0 + c;
    }
};

}  // namespace wsc::firmware
