#pragma once
// The C++ noc::Router at a network position, wrapped as an ExternalRouter so a test can see what
// it does each cycle (noc::Router reports nothing itself): before evaluate() it notes the flit at
// the front of every input VC, after it the VCs whose occupancy dropped popped that flit, which
// left on its routed output port with the VC lastSendVc() names. Unicast only, as the RTL.
#include <vector>

#include "hw/rtl/RtlRouter.h"
#include "noc/ExternalRouter.h"
#include "noc/Network.h"
#include "noc/Router.h"

namespace wsc::test {

class CppRouterProbe : public noc::ExternalRouter {
  public:
    CppRouterProbe(const noc::Network& net, uint32_t r, rtl::RtlRouter::Listener* l)
        : r_(r, net.topology().ports(), net.params().router), listener_(l) {
        r_.observe();  // lastSendVc below
        const noc::Router& w = net.router(r);
        for (uint8_t p = 0; p < w.ports(); ++p) {  // out ports: at the first evaluate
            r_.connectIn(p, w.inLink(p), w.inPeer(p));
            r_.setOutCredits(p, static_cast<uint8_t>(w.credits(p, 0)));
        }
    }
    void acceptFlit(uint8_t port, const noc::Flit& f, uint64_t now) override {
        r_.acceptFlit(port, f, now);
    }
    void acceptCredit(uint8_t port, uint8_t vc) override { r_.acceptCredit(port, vc); }
    uint32_t buffered() const override { return r_.buffered(); }
    uint64_t traversals() const override { return r_.traversals(); }
    uint32_t maxOccupancy() const override { return r_.maxOccupancy(); }
    const noc::Router& router() const { return r_; }

    void evaluate(uint64_t now, noc::Network& net) override {
        if (!peers_current_) {
            // Its out ports' far ends as the network has them once every position is replaced:
            // whether a neighbour defers its arrivals (Router::Peer::defer) changes when the
            // neighbour becomes external, after this probe was built.
            // Not plain: a plain send is counted by the sending router (Router::sent_), and the
            // network's links count into the router this probe replaces, not into r_;
            // Link::transmit counts it there and gives the same arrival.
            const noc::Router& w = net.router(r_.id());
            for (uint8_t p = 0; p < w.ports(); ++p) {
                noc::Router::Peer to = w.outPeer(p);
                to.plain = 0;
                r_.connectOut(p, w.outLink(p), w.outSerialization(p), to);
            }
            peers_current_ = true;
        }
        fronts_.clear();
        r_.stuckFlits(fronts_);
        counts_.clear();
        for (const auto& s : fronts_) counts_.push_back(r_.occupancy(s.port, s.vc));
        r_.evaluate(now, net);
        for (size_t k = 0; k < fronts_.size(); ++k) {
            const auto& s = fronts_[k];
            if (r_.occupancy(s.port, s.vc) == counts_[k]) continue;
            noc::RouteDecision d = net.route(r_.id(), s.port, s.vc, s.flit.packet);
            const uint8_t o = static_cast<uint8_t>(__builtin_ctz(d.out_mask));
            noc::Flit f = s.flit;
            f.vc = r_.lastSendVc(o);
            if (r_.lastSendCycle(o) != now) f.vc = 0xEE;  // cannot happen: shows up as a mismatch
            listener_->onFlitOut(now, r_.id(), o, f);
            listener_->onCreditOut(now, r_.id(), s.port, s.vc);
        }
    }

  private:
    noc::Router r_;
    rtl::RtlRouter::Listener* listener_;
    std::vector<noc::Router::Stuck> fronts_;
    std::vector<uint32_t> counts_;
    bool peers_current_ = false;
};

}  // namespace wsc::test
