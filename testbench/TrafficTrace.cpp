#include "testbench/TrafficTrace.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <sstream>
#include <unordered_map>

#include "hw/ConfigError.h"
#include "hw/InputLimits.h"
#include "noc/InputFile.h"

namespace wsc::tb {

namespace {

// Decimal digits only (no sign, no spaces), at most `max`.
bool parseUInt(const std::string& s, uint64_t max, uint64_t& out) {
    if (s.empty() || s.size() > 20) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size() && out <= max;
}

}  // namespace

TrafficTrace TrafficTrace::parse(const std::string& text, const std::string& file, uint32_t nodes) {
    TrafficTrace t;
    t.file_ = file;
    std::unordered_map<uint64_t, uint32_t> index;  // id -> entry
    std::istringstream in(text);
    std::string raw;
    int line = 0;
    while (std::getline(in, raw)) {
        ++line;
        size_t field = 0;  // the field an error is about
        std::vector<int> col;
        auto fail = [&](const std::string& what) -> hw::ConfigError {
            return hw::ConfigError(file, line, field < col.size() ? col[field] : 1, "", what);
        };
        if (const size_t hash = raw.find('#'); hash != std::string::npos) raw.resize(hash);
        // Fields and their 1-based columns, so an error points at the field it is about.
        std::vector<std::string> f;
        for (size_t i = 0; i < raw.size();) {
            while (i < raw.size() && std::isspace(static_cast<unsigned char>(raw[i]))) ++i;
            if (i == raw.size()) break;
            const size_t start = i;
            while (i < raw.size() && !std::isspace(static_cast<unsigned char>(raw[i]))) ++i;
            f.push_back(raw.substr(start, i - start));
            col.push_back(static_cast<int>(start) + 1);
        }
        if (f.empty()) continue;
        if (f.size() < 5 || f.size() > 6)
            throw fail(
                fmt::format("expected 'ID CYCLE SRC DST BYTES [after=ID,...]', got {} "
                            "fields",
                            f.size()));
        Entry e;
        e.line = line;
        uint64_t v = 0;
        field = 0;
        if (!parseUInt(f[0], UINT64_MAX, e.id))
            throw fail(
                fmt::format("expected a message id (a non-negative integer), got '{}'", f[0]));
        field = 1;
        if (!parseUInt(f[1], hw::limits::kMaxPhaseCycles, e.cycle))
            throw fail(fmt::format("expected a cycle in [0, 2^40], got '{}'", f[1]));
        for (int k : {2, 3}) {
            field = size_t(k);
            if (!parseUInt(f[k], nodes - 1, v))
                throw fail(fmt::format("expected a {} node below {} (the NoC's nodes), got '{}'",
                                       k == 2 ? "source" : "destination", nodes, f[k]));
            (k == 2 ? e.src : e.dst) = static_cast<uint32_t>(v);
        }
        field = 4;
        if (!parseUInt(f[4], kMaxMessageBytes, e.bytes) || e.bytes == 0)
            throw fail(fmt::format("expected a size in bytes in [1, 2^30], got '{}'", f[4]));
        if (f.size() == 6) {
            field = 5;
            if (f[5].rfind("after=", 0) != 0)
                throw fail(fmt::format("expected after=ID[,ID...], got '{}'", f[5]));
            std::string ids = f[5].substr(6);
            size_t start = 0;
            for (;;) {
                const size_t comma = ids.find(',', start);
                const std::string one = ids.substr(
                    start, comma == std::string::npos ? std::string::npos : comma - start);
                uint64_t dep = 0;
                if (!parseUInt(one, UINT64_MAX, dep))
                    throw fail(fmt::format("expected message ids after 'after=', got '{}'", one));
                const auto it = index.find(dep);
                if (it == index.end())
                    throw fail(
                        fmt::format("expected 'after=' to name a message of an earlier "
                                    "line, got {}",
                                    dep));
                if (std::find(e.after.begin(), e.after.end(), it->second) != e.after.end())
                    throw fail(
                        fmt::format("expected distinct ids after 'after=', got {} twice", dep));
                e.after.push_back(it->second);
                if (comma == std::string::npos) break;
                start = comma + 1;
            }
        }
        field = 0;
        if (!index.emplace(e.id, static_cast<uint32_t>(t.entries_.size())).second)
            throw fail(fmt::format("expected a unique message id, got {} again (line {})", e.id,
                                   t.entries_[index[e.id]].line));
        t.entries_.push_back(std::move(e));
    }
    if (t.entries_.empty())
        throw hw::ConfigError(file, 0, 0, "", "expected at least one message, got none");
    return t;
}

TrafficTrace TrafficTrace::loadFile(const std::string& path, uint32_t nodes) {
    std::string text;
    try {
        text = noc::InputFile::read(path, kMaxFileBytes);
    } catch (const noc::InputFile::Error& e) {
        throw hw::ConfigError(path, 0, 0, "", std::string("cannot read the trace: ") + e.what());
    }
    return parse(text, path, nodes);
}

uint64_t TrafficTrace::totalBytes() const {
    uint64_t s = 0;
    for (const auto& e : entries_) s += e.bytes;
    return s;
}

}  // namespace wsc::tb
