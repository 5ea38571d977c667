#include "core/VectorUnit.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace wsc::core {

using firmware::Opcode;

VectorUnit::VectorUnit(const VectorParams& p, uint32_t port_bytes)
    : p_(p), port_bytes_(port_bytes) {
    static_assert(static_cast<size_t>(Opcode::VSqSum) - static_cast<size_t>(Opcode::VAdd) + 1 ==
                      VectorParams::kOps,
                  "VectorParams::op_latency covers every vector op");
    if (p.lanes == 0 || port_bytes == 0)
        throw std::invalid_argument("vector unit: lanes and SRAM port width must be > 0");
    tree_ = 0;
    while ((1u << tree_) < p.lanes) ++tree_;
}

uint32_t VectorUnit::inputs(Opcode op) {
    switch (op) {
        case Opcode::VAdd:
        case Opcode::VSub:
        case Opcode::VMul:
        case Opcode::VMax:
            return 2;
        default:
            return 1;  // broadcast ops read b[0] once
    }
}

uint64_t VectorUnit::cycles(Opcode op, uint64_t n, firmware::DType t) const {
    const bool red = firmware::isReduction(op);
    const uint64_t bytes = (n * inputs(op) + (red ? 1 : n)) * firmware::dtypeBytes(t);
    const size_t idx = static_cast<size_t>(op) - static_cast<size_t>(Opcode::VAdd);
    const uint64_t lat = p_.latencyOf(idx, firmware::isSpecialVectorOp(op));
    const uint64_t stream =
        std::max((n + p_.lanes - 1) / p_.lanes, (bytes + port_bytes_ - 1) / port_bytes_);
    return std::max<uint64_t>(1, lat + stream - 1 + (red ? tree_ : 0));
}

void VectorUnit::execute(Opcode op, const float* a, const float* b, float* c, uint32_t n,
                         float imm) {
    switch (op) {
        case Opcode::VAdd:
            for (uint32_t i = 0; i < n; ++i) c[i] = a[i] + b[i];
            break;
        case Opcode::VSub:
            for (uint32_t i = 0; i < n; ++i) c[i] = a[i] - b[i];
            break;
        case Opcode::VMul:
            for (uint32_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
            break;
        case Opcode::VMax:
            for (uint32_t i = 0; i < n; ++i) c[i] = std::max(a[i], b[i]);
            break;
        case Opcode::VScale:
            for (uint32_t i = 0; i < n; ++i) c[i] = a[i] * imm;
            break;
        case Opcode::VExp:
            for (uint32_t i = 0; i < n; ++i) c[i] = std::exp(a[i]);
            break;
        case Opcode::VRecip:
            for (uint32_t i = 0; i < n; ++i) c[i] = 1.0f / a[i];
            break;
        case Opcode::VRsqrt:
            for (uint32_t i = 0; i < n; ++i) c[i] = 1.0f / std::sqrt(a[i] + imm);
            break;
        case Opcode::VSilu:
            for (uint32_t i = 0; i < n; ++i) c[i] = a[i] / (1.0f + std::exp(-a[i]));
            break;
        case Opcode::VGelu:
            for (uint32_t i = 0; i < n; ++i) {
                const float x = a[i];
                c[i] = 0.5f * x * (1.0f + std::tanh(0.7978845608f * (x + 0.044715f * x * x * x)));
            }
            break;
        case Opcode::VCopy:
            std::copy(a, a + n, c);
            break;
        case Opcode::VBSub: {
            const float s = b[0];
            for (uint32_t i = 0; i < n; ++i) c[i] = a[i] - s;
            break;
        }
        case Opcode::VBMul: {
            const float s = b[0];
            for (uint32_t i = 0; i < n; ++i) c[i] = a[i] * s;
            break;
        }
        case Opcode::VRedSum: {
            float s = 0;
            for (uint32_t i = 0; i < n; ++i) s += a[i];
            c[0] = s;
            break;
        }
        case Opcode::VSqSum: {
            float s = 0;
            for (uint32_t i = 0; i < n; ++i) s += a[i] * a[i];
            c[0] = s;
            break;
        }
        case Opcode::VRedMax: {
            float s = a[0];
            for (uint32_t i = 1; i < n; ++i) s = std::max(s, a[i]);
            c[0] = s;
            break;
        }
        default:
            throw std::logic_error("VectorUnit::execute: not a vector op");
    }
}

}  // namespace wsc::core
