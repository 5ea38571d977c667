#pragma once
// Emits one die's program for an LLM step: the compute lowering (stream 0) and the hooks the
// step builder needs to order it against the communication streams. A die is one core at die
// level; its tensors live in its HBM (the memory port) and move through SRAM tiles:
//   - matrix products: GemmTiler tiles, each `dma.load` A and B tiles, `gemm`, `dma.store` C,
//     double-buffered so the next tile's loads overlap this tile's product;
//   - attention: fused (FlashAttention-style): per group of heads K and V are loaded once, each
//     block of queries computes its scores, softmax and context in SRAM; the score matrix never
//     goes to memory; the backward recomputes the scores (5 products instead of 2);
//   - element-wise operators: chunks streamed in, a fixed sequence of vector instructions per
//     operator kind (docs/LLM.md, "Lowering"), streamed out;
//   - the optimizer (Adam, fp32 master weights and moments): chunks of the die's parameter shard.
// Streams (docs/ISA.md, "Streams"): 0 compute, 1 tensor/sequence/expert collectives (on the
// critical path), 2 pipeline activations (received from the previous stage, sent to the next),
// 3 FSDP weight gathers, 4 gradient reductions, 5 pipeline gradients (received from the next
// stage, sent to the previous). Each pair compute <-> stream s is ordered by two events used as
// FIFO semaphores (signal / wait). Pipeline transfers are rendezvous per segment: the receiver
// posts a segment's receive and tells the sender (a one-flit `dma.put` raising a clear-to-send
// event there), and the sender sends that segment only then, so a pipeline tensor never waits
// in the network for a receive that is not posted (where it would block the collectives'
// messages at the receiver's ejection port). One stream per direction: a die's receive never waits
// behind its own send the other way (1F1B's send-send cycle between neighbour stages).
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "firmware/Program.h"
#include "firmware/llm/DieSpec.h"
#include "firmware/llm/GemmTiler.h"

namespace wsc::firmware::llm {

enum Stream : uint32_t {
    kCompute = 0,
    kTensorComm = 1,
    kPipeComm = 2,
    kGatherComm = 3,
    kGradComm = 4,
    kPipeBack = 5,
    kStreams = 6
};

// A matrix product on the die: `batch` products [m x k] x [k x n] with operands in memory.
struct MatrixWork {
    uint64_t batch = 1, m = 0, k = 0, n = 0;
    uint64_t a_addr = 0, b_addr = 0, c_addr = 0;
    bool accumulate = false;  // C += A B: the C tile is loaded before its first product
};

// Fused attention of `groups` (sequence, head) pairs: q rows, kv length, head dim.
struct AttentionWork {
    uint64_t groups = 0, q = 0, kv = 0, head_dim = 0;
    double causal_fraction = 1.0;  // share of the score blocks computed
    uint64_t q_addr = 0, k_addr = 0, v_addr = 0, o_addr = 0;
    bool backward = false;
};

// An element-wise operator over `elems` elements: `inputs` tensors in, one out, `ops` the vector
// instructions applied per chunk (each over the chunk, reductions to a scalar).
struct VectorWork {
    uint64_t elems = 0;
    std::vector<uint64_t> in_addr;  // 1 or 2 input tensors (a second input is read into B)
    uint64_t out_addr = 0;
    std::vector<Opcode> ops;
};

class DieEmitter {
  public:
    // `dtype`: weights and activations. Declares the die's staging buffers in `p`. `tatp`: the
    // pipeline streams carry TATP rounds instead (exchange), whose segments go out and come in
    // at once: the pipeline's share is cut into eight segments (send and receive, two of each
    // per direction) instead of four.
    DieEmitter(Program& p, uint32_t node, const DieSpec& die, DType dtype, bool tatp = false);

    uint32_t node() const { return node_; }
    Program& program() { return p_; }
    uint32_t elemBytes() const { return dtypeBytes(dtype_); }
    // SRAM a communication stream may use for staging.
    uint64_t commBudget() const;

    void matrix(const MatrixWork& w);
    void attention(const AttentionWork& w);
    void vector(const VectorWork& w);
    // Adam over `params` parameters: master (fp32), m, v and the fp16 gradient in, master, m, v
    // and the fp16 weights out.
    void optimizer(uint64_t params, uint64_t master_addr, uint64_t grad_addr, uint64_t weight_addr);

    // Compute <-> stream s ordering. ready(s): compute has produced what stream s sends next;
    // awaitReady(s) in stream s waits for it. done(s) in stream s: its result is in memory;
    // awaitDone(s) in compute waits for it. Returns the pc of the compute-stream wait (for
    // attributing exposed communication).
    void ready(uint32_t s);
    void awaitReady(uint32_t s);
    void done(uint32_t s);
    uint32_t awaitDone(uint32_t s);
    // The primitives under them: stream s raises `event` once its own work is done, or waits
    // for (and consumes) one raise of it.
    void signalEvent(uint32_t s, uint16_t event);
    void waitEvent(uint32_t s, uint16_t event);

    // Point-to-point halves of a pipeline transfer in stream kPipeComm (forward: towards the
    // next stage) or kPipeBack, staged through SRAM segments with a receiver-driven window:
    // recvTensor posts a segment's receive and then raises the clear-to-send ctsEvent(forward)
    // on the sender (two segments ahead of its stores); sendTensor loads a segment, waits for
    // one clear-to-send and sends it.
    void sendTensor(bool forward, uint32_t to, uint64_t addr, uint64_t bytes);
    void recvTensor(bool forward, uint32_t from, uint64_t addr, uint64_t bytes);

    // One TATP round of one direction, in stream kPipeComm (`forward`: towards the next chain
    // position) or kPipeBack: `send_bytes` from `send_addr` to die `to` and `recv_bytes` from die
    // `from` into `recv_addr` (0 bytes: no transfer that way), segment by segment through SRAM.
    // Receiver-driven like the pipeline's: each receive is posted (two segments ahead) before
    // its clear-to-send goes to the sender, and a segment is sent only after its clear-to-send.
    // Needs tatp staging (constructor).
    void exchange(bool forward, uint32_t to, uint64_t send_addr, uint64_t send_bytes, uint32_t from,
                  uint64_t recv_addr, uint64_t recv_bytes);

    // A point-to-point channel besides the pipeline's two (checkpoint offload): its own stream
    // (the same index on both dies, so stream s of one die talks to stream s of the other), two
    // SRAM segments of its own ("<name>0", "<name>1", a sixteenth of a communication share
    // each) and its own clear-to-send event, channelCtsEvent(stream). Transfers on it are
    // receiver-driven exactly like the pipeline's (sendTensor / recvTensor).
    struct Channel {
        uint32_t stream = 0;
        uint16_t seg[2] = {kNoBuf, kNoBuf};
        uint32_t turn = 0;
    };
    Channel channel(uint32_t stream, const std::string& name);
    // HBM bytes of the transfer's loads or stores are tagged `hbm_tag`. `cts`: the
    // clear-to-send event (default channelCtsEvent(c.stream)); a channel whose sender talks to
    // several receivers in turn gives each transfer its own, so one receiver's clearance is
    // never taken for another's.
    void sendOn(Channel& c, uint32_t to, uint64_t addr, uint64_t bytes, const std::string& hbm_tag,
                int32_t cts = -1);
    void recvOn(Channel& c, uint32_t from, uint64_t addr, uint64_t bytes,
                const std::string& hbm_tag, int32_t cts = -1);

    // Instructions so far in stream s (for pc ranges of collectives).
    uint32_t streamSize(uint32_t s) const;
    void use(uint32_t s) { p_.setStream(s); }

    // Every staging buffer is sized by now; checks the program's SRAM against the die's.
    uint64_t sramBytes() const;

    // HBM bytes the compute lowering moves (DMA loads and stores it emits), by the tag set
    // before the work ("attn.qkv fwd", "optimizer", ...): where a step's memory traffic goes.
    void tag(std::string t) { tag_ = std::move(t); }
    const std::map<std::string, uint64_t>& hbmBytesByTag() const { return hbm_by_tag_; }

  private:
    // One receive-driven segment: post the receive into `buf`, then clear the sender `from` to
    // send it by raising `cts` there (recvTensor, recvOn and exchange).
    void postReceive(uint16_t cts, uint16_t buf, uint32_t from, uint64_t bytes);
    // The segment loops under sendTensor / sendOn and recvTensor / recvOn, in the current stream.
    void sendSegments(uint32_t s, uint16_t cts, const uint16_t seg[2], uint32_t& turn, uint32_t to,
                      uint64_t addr, uint64_t bytes);
    void recvSegments(uint16_t cts, const uint16_t seg[2], uint32_t& turn, uint32_t from,
                      uint64_t addr, uint64_t bytes);
    struct Buf {
        uint16_t idx;
        uint64_t elems;
    };
    uint16_t buf(const std::string& name, uint64_t elems);
    void emit(Instruction i);
    void load(uint16_t b, uint64_t addr, uint64_t bytes);
    void store(uint16_t b, uint64_t addr, uint64_t bytes);
    void gemm(uint16_t a, uint16_t b, uint16_t c, uint64_t m, uint64_t k, uint64_t n, bool acc);
    void vop(Opcode op, uint16_t a, uint16_t b, uint16_t c, uint64_t n);

    Program& p_;
    uint32_t node_;
    DieSpec die_;
    DType dtype_;
    uint64_t cap_a_, cap_b_, cap_c_;   // bytes per buffer of each role (two of each)
    uint16_t A_[2], B_[2], C_[2], S_;  // compute staging; S: scalars of reductions
    uint16_t P2P_[2][2];               // pipeline staging per direction (forward, back)
    uint16_t RX_[2][2] = {{kNoBuf, kNoBuf}, {kNoBuf, kNoBuf}};  // tatp: receive staging
    uint32_t rx_turn_[2] = {0, 0};
    uint16_t CTS_;  // the clear-to-send flag's buffer
    uint32_t a_turn_ = 0, b_turn_ = 0, c_turn_ = 0, p2p_turn_[2] = {0, 0};
    std::string tag_ = "other";
    std::map<std::string, uint64_t> hbm_by_tag_;
};

// Events of the compute <-> stream s semaphores (streams up to 255: events up to 512).
constexpr uint16_t readyEvent(uint32_t s) {
    return static_cast<uint16_t>(2 * s + 1);
}
constexpr uint16_t doneEvent(uint32_t s) {
    return static_cast<uint16_t>(2 * s + 2);
}
// Clear-to-send of a pipeline transfer, raised on the sender by its receiver: `forward` for
// activations sent to the next stage, otherwise gradients sent to the previous one (a die has
// one peer each way, so two events keep the two directions apart).
constexpr uint16_t ctsEvent(bool forward) {
    return static_cast<uint16_t>(1024 + (forward ? 1 : 2));
}
// Compute has finished with a pipeline receive slot of that direction (the receive stream may
// post the receive that reuses it).
constexpr uint16_t slotEvent(bool forward) {
    return static_cast<uint16_t>(1024 + (forward ? 3 : 4));
}
// Clear-to-send of a DieEmitter::Channel on stream s, raised on its sender by its receiver.
constexpr uint16_t channelCtsEvent(uint32_t s) {
    return static_cast<uint16_t>(2048 + s);
}

}  // namespace wsc::firmware::llm
