#include "hw/HbmConfigLoader.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>
#include <utility>
#include <vector>

#include "hw/InputLimits.h"

namespace wsc::hw {

namespace {

// dram::HbmParams field name (as validate() names it) -> YAML key under hbm:.
const std::vector<std::pair<std::string, std::string>>& fieldKeys() {
    static const std::vector<std::pair<std::string, std::string>> k = {
        {"stacks", "stacks"},
        {"channels", "channels"},
        {"pseudo_channels", "pseudo_channels"},
        {"bank_groups", "bank_groups"},
        {"banks_per_group", "banks_per_group"},
        {"rows", "rows"},
        {"columns", "columns"},
        {"burst_length", "burst_length"},
        {"bus_width_bits", "bus_width_bits"},
        {"data_rate_mtps", "data_rate"},
        {"tCK_ps", "timing.tCK"},
        {"read_queue_depth", "read_queue"},
        {"write_queue_depth", "write_queue"},
        {"max_outstanding", "max_outstanding"},
        {"watermarks", "write_high_watermark"},
        {"debug_break_rule", ""},
        {"address_mapping", "address_mapping"},
        {"tCCD_S", "timing.tCCD_S"},
        {"tREFIpb", "timing.tREFIpb"},
        {"tREFI", "timing.tREFI"},
        {"tRCDWR", "timing.tRCDWR"},
        {"tRCD", "timing.tRCD"},
        {"tWL", "timing.tWL"},
        {"tCL", "timing.tCL"},
        {"tRP", "timing.tRP"},
        {"tRAS", "timing.tRAS"},
        {"tRC", "timing.tRC"},
        {"tCCD_L", "timing.tCCD_L"},
        {"tRRD_S", "timing.tRRD_S"},
        {"tRRD_L", "timing.tRRD_L"},
        {"tRTP", "timing.tRTP"}};
    return k;
}

constexpr double kPjPerJ = 1e12;

}  // namespace

dram::HbmParams HbmConfigLoader::load(const YamlReader& h) {
    h.checkKeys({"stacks",
                 "channels",
                 "pseudo_channels",
                 "bank_groups",
                 "banks_per_group",
                 "rows",
                 "columns",
                 "burst_length",
                 "bus_width_bits",
                 "data_rate",
                 "timing",
                 "address_mapping",
                 "page_policy",
                 "read_queue",
                 "write_queue",
                 "write_high_watermark",
                 "write_low_watermark",
                 "max_outstanding",
                 "starvation_limit",
                 "refresh",
                 "check_protocol",
                 "energy",
                 "capacity",
                 "bandwidth",
                 "attach",
                 "sync"});
    dram::HbmParams p = dram::HbmParams::hbm3Default();
    // Counts: validate() checks powers of two and their relations; here only the type range.
    p.stacks = h.getUInt("stacks", 1, 64, p.stacks);
    p.channels = h.getUInt("channels", 1, 1024, p.channels);
    p.pseudo_channels = h.getUInt("pseudo_channels", 1, 16, p.pseudo_channels);
    p.bank_groups = h.getUInt("bank_groups", 1, 64, p.bank_groups);
    p.banks_per_group = h.getUInt("banks_per_group", 1, 64, p.banks_per_group);
    p.rows = h.getUInt("rows", 1, 1u << 24, p.rows);
    p.columns = h.getUInt("columns", 1, 1u << 16, p.columns);
    p.burst_length = h.getUInt("burst_length", 1, 64, p.burst_length);
    p.bus_width_bits = h.getUInt("bus_width_bits", 8, 1024, p.bus_width_bits);
    if (h.has("data_rate")) {
        // A per-pin rate ("6.4 Gb/s"); Units returns bytes/s, the model wants MT/s (bits/s/1e6).
        const double mtps = h.getQuantity("data_rate", Dim::Bandwidth) * 8.0 / 1e6;
        if (!(mtps >= 1.0) || mtps > 1e6)
            h.fail("data_rate", "a per-pin rate between 1 Mb/s and 1 Tb/s, e.g. '6.4 Gb/s'");
        p.data_rate_mtps = static_cast<uint32_t>(std::lround(mtps));
    }
    if (const auto t = h.optionalChild("timing")) loadTiming(*t, p);

    p.address_mapping = h.getString("address_mapping", p.address_mapping);
    p.page_policy = h.getEnum("page_policy", {"open", "closed"}, "open") == "open"
                        ? dram::PagePolicy::Open
                        : dram::PagePolicy::Closed;
    p.read_queue_depth = h.getUInt("read_queue", 1, 1u << 16, p.read_queue_depth);
    p.write_queue_depth = h.getUInt("write_queue", 1, 1u << 16, p.write_queue_depth);
    p.write_high_watermark = h.getUInt("write_high_watermark", 1, 1u << 16, p.write_high_watermark);
    p.write_low_watermark = h.getUInt("write_low_watermark", 0, 1u << 16, p.write_low_watermark);
    p.max_outstanding = h.getUInt("max_outstanding", 1, 1u << 24, p.max_outstanding);
    p.starvation_limit = h.getCycles("starvation_limit", p.clockHz(), 0, limits::kMaxLatencyCycles,
                                     p.starvation_limit);
    const std::string refresh = h.getEnum("refresh", {"none", "all_bank", "per_bank"}, "per_bank");
    p.refresh_mode = refresh == "none"       ? dram::RefreshMode::None
                     : refresh == "all_bank" ? dram::RefreshMode::AllBank
                                             : dram::RefreshMode::PerBank;
    p.check_protocol = h.getBool("check_protocol", p.check_protocol);
    if (const auto e = h.optionalChild("energy")) loadEnergy(*e, p);
    // Requirements (totals over the stacks): validate() proves the organisation delivers them
    // and says how many stacks would. HbmParams counts them in decimal GB (1e9 B).
    if (h.has("capacity"))
        p.required_capacity_gb = double(h.getBytes("capacity", 1, YamlReader::kMaxU64)) / 1e9;
    if (h.has("bandwidth")) {
        p.required_bandwidth_gbps = h.getQuantity("bandwidth", Dim::Bandwidth) / 1e9;
        if (!(p.required_bandwidth_gbps > 0)) h.fail("bandwidth", "a bandwidth > 0");
    }

    try {
        p.validate();
    } catch (const std::invalid_argument& e) {
        std::string msg = e.what();
        if (msg.rfind("hbm: ", 0) == 0) msg = msg.substr(5);
        const std::string key = keyOfMessage(e.what());
        if (key.empty()) throw h.errorHere(msg);
        const auto dot = key.find('.');
        if (dot != std::string::npos) {
            const auto parent = h.optionalChild(key.substr(0, dot));
            if (parent) throw parent->errorAt(key.substr(dot + 1), msg);
            // The timing was a default (e.g. tREFIpb derived): point at the section.
            throw ConfigError(h.file(), h.line(), h.column(), h.keyPath(key), msg);
        }
        throw h.errorAt(key, msg);
    }
    return p;
}

void HbmConfigLoader::loadTiming(const YamlReader& t, dram::HbmParams& p) {
    t.checkKeys({"tCK",    "tCL",    "tWL",    "tRCD",   "tRCDWR",  "tRP",    "tRAS",   "tRC",
                 "tCCD_S", "tCCD_L", "tRRD_S", "tRRD_L", "tFAW",    "tWR",    "tWTR_S", "tWTR_L",
                 "tRTP",   "tRTRS",  "tREFI",  "tRFC",   "tREFIpb", "tRFCpb", "tRREFD"});
    if (t.has("tCK")) {
        const double tck = t.getQuantity("tCK", Dim::Time);
        const double ps = std::round(tck * 1e12);
        if (!(ps >= 1.0) || ps > 1e6 || std::fabs(tck * 1e12 - ps) > 1e-6)
            t.fail("tCK", "a clock period of whole picoseconds between 1 ps and 1 us");
        // The defaults are HBM3 cycle counts at 0.625 ns: keep them as times at the new clock
        // (rounded up, like every JEDEC minimum) so changing tCK alone stays consistent.
        const double oldPs = p.tCK_ps;
        p.tCK_ps = static_cast<uint32_t>(ps);
        for (uint32_t* f : {&p.tCL, &p.tWL, &p.tRCD, &p.tRCDWR, &p.tRP, &p.tRAS, &p.tRC, &p.tCCD_L,
                            &p.tRRD_S, &p.tRRD_L, &p.tFAW, &p.tWR, &p.tWTR_S, &p.tWTR_L, &p.tRTP,
                            &p.tREFI, &p.tRFC, &p.tRFCpb, &p.tRREFD})
            *f = std::max(1u, p.nsToCycles(*f * oldPs / 1000.0));
        p.tCCD_S = std::max(p.burstCycles(), 1u);
        p.tREFIpb = p.tREFI / p.banksPerPseudoChannel();
    }
    const double hz = p.clockHz();
    const auto cyc = [&](const char* key, uint32_t& field, uint32_t min) {
        field = t.getCycles(key, hz, min, limits::kMaxLatencyCycles, field);
    };
    cyc("tCL", p.tCL, 1);
    cyc("tWL", p.tWL, 0);
    cyc("tRCD", p.tRCD, 1);
    // tRCDWR follows tRCD unless given (the facts give tRCD for reads only).
    p.tRCDWR = t.has("tRCDWR") ? t.getCycles("tRCDWR", hz, 1, limits::kMaxLatencyCycles) : p.tRCD;
    cyc("tRP", p.tRP, 1);
    cyc("tRAS", p.tRAS, 1);
    cyc("tRC", p.tRC, 1);
    cyc("tCCD_S", p.tCCD_S, 1);
    cyc("tCCD_L", p.tCCD_L, 1);
    cyc("tRRD_S", p.tRRD_S, 1);
    cyc("tRRD_L", p.tRRD_L, 1);
    cyc("tFAW", p.tFAW, 0);
    cyc("tWR", p.tWR, 0);
    cyc("tWTR_S", p.tWTR_S, 0);
    cyc("tWTR_L", p.tWTR_L, 0);
    cyc("tRTP", p.tRTP, 1);
    cyc("tRTRS", p.tRTRS, 0);
    cyc("tREFI", p.tREFI, 1);
    cyc("tRFC", p.tRFC, 1);
    // Per-bank refresh visits every bank once per tREFI unless tREFIpb is given.
    if (t.has("tREFI") && !t.has("tREFIpb")) p.tREFIpb = p.tREFI / p.banksPerPseudoChannel();
    cyc("tREFIpb", p.tREFIpb, 1);
    cyc("tRFCpb", p.tRFCpb, 1);
    cyc("tRREFD", p.tRREFD, 0);
}

void HbmConfigLoader::loadEnergy(const YamlReader& e, dram::HbmParams& p) {
    e.checkKeys({"read", "write", "activate", "precharge", "refresh", "refresh_per_bank"});
    p.read_pj_per_bit =
        e.getQuantity("read", Dim::EnergyPerBit, p.read_pj_per_bit / kPjPerJ) * kPjPerJ;
    p.write_pj_per_bit =
        e.getQuantity("write", Dim::EnergyPerBit, p.write_pj_per_bit / kPjPerJ) * kPjPerJ;
    p.act_pj = energyPj(e, "activate", p.act_pj);
    p.pre_pj = energyPj(e, "precharge", p.pre_pj);
    p.ref_pj = energyPj(e, "refresh", p.ref_pj);
    p.refpb_pj = energyPj(e, "refresh_per_bank", p.refpb_pj);
}

double HbmConfigLoader::energyPj(const YamlReader& e, const std::string& key, double def) {
    if (!e.has(key)) return def;
    const std::string expected = "an energy with a unit (fJ, pJ, nJ, uJ), e.g. '800 pJ'";
    const YamlReader v = e.entry(key);
    const std::string text = v.scalar(expected);
    static const std::pair<const char*, double> units[] = {
        {"fJ", 1e-3}, {"pJ", 1.0}, {"nJ", 1e3}, {"uJ", 1e6}};
    for (const auto& [unit, scale] : units) {
        const std::string u = unit;
        if (text.size() <= u.size() || text.compare(text.size() - u.size(), u.size(), u) != 0)
            continue;
        std::string number = text.substr(0, text.size() - u.size());
        while (!number.empty() && number.back() == ' ') number.pop_back();
        double x = -1.0;
        try {
            x = Units::parseNumber(number);
        } catch (const std::exception&) {
            v.failHere(expected);
        }
        if (!(x >= 0)) v.failHere(expected + " >= 0");
        return x * scale;
    }
    v.failHere(expected);
}

std::string HbmConfigLoader::keyOfMessage(const std::string& message) {
    // Requirement checks name no field but what is required.
    if (message.find("GB/s is required") != std::string::npos) return "bandwidth";
    if (message.find("GB is required") != std::string::npos) return "capacity";
    if (message.rfind("hbm: ", 0) != 0) return "";
    const std::string rest = message.substr(5);
    // The first word after "hbm: " names the field ("tRC = 40 < tRAS = 45").
    const std::string word = rest.substr(0, rest.find_first_of(" ="));
    for (const auto& [field, key] : fieldKeys())
        if (word == field) return key;
    return "";
}

HbmAttachParams HbmConfigLoader::loadAttach(const YamlReader& h, uint32_t stacks,
                                            const noc::NocParams& noc) {
    const noc::TopologyParams& t = noc.topology;
    const uint32_t dx = t.die_x ? t.die_x : t.x, dy = t.die_y ? t.die_y : t.y;
    const auto edgeLength = [&](HbmAttachParams::Edge e) {
        return e == HbmAttachParams::Edge::West || e == HbmAttachParams::Edge::East ? dy : dx;
    };
    const std::vector<std::string> names = {"west", "east", "north", "south"};
    const auto toEdge = [&](const std::string& n) {
        for (size_t i = 0; i < names.size(); ++i)
            if (names[i] == n) return static_cast<HbmAttachParams::Edge>(i);
        return HbmAttachParams::Edge::West;
    };
    HbmAttachParams a;
    a.sync = h.getCycles("sync", noc.clock_hz, 0, 64, a.sync);
    if (!h.has("attach")) {
        // Default: stacks go round the die, west, east, north, south, each at its edge's middle.
        for (uint32_t k = 0; k < stacks; ++k) {
            HbmAttachParams::Stack st;
            st.edge = static_cast<HbmAttachParams::Edge>(k % 4);
            st.at = {(edgeLength(st.edge) - 1) / 2};
            a.stacks.push_back(st);
        }
        return a;
    }
    const YamlReader list = h.entry("attach");
    const std::string what =
        "a list with one entry per stack: an edge (west, east, north, south) or {edge: EDGE, "
        "at: POSITION | [POSITION, ...] | all}";
    if (!list.isSequence()) h.fail("attach", what);
    const std::vector<YamlReader> entries = list.elements();
    if (entries.size() != stacks)
        throw h.errorAt("attach",
                        fmt::format("expected one entry per stack (hbm.stacks = {}), got {} "
                                    "entr{}",
                                    stacks, entries.size(), entries.size() == 1 ? "y" : "ies"));
    for (const YamlReader& e : entries) {
        HbmAttachParams::Stack st;
        if (e.isMap()) {
            e.checkKeys({"edge", "at"});
            st.edge = toEdge(e.getEnum("edge", names));
            st.at = loadPositions(e, st.edge, edgeLength(st.edge), dx, dy);
        } else {
            const std::string n = e.scalar(what);
            bool known = false;
            for (const auto& x : names) known |= x == n;
            if (!known) e.failHere("an edge: west, east, north or south");
            st.edge = toEdge(n);
            st.at = {(edgeLength(st.edge) - 1) / 2};
        }
        a.stacks.push_back(st);
    }
    return a;
}

std::vector<uint32_t> HbmConfigLoader::loadPositions(const YamlReader& e,
                                                     HbmAttachParams::Edge edge, uint32_t len,
                                                     uint32_t dx, uint32_t dy) {
    const std::string range =
        fmt::format("a position along the {} edge in [0, {}] (the die has {} x {} routers)",
                    HbmAttachParams::edgeName(edge), len - 1, dx, dy);
    if (!e.has("at")) return {(len - 1) / 2};
    const YamlReader at = e.entry("at");
    if (at.isScalar() && at.node().Tag() != "!" && at.node().Scalar() == "all") {
        std::vector<uint32_t> v(len);
        for (uint32_t i = 0; i < len; ++i) v[i] = i;
        return v;
    }
    if (!at.isSequence()) {
        const uint32_t p = e.getUInt("at", 0, YamlReader::kMaxU32);
        if (p >= len) e.fail("at", range);
        return {p};
    }
    const std::vector<YamlReader> items = at.elements();
    if (items.empty()) e.fail("at", "a position, a non-empty list of positions, or 'all'");
    std::vector<uint32_t> v;
    for (const YamlReader& i : items) {
        // Strict like YamlReader::getUInt: an unquoted decimal integer.
        const std::string text = i.isScalar() ? i.node().Scalar() : "";
        const bool digits = i.isScalar() && i.node().Tag() != "!" && !text.empty() &&
                            text.size() <= 9 &&
                            text.find_first_not_of("0123456789") == std::string::npos;
        if (!digits || std::stoul(text) >= len) i.failHere(range);
        const auto p = static_cast<uint32_t>(std::stoul(text));
        for (uint32_t q : v)
            if (q == p)
                throw i.errorHere(fmt::format(
                    "position {} of the {} edge is listed twice (each router attaches once)", p,
                    HbmAttachParams::edgeName(edge)));
        v.push_back(p);
    }
    return v;
}

}  // namespace wsc::hw
