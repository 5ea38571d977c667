#include "core/PeArray.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace wsc::core {

PeArray::PeArray(const PeArrayParams& p) : p_(p), dataflow_(Dataflow::make(p.dataflow)) {
    if (p.rows == 0 || p.cols == 0 || p.macs_per_cycle == 0 || p.data_bits == 0 || p.arrays == 0)
        throw std::invalid_argument(
            "PE array: rows, cols, macs_per_cycle, data_bits and arrays must be > 0");
}

PeTiming PeArray::timing(uint64_t m, uint64_t k, uint64_t n, firmware::DType t) const {
    PeTiming r;
    r.macs = m * k * n;
    if (r.macs == 0) return r;
    const FoldMapping f = dataflow_->map(m, k, n);
    const uint64_t per_cycle = uint64_t(p_.macs_per_cycle) * p_.data_bits;
    r.stream =
        std::max<uint64_t>(1, (f.temporal * firmware::dtypeBits(t) + per_cycle - 1) / per_cycle);
    r.row_folds = (f.spatial_rows + p_.rows - 1) / p_.rows;
    r.col_folds = (f.spatial_cols + p_.cols - 1) / p_.cols;
    // 2 S_R F_C + S_C F_R + F_R F_C (T' - 2); T' >= 1 and every fold has r, c >= 1, so the sum
    // is positive even when T' - 2 is -1.
    const int64_t folds = int64_t(r.row_folds * r.col_folds);
    if (p_.arrays == 1 || folds == 1) {
        r.cycles =
            uint64_t(int64_t(2 * f.spatial_rows * r.col_folds + f.spatial_cols * r.row_folds) +
                     folds * (int64_t(r.stream) - 2));
        return r;
    }
    // Folds dealt to the arrays in row-major order; the busiest array sets the time.
    const uint64_t A = std::min<uint64_t>(p_.arrays, uint64_t(folds));
    std::vector<uint64_t> load(A, 0);
    uint64_t idx = 0;
    for (uint64_t i = 0; i < r.row_folds; ++i) {
        const uint64_t rr = i + 1 < r.row_folds ? p_.rows : f.spatial_rows - i * p_.rows;
        for (uint64_t j = 0; j < r.col_folds; ++j, ++idx) {
            const uint64_t cc = j + 1 < r.col_folds ? p_.cols : f.spatial_cols - j * p_.cols;
            load[idx % A] += 2 * rr + cc + r.stream - 2;
        }
    }
    r.cycles = *std::max_element(load.begin(), load.end());
    return r;
}

void PeArray::compute(const float* a, const float* b, float* c, uint32_t m, uint32_t k, uint32_t n,
                      bool accumulate, bool trans_b) {
    for (uint32_t i = 0; i < m; ++i) {
        float* row = c + size_t(i) * n;
        if (!accumulate) std::fill(row, row + n, 0.0f);
        if (trans_b) {
            const float* arow = a + size_t(i) * k;
            for (uint32_t j = 0; j < n; ++j) {
                const float* bcol = b + size_t(j) * k;
                float acc = 0.0f;
                for (uint32_t x = 0; x < k; ++x) acc += arow[x] * bcol[x];
                row[j] += acc;
            }
            continue;
        }
        for (uint32_t x = 0; x < k; ++x) {
            const float av = a[size_t(i) * k + x];
            const float* brow = b + size_t(x) * n;
            for (uint32_t j = 0; j < n; ++j) row[j] += av * brow[j];
        }
    }
}

}  // namespace wsc::core
