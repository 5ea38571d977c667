#include "core/MemoryBridge.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wsc::core {

using namespace sc_core;
using namespace tlm;

MemoryBridge::MemoryBridge(sc_module_name name, uint32_t max_outstanding, uint32_t max_bytes)
    : sc_module(name), socket("socket"), slots_(max_outstanding), scratch_(max_bytes) {
    if (max_outstanding == 0)
        throw std::invalid_argument("memory bridge: max_outstanding must be > 0");
    for (uint32_t i = 0; i < max_outstanding; ++i) {
        slots_[i].payload = std::make_unique<Payload>(this, i);
        free_slots_.push_back(max_outstanding - 1 - i);
    }
    socket.register_nb_transport_bw(this, &MemoryBridge::nb_transport_bw);
    SC_METHOD(process);
    sensitive << wake_;
    dont_initialize();
}

void MemoryBridge::setMaxOutstanding(uint32_t n) {
    if (n == 0) throw std::invalid_argument("memory bridge: max_outstanding must be > 0");
    if (in_flight_ != 0 || !queue_.empty() || req_open_)
        throw std::logic_error(
            fmt::format("{}: max_outstanding changed with transactions in flight", name()));
    const auto old = static_cast<uint32_t>(slots_.size());
    slots_.resize(n);  // payload objects move by pointer: their addresses stay valid
    for (uint32_t i = old; i < n; ++i) slots_[i].payload = std::make_unique<Payload>(this, i);
    free_slots_.clear();
    for (uint32_t i = 0; i < n; ++i) free_slots_.push_back(n - 1 - i);
}

void MemoryBridge::connect(const noc::NocShell& shell,
                           std::function<void(MemoryRequest&&)> onDone) {
    shell_ = &shell;
    on_done_ = std::move(onDone);
}

void MemoryBridge::push(MemoryRequest&& r) {
    if (r.bytes > scratch_.size())
        throw std::invalid_argument(fmt::format("{}: request of {} bytes exceeds the burst size {}",
                                                name(), r.bytes, scratch_.size()));
    queue_.push_back(std::move(r));
    // process() can send only with the request phase closed and a slot free; otherwise END_REQ
    // or a release wakes it (a wake-up that finds nothing to do is a delta cycle wasted).
    if (!req_open_ && !free_slots_.empty()) wake_.notify(SC_ZERO_TIME);
}

uint32_t MemoryBridge::slotIndex(const tlm_generic_payload& t) const {
    // Only this bridge's payloads come back here: it is their memory manager and the
    // initiator, and both targets answer with the payload they were sent. The check is a
    // guard for that contract, not a type test.
    const auto i = static_cast<const Payload&>(t).slot;
    if (i >= slots_.size() || slots_[i].payload.get() != &t)
        throw std::logic_error(fmt::format("{}: unknown transaction", name()));
    return i;
}

void MemoryBridge::debugAccess(uint64_t addr, void* data, uint32_t len, bool write) {
    tlm_generic_payload t;
    t.set_command(write ? TLM_WRITE_COMMAND : TLM_READ_COMMAND);
    t.set_address(addr);
    t.set_data_ptr(static_cast<unsigned char*>(data));
    t.set_data_length(len);
    t.set_streaming_width(len);
    const unsigned n = socket->transport_dbg(t);
    if (n != len)
        throw std::runtime_error(fmt::format("{}: debug {} of {} bytes at 0x{:x} moved {}", name(),
                                             write ? "write" : "read", len, addr, n));
}

void MemoryBridge::free(tlm_generic_payload* t) {
    const uint32_t i = slotIndex(*t);
    slots_[i].busy = false;
    free_slots_.push_back(i);
    if (!queue_.empty()) wake_.notify(SC_ZERO_TIME);
}

void MemoryBridge::process() {
    while (!req_open_ && !queue_.empty() && !free_slots_.empty()) {
        const uint32_t si = free_slots_.back();
        free_slots_.pop_back();
        Slot& s = slots_[si];
        s.req = std::move(queue_.front());
        queue_.pop_front();
        s.busy = true;
        tlm_generic_payload& t = *s.payload;
        t.set_command(s.req.write ? TLM_WRITE_COMMAND : TLM_READ_COMMAND);
        t.set_address(s.req.addr);
        // Timing-only runs carry no data; a scratch buffer keeps targets' pointers valid.
        t.set_data_ptr(s.req.data.empty() ? scratch_.data() : s.req.data.data());
        t.set_data_length(s.req.bytes);
        t.set_streaming_width(s.req.bytes);
        t.set_byte_enable_ptr(nullptr);
        t.set_dmi_allowed(false);
        t.set_response_status(TLM_INCOMPLETE_RESPONSE);
        t.acquire();
        ++in_flight_;
        ++transactions_;
        tlm_phase ph = BEGIN_REQ;
        sc_time delay = SC_ZERO_TIME;
        const tlm_sync_enum st = socket->nb_transport_fw(t, ph, delay);
        if (st == TLM_ACCEPTED) {
            req_open_ = &t;  // wait for END_REQ before the next request
        } else if (st == TLM_UPDATED && ph == BEGIN_RESP) {
            complete(t);
            ph = END_RESP;
            delay = SC_ZERO_TIME;
            socket->nb_transport_fw(t, ph, delay);
            t.release();
        } else if (st == TLM_COMPLETED) {
            complete(t);
            t.release();
        }
        // TLM_UPDATED with END_REQ: request phase over, the response comes on the bw path.
    }
}

tlm_sync_enum MemoryBridge::nb_transport_bw(tlm_generic_payload& t, tlm_phase& ph, sc_time&) {
    if (ph == END_REQ) {
        if (req_open_ == &t) req_open_ = nullptr;
        if (!queue_.empty()) wake_.notify(SC_ZERO_TIME);
        return TLM_ACCEPTED;
    }
    if (ph == BEGIN_RESP) {
        if (req_open_ == &t) req_open_ = nullptr;  // BEGIN_RESP implies END_REQ
        complete(t);
        t.release();
        if (!queue_.empty()) wake_.notify(SC_ZERO_TIME);
        return TLM_COMPLETED;
    }
    throw std::logic_error(fmt::format("{}: unexpected phase on the backward path", name()));
}

void MemoryBridge::complete(tlm_generic_payload& t) {
    Slot& s = slots_[slotIndex(t)];
    if (t.is_response_error())
        throw std::runtime_error(fmt::format("{}: memory {} of {} bytes at 0x{:x} failed: {}",
                                             name(), s.req.write ? "write" : "read", s.req.bytes,
                                             s.req.addr, t.get_response_string()));
    --in_flight_;
    // The crossing into the NoC domain (see the header): a register (first edge strictly after
    // the answer) or a synchronizer (first edge at or after it, plus sync cycles).
    s.req.ready =
        crossing_.async ? shell_->edgeAtOrAfterNow() + crossing_.sync : shell_->cycle() + 1;
    on_done_(std::move(s.req));
}

}  // namespace wsc::core
