#pragma once
// Maps a byte address inside one stack to (channel, pseudo-channel, bank group, bank, row, column)
// by slicing bit fields in the order of HbmParams::address_mapping, and back again.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "dram/HbmParams.h"

namespace wsc::dram {

struct DecodedAddress {
    uint32_t channel = 0;
    uint32_t pseudo_channel = 0;  // within its channel
    uint32_t bank_group = 0;
    uint32_t bank = 0;  // within its group
    uint32_t row = 0;
    uint32_t column = 0;  // burst index within the row (column address / burst length)
    bool operator==(const DecodedAddress& o) const {
        return channel == o.channel && pseudo_channel == o.pseudo_channel &&
               bank_group == o.bank_group && bank == o.bank && row == o.row && column == o.column;
    }
};

class AddressMapper {
  public:
    enum class Field : uint8_t { Ro, Ba, Bg, Co, Pc, Ch };
    static constexpr unsigned kFields = 6;

    explicit AddressMapper(const HbmParams& p);

    // Parses a mapping string such as "RoBaCoBgPcCh" (most significant field first). Throws
    // std::invalid_argument on unknown or repeated tokens or a missing field.
    static std::vector<Field> parse(const std::string& mapping);

    DecodedAddress decode(uint64_t addr) const;      // bits above capacity are ignored
    uint64_t encode(const DecodedAddress& d) const;  // offset bits are zero
    bool contains(uint64_t addr) const { return addr < capacity_; }
    uint64_t capacity() const { return capacity_; }
    unsigned offsetBits() const { return offset_bits_; }
    uint32_t flatPseudoChannel(const DecodedAddress& d) const {
        return d.channel * pseudo_channels_ + d.pseudo_channel;
    }

  private:
    struct Slice {
        unsigned shift = 0;
        uint64_t mask = 0;
    };
    std::array<Slice, kFields> slices_{};  // indexed by Field
    unsigned offset_bits_ = 0;
    uint64_t capacity_ = 0;
    uint32_t pseudo_channels_ = 1;
};

}  // namespace wsc::dram
