#pragma once
// Link use split by what the dies were doing (per-phase heatmaps of an LLM step, MoEntwine
// Fig. 11): each LinkTimeline window goes to the communication kind whose spans cover most of it,
// summed over the dies, when that cover is at least half of (window x dies); otherwise to
// "compute". Background kinds (expert migration, which runs beside everything) never name a
// window. A phase's link utilization is its windows' busy cycles over their length.
// Hot and cold are relative to the phase's busiest link: hot >= 50% of it, cold < 10%.
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "hw/LinkUse.h"
#include "testbench/LinkTimeline.h"

namespace wsc::tb {

class CommPhaseSplit {
  public:
    struct Span {
        uint32_t die = 0;
        std::string kind;
        uint64_t begin = 0, end = 0;
    };
    struct Phase {
        std::string name;
        uint64_t cycles = 0;             // windows given to it
        std::vector<hw::LinkUse> links;  // utilization over those cycles
        double busiest() const;
        std::vector<size_t> hot() const;   // link indices >= 50% of the busiest
        std::vector<size_t> cold() const;  // < 10% of the busiest
    };
    // `background`: kinds that start with one of these prefixes never name a window.
    static std::vector<Phase> split(const std::vector<LinkTimeline::Window>& windows,
                                    const std::vector<hw::LinkUse>& links,
                                    const std::vector<Span>& spans,
                                    const std::vector<std::string>& background = {
                                        "expert migration"});
    // Links hot in both phases (indices).
    static std::vector<size_t> hotInBoth(const Phase& a, const Phase& b);
    // "tp all-reduce" -> "tp-all-reduce" (file names).
    static std::string slug(const std::string& name);
};

}  // namespace wsc::tb
