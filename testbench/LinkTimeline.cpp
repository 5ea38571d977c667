#include "testbench/LinkTimeline.h"

#include <stdexcept>

namespace wsc::tb {

LinkTimeline::LinkTimeline(size_t max_windows, uint64_t width) : max_(max_windows), width_(width) {
    if (max_windows < 2 || width == 0)
        throw std::invalid_argument("link timeline: at least 2 windows of at least 1 cycle");
}

void LinkTimeline::attach(const noc::Network& net, core::CoreArray*) {
    net_ = &net;
    ids_.clear(), windows_.clear(), links_.clear();
    for (uint32_t l = 0; l < net.links().size(); ++l) {
        const auto k = net.link(l).kind();
        if (k == noc::Link::Kind::OnDie || k == noc::Link::Kind::D2D) ids_.push_back(l);
    }
    last_.assign(ids_.size(), 0);
    begin_ = 0, next_ = width_;
}

std::vector<uint64_t> LinkTimeline::busyNow() const {
    std::vector<uint64_t> b;
    b.reserve(ids_.size());
    for (uint32_t l : ids_) b.push_back(net_->link(l).busyCycles());
    return b;
}

void LinkTimeline::close(uint64_t at) {
    Window w;
    w.begin = begin_, w.end = at;
    w.busy = busyNow();
    for (size_t i = 0; i < w.busy.size(); ++i) {
        const uint64_t now = w.busy[i];
        w.busy[i] = now - last_[i];
        last_[i] = now;
    }
    windows_.push_back(std::move(w));
    begin_ = at;
    if (windows_.size() > max_) mergePairs();
}

void LinkTimeline::mergePairs() {
    std::vector<Window> merged;
    merged.reserve(windows_.size() / 2 + 1);
    for (size_t i = 0; i < windows_.size(); i += 2) {
        Window w = std::move(windows_[i]);
        if (i + 1 < windows_.size()) {
            w.end = windows_[i + 1].end;
            for (size_t l = 0; l < w.busy.size(); ++l) w.busy[l] += windows_[i + 1].busy[l];
        }
        merged.push_back(std::move(w));
    }
    windows_ = std::move(merged);
    width_ *= 2;
    next_ = (begin_ / width_ + 1) * width_;
}

void LinkTimeline::beforeStep(uint64_t cycle) {
    // Boundaries passed while the shell skipped idle cycles close one window: nothing moved.
    if (cycle < next_) return;
    close(cycle / width_ * width_);
    next_ = (begin_ / width_ + 1) * width_;
}

void LinkTimeline::finish(uint64_t last) {
    if (last + 1 > begin_) close(last + 1);
    for (uint32_t l : ids_) {
        const noc::Link& k = net_->link(l);
        hw::LinkUse u;
        u.src = k.src, u.dst = k.dst, u.src_port = k.src_port, u.kind = k.kind();
        u.name = net_->linkName(l);
        links_.push_back(std::move(u));
    }
}

}  // namespace wsc::tb
