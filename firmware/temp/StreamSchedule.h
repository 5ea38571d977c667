#pragma once
// TEMP's tensor-stream partition (TSPP) of one linear operator over a group of N dies, as rounds:
// in every round each die computes one sub-output (or one partial sum) and sub-tensors move
// between dies. Positions 0..N-1 are the group's chain order (GroupLayout): position p and p+1
// are meant to be physical neighbours; the naive ring also sends from position 0 to N-1 (the
// wrap), which is multi-hop unless the group is a physical ring. docs/TEMP.md derives both
// schedules and states the buffer peaks the tests check.
//
// Two kinds of stream:
//  - Broadcast: item j (sub-tensor j, which starts on position j) must reach every position; a
//    position computes with item j in the round `computeRound(p, j)`.
//  - Reduce: item j is a partial sum that every position contributes to (computed in round
//    `computeRound(p, j)`) and that ends, summed, on position j. It is the time-reversal of the
//    broadcast with the same transfers reversed.
// Round semantics: a transfer "during round r" sends data available at the start of round r and
// the data is available at the receiver from round r + 1 on; a compute in round r uses data
// available at the start of round r. A reduce's last transfers run in round N - 1 beside the
// last compute, so the owner adds them after the last round.
#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <vector>

namespace wsc::firmware::temp {

// The three products of a linear operator O = I x W (TEMP Eq. 1) a stream schedule serves: the
// forward O, the backward dI and the weight gradient dW. Shared by the kernel (TatpKernel) and
// the plan lowering (llm::TatpLowering).
enum class OperatorStage { Forward, Backward, Gradient };
const char* stageName(OperatorStage s);  // "forward", "backward", "gradient"

class StreamSchedule {
  public:
    enum class Algo { Tatp, Ring };
    enum class Kind { Broadcast, Reduce };

    struct Transfer {
        uint32_t round = 0, src = 0, dst = 0, item = 0;  // positions in the chain
    };

    // TATP (TEMP Algorithm 1's compute rule, one chain hop per transfer, both directions) or the
    // naive ring (every item to the ring predecessor each round).
    static StreamSchedule make(Algo a, Kind k, uint32_t n);

    // A schedule from explicit parts (items[p * n + r]: the item position p computes in round
    // r), for checking schedules built elsewhere, such as Algorithm 1's printed send rules.
    static StreamSchedule custom(Algo a, Kind k, uint32_t n, const std::vector<uint32_t>& items,
                                 std::vector<Transfer> transfers);

    Algo algo() const { return algo_; }
    Kind kind() const { return kind_; }
    uint32_t size() const { return n_; }
    uint32_t rounds() const { return n_; }  // compute rounds (transfers may share the last)
    // The item position p computes with (broadcast) or contributes to (reduce) in round r.
    uint32_t computeItem(uint32_t p, uint32_t r) const { return item_[p * n_ + r]; }
    uint32_t computeRound(uint32_t p, uint32_t item) const { return round_[p * n_ + item]; }
    const std::vector<Transfer>& transfers() const { return transfers_; }

    // Every buffer a position needs for streamed items besides its own stationary data, as
    // intervals of rounds [first, last] (inclusive): a received broadcast item from the round
    // its receive is posted to the round of its last use (compute or forward); a reduce
    // accumulator from its first write to its send; a received partial from its receive to the
    // round it is added. Slots are reused as soon as their interval ends.
    struct Hold {
        uint32_t item = 0, first = 0, last = 0;
        bool accumulator = false;  // reduce: the running partial sum (else a received copy)
        uint32_t from = 0;         // a received copy: the sending position
    };
    std::vector<Hold> holds(uint32_t p) const;
    // Reduce: whether the partial `t` delivers to position p is received straight into p's
    // accumulator (it arrives before p's own contribution, which then accumulates onto it), and
    // otherwise the round in which p adds the received copy: the start of the round after the
    // receive, or right after p's own contribution if that comes later (the owner adds the
    // partials of the last round after it, in round n).
    bool receivesIntoAccumulator(uint32_t p, const Transfer& t) const;
    uint32_t addRound(uint32_t p, const Transfer& t) const;
    // Most holds of position p live in one round: the buffers its streams need.
    uint32_t slotPeak(uint32_t p) const;
    uint32_t slotPeak() const;  // over all positions
    // Buffers for position p's holds by greedy interval colouring (earliest first hold first,
    // lowest free buffer): the buffer of every hold, keyed by (item, accumulator, from), and how
    // many buffers that takes (slotPeak(p): intervals colour with as many colours as overlap).
    struct Slots {
        std::map<std::tuple<uint32_t, bool, uint32_t>, uint32_t> of;
        uint32_t count = 0;
        uint32_t at(uint32_t item, bool accumulator, uint32_t from) const {
            return of.at({item, accumulator, from});
        }
    };
    Slots slots(uint32_t p) const;

    // Checks the schedule against its contract and throws std::logic_error saying which rule
    // broke: each position computes every item exactly once, one item per round; a broadcast
    // position holds the item it computes with (own, or received in an earlier round); a
    // transfer sends only what the sender holds at that round; a reduce partial is sent after
    // every contribution it carries; at most one transfer per directed chain edge per round;
    // TATP transfers are between chain neighbours.
    void check() const;

    static const char* name(Algo a) { return a == Algo::Tatp ? "tatp" : "ring"; }
    static const char* name(Kind k) { return k == Kind::Broadcast ? "broadcast" : "reduce"; }

  private:
    StreamSchedule(Algo a, Kind k, uint32_t n);
    void buildTatpBroadcast();
    void buildRingBroadcast();
    void reverseIntoReduce();
    void setCompute(uint32_t p, uint32_t r, uint32_t item);

    Algo algo_;
    Kind kind_;
    uint32_t n_;
    std::vector<uint32_t> item_, round_;  // [p * n + r] -> item, [p * n + item] -> round
    std::vector<Transfer> transfers_;
};

}  // namespace wsc::firmware::temp
