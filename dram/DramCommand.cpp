#include "dram/DramCommand.h"

namespace wsc::dram {

const char* commandName(CommandType t) {
    switch (t) {
        case CommandType::ACT:
            return "ACT";
        case CommandType::PRE:
            return "PRE";
        case CommandType::PREA:
            return "PREA";
        case CommandType::RD:
            return "RD";
        case CommandType::WR:
            return "WR";
        case CommandType::REF:
            return "REF";
        case CommandType::REFpb:
            return "REFpb";
    }
    return "?";
}

}  // namespace wsc::dram
