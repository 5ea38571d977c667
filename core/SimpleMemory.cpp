#include "core/SimpleMemory.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <stdexcept>

namespace wsc::core {

using namespace sc_core;
using namespace tlm;

namespace {
constexpr uint64_t kPage = 4096;
}

SimpleMemory::SimpleMemory(sc_module_name name, sc_time latency, double bytes_per_ns,
                           uint64_t capacity, bool functional)
    : sc_module(name),
      socket("socket"),
      latency_(latency),
      bytes_per_ns_(bytes_per_ns),
      capacity_(capacity),
      functional_(functional),
      peq_(this, &SimpleMemory::peqCallback) {
    if (!(bytes_per_ns > 0)) throw std::invalid_argument("simple memory: bandwidth must be > 0");
    socket.register_nb_transport_fw(this, &SimpleMemory::nb_transport_fw);
    socket.register_b_transport(this, &SimpleMemory::b_transport);
    socket.register_transport_dbg(this, &SimpleMemory::transport_dbg);
}

void SimpleMemory::write(uint64_t addr, const void* src, uint64_t len) {
    if (addr + len > capacity_ || addr + len < addr)
        throw std::out_of_range(fmt::format("{}: write of {} bytes at 0x{:x} beyond capacity {}",
                                            name(), len, addr, capacity_));
    const uint8_t* s = static_cast<const uint8_t*>(src);
    while (len) {
        auto& pg = pages_[addr / kPage];
        if (pg.empty()) pg.assign(kPage, 0);
        const uint64_t off = addr % kPage, n = std::min(len, kPage - off);
        std::memcpy(pg.data() + off, s, n);
        addr += n, s += n, len -= n;
    }
}

void SimpleMemory::read(uint64_t addr, void* dst, uint64_t len) const {
    if (addr + len > capacity_ || addr + len < addr)
        throw std::out_of_range(fmt::format("{}: read of {} bytes at 0x{:x} beyond capacity {}",
                                            name(), len, addr, capacity_));
    uint8_t* d = static_cast<uint8_t*>(dst);
    while (len) {
        const uint64_t off = addr % kPage, n = std::min(len, kPage - off);
        auto it = pages_.find(addr / kPage);
        if (it == pages_.end())
            std::memset(d, 0, n);
        else
            std::memcpy(d, it->second.data() + off, n);
        addr += n, d += n, len -= n;
    }
}

bool SimpleMemory::access(tlm_generic_payload& t) {
    const uint64_t a = t.get_address(), n = t.get_data_length();
    if (a + n > capacity_ || a + n < a) {
        t.set_response_status(TLM_ADDRESS_ERROR_RESPONSE);
        return false;
    }
    if (functional_) {
        if (t.is_write())
            write(a, t.get_data_ptr(), n);
        else
            read(a, t.get_data_ptr(), n);
    }
    t.set_response_status(TLM_OK_RESPONSE);
    return true;
}

tlm_sync_enum SimpleMemory::nb_transport_fw(tlm_generic_payload& t, tlm_phase& ph, sc_time& d) {
    if (ph == BEGIN_REQ) {
        t.acquire();
        ++requests_;
        bytes_ += t.get_data_length();
        const sc_time start = std::max(sc_time_stamp() + d, busy_until_);
        busy_until_ = start + sc_time(double(t.get_data_length()) / bytes_per_ns_, SC_NS);
        peq_.notify(t, BEGIN_RESP, busy_until_ + latency_ - sc_time_stamp());
        ph = END_REQ;
        d = SC_ZERO_TIME;
        return TLM_UPDATED;
    }
    if (ph == END_RESP) {
        if (resp_open_ != &t)
            throw std::logic_error(
                fmt::format("{}: END_RESP for a transaction not answered", name()));
        resp_open_->release();
        resp_open_ = nullptr;
        if (!waiting_.empty()) {
            tlm_generic_payload* n = waiting_.front();
            waiting_.pop_front();
            sendResponse(*n);
        }
        return TLM_COMPLETED;
    }
    throw std::logic_error(fmt::format("{}: unexpected phase on the forward path", name()));
}

void SimpleMemory::peqCallback(tlm_generic_payload& t, const tlm_phase&) {
    access(t);
    if (resp_open_)
        waiting_.push_back(&t);
    else
        sendResponse(t);
}

void SimpleMemory::sendResponse(tlm_generic_payload& t) {
    tlm_phase ph = BEGIN_RESP;
    sc_time d = SC_ZERO_TIME;
    const tlm_sync_enum st = socket->nb_transport_bw(t, ph, d);
    if (st == TLM_COMPLETED || (st == TLM_UPDATED && ph == END_RESP)) {
        t.release();
        if (!waiting_.empty()) {
            tlm_generic_payload* n = waiting_.front();
            waiting_.pop_front();
            sendResponse(*n);
        }
    } else {
        resp_open_ = &t;
    }
}

void SimpleMemory::b_transport(tlm_generic_payload& t, sc_time& d) {
    const sc_time start = std::max(sc_time_stamp() + d, busy_until_);
    busy_until_ = start + sc_time(double(t.get_data_length()) / bytes_per_ns_, SC_NS);
    d = busy_until_ + latency_ - sc_time_stamp();
    ++requests_;
    bytes_ += t.get_data_length();
    access(t);
}

unsigned int SimpleMemory::transport_dbg(tlm_generic_payload& t) {
    if (!access(t)) return 0;
    return t.get_data_length();
}

}  // namespace wsc::core
