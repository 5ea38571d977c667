#include "core/OutputStationary.h"

namespace wsc::core {

FoldMapping OutputStationary::map(uint64_t m, uint64_t k, uint64_t n) const {
    return {m, n, k};
}

}  // namespace wsc::core
