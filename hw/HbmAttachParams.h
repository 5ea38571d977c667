#pragma once
// Where the HBM stacks of each die attach to its NoC (the hbm: section's `attach` and `sync`
// keys; hw::HbmConfigLoader::loadAttach). Every die has the same stacks at the same places: stack
// k sits beside edge `edge` of the die and is reached through the core nodes of the edge routers
// at the positions `at` along that edge (die coordinates: y for west/east, x for north/south),
// one core::NocMemoryPort per router, all feeding the stack's one controller (hw::MemoryStack).
#include <cstdint>
#include <vector>

namespace wsc::hw {

struct HbmAttachParams {
    enum class Edge : uint8_t { West, East, North, South };
    struct Stack {
        Edge edge = Edge::West;
        // Positions along the edge, already resolved (middle by default, every router for
        // `all`): distinct, in the order the file gives them; never empty.
        std::vector<uint32_t> at{0};
    };
    std::vector<Stack> stacks;  // one per stack of a die (hbm.stacks entries)
    uint32_t sync = 2;          // HBM -> NoC synchronizer cycles (NoC clock)

    static const char* edgeName(Edge e) {
        static const char* n[] = {"west", "east", "north", "south"};
        return n[static_cast<int>(e)];
    }
    // The router at position `at` along edge `e`, in die coordinates of a die of dx x dy routers.
    static void position(Edge e, uint32_t at, uint32_t dx, uint32_t dy, uint32_t& x, uint32_t& y) {
        switch (e) {
            case Edge::West:
                x = 0, y = at;
                break;
            case Edge::East:
                x = dx - 1, y = at;
                break;
            case Edge::North:
                x = at, y = 0;
                break;
            case Edge::South:
                x = at, y = dy - 1;
                break;
        }
    }
};

}  // namespace wsc::hw
