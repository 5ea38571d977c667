#include "core/NocMemoryPort.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "core/MessageTag.h"

namespace wsc::core {

NocMemoryPort::NocMemoryPort(noc::Network& net, CoreArray& cores, uint32_t node, MemoryPort& target,
                             uint32_t header_bytes, uint32_t window, uint16_t via)
    : net_(net),
      cores_(cores),
      node_(node),
      target_(target),
      header_(header_bytes),
      window_(window),
      via_(via) {
    if (node >= net.nodes())
        throw std::invalid_argument(
            fmt::format("memory port: attach node {} does not exist (the NoC has {} nodes)", node,
                        net.nodes()));
    if (!net.nodeAlive(node))
        throw std::invalid_argument(
            fmt::format("memory port: attach node {} sits on a failed router", node));
    if (header_bytes == 0) throw std::invalid_argument("memory port: header_bytes must be > 0");
    if (window == 0) throw std::invalid_argument("memory port: window must be > 0");
    agent_ = cores.attachAgent(*this);
    cores.attachMemoryPort(*this);
}

noc::Payload NocMemoryPort::toPayload(const std::vector<uint8_t>& bytes) {
    auto v = std::make_shared<std::vector<float>>((bytes.size() + 3) / 4, 0.0f);
    std::memcpy(v->data(), bytes.data(), bytes.size());
    return v;
}

void NocMemoryPort::fromPayload(const noc::Payload& p, uint32_t bytes, std::vector<uint8_t>& out) {
    if (!p) return;  // timing-only
    if (p->size() * 4 < bytes)
        throw std::logic_error("memory port: payload shorter than the request");
    out.resize(bytes);
    std::memcpy(out.data(), p->data(), bytes);
}

uint32_t NocMemoryPort::hops(uint32_t a, uint32_t b) const {
    const auto& t = net_.topology();
    const uint32_t ra = t.routerOfNode(a), rb = t.routerOfNode(b);
    return static_cast<uint32_t>(std::abs(int(t.x(ra)) - int(t.x(rb))) +
                                 std::abs(int(t.y(ra)) - int(t.y(rb))));
}

void NocMemoryPort::push(MemoryRequest&& r) {
    uint32_t id;
    if (!free_.empty()) {
        id = free_.back();
        free_.pop_back();
    } else {
        id = static_cast<uint32_t>(entries_.size());
        entries_.emplace_back();
    }
    const uint64_t now = cores_.now();
    Entry& e = entries_[id];
    e.used = true;
    e.op = r.op;
    e.pushed = now;
    ++st_.requests;
    st_.first_push = std::min(st_.first_push, now);
    st_.hop_sum += hops(r.core, node_);
    noc::Message m;
    m.src = r.core;
    m.dst = node_;
    m.bytes = header_ + (r.write ? r.bytes : 0);
    m.tag = MessageTag::memory(MessageTag::MemReq, agent_, id);
    if (r.write) {
        ++st_.writes;
        st_.bytes_written += r.bytes;
        if (!r.data.empty()) {
            m.payload = toPayload(r.data);  // the data travels with the request
            r.data.clear();
        }
    } else {
        ++st_.reads;
        st_.bytes_read += r.bytes;
    }
    st_.request_msg_bytes += m.bytes;
    e.req = std::move(r);
    net_.send(std::move(m), now);
}

void NocMemoryPort::onMessage(const noc::Message& m, uint32_t node, uint64_t cycle) {
    const uint32_t id = MessageTag::request(m.tag);
    if (id >= entries_.size() || !entries_[id].used)
        throw std::logic_error(
            fmt::format("memory port at node {}: message for unknown request {}", node_, id));
    Entry& e = entries_[id];
    if (MessageTag::kind(m.tag) == MessageTag::MemReq) {
        if (node != node_)
            throw std::logic_error("memory port: request delivered away from the port");
        e.at_port = cycle;
        // A store's data arrives as the payload; a functional load keeps e.req.data as the
        // buffer the target fills.
        if (e.req.write) fromPayload(m.payload, e.req.bytes, e.req.data);
        waiting_.push_back(id);
        st_.max_waiting =
            std::max<uint32_t>(st_.max_waiting, static_cast<uint32_t>(waiting_.size()));
        issue(cycle);
        return;
    }
    // MemResp at the requesting core.
    if (node != e.req.core)
        throw std::logic_error("memory port: response delivered to the wrong core");
    MemoryRequest r = std::move(e.req);
    r.op = e.op;
    r.ready = cycle + 1;  // arrivals are visible the cycle after delivery
    if (!r.write) fromPayload(m.payload, r.bytes, r.data);
    const uint64_t rt = r.ready - e.pushed;
    st_.resp_noc_cycles += cycle - e.answered;
    st_.round_trip_cycles += rt;
    st_.max_round_trip = std::max(st_.max_round_trip, rt);
    st_.last_done = std::max(st_.last_done, r.ready);
    e.used = false;
    free_.push_back(id);
    --in_service_;
    cores_.memoryDone(std::move(r));
    issue(cycle);
}

void NocMemoryPort::issue(uint64_t cycle) {
    while (!waiting_.empty() && in_service_ < window_) {
        const uint32_t id = waiting_.front();
        waiting_.pop_front();
        Entry& e = entries_[id];
        e.issued = cycle;
        st_.port_wait_cycles += cycle - e.at_port;
        ++in_service_;
        MemoryRequest t = std::move(e.req);
        t.op = id;
        t.via = via_;
        target_.push(std::move(t));
    }
}

void NocMemoryPort::targetDone(MemoryRequest&& r) {
    const uint32_t id = r.op;
    if (r.via != via_)
        throw std::logic_error(fmt::format(
            "memory port at node {}: answer of port {} handed to port {}", node_, r.via, via_));
    Entry& e = entries_.at(id);
    e.answered = r.ready;
    st_.req_noc_cycles += e.at_port - e.pushed;
    st_.mem_cycles += r.ready - e.issued;
    e.req = std::move(r);
    answered_.push_back(id);
}

void NocMemoryPort::beforeStep(uint64_t c) {
    while (!answered_.empty() && entries_[answered_.front()].answered <= c) {
        Entry& e = entries_[answered_.front()];
        answered_.pop_front();
        noc::Message m;
        m.src = node_;
        m.dst = e.req.core;
        m.bytes = header_ + (e.req.write ? 0 : e.req.bytes);
        m.tag = MessageTag::memory(MessageTag::MemResp, agent_, e.req.op);
        if (!e.req.write && !e.req.data.empty()) {
            m.payload = toPayload(e.req.data);
            e.req.data.clear();
        }
        st_.response_msg_bytes += m.bytes;
        e.answered = c;  // response leaves now
        net_.send(std::move(m), c);
    }
}

uint64_t NocMemoryPort::nextWake(uint64_t c) const {
    if (answered_.empty()) return noc::kNever;
    return std::max(entries_[answered_.front()].answered, c + 1);
}

}  // namespace wsc::core
