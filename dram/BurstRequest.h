#pragma once
// One access-granularity burst waiting in a pseudo-channel's read or write queue.
#include <cstdint>

namespace wsc::dram {

struct BurstRequest {
    uint64_t arrival = 0;  // cycle it entered the queue
    uint32_t tag = 0;      // owner's handle (the transaction slot), returned on completion
    uint32_t row = 0;
    uint32_t column = 0;  // burst index within the row
    uint8_t bank_group = 0;
    uint8_t bank = 0;
    bool write = false;
    bool touched = false;  // a command was already issued on its behalf (row-hit accounting)
};

}  // namespace wsc::dram
