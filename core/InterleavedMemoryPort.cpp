#include "core/InterleavedMemoryPort.h"

#include <stdexcept>

namespace wsc::core {

InterleavedMemoryPort::InterleavedMemoryPort(std::vector<MemoryPort*> ports, uint64_t granule)
    : ports_(std::move(ports)), granule_(granule), requests_(ports_.size(), 0) {
    if (ports_.empty()) throw std::invalid_argument("interleaved memory port: no ports");
    if (granule_ == 0) throw std::invalid_argument("interleaved memory port: granule must be > 0");
}

uint32_t InterleavedMemoryPort::portOf(uint64_t addr) const {
    return static_cast<uint32_t>((addr / granule_) % ports_.size());
}

uint64_t InterleavedMemoryPort::localAddress(uint64_t addr) const {
    return addr / (granule_ * ports_.size()) * granule_ + addr % granule_;
}

void InterleavedMemoryPort::push(MemoryRequest&& r) {
    const uint32_t p = portOf(r.addr);
    r.addr = localAddress(r.addr);
    ++requests_[p];
    ports_[p]->push(std::move(r));
}

}  // namespace wsc::core
