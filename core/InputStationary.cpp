#include "core/InputStationary.h"

namespace wsc::core {

FoldMapping InputStationary::map(uint64_t m, uint64_t k, uint64_t n) const {
    return {k, m, n};
}

}  // namespace wsc::core
