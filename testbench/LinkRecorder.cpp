#include "testbench/LinkRecorder.h"

#include "hw/EnergyModel.h"

namespace wsc::tb {

LinkRecorder::LinkRecorder(std::vector<PhaseStart> phases) : starts_(std::move(phases)) {}

void LinkRecorder::attach(const noc::Network& net, core::CoreArray*) {
    net_ = &net;
    ids_.clear();
    snap_.clear();
    snap_cycle_.clear();
    for (uint32_t l = 0; l < net.links().size(); ++l) {
        const auto k = net.link(l).kind();
        if (k == noc::Link::Kind::OnDie || k == noc::Link::Kind::D2D) ids_.push_back(l);
    }
}

std::vector<uint64_t> LinkRecorder::busyNow() const {
    std::vector<uint64_t> b;
    b.reserve(ids_.size());
    for (uint32_t l : ids_) b.push_back(net_->link(l).busyCycles());
    return b;
}

void LinkRecorder::beforeStep(uint64_t cycle) {
    // The shell skips cycles in which nothing can move (idle, or every router waiting): a phase
    // that started in a skipped cycle is snapped at the next step, which is exact because link
    // counts change only when a router grants, and a granting router is stepped.
    while (snap_.size() < starts_.size() && starts_[snap_.size()].begin <= cycle) {
        snap_cycle_.push_back(starts_[snap_.size()].begin);
        snap_.push_back(busyNow());
    }
}

void LinkRecorder::finish(uint64_t last) {
    const uint64_t end = last + 1;
    while (snap_.size() < starts_.size() && starts_[snap_.size()].begin < end) {
        snap_cycle_.push_back(starts_[snap_.size()].begin);
        snap_.push_back(busyNow());
    }
    const std::vector<uint64_t> final = busyNow();
    const auto uses = [&](const std::vector<uint64_t>& from, const std::vector<uint64_t>& to,
                          uint64_t cycles) {
        std::vector<hw::LinkUse> out;
        out.reserve(ids_.size());
        for (size_t i = 0; i < ids_.size(); ++i) {
            const noc::Link& k = net_->link(ids_[i]);
            hw::LinkUse u;
            u.src = k.src, u.dst = k.dst, u.src_port = k.src_port, u.kind = k.kind();
            u.name = net_->linkName(ids_[i]);
            u.utilization = cycles ? double(to[i] - from[i]) / double(cycles) : 0.0;
            out.push_back(std::move(u));
        }
        return out;
    };
    done_.clear();
    for (size_t p = 0; p < snap_.size(); ++p) {
        const uint64_t b = snap_cycle_[p];
        const uint64_t e = p + 1 < snap_.size() ? snap_cycle_[p + 1] : end;
        if (e <= b) continue;
        done_.push_back({starts_[p].name, b, e,
                         uses(snap_[p], p + 1 < snap_.size() ? snap_[p + 1] : final, e - b)});
    }
    whole_ = {"run", 0, end, uses(std::vector<uint64_t>(ids_.size(), 0), final, end)};
    events_ = hw::EnergyEvents{};
    hw::EnergyModel::countNetwork(events_, *net_);
}

}  // namespace wsc::tb
