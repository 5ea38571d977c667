#include "hw/FaultConfigLoader.h"

#include <fmt/format.h>

namespace wsc::hw {

noc::FaultParams FaultConfigLoader::load(const YamlReader& f, const noc::TopologyParams& topo,
                                         uint32_t vcs) {
    f.checkKeys({"links", "routers", "link_rate", "seed", "allow_partition", "routing"});
    noc::FaultParams out;
    if (topo.wrap) f.failHere("no faults on a torus (fault-tolerant routing is for meshes)");
    if (f.has("links")) {
        const YamlReader list = f.entry("links");
        if (!list.isSequence()) f.fail("links", "a list of links, e.g. [{x: 3, y: 2, dir: E}]");
        for (const YamlReader& e : list.elements()) {
            if (!e.isMap()) e.failHere("a link as {x: X, y: Y, dir: E|W|N|S}");
            e.checkKeys({"x", "y", "dir"});
            noc::FaultParams::LinkFault l;
            l.x = e.getUInt("x", 0, topo.x - 1);
            l.y = e.getUInt("y", 0, topo.y - 1);
            const std::string dir = e.getEnum("dir", {"E", "W", "N", "S"});
            l.port = dir == "E" ? 0 : dir == "W" ? 1 : dir == "N" ? 2 : 3;
            const bool edge = (l.port == 0 && l.x + 1 == topo.x) || (l.port == 1 && l.x == 0) ||
                              (l.port == 2 && l.y == 0) || (l.port == 3 && l.y + 1 == topo.y);
            if (edge)
                e.fail("dir", fmt::format("a direction with a neighbour: ({},{}) has no link {}",
                                          l.x, l.y, dir));
            out.links.push_back(l);
        }
    }
    if (f.has("routers")) {
        const YamlReader list = f.entry("routers");
        if (!list.isSequence()) f.fail("routers", "a list of router indices (y * x + x)");
        const uint32_t routers = topo.x * topo.y;
        for (const YamlReader& e : list.elements()) {
            const std::string text = e.scalar("a router index");
            if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos ||
                text.size() > 10 || std::stoull(text) >= routers)
                e.failHere(fmt::format("a router index in [0, {}]", routers - 1));
            out.routers.push_back(static_cast<uint32_t>(std::stoull(text)));
        }
    }
    out.link_rate = f.getDouble("link_rate", 0.0, 1.0, 0.0);
    out.seed = f.getUInt64("seed", 0, YamlReader::kMaxU64, 1);
    out.allow_partition = f.getBool("allow_partition", false);
    // Read with its default so `wsc config --resolved` lists it (escape needs a second VC).
    const bool given = f.has("routing");
    // The default is what runs: escape needs a second VC, so one VC routes up*/down*.
    out.routing =
        f.getEnum("routing", {"escape", "updown"}, vcs >= 2 ? "escape" : "updown") == "updown"
            ? noc::FaultRouting::UpDown
            : noc::FaultRouting::Escape;
    if (given && out.routing == noc::FaultRouting::Escape && vcs < 2)
        f.fail("routing",
               "updown with one VC (escape routing reserves VC 0 and needs "
               "noc.router.vcs >= 2)");
    return out;
}

}  // namespace wsc::hw
