#include "core/Sram.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "core/SramOverflowError.h"

namespace wsc::core {

Sram::Sram(const SramParams& p, bool functional)
    : p_(p), functional_(functional), port_busy_until_(p.ports, 0), bank_busy_until_(p.banks, 0) {
    if (p.capacity_bytes == 0 || p.ports == 0 || p.port_bytes == 0 || p.banks == 0)
        throw std::invalid_argument("SRAM: capacity, banks, ports and port width must be > 0");
}

void Sram::checkFits(const std::string& who,
                     const std::vector<std::pair<std::string, uint64_t>>& buffers,
                     const SramParams& p) {
    uint64_t used = 0;
    for (const auto& [name, bytes] : buffers) {
        if (bytes > p.capacity_bytes - used)
            throw SramOverflowError(who, name, bytes, used, p.capacity_bytes);
        used += bytes;
    }
}

uint16_t Sram::allocate(const std::string& who, const std::string& name, uint64_t bytes,
                        uint32_t elems) {
    if (bytes > p_.capacity_bytes - used_)
        throw SramOverflowError(who, name, bytes, used_, p_.capacity_bytes);
    const uint64_t elem_offset = functional_ ? store_.size() : 0;
    bufs_.push_back({used_, bytes, elems, elem_offset});
    used_ += bytes;
    peak_ = std::max(peak_, used_ + held_);
    if (functional_) store_.resize(store_.size() + elems, 0.0f);
    return static_cast<uint16_t>(bufs_.size() - 1);
}

uint16_t Sram::allocateView(uint16_t parent, uint32_t offset, uint32_t elems) {
    const Buf p = bufs_.at(parent);  // a copy: push_back may move bufs_
    if (uint64_t(offset) + elems > p.elems) throw std::logic_error("Sram::allocateView outside");
    const uint64_t per = p.elems ? p.bytes / p.elems : 0;
    bufs_.push_back(
        {p.offset + offset * per, elems * per, elems, functional_ ? p.elem_offset + offset : 0});
    return static_cast<uint16_t>(bufs_.size() - 1);
}

void Sram::hold(uint64_t bytes) {
    if (bytes > p_.capacity_bytes - used_ - held_)
        throw std::logic_error("Sram::hold beyond the capacity");
    held_ += bytes;
    held_peak_ = std::max(held_peak_, held_);
    peak_ = std::max(peak_, used_ + held_);
}

void Sram::release(uint64_t bytes) {
    if (bytes > held_) throw std::logic_error("Sram::release of more than is held");
    held_ -= bytes;
}

std::vector<uint32_t> Sram::banksOf(std::initializer_list<uint16_t> bufs) const {
    std::vector<uint32_t> out;
    if (p_.bank_width == 0) return out;
    const uint64_t span =
        std::min<uint64_t>(p_.banks, (p_.port_bytes + p_.bank_width - 1) / p_.bank_width);
    for (uint16_t b : bufs) {
        if (b >= bufs_.size()) continue;  // kNoBuf
        const uint64_t base = bufs_[b].offset / p_.bank_width;
        for (uint64_t j = 0; j < span; ++j)
            out.push_back(static_cast<uint32_t>((base + j) % p_.banks));
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
}

bool Sram::portFree(uint64_t now, std::initializer_list<uint16_t> bufs) const {
    bool port = false;
    for (uint64_t u : port_busy_until_)
        if (u <= now) port = true;
    if (!port) return false;
    for (uint32_t k : banksOf(bufs))
        if (bank_busy_until_[k] > now) return false;
    return true;
}

void Sram::claimPort(uint64_t now, uint64_t until, std::initializer_list<uint16_t> bufs) {
    for (uint64_t& u : port_busy_until_)
        if (u <= now) {
            u = until;
            for (uint32_t k : banksOf(bufs)) bank_busy_until_[k] = until;
            return;
        }
    throw std::logic_error("Sram::claimPort without a free port");
}

const Sram::Buf* Sram::locate(uint64_t addr, uint64_t len, uint64_t& elem) const {
    if (!functional_ || len == 0 || addr % 4 || len % 4) return nullptr;
    for (const Buf& b : bufs_) {
        if (addr >= b.offset && addr + len <= b.offset + b.bytes &&
            b.bytes == uint64_t(b.elems) * 4) {
            elem = b.elem_offset + (addr - b.offset) / 4;
            return &b;
        }
    }
    return nullptr;
}

bool Sram::read(uint64_t addr, uint8_t* dst, uint64_t len) const {
    uint64_t e = 0;
    if (!locate(addr, len, e)) return false;
    std::memcpy(dst, store_.data() + e, len);
    return true;
}

bool Sram::write(uint64_t addr, const uint8_t* src, uint64_t len) {
    uint64_t e = 0;
    if (!locate(addr, len, e)) return false;
    std::memcpy(store_.data() + e, src, len);
    return true;
}

}  // namespace wsc::core
