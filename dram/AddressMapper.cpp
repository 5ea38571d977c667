#include "dram/AddressMapper.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::dram {

namespace {
unsigned log2u(uint64_t v) {
    unsigned b = 0;
    while ((uint64_t(1) << b) < v) ++b;
    return b;
}

constexpr const char* kTokens[AddressMapper::kFields] = {"Ro", "Ba", "Bg", "Co", "Pc", "Ch"};
}  // namespace

std::vector<AddressMapper::Field> AddressMapper::parse(const std::string& mapping) {
    std::vector<Field> out;
    bool seen[kFields] = {};
    if (mapping.size() != 2 * kFields)
        throw std::invalid_argument(fmt::format(
            "hbm: address_mapping '{}' must name each of Ro Ba Bg Co Pc Ch exactly once", mapping));
    for (size_t i = 0; i < mapping.size(); i += 2) {
        const std::string tok = mapping.substr(i, 2);
        unsigned f = 0;
        while (f < kFields && tok != kTokens[f]) ++f;
        if (f == kFields)
            throw std::invalid_argument(fmt::format(
                "hbm: address_mapping '{}': unknown field '{}' (expected Ro Ba Bg Co Pc Ch)",
                mapping, tok));
        if (seen[f])
            throw std::invalid_argument(
                fmt::format("hbm: address_mapping '{}': field '{}' repeated", mapping, tok));
        seen[f] = true;
        out.push_back(static_cast<Field>(f));
    }
    return out;
}

AddressMapper::AddressMapper(const HbmParams& p) : pseudo_channels_(p.pseudo_channels) {
    const auto order = parse(p.address_mapping);
    uint64_t counts[kFields] = {};
    counts[unsigned(Field::Ro)] = p.rows;
    counts[unsigned(Field::Ba)] = p.banks_per_group;
    counts[unsigned(Field::Bg)] = p.bank_groups;
    counts[unsigned(Field::Co)] = p.burstsPerRow();
    counts[unsigned(Field::Pc)] = p.pseudo_channels;
    counts[unsigned(Field::Ch)] = p.channels;
    offset_bits_ = log2u(p.accessBytes());
    unsigned shift = offset_bits_;
    // The string is MSB first, so assign shifts walking it from the end.
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const unsigned bits = log2u(counts[unsigned(*it)]);
        slices_[unsigned(*it)] = Slice{shift, (uint64_t(1) << bits) - 1};
        shift += bits;
    }
    capacity_ = uint64_t(1) << shift;
}

DecodedAddress AddressMapper::decode(uint64_t addr) const {
    auto get = [&](Field f) {
        const Slice& s = slices_[unsigned(f)];
        return static_cast<uint32_t>((addr >> s.shift) & s.mask);
    };
    DecodedAddress d;
    d.row = get(Field::Ro);
    d.bank = get(Field::Ba);
    d.bank_group = get(Field::Bg);
    d.column = get(Field::Co);
    d.pseudo_channel = get(Field::Pc);
    d.channel = get(Field::Ch);
    return d;
}

uint64_t AddressMapper::encode(const DecodedAddress& d) const {
    auto put = [&](Field f, uint64_t v) {
        const Slice& s = slices_[unsigned(f)];
        return (v & s.mask) << s.shift;
    };
    return put(Field::Ro, d.row) | put(Field::Ba, d.bank) | put(Field::Bg, d.bank_group) |
           put(Field::Co, d.column) | put(Field::Pc, d.pseudo_channel) | put(Field::Ch, d.channel);
}

}  // namespace wsc::dram
