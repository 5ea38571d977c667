#include "dram/BackingStore.h"

#include <algorithm>
#include <cstring>

namespace wsc::dram {

void BackingStore::read(uint64_t addr, uint8_t* dst, uint64_t len) const {
    while (len > 0) {
        const uint64_t page = addr / kPage, off = addr % kPage;
        const uint64_t n = std::min(len, kPage - off);
        auto it = pages_.find(page);
        if (it == pages_.end())
            std::memset(dst, 0, n);
        else
            std::memcpy(dst, it->second.get() + off, n);
        addr += n;
        dst += n;
        len -= n;
    }
}

void BackingStore::write(uint64_t addr, const uint8_t* src, uint64_t len) {
    while (len > 0) {
        const uint64_t page = addr / kPage, off = addr % kPage;
        const uint64_t n = std::min(len, kPage - off);
        auto& p = pages_[page];
        if (!p) p.reset(new uint8_t[kPage]());  // value-initialised: zeros
        std::memcpy(p.get() + off, src, n);
        addr += n;
        src += n;
        len -= n;
    }
}

}  // namespace wsc::dram
