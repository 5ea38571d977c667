#include "firmware/Program.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <stdexcept>

#include "firmware/ValidationError.h"

namespace wsc::firmware {

uint16_t Program::addBuffer(const std::string& name, uint32_t elems, DType dtype) {
    if (findBuffer(name) != kNoBuf)
        throw std::invalid_argument(fmt::format("buffer '{}' declared twice", name));
    if (buffers_.size() >= kNoBuf) throw std::invalid_argument("too many buffers in one program");
    buffers_.push_back({name, elems, dtype});
    return static_cast<uint16_t>(buffers_.size() - 1);
}

uint16_t Program::addView(const std::string& name, uint16_t parent, uint32_t offset,
                          uint32_t elems) {
    if (parent >= buffers_.size())
        throw std::invalid_argument(fmt::format("view '{}' of an undeclared buffer", name));
    const BufferDecl p = buffers_[parent];
    const uint16_t root = p.isView() ? p.view_of : parent;
    const uint64_t base = uint64_t(p.isView() ? p.view_offset : 0) + offset;
    if (elems == 0 || uint64_t(offset) + elems > p.elems)
        throw std::invalid_argument(
            fmt::format("view '{}': elements [{}, {}) are not inside buffer '{}' of {} elements",
                        name, offset, uint64_t(offset) + elems, p.name, p.elems));
    const uint16_t b = addBuffer(name, elems, p.dtype);
    buffers_[b].view_of = root, buffers_[b].view_offset = static_cast<uint32_t>(base);
    return b;
}

void Program::growBuffer(uint16_t b, uint32_t elems) {
    BufferDecl& d = buffers_.at(b);
    if (d.isView() && elems > d.elems)
        throw std::invalid_argument(fmt::format("view '{}' cannot grow", d.name));
    d.elems = std::max(d.elems, elems);
}

void Program::addGroup(uint16_t id, std::vector<uint32_t> members) {
    if (group(id)) throw std::invalid_argument(fmt::format("group {} declared twice", id));
    if (members.empty()) throw std::invalid_argument(fmt::format("group {} has no members", id));
    groups_.push_back({id, std::move(members)});
}

uint32_t Program::beginStream() {
    if (stream_begin_.size() >= 255) throw std::invalid_argument("too many streams in one program");
    flush();
    stream_begin_.push_back(static_cast<uint32_t>(code_.size()));
    cur_stream_ = streams() - 1;
    return cur_stream_;
}

void Program::setStream(uint32_t s) {
    if (s > 255) throw std::invalid_argument("too many streams in one program");
    if (streams() <= s) flush();
    while (streams() <= s) stream_begin_.push_back(static_cast<uint32_t>(code_.size()));
    cur_stream_ = s;
}

void Program::add(const Instruction& i) {
    const Slot slot = intern(i);
    if (cur_stream_ + 1 >= streams() && !dirty_) {
        code_.push_back(slot);
        return;
    }
    // Another stream than the last: kept aside until the next read merges everything.
    if (pending_.size() < streams()) pending_.resize(streams());
    auto& chunks = pending_[cur_stream_];
    if (chunks.empty() || chunks.back().size() == kChunk) chunks.emplace_back();
    chunks.back().push_back(slot);
    dirty_ = true;
}

size_t Program::ShapeHash::operator()(const Instruction& i) const {
    // Every field but addr (interned instructions have addr = 0).
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(uint64_t(i.op) | uint64_t(i.dtype) << 8 | uint64_t(i.flags) << 16 |
        uint64_t(i.raise) << 24);
    mix(uint64_t(i.a) | uint64_t(i.b) << 16 | uint64_t(i.c) << 32 | uint64_t(i.rbuf) << 48);
    mix(uint64_t(i.event) | uint64_t(i.group) << 16);
    mix(uint64_t(i.m) | uint64_t(i.k) << 32);
    mix(uint64_t(i.n) | uint64_t(i.peer) << 32);
    mix(uint64_t(i.route) | uint64_t(i.peer2) << 32);
    mix(uint64_t(i.route2));
    mix(i.bytes);
    uint32_t imm = 0;
    static_assert(sizeof(imm) == sizeof(i.imm));
    std::memcpy(&imm, &i.imm, sizeof(imm));
    mix(imm);
    // Fold the high bits down: the table masks the low ones, which the multiplies above leave
    // depending on the low bits of each word only (buffer a, m, n, route: collisions).
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    return static_cast<size_t>(h);
}

bool Program::ShapeEq::operator()(const Instruction& a, const Instruction& b) const {
    return a == b && std::memcmp(&a.imm, &b.imm, sizeof(a.imm)) == 0;
}

Program::Slot Program::intern(const Instruction& i) {
    Instruction shape = i;
    shape.addr = 0;
    if ((pool_.size() + 1) * 2 > table_.size()) {
        if (pool_.size() >= std::numeric_limits<uint32_t>::max() / 4)
            throw std::length_error("too many distinct instructions in one program");
        table_.assign(std::max<size_t>(16, table_.size() * 2), 0);
        const size_t mask = table_.size() - 1;
        for (size_t k = 0; k < pool_.size(); ++k) {
            size_t h = ShapeHash{}(pool_[k]) & mask;
            while (table_[h]) h = (h + 1) & mask;
            table_[h] = static_cast<uint32_t>(k + 1);
        }
    }
    const size_t mask = table_.size() - 1;
    for (size_t h = ShapeHash{}(shape)&mask;; h = (h + 1) & mask) {
        const uint32_t e = table_[h];
        if (e == 0) {
            pool_.push_back(shape);
            table_[h] = static_cast<uint32_t>(pool_.size());
            return Slot{i.addr, static_cast<uint32_t>(pool_.size() - 1), 0};
        }
        if (ShapeEq{}(pool_[e - 1], shape)) return Slot{i.addr, e - 1, 0};
    }
}

void Program::set(uint32_t pc, const Instruction& i) {
    flush();
    code_.at(pc) = intern(i);
}

uint64_t Program::storedBytes() const {
    flush();
    return uint64_t(code_.capacity()) * sizeof(Slot) +
           uint64_t(pool_.capacity()) * sizeof(Instruction) +
           uint64_t(table_.capacity()) * sizeof(uint32_t);
}

bool Program::CodeView::operator==(const CodeView& o) const {
    if (size() != o.size()) return false;
    for (size_t pc = 0; pc < size(); ++pc)
        if ((*this)[pc] != o[pc]) return false;
    return true;
}

uint32_t Program::streamSize(uint32_t s) const {
    const uint32_t begin = s == 0 ? 0 : stream_begin_.at(s - 1);
    const uint32_t end = s + 1 < streams() ? stream_begin_[s] : static_cast<uint32_t>(code_.size());
    size_t queued = 0;
    if (s < pending_.size())
        for (const auto& c : pending_[s]) queued += c.size();
    return end - begin + static_cast<uint32_t>(queued);
}

void Program::flush() const {
    if (!dirty_) return;
    std::vector<Slot> merged;
    size_t total = code_.size();
    for (const auto& p : pending_)
        for (const auto& c : p) total += c.size();
    merged.reserve(total);
    std::vector<uint32_t> begins;
    for (uint32_t s = 0; s < streams(); ++s) {
        if (s > 0) begins.push_back(static_cast<uint32_t>(merged.size()));
        const uint32_t b = s == 0 ? 0 : stream_begin_[s - 1];
        const uint32_t e = s + 1 < streams() ? stream_begin_[s] : uint32_t(code_.size());
        merged.insert(merged.end(), code_.begin() + b, code_.begin() + e);
        if (s < pending_.size())
            for (auto& c : pending_[s]) {
                merged.insert(merged.end(), c.begin(), c.end());
                std::vector<Slot>().swap(c);  // freed as it goes: not everything twice at once
            }
    }
    code_.swap(merged);
    stream_begin_.swap(begins);
    pending_.clear();
    dirty_ = false;
}

uint32_t Program::streamOf(uint32_t pc) const {
    flush();
    uint32_t s = 0;
    while (s < stream_begin_.size() && pc >= stream_begin_[s]) ++s;
    return s;
}

uint16_t Program::findBuffer(const std::string& name) const {
    for (size_t i = 0; i < buffers_.size(); ++i)
        if (buffers_[i].name == name) return static_cast<uint16_t>(i);
    return kNoBuf;
}

const GroupDecl* Program::group(uint16_t id) const {
    for (const auto& g : groups_)
        if (g.id == id) return &g;
    return nullptr;
}

std::vector<uint32_t> Program::matchLoops() const {
    flush();
    std::vector<uint32_t> match(code_.size(), 0), stack;
    for (uint32_t i = 0; i < code_.size(); ++i) {
        const Opcode op = pool_[code_[i].shape].op;
        if (op == Opcode::Loop) {
            stack.push_back(i);
        } else if (op == Opcode::EndLoop) {
            if (stack.empty()) continue;  // validate() reports it
            match[i] = stack.back();
            match[stack.back()] = i;
            stack.pop_back();
        }
    }
    return match;
}

void Program::validate(const std::string& who) const {
    flush();
    auto fail = [&](size_t pc, const std::string& what) {
        throw ValidationError(ValidationError::kNoCoreId, pc,
                              fmt::format("{}: instruction {} ({}): {}", who, pc,
                                          opcodeName(pool_[code_[pc].shape].op), what));
    };
    auto needBuf = [&](size_t pc, uint16_t b, const char* role, uint64_t elems) {
        if (b == kNoBuf || b >= buffers_.size()) fail(pc, fmt::format("needs a buffer {}", role));
        if (elems > buffers_[b].elems)
            fail(pc, fmt::format("buffer '{}' ({}) holds {} elements, the operation touches {}",
                                 buffers_[b].name, role, buffers_[b].elems, elems));
    };
    auto needBytes = [&](size_t pc, uint16_t b, const char* role, uint64_t bytes) {
        if (b == kNoBuf || b >= buffers_.size()) fail(pc, fmt::format("needs a buffer {}", role));
        if (bytes == 0) fail(pc, "bytes must be > 0");
        if (bytes > buffers_[b].bytes())
            fail(pc, fmt::format("buffer '{}' ({}) has {} bytes, the operation moves {}",
                                 buffers_[b].name, role, buffers_[b].bytes(), bytes));
    };
    // An output that shares storage with an input must be the same elements (in place) or
    // none of them: views make partial overlaps expressible, and no unit defines them.
    auto span = [&](uint16_t b) {
        const BufferDecl& d = buffers_[b];
        const uint64_t lo = d.isView() ? d.view_offset : 0;
        return std::make_pair(lo, lo + d.elems);
    };
    auto noPartialOverlap = [&](size_t pc, uint16_t out, uint16_t in) {
        if (out == kNoBuf || in == kNoBuf || out >= buffers_.size() || in >= buffers_.size() ||
            storageOf(out) != storageOf(in))
            return;
        const auto o = span(out), x = span(in);
        if (o != x && o.first < x.second && x.first < o.second)
            fail(pc,
                 fmt::format("output '{}' partly overlaps input '{}' (views of '{}')",
                             buffers_[out].name, buffers_[in].name, buffers_[storageOf(out)].name));
    };
    int depth = 0;
    for (size_t pc = 0; pc < code_.size(); ++pc) {
        const Instruction i = expand(code_[pc]);
        if (i.op == Opcode::Gemm || i.op == Opcode::Gemv || isVectorOp(i.op)) {
            noPartialOverlap(pc, i.c, i.a);
            noPartialOverlap(pc, i.c, i.b);
        }
        if (pc > 0 && depth != 0 && streamOf(uint32_t(pc)) != streamOf(uint32_t(pc - 1)))
            fail(pc - 1, fmt::format("stream {} ends inside a loop (a loop must end in the stream "
                                     "it starts in)",
                                     streamOf(uint32_t(pc - 1))));
        // Only GEMM takes transb and only GEMM/GEMV take acc: other bits would be silently
        // ignored by the core and lost by the text form.
        const uint8_t allowed = i.op == Opcode::Gemm
                                    ? Instruction::kAccumulate | Instruction::kTransB
                                : i.op == Opcode::Gemv ? Instruction::kAccumulate
                                                       : 0;
        if (i.flags & ~allowed)
            fail(pc, fmt::format("flags 0x{:x} are not valid for this opcode (allowed: 0x{:x})",
                                 i.flags, allowed));
        switch (i.op) {
            case Opcode::Gemm:
            case Opcode::Gemv: {
                uint32_t m = i.op == Opcode::Gemv ? 1 : i.m;
                if (m == 0 || i.k == 0 || i.n == 0) fail(pc, "m, k and n must be > 0");
                needBuf(pc, i.a, "a", uint64_t(m) * i.k);
                needBuf(pc, i.b, "b", uint64_t(i.k) * i.n);
                needBuf(pc, i.c, "c", uint64_t(m) * i.n);
                break;
            }
            case Opcode::Send:
                needBytes(pc, i.a, "buf", i.bytes);
                if ((i.peer == kNoCore) == (i.route == kNoRouteId))
                    fail(pc, "needs exactly one of to= (core) or route=");
                break;
            case Opcode::Recv:
                needBytes(pc, i.c, "buf", i.bytes);
                if ((i.peer == kNoCore) == (i.route == kNoRouteId))
                    fail(pc, "needs exactly one of from= (core) or route=");
                break;
            case Opcode::Relay:
                if (i.bytes == 0) fail(pc, "bytes must be > 0");
                if ((i.peer == kNoCore) == (i.route == kNoRouteId))
                    fail(pc, "needs exactly one of from= or from_route=");
                if ((i.peer2 == kNoCore) == (i.route2 == kNoRouteId))
                    fail(pc, "needs exactly one of to= or to_route=");
                break;
            case Opcode::DmaLoad:
                needBytes(pc, i.c, "buf", i.bytes);
                break;
            case Opcode::DmaStore:
                needBytes(pc, i.a, "buf", i.bytes);
                break;
            case Opcode::DmaPut:
                needBytes(pc, i.a, "buf", i.bytes);
                if (i.peer == kNoCore || i.rbuf == kNoBuf) fail(pc, "needs core= and dst=");
                break;
            case Opcode::DmaGet:
                needBytes(pc, i.c, "buf", i.bytes);
                if (i.peer == kNoCore || i.rbuf == kNoBuf) fail(pc, "needs core= and src=");
                break;
            case Opcode::Wait:
                if (i.n == 0) fail(pc, "count must be > 0");
                break;
            case Opcode::Signal:
                break;
            case Opcode::Barrier:
                if (!group(i.group)) fail(pc, fmt::format("group {} is not declared", i.group));
                break;
            case Opcode::Loop:
                ++depth;
                break;
            case Opcode::EndLoop:
                if (--depth < 0) fail(pc, "endloop without loop");
                break;
            case Opcode::WaitAll:
                break;
            case Opcode::Swap: {
                // A renaming, not a copy: both names must describe the same storage so that
                // every later instruction's shape check above holds whichever one it gets.
                needBuf(pc, i.a, "a", 0);
                needBuf(pc, i.b, "b", 0);
                if (i.a == i.b) fail(pc, "swaps a buffer with itself");
                const BufferDecl &x = buffers_[i.a], &y = buffers_[i.b];
                // A rename moves a name to other storage; a view is fixed to its parent's.
                for (const BufferDecl& v : buffers_)
                    if (v.isView() && (v.view_of == i.a || v.view_of == i.b))
                        fail(pc, fmt::format("buffer '{}' has view '{}' and cannot be swapped",
                                             buffers_[v.view_of].name, v.name));
                if (x.isView() || y.isView())
                    fail(pc, fmt::format("'{}' is a view and cannot be swapped",
                                         x.isView() ? x.name : y.name));
                if (x.elems != y.elems || x.dtype != y.dtype)
                    fail(pc, fmt::format("buffers '{}' ({} x {}) and '{}' ({} x {}) differ", x.name,
                                         x.elems, dtypeName(x.dtype), y.name, y.elems,
                                         dtypeName(y.dtype)));
                break;
            }
            default:
                if (isVectorOp(i.op)) {
                    if (i.n == 0) fail(pc, "n must be > 0");
                    needBuf(pc, i.a, "a", i.n);
                    bool binary = i.op == Opcode::VAdd || i.op == Opcode::VSub ||
                                  i.op == Opcode::VMul || i.op == Opcode::VMax;
                    if (binary) needBuf(pc, i.b, "b", i.n);
                    if (i.op == Opcode::VBSub || i.op == Opcode::VBMul) needBuf(pc, i.b, "b", 1);
                    needBuf(pc, i.c, "c", isReduction(i.op) ? 1 : i.n);
                    break;
                }
                fail(pc, "unknown opcode");
        }
    }
    if (depth != 0)
        throw ValidationError(ValidationError::kNoCoreId, ValidationError::kNoPc,
                              fmt::format("{}: {} loop(s) without endloop", who, depth));
}

}  // namespace wsc::firmware
