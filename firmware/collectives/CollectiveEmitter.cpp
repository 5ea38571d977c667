#include "firmware/collectives/CollectiveEmitter.h"

#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace wsc::firmware::coll {

CollectiveEmitter::CollectiveEmitter(Firmware* fw, std::vector<uint32_t> nodes, DType dtype,
                                     std::string what)
    : fw_(fw),
      nodes_(std::move(nodes)),
      dtype_(dtype),
      what_(std::move(what)),
      bytes_(nodes_.size(), 0),
      used_(nodes_.size()),
      code_(nodes_.size()) {}

uint16_t CollectiveEmitter::buffer(uint32_t rank, const std::string& name, uint64_t elems) {
    if (elems > std::numeric_limits<uint32_t>::max())
        throw std::invalid_argument(
            fmt::format("{}: buffer '{}' would hold {} elements, more than a buffer can (2^32 - "
                        "1); use more pieces or memory staging",
                        what_, name, elems));
    auto& used = used_[rank];
    auto it = used.find(name);
    if (it == used.end()) {
        used.emplace(name, elems);
    } else if (elems > it->second) {
        throw std::logic_error(fmt::format("{}: buffer '{}' asked for {} elements after {}", what_,
                                           name, elems, it->second));
    }
    if (dry()) {
        if (it == used.end()) bytes_[rank] += bytesOf(elems);
        return kNoBuf;
    }
    Program& p = program(rank);
    uint16_t b = p.findBuffer(name);
    if (b == kNoBuf) {
        b = p.addBuffer(name, static_cast<uint32_t>(elems), dtype_);
    } else {
        const BufferDecl& d = p.buffer(b);
        if (d.dtype != dtype_)
            throw std::invalid_argument(fmt::format(
                "{}: node {} already has a buffer '{}' of {} elements, this collective needs {}: "
                "give it another prefix (buffers are reused by name)",
                what_, nodes_[rank], name, dtypeName(d.dtype), dtypeName(dtype_)));
        // A larger collective on the same prefix grows the shared buffer (SRAM is declared per
        // program, so the prefix costs the SRAM of its largest use once).
        if (d.elems < elems) p.growBuffer(b, static_cast<uint32_t>(elems));
    }
    if (it == used.end()) bytes_[rank] += p.buffer(b).bytes();
    return b;
}

void CollectiveEmitter::send(uint32_t rank, uint16_t buf, uint32_t to_rank, uint64_t elems) {
    Instruction i;
    i.op = Opcode::Send, i.a = buf, i.peer = nodes_[to_rank], i.bytes = bytesOf(elems);
    if (!dry()) code_[rank].push_back(i);
}

void CollectiveEmitter::recv(uint32_t rank, uint16_t buf, uint32_t from_rank, uint64_t elems) {
    Instruction i;
    i.op = Opcode::Recv, i.c = buf, i.peer = nodes_[from_rank], i.bytes = bytesOf(elems);
    if (!dry()) code_[rank].push_back(i);
}

void CollectiveEmitter::add(uint32_t rank, uint16_t acc, uint16_t rx, uint64_t elems) {
    Instruction i;
    i.op = Opcode::VAdd, i.a = acc, i.b = rx, i.c = acc, i.n = static_cast<uint32_t>(elems);
    if (!dry()) code_[rank].push_back(i);
}

uint64_t CollectiveEmitter::unionBytes(const Firmware& fw, const std::string& prefix) const {
    uint64_t most = 0;
    const std::string head = prefix + ".";
    for (uint32_t r = 0; r < nodes_.size(); ++r) {
        const Program& p = fw.program(nodes_[r]);
        uint64_t total = 0;
        std::unordered_map<std::string, uint64_t> left = used_[r];  // not declared yet
        for (const auto& b : p.buffers()) {
            if (b.name.compare(0, head.size(), head) != 0) continue;
            auto it = left.find(b.name);
            uint64_t bytes = b.bytes();
            if (it != left.end()) {
                bytes = std::max(bytes, bytesOf(it->second));
                left.erase(it);
            }
            total += bytes;
        }
        for (const auto& [name, elems] : left) total += bytesOf(elems);
        most = std::max(most, total);
    }
    return most;
}

uint64_t CollectiveEmitter::maxBytes() const {
    return bytes_.empty() ? 0 : *std::max_element(bytes_.begin(), bytes_.end());
}

void CollectiveEmitter::commit() {
    if (dry()) return;
    for (uint32_t r = 0; r < ranks(); ++r) {
        Program& p = program(r);
        for (const Instruction& i : code_[r]) p.add(i);
        code_[r].clear();
    }
}

}  // namespace wsc::firmware::coll
