#include "firmware/llm/MemoryLedger.h"

#include <fmt/format.h>

#include <algorithm>

namespace wsc::firmware::llm {

const char* memKindName(MemKind k) {
    switch (k) {
        case MemKind::Weights:
            return "weights";
        case MemKind::Gradients:
            return "gradients";
        case MemKind::Optimizer:
            return "optimizer states";
        case MemKind::Activations:
            return "activations";
        case MemKind::Checkpoints:
            return "checkpoints";
        case MemKind::KvCache:
            return "KV cache";
        case MemKind::Buffers:
            return "buffers";
        case MemKind::Count:
            break;
    }
    return "?";
}

MemoryLedger::MemoryLedger(uint32_t dies, uint64_t capacity) : capacity_(capacity), dies_(dies) {
    for (Die& d : dies_) {
        if (capacity) d.free_list[0] = capacity;
        d.overflow_top = capacity;
    }
}

std::string MemoryLedger::size(uint64_t b) {
    const double gib = double(b) / double(1ull << 30);
    if (gib >= 1.0) return fmt::format("{:.2f} GB", gib);
    const double mib = double(b) / double(1ull << 20);
    if (mib >= 1.0) return fmt::format("{:.1f} MB", mib);
    return fmt::format("{} B", b);
}

uint64_t MemoryLedger::alloc(uint32_t die, MemKind k, uint64_t bytes, const std::string& label) {
    Die& d = dies_.at(die);
    // 256-byte alignment keeps DMA bursts on burst boundaries.
    const uint64_t len = std::max<uint64_t>(256, (bytes + 255) / 256 * 256);
    uint64_t addr = ~0ull;
    for (auto it = d.free_list.begin(); it != d.free_list.end(); ++it) {
        if (it->second < len) continue;
        addr = it->first;
        const uint64_t rest = it->second - len;
        d.free_list.erase(it);
        if (rest) d.free_list[addr + len] = rest;
        break;
    }
    if (addr == ~0ull) {  // over capacity (or fragmented): a virtual address above it
        addr = d.overflow_top;
        d.overflow_top += len;
    }
    d.blocks[addr] = Block{len, k, label};
    d.extent = std::max(d.extent, addr + len);
    d.used += len;
    d.now[static_cast<size_t>(k)] += len;
    if (d.used > d.peak) {
        d.peak = d.used;
        d.at_peak = d.now;
        // Remember the largest live blocks at the peak, for the report.
        std::vector<std::pair<std::string, uint64_t>> v;
        for (const auto& [a, b] : d.blocks) v.emplace_back(b.label, b.bytes);
        std::partial_sort(v.begin(), v.begin() + std::min<size_t>(3, v.size()), v.end(),
                          [](const auto& x, const auto& y) { return x.second > y.second; });
        v.resize(std::min<size_t>(3, v.size()));
        d.largest_at_peak = std::move(v);
    }
    return addr;
}

void MemoryLedger::free(uint32_t die, uint64_t address) {
    Die& d = dies_.at(die);
    auto it = d.blocks.find(address);
    if (it == d.blocks.end())
        throw std::logic_error(
            fmt::format("memory ledger: die {} frees unknown address 0x{:x}", die, address));
    const uint64_t len = it->second.bytes;
    d.used -= len;
    d.now[static_cast<size_t>(it->second.kind)] -= len;
    d.blocks.erase(it);
    if (address >= capacity_) return;  // virtual overflow space is not reused
    // Return the range and merge it with its neighbours.
    auto next = d.free_list.lower_bound(address);
    uint64_t start = address, length = len;
    if (next != d.free_list.end() && start + length == next->first) {
        length += next->second;
        next = d.free_list.erase(next);
    }
    if (next != d.free_list.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == start) {
            start = prev->first;
            length += prev->second;
            d.free_list.erase(prev);
        }
    }
    d.free_list[start] = length;
}

uint32_t MemoryLedger::peakDie() const {
    uint32_t best = 0;
    for (uint32_t i = 1; i < dies_.size(); ++i)
        if (dies_[i].peak > dies_[best].peak) best = i;
    return best;
}

bool MemoryLedger::overflowed() const {
    for (const Die& d : dies_)
        if (d.peak > capacity_ || d.overflow_top > capacity_) return true;
    return false;
}

void MemoryLedger::check() const {
    if (!overflowed()) return;
    const uint32_t die = peakDie();
    const Die& d = dies_[die];
    std::string parts;
    for (size_t k = 0; k < kKinds; ++k)
        if (d.at_peak[k])
            parts += fmt::format("{}{} {}", parts.empty() ? "" : ", ",
                                 memKindName(static_cast<MemKind>(k)), size(d.at_peak[k]));
    std::string largest;
    for (const auto& [label, bytes] : d.largest_at_peak)
        largest += fmt::format("{}'{}' {}", largest.empty() ? "" : ", ", label, size(bytes));
    if (d.peak <= capacity_)
        throw OutOfMemoryError(fmt::format(
            "die {} fits in {} at its peak ({}) but its memory is too fragmented to place every "
            "block: {} (largest: {})",
            die, size(capacity_), size(d.peak), parts, largest));
    throw OutOfMemoryError(
        fmt::format("die {} needs {} at its peak, its HBM holds {}: {} "
                    "(largest: {})",
                    die, size(d.peak), size(capacity_), parts, largest));
}

}  // namespace wsc::firmware::llm
