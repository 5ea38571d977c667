#pragma once
// One core's firmware: the SRAM buffers it declares, the barrier groups it takes part in, and
// its instruction streams. Buffers are referred to by index in instructions and by name in text.
//
// Streams are independent in-order instruction queues of one core (like an accelerator's
// compute and copy queues): the controller issues from each, so a receive that waits for data
// in one stream does not hold back compute in another. They share the core's units, SRAM and
// buffer scoreboard; order across streams only through events (`signal` / `wait`). They are
// stored back to back in one code vector, so an instruction's index (pc) is unique in the core.
// A program that never calls beginStream() has one stream: everything that existed before.
#include <cstddef>
#include <cstdint>
#include <iterator>
#include <string>
#include <unordered_map>
#include <vector>

#include "firmware/Instruction.h"
#include "noc/Prefetch.h"

namespace wsc::firmware {

struct BufferDecl {
    std::string name;
    uint32_t elems = 0;
    DType dtype = DType::FP32;
    // A view names elements [view_offset, view_offset + elems) of buffer view_of (declared
    // before it, never itself a view) and takes no SRAM of its own: a composed program hands one
    // operation's output slice to the next (a fused projection's q, k and v) without a copy.
    uint16_t view_of = kNoBuf;
    uint32_t view_offset = 0;
    bool isView() const { return view_of != kNoBuf; }
    uint64_t bytes() const { return uint64_t(elems) * dtypeBytes(dtype); }
    // SRAM the declaration takes: a view's elements are its parent's.
    uint64_t allocBytes() const { return isView() ? 0 : bytes(); }
};

struct GroupDecl {
    uint16_t id = 0;
    std::vector<uint32_t> members;  // core ids; the first is the barrier's master
};

class Program {
  public:
    // Returns the new buffer's index; a duplicate name throws std::invalid_argument.
    uint16_t addBuffer(const std::string& name, uint32_t elems, DType dtype = DType::FP32);
    // A view of `elems` elements of buffer `parent` from element `offset` (BufferDecl::view_of);
    // a view of a view names the same elements of the first parent. Throws
    // std::invalid_argument for a duplicate name or a range outside the parent.
    uint16_t addView(const std::string& name, uint16_t parent, uint32_t offset, uint32_t elems);
    // The buffer whose storage b uses: b itself, or the parent of a view.
    uint16_t storageOf(uint16_t b) const {
        return b < buffers_.size() && buffers_[b].isView() ? buffers_[b].view_of : b;
    }
    void addGroup(uint16_t id, std::vector<uint32_t> members);
    // Buffer `b` holds at least `elems` elements from now on (never shrinks): a generator that
    // reuses a buffer by name for a larger operation later sizes it for its largest use. The
    // instructions already emitted touch no more than before.
    void growBuffer(uint16_t b, uint32_t elems);
    // Appends to the current stream (the last one unless setStream chose another).
    void add(const Instruction& i);
    // Later add()s go to a new stream, which becomes current; returns its index (the first is 0).
    uint32_t beginStream();
    // Later add()s go to the end of stream `s`, creating streams up to it if needed: a schedule
    // can interleave compute and communication as it walks the model, and a generator that only
    // calls add() (a collective) writes into whichever stream its caller chose.
    void setStream(uint32_t s);
    uint32_t currentStream() const { return cur_stream_; }
    uint32_t streams() const { return static_cast<uint32_t>(stream_begin_.size() + 1); }
    // Instructions in stream s (cheap: does not merge pending appends).
    uint32_t streamSize(uint32_t s) const;
    // Instructions [streamBegin(s), streamEnd(s)) form stream s.
    uint32_t streamBegin(uint32_t s) const {
        flush();
        return s == 0 ? 0 : stream_begin_.at(s - 1);
    }
    uint32_t streamEnd(uint32_t s) const {
        flush();
        return s + 1 < streams() ? stream_begin_[s] : static_cast<uint32_t>(code_.size());
    }
    uint32_t streamOf(uint32_t pc) const;

    // Index of the buffer called `name`, or kNoBuf.
    uint16_t findBuffer(const std::string& name) const;
    const BufferDecl& buffer(uint16_t i) const { return buffers_.at(i); }
    const std::vector<BufferDecl>& buffers() const { return buffers_; }
    const GroupDecl* group(uint16_t id) const;
    const std::vector<GroupDecl>& groups() const { return groups_; }
    // The instructions, read-only: code()[pc] and iteration give Instructions by value (they are
    // stored compactly, see Slot below); set() replaces one.
    class CodeView;
    CodeView code() const;
    Instruction at(uint32_t pc) const {
        flush();
        return expand(code_[pc]);
    }
    void set(uint32_t pc, const Instruction& i);
    bool empty() const {
        flush();
        return code_.empty();
    }
    // Program memory: instructions times the instruction record's size (sizeof(Instruction),
    // the model's encoding; loop, endloop and swap count like any other instruction).
    uint64_t codeBytes() const {
        flush();
        return uint64_t(code_.size()) * sizeof(Instruction);
    }
    // Host memory the instructions take here (Slot per pc and the pool of distinct ones).
    uint64_t storedBytes() const;
    // Cache hints for a core's evaluation loop (CoreArray), each after the one before has
    // landed: the record that points at the instructions, the slot of the instruction at pc,
    // then its shape in the pool (the fields an issue decodes first).
    WSC_PREFETCH void prefetchIndex() const {
        noc::prefetchLine(&code_);
        noc::prefetchLine(&pool_);
    }
    WSC_PREFETCH void prefetchSlot(uint32_t pc) const {
        if (pc < code_.size()) noc::prefetchLine(code_.data() + pc);
    }
    WSC_PREFETCH void prefetchShape(uint32_t pc) const {
        if (pc < code_.size()) noc::prefetchLine(pool_.data() + code_[pc].shape);
    }

    // Checks buffer indices, shapes against buffer sizes, loop nesting and group references;
    // throws std::invalid_argument naming `who` (e.g. "core 3") and the instruction index.
    void validate(const std::string& who) const;
    // For every Loop the index of its EndLoop and vice versa (valid after validate()).
    std::vector<uint32_t> matchLoops() const;

  private:
    std::vector<BufferDecl> buffers_;
    std::vector<GroupDecl> groups_;
    // Appends to a stream that is not the last wait in pending_ and are merged into code_ in one
    // pass by the next read (a generator that interleaves streams stays linear, not quadratic).
    void flush() const;
    // Storage: a generated step repeats few distinct instructions (a staged collective's sends,
    // receives and adds are the same every segment, micro-batch and layer) and differs mostly in
    // DMA addresses, so an instruction is kept as its address and the index of its other fields
    // in a pool of distinct ones: 16 bytes a pc instead of sizeof(Instruction) (72).
    struct Slot {
        uint64_t addr;
        uint32_t shape;  // index in pool_
        uint32_t unused;
    };
    struct ShapeHash {
        size_t operator()(const Instruction& i) const;
    };
    struct ShapeEq {  // operator== and the same bits of imm (-0.0 stays -0.0)
        bool operator()(const Instruction& a, const Instruction& b) const;
    };
    Slot intern(const Instruction& i);
    Instruction expand(const Slot& s) const {
        Instruction i = pool_[s.shape];
        i.addr = s.addr;
        return i;
    }
    std::vector<Instruction> pool_;  // distinct, addr = 0
    // Open-addressed index of pool_ (entry = pool index + 1, 0 empty; at most half full): a
    // composed program of mostly distinct instructions keeps 8 bytes a shape here instead of a
    // hash node each (the node allocations dominated building a 256 x 256 decode layer).
    std::vector<uint32_t> table_;
    mutable std::vector<Slot> code_;
    mutable std::vector<uint32_t> stream_begin_;  // first pc of streams 1, 2, ...
    // Per stream, not yet merged: chunks of at most kChunk slots, so a long stream neither
    // doubles its storage when it grows nor stays resident beside its merged copy in flush().
    static constexpr size_t kChunk = size_t{1} << 20;
    mutable std::vector<std::vector<std::vector<Slot>>> pending_;
    mutable bool dirty_ = false;
    uint32_t cur_stream_ = 0;
};

// A read-only view of a program's instructions (valid while the program is not changed).
class Program::CodeView {
  public:
    class iterator {
      public:
        using iterator_category = std::input_iterator_tag;
        using value_type = Instruction;
        using difference_type = std::ptrdiff_t;
        using pointer = void;
        using reference = Instruction;
        iterator(const Program* p, size_t pc) : p_(p), pc_(pc) {}
        Instruction operator*() const { return p_->expand(p_->code_[pc_]); }
        iterator& operator++() {
            ++pc_;
            return *this;
        }
        bool operator==(const iterator& o) const { return pc_ == o.pc_; }
        bool operator!=(const iterator& o) const { return pc_ != o.pc_; }

      private:
        const Program* p_;
        size_t pc_;
    };
    explicit CodeView(const Program& p) : p_(&p) {}
    size_t size() const { return p_->code_.size(); }
    bool empty() const { return p_->code_.empty(); }
    Instruction operator[](size_t pc) const { return p_->expand(p_->code_[pc]); }
    iterator begin() const { return {p_, 0}; }
    iterator end() const { return {p_, size()}; }
    bool operator==(const CodeView& o) const;
    bool operator!=(const CodeView& o) const { return !(*this == o); }

  private:
    const Program* p_;
};

inline Program::CodeView Program::code() const {
    flush();
    return CodeView(*this);
}

}  // namespace wsc::firmware
