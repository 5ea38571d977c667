#include "core/WeightStationary.h"

namespace wsc::core {

FoldMapping WeightStationary::map(uint64_t m, uint64_t k, uint64_t n) const {
    return {k, n, m};
}

}  // namespace wsc::core
