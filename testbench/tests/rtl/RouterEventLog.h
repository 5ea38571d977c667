#pragma once
// What routers did, cycle by cycle, for lockstep comparison: every flit that left (cycle, router,
// output port, flit with its output VC) and every credit returned upstream (cycle, router, input
// port, VC). Both the RTL wrapper and CppRouterProbe report here through RtlRouter::Listener.
#include <fmt/format.h>

#include <algorithm>
#include <string>
#include <tuple>
#include <vector>

#include "hw/rtl/RtlRouter.h"
#include "noc/Network.h"

namespace wsc::test {

struct RouterEvent {
    uint64_t cycle;
    uint32_t router;
    char kind;  // 'F' flit out (port = output port), 'C' credit out (port = input port)
    uint8_t port, vc;
    noc::Flit flit;  // 'F' only

    auto key() const { return std::make_tuple(cycle, router, kind, port); }
    bool operator==(const RouterEvent& o) const {
        return key() == o.key() && vc == o.vc &&
               (kind == 'C' || (flit.packet == o.flit.packet && flit.seq == o.flit.seq &&
                                flit.flags == o.flit.flags && flit.vc == o.flit.vc));
    }
};

class RouterEventLog : public rtl::RtlRouter::Listener {
  public:
    std::vector<RouterEvent> events;
    void onFlitOut(uint64_t c, uint32_t r, uint8_t o, const noc::Flit& f) override {
        events.push_back({c, r, 'F', o, f.vc, f});
    }
    void onCreditOut(uint64_t c, uint32_t r, uint8_t p, uint8_t vc) override {
        events.push_back({c, r, 'C', p, vc, noc::Flit{}});
    }
    void sort() {
        std::sort(events.begin(), events.end(),
                  [](const RouterEvent& a, const RouterEvent& b) { return a.key() < b.key(); });
    }
};

inline std::string describe(const noc::Network& net, const RouterEvent* e) {
    if (!e) return "nothing";
    const std::string where =
        fmt::format("cycle {} router {} ", e->cycle, net.topology().name(e->router));
    if (e->kind == 'C')
        return where + fmt::format("credit on input port {} ({}) VC {}", e->port,
                                   noc::Topology::portName(e->port), e->vc);
    const noc::PacketInfo& pk = net.packet(e->flit.packet);
    return where + fmt::format(
                       "flit out on port {} ({}) VC {}: packet {} (slot {}, node {} -> {}) "
                       "flit {}/{}{}{}",
                       e->port, noc::Topology::portName(e->port), e->vc, pk.id, e->flit.packet,
                       pk.src, pk.dst, e->flit.seq + 1, pk.flits, e->flit.head() ? " head" : "",
                       e->flit.tail() ? " tail" : "");
}

// The first difference between two logs, or "" when they are equal. Events are matched by
// (cycle, router, kind, port); an event one side has and the other lacks is shown against
// everything the other side's router did in that cycle.
inline std::string firstMismatch(const noc::Network& cppNet, RouterEventLog& cpp,
                                 const noc::Network& rtlNet, RouterEventLog& rtl) {
    cpp.sort();
    rtl.sort();
    auto sameCycle = [](const noc::Network& net, const RouterEventLog& log, const RouterEvent& e) {
        std::string s;
        for (const auto& x : log.events)
            if (x.cycle == e.cycle && x.router == e.router) s += "\n      " + describe(net, &x);
        return s.empty() ? std::string(" nothing at that router in that cycle") : s;
    };
    const size_t n = std::max(cpp.events.size(), rtl.events.size());
    for (size_t i = 0; i < n; ++i) {
        const RouterEvent* a = i < cpp.events.size() ? &cpp.events[i] : nullptr;
        const RouterEvent* b = i < rtl.events.size() ? &rtl.events[i] : nullptr;
        if (a && b && *a == *b) continue;
        if (a && b && a->key() == b->key())
            return fmt::format("first mismatch:\n  C++ router: {}\n  RTL router: {}",
                               describe(cppNet, a), describe(rtlNet, b));
        if (a && (!b || a->key() < b->key()))
            return fmt::format("first mismatch:\n  C++ router: {}\n  RTL router did:{}",
                               describe(cppNet, a), sameCycle(rtlNet, rtl, *a));
        return fmt::format("first mismatch:\n  RTL router: {}\n  C++ router did:{}",
                           describe(rtlNet, b), sameCycle(cppNet, cpp, *b));
    }
    return "";
}

}  // namespace wsc::test
