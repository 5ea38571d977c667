#include "hw/FirmwareWorkloadLoader.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <optional>

#include "firmware/ParseError.h"
#include "firmware/ProgramText.h"
#include "hw/UnitError.h"
#include "hw/Units.h"
#include "noc/InputFile.h"

namespace wsc::hw {

namespace fs = std::filesystem;
using firmware::FirmwareWorkload;

namespace {

// A directory: its *.fw files in name order, parsed as one text (a dma.put may name a buffer of a
// core in another file); an error's line is mapped back to the file it came from.
firmware::Firmware loadDirectory(const fs::path& dir, const YamlReader& w, uint32_t cores) {
    std::vector<fs::path> files;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.path().extension() == ".fw") files.push_back(e.path());
    std::sort(files.begin(), files.end());
    if (files.empty())
        w.fail("firmware", fmt::format("a firmware file or a directory with *.fw files ({} has "
                                       "none)",
                                       dir.string()));
    std::string text;
    std::vector<std::pair<int, std::string>> starts;  // first line of each file in `text`
    int line = 1;
    for (const fs::path& f : files) {
        std::string part;
        try {
            part = noc::InputFile::read(f.string(), firmware::ProgramText::kMaxFileBytes);
        } catch (const noc::InputFile::Error& e) {
            throw firmware::ParseError(
                f.string(), 0, std::string("expected a readable firmware file: ") + e.what());
        }
        if (!part.empty() && part.back() != '\n') part += '\n';
        starts.emplace_back(line, f.string());
        line += static_cast<int>(std::count(part.begin(), part.end(), '\n'));
        text += part;
    }
    try {
        return firmware::ProgramText::parse(text, dir.string(), cores);
    } catch (const firmware::ParseError& e) {
        if (e.line() <= 0) throw;
        auto it = std::upper_bound(starts.begin(), starts.end(), e.line(),
                                   [](int l, const auto& s) { return l < s.first; });
        --it;
        throw firmware::ParseError(it->second, e.line() - it->first + 1, e.message());
    }
}

std::vector<float> numbers(const YamlReader& list) {
    std::vector<float> out;
    for (const YamlReader& v : list.elements()) {
        const std::string expected = "a finite number (an fp32 value)";
        double x = 0;
        try {
            x = Units::parseNumber(v.scalar(expected));
        } catch (const UnitError&) {
            v.failHere(expected);
        }
        if (std::fabs(x) > std::numeric_limits<float>::max()) v.failHere(expected);
        out.push_back(static_cast<float>(x));
    }
    return out;
}

// One entry of init: / expect:, checked against the parsed firmware.
FirmwareWorkload::BufferValues bufferValues(const YamlReader& e, const firmware::Firmware& fw,
                                            bool init) {
    if (init)
        e.checkKeys({"core", "buffer", "values", "fill"});
    else
        e.checkKeys({"core", "buffer", "values"});
    FirmwareWorkload::BufferValues b;
    b.core = e.getUInt("core", 0, fw.cores() - 1);
    b.buffer = e.getString("buffer");
    const firmware::Program& p = fw.program(b.core);
    const uint16_t id = p.findBuffer(b.buffer);
    if (id == firmware::kNoBuf)
        e.fail("buffer", fmt::format(
                             "a buffer declared on core {} (it has {})", b.core,
                             p.buffers().empty() ? std::string("none") : [&] {
                                 std::string names;
                                 for (const auto& d : p.buffers())
                                     names += (names.empty() ? "" : ", ") + d.name;
                                 return names;
                             }()));
    const uint64_t elems = p.buffer(id).elems;
    if (e.has("values")) b.values = numbers(e.entry("values"));
    if (init && e.has("fill")) {
        b.fill = static_cast<float>(e.getDouble("fill", -std::numeric_limits<float>::max(),
                                                std::numeric_limits<float>::max()));
        b.has_fill = true;
    }
    if (b.values.empty() && !b.has_fill)
        e.failHere(init ? "values: [..] or fill: x (or both)" : "values: [..]");
    if (b.values.size() > elems)
        e.fail("values", fmt::format("at most {} values (buffer '{}' on core {} holds {} elements)",
                                     elems, b.buffer, b.core, elems));
    return b;
}

}  // namespace

FirmwareWorkload loadFirmwareWorkload(const YamlReader& w, const noc::NocParams& noc) {
    w.checkKeys({"type", "firmware", "functional", "init", "expect", "tolerance"});
    FirmwareWorkload fwl;
    const std::string rel = w.getString("firmware");
    if (rel.empty()) w.fail("firmware", "a firmware file or directory (docs/ISA.md text form)");
    fs::path path(rel);
    if (path.is_relative()) path = fs::path(w.file()).parent_path() / path;
    fwl.path = path.string();
    // One program per NoC node (empty where the text gives none): a core id beyond the mesh is
    // refused at its `.core` line.
    const uint64_t nodes = uint64_t{noc.topology.x} * noc.topology.y * noc.topology.local_ports;
    const uint32_t cores =
        static_cast<uint32_t>(std::min<uint64_t>(nodes, firmware::ProgramText::kMaxCores));
    firmware::Firmware fw;
    std::error_code ec;
    if (fs::is_directory(path, ec)) {
        fw = loadDirectory(path, w, cores);
    } else {
        try {
            fw = firmware::ProgramText::loadFile(fwl.path, cores);
        } catch (const firmware::ParseError& e) {
            if (e.line() != 0) throw;  // inside the file: its own line
            throw w.errorAt("firmware",
                            fmt::format("cannot load firmware '{}': {}", fwl.path, e.message()));
        }
    }
    bool any = false;
    for (uint32_t c = 0; c < fw.cores() && !any; ++c) any = !fw.program(c).empty();
    if (!any)
        w.fail("firmware",
               fmt::format("firmware with at least one instruction ('{}' has none)", fwl.path));
    fwl.functional = w.getBool("functional", true);
    fwl.tolerance = w.getDouble("tolerance", 0.0, 1e30, 0.0);
    if (auto init = w.has("init") ? std::optional<YamlReader>(w.entry("init")) : std::nullopt)
        for (const YamlReader& e : init->elements()) fwl.init.push_back(bufferValues(e, fw, true));
    if (auto ex = w.has("expect") ? std::optional<YamlReader>(w.entry("expect")) : std::nullopt)
        for (const YamlReader& e : ex->elements()) fwl.expect.push_back(bufferValues(e, fw, false));
    if (!fwl.functional && (!fwl.init.empty() || !fwl.expect.empty()))
        w.fail("functional", "true when init or expect is given (values are carried only then)");
    fwl.fw = std::make_shared<const firmware::Firmware>(std::move(fw));
    return fwl;
}

}  // namespace wsc::hw
