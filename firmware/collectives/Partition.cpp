#include "firmware/collectives/Partition.h"

#include <algorithm>
#include <stdexcept>

namespace wsc::firmware::coll {

uint64_t Partition::size(uint64_t total, uint64_t parts, uint64_t i) {
    if (parts == 0) throw std::invalid_argument("partition into zero parts");
    return total / parts + (i < total % parts ? 1 : 0);
}

uint64_t Partition::begin(uint64_t total, uint64_t parts, uint64_t i) {
    if (parts == 0) throw std::invalid_argument("partition into zero parts");
    return i * (total / parts) + std::min(i, total % parts);
}

std::vector<uint64_t> Partition::sizes(uint64_t total, uint64_t parts) {
    std::vector<uint64_t> s(parts);
    for (uint64_t i = 0; i < parts; ++i) s[i] = size(total, parts, i);
    return s;
}

}  // namespace wsc::firmware::coll
