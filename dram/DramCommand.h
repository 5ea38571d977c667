#pragma once
// One DRAM command as it appears on a pseudo-channel's command bus. Shared by the scheduler, the
// protocol checker and the stats so they all speak of the same events.
#include <cstdint>

namespace wsc::dram {

enum class CommandType : uint8_t { ACT, PRE, PREA, RD, WR, REF, REFpb };
constexpr unsigned kCommandTypes = 7;

struct DramCommand {
    CommandType type = CommandType::ACT;
    uint16_t pseudo_channel = 0;  // flat index: channel * pseudo_channels + pc
    uint8_t bank_group = 0;       // unused by PREA and REF
    uint8_t bank = 0;             // bank within its group
    uint32_t row = 0;             // ACT, RD, WR
    uint32_t column = 0;          // RD, WR: burst index within the row
};

const char* commandName(CommandType t);
inline bool isColumn(CommandType t) {
    return t == CommandType::RD || t == CommandType::WR;
}

}  // namespace wsc::dram
