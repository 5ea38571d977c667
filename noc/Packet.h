#pragma once
// Per-packet and per-message records of the network. A message is what an NI's user sends; the NI
// splits it into packets of at most max_packet_flits flits and reassembles it at the receiver.
#include <cstdint>
#include <limits>
#include <memory>
#include <vector>

namespace wsc::noc {

constexpr uint32_t kNoRoute = std::numeric_limits<uint32_t>::max();
constexpr uint64_t kNever = std::numeric_limits<uint64_t>::max();

struct PacketInfo {
    uint64_t id = 0;            // global, monotonically increasing packet id
    uint64_t message = 0;       // message id this packet belongs to
    uint32_t src = 0;           // source node (NI)
    uint32_t dst = 0;           // destination node (unicast); unused for multicast routes
    uint32_t route = kNoRoute;  // table route id ("color"), kNoRoute = dimension order to dst
    uint32_t bytes = 0;         // payload bytes carried by this packet
    uint16_t flits = 0;         // flits in the packet
    uint16_t deliveries_expected = 1;  // > 1 for multicast
    // A branch of a multicast tree split at its source (Network::send): the output ports this
    // packet may take at the source router; 0 = the whole tree.
    uint8_t src_mask = 0;
    uint16_t deliveries_done = 0;
    bool measured = false;       // created inside the measurement window
    bool live = false;           // slot in use
    uint64_t created = 0;        // cycle the packet was queued at its NI
    uint64_t injected = kNever;  // cycle its head flit entered the network
    uint32_t hops = 0;           // router-to-router links crossed by the head (first delivery)
    uint32_t record = kNoRoute;  // the network's record of its message (kNoRoute: none)
};

// Payload of a message in functional mode: the NoC never looks inside, it only carries it.
using Payload = std::shared_ptr<const std::vector<float>>;

struct Message {
    uint64_t id = 0;
    uint32_t src = 0;
    uint32_t dst = 0;           // destination node for unicast
    uint32_t route = kNoRoute;  // route id for table (possibly multicast) routes
    uint64_t bytes = 0;
    uint64_t tag = 0;  // opaque to the NoC (e.g. buffer id of a RECV)
    Payload payload;   // optional real data (functional mode)
};

}  // namespace wsc::noc
