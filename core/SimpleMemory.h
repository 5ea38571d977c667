#pragma once
// Stand-in for the HBM controller behind a memory port: a TLM-2.0 target (base protocol AT:
// END_REQ at once, BEGIN_RESP when done) with a fixed latency and a bandwidth that serialises
// transfers: done = max(now, previous transfer's end) + bytes / bandwidth + latency. It keeps
// the data (sparse 4 KiB pages) in functional mode. Same socket and protocol as dram::HbmTarget,
// so swapping one for the other is a configuration change.
#include <tlm_utils/peq_with_cb_and_phase.h>
#include <tlm_utils/simple_target_socket.h>

#include <cstdint>
#include <deque>
#include <systemc>
#include <tlm>
#include <unordered_map>
#include <vector>

namespace wsc::core {

class SimpleMemory : public sc_core::sc_module {
  public:
    tlm_utils::simple_target_socket<SimpleMemory> socket;

    SC_HAS_PROCESS(SimpleMemory);
    SimpleMemory(sc_core::sc_module_name name, sc_core::sc_time latency, double bytes_per_ns,
                 uint64_t capacity, bool functional);

    // Host access (test setup, result readout); throws outside the capacity.
    void write(uint64_t addr, const void* src, uint64_t len);
    void read(uint64_t addr, void* dst, uint64_t len) const;
    // Timing-only runs skip the data (the transactions carry none).
    void setFunctional(bool f) { functional_ = f; }
    uint64_t requests() const { return requests_; }
    uint64_t bytes() const { return bytes_; }

  private:
    tlm::tlm_sync_enum nb_transport_fw(tlm::tlm_generic_payload& t, tlm::tlm_phase& ph,
                                       sc_core::sc_time& d);
    void b_transport(tlm::tlm_generic_payload& t, sc_core::sc_time& d);
    unsigned int transport_dbg(tlm::tlm_generic_payload& t);
    void peqCallback(tlm::tlm_generic_payload& t, const tlm::tlm_phase& ph);
    void sendResponse(tlm::tlm_generic_payload& t);
    bool access(tlm::tlm_generic_payload& t);

    sc_core::sc_time latency_;
    double bytes_per_ns_;
    uint64_t capacity_;
    bool functional_;
    sc_core::sc_time busy_until_;
    tlm_utils::peq_with_cb_and_phase<SimpleMemory> peq_;
    std::deque<tlm::tlm_generic_payload*> waiting_;  // done, BEGIN_RESP not yet sent
    tlm::tlm_generic_payload* resp_open_ = nullptr;  // BEGIN_RESP sent, END_RESP awaited
    std::unordered_map<uint64_t, std::vector<uint8_t>> pages_;
    uint64_t requests_ = 0, bytes_ = 0;
};

}  // namespace wsc::core
