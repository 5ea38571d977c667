#pragma once
// Shape checks shared by the kernel schedule generators.
#include <fmt/format.h>

#include <cstdint>
#include <stdexcept>
#include <string>

namespace wsc::firmware {

inline void checkKernelMesh(const std::string& algo, uint32_t mesh_x, uint32_t mesh_y, uint32_t p) {
    if (p == 0 || p > mesh_x || p > mesh_y)
        throw std::invalid_argument(fmt::format(
            "{}: a {}x{} core block does not fit the {}x{} mesh", algo, p, p, mesh_x, mesh_y));
}

// A rows x cols block (P rows, Q columns) at the top left of a mesh_x x mesh_y mesh.
inline void checkKernelBlock(const std::string& algo, uint32_t mesh_x, uint32_t mesh_y,
                             uint32_t rows, uint32_t cols) {
    if (rows == 0 || cols == 0 || cols > mesh_x || rows > mesh_y)
        throw std::invalid_argument(
            fmt::format("{}: a {}x{} core block does not fit the {}x{} mesh", algo, rows, cols,
                        mesh_y, mesh_x));
}

inline void checkDivisible(const std::string& algo, const char* what, uint32_t v, uint32_t by) {
    if (v == 0 || v % by)
        throw std::invalid_argument(
            fmt::format("{}: {} = {} must be a positive multiple of {}", algo, what, v, by));
}

}  // namespace wsc::firmware
