#pragma once
// A router implemented outside noc/ (the Verilated RTL router of hw/rtl/) that takes the place of
// the C++ Router at one mesh position. The Network keeps the C++ Router object for its wiring
// (link ids, initial credits) and sends that position's flits, credits and evaluate calls here.
// An implementation must behave like Router: consume flits/credits delivered by the network,
// and in evaluate() call Network::route/forward/returnCredit/flitsMoved exactly as Router does.
#include <cstdint>

#include "noc/Flit.h"

namespace wsc::noc {

class Network;

class ExternalRouter {
  public:
    virtual ~ExternalRouter() = default;
    virtual void acceptFlit(uint8_t port, const Flit& f, uint64_t now) = 0;
    virtual void acceptCredit(uint8_t port, uint8_t vc) = 0;
    virtual void evaluate(uint64_t now, Network& net) = 0;
    virtual uint32_t buffered() const = 0;  // flits held; 0 lets the network skip this router
    // Observation for the stats writer (the C++ Router at this position sees no traffic).
    virtual uint64_t traversals() const = 0;
    virtual uint32_t maxOccupancy() const = 0;
};

}  // namespace wsc::noc
