#include "noc/NetworkInterface.h"

#include <fmt/format.h>

#include <stdexcept>

#include "noc/Network.h"

namespace wsc::noc {

NetworkInterface::NetworkInterface(uint32_t node, uint32_t router, uint8_t port, uint32_t vcs,
                                   uint32_t depth, uint8_t vc_lo, uint8_t vc_hi)
    : node_(node),
      router_(router),
      port_(port),
      vcs_(static_cast<uint8_t>(vcs)),
      depth_(static_cast<uint8_t>(depth)),
      vc_lo_(vc_lo),
      vc_hi_(vc_hi) {
    if (vcs == 0 || vcs > kMaxVcs)
        throw std::invalid_argument(
            fmt::format("node {}: {} VCs (an interface has 1..{})", node, vcs, kMaxVcs));
    for (uint32_t v = 0; v < vcs; ++v) credits_[v] = static_cast<uint8_t>(depth);
}

bool NetworkInterface::inject(uint64_t now, Network& net) {
    if (busy_until_ > now) return true;
    if (cur_ == kNone) {
        if (queue_.empty()) return false;
        auto take = queue_.begin();
        auto key = [&net](uint32_t slot) {
            const PacketInfo& p = net.packet(slot);
            return p.route != kNoRoute ? (uint64_t{1} << 32) | p.route : uint64_t{p.dst};
        };
        if (interleave_) {
            // The oldest packet for another destination (it is the oldest of its destination,
            // so every destination still gets its packets in order). Looking 64 deep bounds the
            // cost when one destination floods the queue.
            size_t looked = 0;
            for (auto it = queue_.begin(); it != queue_.end() && looked < 64; ++it, ++looked)
                if (key(*it) != last_key_) {
                    take = it;
                    break;
                }
        }
        cur_ = *take;
        // The front without erase()'s general case, doing what it does: a lone element goes by
        // pop_back, so a queue of one packet at a time stays in its block (walking forward by
        // pop_front, every NI would hold a second 512-byte block whenever it crossed one:
        // 8 MB more at MeshGEMM P = 128).
        if (take != queue_.begin())
            queue_.erase(take);
        else if (queue_.size() == 1)
            queue_.pop_back();
        else
            queue_.pop_front();
        if (interleave_) last_key_ = key(cur_);  // FIFO mode pays nothing for the option
        next_seq_ = 0;
    }
    if (next_seq_ == 0) {
        // A new packet takes the next VC (round robin within its class) that has a credit.
        uint8_t n = vc_hi_ - vc_lo_, pick = 0xFF;
        for (uint8_t k = 0; k < n; ++k) {
            uint8_t v = vc_lo_ + (vc_rr_ + k) % n;
            if (credits_[v]) {
                pick = v;
                break;
            }
        }
        if (pick == 0xFF) return false;  // asleep until a credit arrives (Network::step)
        cur_vc_ = pick;
        vc_rr_ = static_cast<uint8_t>((pick - vc_lo_ + 1) % n);
    } else if (!credits_[cur_vc_]) {
        return false;
    }
    const PacketInfo& pk = net.packet(cur_);
    Flit f;
    f.packet = cur_;
    f.seq = next_seq_;
    f.vc = cur_vc_;
    f.flags = (next_seq_ == 0 ? Flit::kHead : 0) | (next_seq_ + 1 == pk.flits ? Flit::kTail : 0);
    // Only a head is routed, so only a head carries its destination (once per packet).
    if (next_seq_ == 0 && pk.route == kNoRoute && net.dorInFlit()) {
        const Topology& t = net.topology();
        const uint32_t dr = t.routerOfNode(pk.dst);
        f.dst_x = static_cast<uint16_t>(t.x(dr));
        f.dst_y = static_cast<uint16_t>(t.y(dr));
        f.dst_port = t.portOfNode(pk.dst);
    }
    --credits_[cur_vc_];
    busy_until_ = now + net.link(inj_link).serialization();
    ++flits_in_;
    net.flitInjected(now, cur_);
    net.forward(inj_link, f, now);
    if (f.tail()) {
        cur_ = kNone;
        net.packetInjected(node_, queue_.size(), now);
    } else {
        ++next_seq_;
    }
    return active();
}

Admission NetworkInterface::admit(const Flit& f, size_t k, uint64_t now, Network& net) const {
    if (k < rx_.size() && rx_[k].rest) return Admission::TakeRest;
    return net.admitFlit(node_, f, now);
}

void NetworkInterface::acceptFlit(const Flit& f, uint64_t now, Network& net) {
    // A VC is a FIFO: behind a refused flit every later flit of its VC waits too.
    bool behind = false;
    for (const Flit& h : held_) behind |= h.vc == f.vc;
    if (!behind) {
        const size_t k = findRx(f.packet);
        const Admission a = admit(f, k, now, net);
        if (a != Admission::Refuse) return consume(f, k, a == Admission::TakeRest, now, net);
    }
    held_.push_back(f);
    net.flitHeld(node_, +1);
}

uint32_t NetworkInterface::drain(uint64_t now, Network& net) {
    uint32_t blocked = 0, taken = 0;  // VCs whose front flit was refused in this pass
    size_t w = 0;
    for (size_t i = 0; i < held_.size(); ++i) {
        const Flit f = held_[i];
        if (!(blocked & (1u << f.vc))) {
            const size_t k = findRx(f.packet);
            const Admission a = admit(f, k, now, net);
            if (a != Admission::Refuse) {
                consume(f, k, a == Admission::TakeRest, now, net);
                ++taken;
                continue;
            }
        }
        blocked |= 1u << f.vc;
        held_[w++] = f;
    }
    held_.resize(w);
    if (taken) net.flitHeld(node_, -int64_t(taken));
    return taken;
}

void NetworkInterface::consume(const Flit& f, size_t k, bool rest, uint64_t now, Network& net) {
    // In-order check per packet: every flit index exactly once, in order, head first.
    if (f.head()) {
        if (k < rx_.size())
            throw std::logic_error(fmt::format(
                "integrity: node {}: head of packet slot {} arrived while that packet was still "
                "arriving (flit {} expected)",
                node_, f.packet, rx_[k].next));
        rx_.push_back({f.packet, 0, false});
    } else if (k == rx_.size()) {
        throw std::logic_error(fmt::format(
            "integrity: node {} vc {}: flit {} of packet slot {} arrived without its head", node_,
            f.vc, f.seq, f.packet));
    }
    Rx& r = rx_[k];
    if (r.next != f.seq)
        throw std::logic_error(fmt::format(
            "integrity: node {} vc {}: flit {} of packet slot {} arrived out of order (expected "
            "flit {})",
            node_, f.vc, f.seq, r.packet, r.next));
    ++r.next;
    r.rest |= rest;
    ++flits_out_;
    if (f.tail()) {
        rx_[k] = rx_.back();
        rx_.pop_back();
        ++packets_out_;
    }
    net.returnCredit(ej_link, f.vc, now);
    net.flitEjected(now, f, node_);
}

void NetworkInterface::acceptCredit(uint8_t vc) {
    if (credits_[vc] >= depth_)
        throw std::logic_error(fmt::format("node {} vc {}: credit overflow", node_, vc));
    ++credits_[vc];
}

}  // namespace wsc::noc
