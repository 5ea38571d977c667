#pragma once
// Sparse byte store for functional mode: 4 KB pages allocated on first write, reads of untouched
// memory return zeros. Allocation happens only the first time a page is written, never per cycle.
#include <cstdint>
#include <memory>
#include <unordered_map>

namespace wsc::dram {

class BackingStore {
  public:
    void read(uint64_t addr, uint8_t* dst, uint64_t len) const;
    void write(uint64_t addr, const uint8_t* src, uint64_t len);
    size_t pages() const { return pages_.size(); }

  private:
    static constexpr uint64_t kPage = 4096;
    std::unordered_map<uint64_t, std::unique_ptr<uint8_t[]>> pages_;
};

}  // namespace wsc::dram
