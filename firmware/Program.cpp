#include "firmware/Program.h"

#include <fmt/format.h>

#include <algorithm>
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

void Program::growBuffer(uint16_t b, uint32_t elems) {
    BufferDecl& d = buffers_.at(b);
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
    if (cur_stream_ + 1 >= streams() && !dirty_) {
        code_.push_back(i);
        return;
    }
    // Another stream than the last: kept aside until the next read merges everything.
    if (pending_.size() < streams()) pending_.resize(streams());
    pending_[cur_stream_].push_back(i);
    dirty_ = true;
}

uint32_t Program::streamSize(uint32_t s) const {
    const uint32_t begin = s == 0 ? 0 : stream_begin_.at(s - 1);
    const uint32_t end = s + 1 < streams() ? stream_begin_[s] : static_cast<uint32_t>(code_.size());
    return end - begin + (s < pending_.size() ? static_cast<uint32_t>(pending_[s].size()) : 0);
}

void Program::flush() const {
    if (!dirty_) return;
    std::vector<Instruction> merged;
    size_t total = code_.size();
    for (const auto& p : pending_) total += p.size();
    merged.reserve(total);
    std::vector<uint32_t> begins;
    for (uint32_t s = 0; s < streams(); ++s) {
        if (s > 0) begins.push_back(static_cast<uint32_t>(merged.size()));
        const uint32_t b = s == 0 ? 0 : stream_begin_[s - 1];
        const uint32_t e = s + 1 < streams() ? stream_begin_[s] : uint32_t(code_.size());
        merged.insert(merged.end(), code_.begin() + b, code_.begin() + e);
        if (s < pending_.size())
            merged.insert(merged.end(), pending_[s].begin(), pending_[s].end());
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
        if (code_[i].op == Opcode::Loop) {
            stack.push_back(i);
        } else if (code_[i].op == Opcode::EndLoop) {
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
        throw ValidationError(
            ValidationError::kNoCoreId, pc,
            fmt::format("{}: instruction {} ({}): {}", who, pc, opcodeName(code_[pc].op), what));
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
    int depth = 0;
    for (size_t pc = 0; pc < code_.size(); ++pc) {
        const Instruction& i = code_[pc];
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
