#pragma once
// R x C systolic MAC array. Cycles per GEMM tile come from the fold model SCALE-Sim uses: the
// dataflow maps (m, k, n) to spatial rows S_R, spatial columns S_C and a temporal extent T; the
// tile is cut into ceil(S_R/R) x ceil(S_C/C) folds, and a fold using r rows and c columns takes
//   fill (r - 1 + c - 1)  +  stream T'  +  drain r   =  2r + c + T' - 2   cycles,
// where T' = ceil(T * dtype_bits / (macs_per_cycle * data_bits)) (wider MACs or narrower types
// stream faster; wider types take extra passes). Summed over folds:
//   cycles = 2 S_R F_C + S_C F_R + F_R F_C (T' - 2).
// With A > 1 independent arrays (PeArrayParams::arrays) fold f (row-major over F_R x F_C) goes to
// array f mod A; each array takes the sum of its folds' 2r + c + T' - 2 and the GEMM the busiest
// array's total (A = 1: the sum above).
// Pure arithmetic, testable without SystemC; compute() does the fp32 math in functional mode.
#include <cstdint>
#include <memory>

#include "core/CoreParams.h"
#include "core/Dataflow.h"
#include "firmware/Instruction.h"

namespace wsc::core {

struct PeTiming {
    uint64_t row_folds = 0, col_folds = 0;
    uint64_t stream = 0;  // T' per fold
    uint64_t cycles = 0;
    uint64_t macs = 0;  // m * k * n useful MACs
};

class PeArray {
  public:
    explicit PeArray(const PeArrayParams& p);
    const PeArrayParams& params() const { return p_; }
    const Dataflow& dataflow() const { return *dataflow_; }

    PeTiming timing(uint64_t m, uint64_t k, uint64_t n, firmware::DType t) const;
    uint64_t peakMacsPerCycle() const {
        return uint64_t(p_.rows) * p_.cols * p_.macs_per_cycle * p_.arrays;
    }
    // C[m x n] (+)= A[m x k] * B[k x n], row-major fp32; with trans_b, B is stored [n x k] and
    // C (+)= A * B^T (same MACs, same timing: the PE array reads B by rows instead of columns).
    static void compute(const float* a, const float* b, float* c, uint32_t m, uint32_t k,
                        uint32_t n, bool accumulate, bool trans_b = false);

  private:
    PeArrayParams p_;
    std::unique_ptr<Dataflow> dataflow_;
};

}  // namespace wsc::core
