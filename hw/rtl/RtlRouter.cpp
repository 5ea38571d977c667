#include "hw/rtl/RtlRouter.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace wsc::rtl {

namespace {
// Flit word layout, as wsc_router_pkg::flit_t (LSB first).
constexpr uint32_t kVcShift = 2, kLocalShift = 6, kXShift = 9, kYShift = 21, kIdShift = 33;
constexpr uint32_t kCoordLimit = 1u << 12;
constexpr uint64_t kIdLimit = uint64_t(1) << 31;
}  // namespace

RtlRouter::RtlRouter(const noc::Network& net, uint32_t r, std::unique_ptr<RtlModel> model)
    : net_(net), model_(std::move(model)), pins_(model_->pins()), id_(r) {
    const noc::Topology& topo = net.topology();
    const noc::NocParams& p = net.params();
    ports_ = static_cast<uint8_t>(topo.ports());
    vcs_ = static_cast<uint8_t>(p.router.vcs);
    depth_ = static_cast<uint8_t>(p.router.vc_buffer_flits);
    if (topo.x(r) >= kCoordLimit || topo.y(r) >= kCoordLimit || topo.kx() > kCoordLimit ||
        topo.ky() > kCoordLimit)
        throw std::invalid_argument(
            "RTL router: mesh coordinates are 12-bit (at most 4096 per side)");
    const noc::Router& wiring = net.router(r);
    uint8_t en = 0;
    for (uint32_t q = 0; q < 8; ++q) {
        out_link_[q] = q < ports_ ? wiring.outLink(static_cast<uint8_t>(q)) : noc::Router::kNoLink;
        in_link_[q] = q < ports_ ? wiring.inLink(static_cast<uint8_t>(q)) : noc::Router::kNoLink;
        uint32_t ser = 1;
        if (out_link_[q] != noc::Router::kNoLink) {
            en |= static_cast<uint8_t>(1u << q);
            ser = net.link(out_link_[q]).serialization();
            if (ser > 255)
                throw std::invalid_argument(fmt::format(
                    "RTL router {}: a flit takes {} cycles on output port {}; the RTL counts "
                    "up to 255",
                    topo.name(r), ser, q));
        }
        pins_.cfg_ser[q] = static_cast<uint8_t>(ser);
        max_ser_ = std::max(max_ser_, ser);
    }
    *pins_.my_x = static_cast<uint16_t>(topo.x(r));
    *pins_.my_y = static_cast<uint16_t>(topo.y(r));
    *pins_.port_en = en;
    *pins_.in_valid = 0;
    *pins_.cr_in_valid = 0;
    // Synchronous reset: one rising edge with rst_n low.
    *pins_.rst_n = 0;
    model_->settle();
    model_->rise();
    *pins_.rst_n = 1;

    const size_t flits = size_t(ports_) * vcs_ * depth_;
    static_assert(8 * 16 * 255 + 8 < kIdLimit, "every pool index fits the flit's 31-bit id");
    pool_.resize(flits + ports_);  // + one arriving flit per port before any leaves
    free_.reserve(pool_.size());
    for (size_t i = pool_.size(); i-- > 0;) free_.push_back(static_cast<uint32_t>(i));
    occupancy_.assign(size_t(ports_) * vcs_, 0);
    cr_cap_ = uint32_t(vcs_) * depth_ + 1;  // credits owed on a port never exceed its buffers
    cr_q_.assign(size_t(8) * cr_cap_, 0);
    period_ps_ = static_cast<uint64_t>(std::llround(1e12 / p.clock_hz));
}

void RtlRouter::openTrace(const std::string& path) {
    if (!model_->openTrace(path))
        throw std::invalid_argument(
            "RTL router: this parameter set was verilated without --trace-fst (see "
            "WSC_RTL_VARIANTS in hw/rtl/CMakeLists.txt)");
    tracing_ = true;
}

uint64_t RtlRouter::pack(const noc::Flit& f, uint32_t tag) const {
    const noc::PacketInfo& pk = net_.packet(f.packet);
    if (pk.route != noc::kNoRoute)
        throw std::logic_error(fmt::format(
            "RTL router {}: packet {} uses table route {}; the RTL implements unicast XY only",
            net_.topology().name(id_), pk.id, pk.route));
    const noc::Topology& topo = net_.topology();
    const uint32_t dr = topo.routerOfNode(pk.dst);
    const uint64_t local = topo.portOfNode(pk.dst) - noc::Topology::kFirstLocal;
    return uint64_t(f.head()) | uint64_t(f.tail()) << 1 | uint64_t(f.vc & 0xF) << kVcShift |
           local << kLocalShift | uint64_t(topo.x(dr)) << kXShift |
           uint64_t(topo.y(dr)) << kYShift | uint64_t(tag) << kIdShift;
}

void RtlRouter::acceptFlit(uint8_t port, const noc::Flit& f, uint64_t) {
    const uint8_t bit = static_cast<uint8_t>(1u << port);
    if (in_mask_ & bit)
        throw std::logic_error(fmt::format("RTL router {}: two flits on input port {} in one cycle",
                                           net_.topology().name(id_), port));
    if (free_.empty())
        throw std::logic_error(fmt::format("RTL router {}: more flits than its buffers hold",
                                           net_.topology().name(id_)));
    const uint32_t tag = free_.back();
    free_.pop_back();
    pool_[tag] = f;
    in_word_[port] = pack(f, tag);
    in_mask_ |= bit;
    ++buffered_;
    uint8_t& occ = occupancy_[size_t(port) * vcs_ + (f.vc < vcs_ ? f.vc : 0)];
    ++occ;
    max_occupancy_ = std::max<uint32_t>(max_occupancy_, occ);
}

void RtlRouter::acceptCredit(uint8_t port, uint8_t vc) {
    if (cr_count_[port] == cr_cap_)
        throw std::logic_error(fmt::format("RTL router {}: credit overflow on output port {}",
                                           net_.topology().name(id_), port));
    cr_q_[port * cr_cap_ + (cr_head_[port] + cr_count_[port]) % cr_cap_] = vc;
    ++cr_count_[port];
}

// One sample per cycle, at the cycle's start like NocShell's VCD probes: registers hold the state
// of the cycle, inputs are what the network delivered in it and outputs what the router sends in
// it. (A sample after the rising edge would show next-cycle grants computed from stale inputs.)
void RtlRouter::dump(uint64_t cycle) {
    const uint64_t t = cycle * period_ps_;
    if (!tracing_ || (dumped_ && t <= last_dump_ps_)) return;
    model_->dump(t);
    dumped_ = true;
    last_dump_ps_ = t;
}

void RtlRouter::checkErrors(uint64_t cycle) const {
    const uint8_t ov = *pins_.err_overflow, cr = *pins_.err_credit, pr = *pins_.err_protocol;
    if (!(ov | cr | pr)) return;
    const char* what = ov   ? "flit into a full VC buffer (credit protocol violated)"
                       : cr ? "credit overflow"
                            : "body flit with no open packet, or a bad VC number";
    const uint8_t m = ov ? ov : cr ? cr : pr;
    throw std::logic_error(fmt::format("RTL router {}: {} on port {} at cycle {}",
                                       net_.topology().name(id_), what, __builtin_ctz(m), cycle));
}

// One clock of an empty router: lets busy counters run out and takes one queued credit per port.
void RtlRouter::clockIdle(uint64_t cycle) {
    *pins_.in_valid = 0;
    uint8_t crm = 0;
    for (uint32_t q = 0; q < 8; ++q) {
        if (!cr_count_[q]) continue;
        pins_.cr_in_vc[q] = cr_q_[q * cr_cap_ + cr_head_[q]];
        cr_head_[q] = (cr_head_[q] + 1) % cr_cap_;
        --cr_count_[q];
        crm |= static_cast<uint8_t>(1u << q);
    }
    *pins_.cr_in_valid = crm;
    model_->settle();
    dump(cycle);
    checkErrors(cycle);
    if (*pins_.out_valid)
        throw std::logic_error(fmt::format("RTL router {}: sent a flit while empty at cycle {}",
                                           net_.topology().name(id_), cycle));
    model_->rise();
    ++clocks_;
}

void RtlRouter::evaluate(uint64_t now, noc::Network& net) {
    if (started_ && now > last_ + 1) {
        // Not evaluated since last_: the router was empty. Replay only what can matter.
        uint64_t need = max_ser_;
        for (uint32_t q = 0; q < 8; ++q) need = std::max<uint64_t>(need, cr_count_[q]);
        const uint64_t n = std::min(now - last_ - 1, need);
        for (uint64_t k = 1; k <= n; ++k) clockIdle(last_ + k);
    }
    started_ = true;

    *pins_.in_valid = in_mask_;
    for (uint8_t m = in_mask_; m; m &= m - 1) {
        const uint32_t q = __builtin_ctz(m);
        pins_.in_flit[q] = in_word_[q];
    }
    uint8_t crm = 0;
    for (uint32_t q = 0; q < 8; ++q) {
        if (!cr_count_[q]) continue;
        pins_.cr_in_vc[q] = cr_q_[q * cr_cap_ + cr_head_[q]];
        cr_head_[q] = (cr_head_[q] + 1) % cr_cap_;
        // A link returns at most one credit per cycle; a leftover means the replay was too short.
        if (--cr_count_[q])
            throw std::logic_error(fmt::format("RTL router {}: {} credits on port {} in one cycle",
                                               net_.topology().name(id_), cr_count_[q] + 1, q));
        crm |= static_cast<uint8_t>(1u << q);
    }
    *pins_.cr_in_valid = crm;
    model_->settle();
    dump(now);
    checkErrors(now);

    // Same call order as noc::Router::send, input ports ascending: forward, credit, flitsMoved.
    const uint8_t sent = *pins_.cr_out_valid;
    if (__builtin_popcount(sent) != __builtin_popcount(*pins_.out_valid))
        throw std::logic_error(fmt::format(
            "RTL router {}: {} flits out but {} credits at cycle {}", net_.topology().name(id_),
            __builtin_popcount(*pins_.out_valid), __builtin_popcount(sent), now));
    for (uint8_t m = sent; m; m &= m - 1) {
        const uint32_t q = __builtin_ctz(m);
        const uint32_t o = pins_.sw_out[q];
        const uint64_t w = pins_.out_flit[o];
        const uint32_t tag = static_cast<uint32_t>(w >> kIdShift);
        if (!(*pins_.out_valid & (1u << o)) || tag >= pool_.size())
            throw std::logic_error(fmt::format("RTL router {}: bad switch output at cycle {}",
                                               net_.topology().name(id_), now));
        noc::Flit f = pool_[tag];
        if (f.flags != (w & 3))
            throw std::logic_error(fmt::format("RTL router {}: flit flags corrupted at cycle {}",
                                               net_.topology().name(id_), now));
        f.vc = static_cast<uint8_t>((w >> kVcShift) & 0xF);
        free_.push_back(tag);
        const uint8_t in_vc = pins_.cr_out_vc[q];
        net.forward(out_link_[o], f, now);
        net.returnCredit(in_link_[q], in_vc, now);
        net.flitsMoved(now, 1, true);
        --occupancy_[q * vcs_ + in_vc];
        --buffered_;
        ++traversals_;
        if (listener_) {
            listener_->onFlitOut(now, id_, static_cast<uint8_t>(o), f);
            listener_->onCreditOut(now, id_, static_cast<uint8_t>(q), in_vc);
        }
    }
    model_->rise();
    ++clocks_;
    in_mask_ = 0;
    last_ = now;
    if (tracing_ && !buffered_) {
        // The network will not evaluate an empty router next cycle: sample its quiet outputs now,
        // or the waveform would hold this cycle's grants until it wakes up.
        *pins_.in_valid = 0;
        *pins_.cr_in_valid = 0;
        model_->settle();
        dump(now + 1);
    }
}

}  // namespace wsc::rtl
