#pragma once
// Moves blocks of elements between buffers of different cores as NoC traffic: the re-placement
// of data from one operation's layout into another's (WaferLLM Sec. 4.3: the KV cache and the
// weights reshuffled between prefill and decode). Every (source, destination) pair of cores gets
// one message: the source gathers its blocks for that destination into a staging buffer
// (vector copies), sends it on a direct route (or relayed by software past the route limit),
// and the destination scatters it into place. A block whose source and destination core are the
// same is one local copy. Order on every core: receives of direct-route messages posted first
// (so they never wait in the receive buffer), gathers and sends, local copies, then relayed
// paths level by level (hop t of every message in message order, so each core takes what a
// neighbour sends in the neighbour's order), scatters last.
#include <cstdint>
#include <string>
#include <vector>

#include "firmware/KernelPlan.h"
#include "noc/Network.h"

namespace wsc::firmware {

class Redistribution {
  public:
    struct Move {
        uint32_t src_core = 0;
        std::string src_buf;
        uint32_t src_off = 0;
        uint32_t dst_core = 0;
        std::string dst_buf;
        uint32_t dst_off = 0;
        uint32_t elems = 0;
    };
    // A buffer the plan declares (the moves' sources and destinations), elements of fp32.
    struct Buffer {
        uint32_t core = 0;
        std::string name;
        uint32_t elems = 0;
    };
    Redistribution(uint32_t mesh_x, uint32_t mesh_y, std::vector<Buffer> buffers,
                   std::vector<Move> moves);
    // plan.cores: every core that sends or receives; steps: the messages; step_path: the
    // longest message's path.
    KernelPlan build(noc::Network& net) const;

  private:
    uint32_t mesh_x_, mesh_y_;
    std::vector<Buffer> buffers_;
    std::vector<Move> moves_;
};

}  // namespace wsc::firmware
