#include "hw/YamlReader.h"

#include <fmt/format.h>
#include <yaml-cpp/eventhandler.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "hw/ConfigOverrides.h"
#include "hw/UnitError.h"
#include "noc/InputFile.h"

namespace wsc::hw {

namespace {

// Where each document of a stream starts, up to the second: YAML::LoadAll is not used because
// on some malformed text (yaml-cpp 0.7) its parser reports empty documents forever and LoadAll
// never returns (found by fuzz_model, issue 13).
class DocumentStarts : public YAML::EventHandler {
  public:
    std::vector<YAML::Mark> starts;
    void OnDocumentStart(const YAML::Mark& m) override { starts.push_back(m); }
    void OnDocumentEnd() override {}
    void OnNull(const YAML::Mark&, YAML::anchor_t) override {}
    void OnAlias(const YAML::Mark&, YAML::anchor_t) override {}
    void OnScalar(const YAML::Mark&, const std::string&, YAML::anchor_t,
                  const std::string&) override {}
    void OnSequenceStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                         YAML::EmitterStyle::value) override {}
    void OnSequenceEnd() override {}
    void OnMapStart(const YAML::Mark&, const std::string&, YAML::anchor_t,
                    YAML::EmitterStyle::value) override {}
    void OnMapEnd() override {}
};

// Runs a Units conversion on a reader's scalar and turns its UnitError into a positioned
// ConfigError: Units knows the expectation, the reader knows the file, line and key.
template <typename Fn>
auto convert(const YamlReader& v, const std::string& expected, Fn fn) {
    const std::string text = v.scalar(expected);
    try {
        return fn(text);
    } catch (const UnitError& e) {
        throw v.errorHere(e.what());
    }
}

std::string intRange(uint64_t min, uint64_t max, uint64_t typeMax) {
    if (min == 0 && max == typeMax) return "a non-negative integer";
    if (max == typeMax) return fmt::format("an integer >= {}", min);
    if (min == max) return fmt::format("the integer {}", min);
    return fmt::format("an integer between {} and {}", min, max);
}

std::string cycleRange(uint64_t min, uint64_t max, uint64_t typeMax) {
    const auto cycles = [](uint64_t n) { return fmt::format("{} cycle{}", n, n == 1 ? "" : "s"); };
    if (max == typeMax) return "a duration >= " + cycles(min);
    return fmt::format("a duration between {} and {}", min, cycles(max));
}

std::string flitRange(uint64_t min, uint64_t max, uint64_t typeMax) {
    const auto flits = [](uint64_t n) { return fmt::format("{} flit{}", n, n == 1 ? "" : "s"); };
    if (max == typeMax) return "at least " + flits(min);
    return fmt::format("between {} and {}", min, flits(max));
}

// "65536" -> "64 KB": sizes in messages read like the config file.
std::string formatBytes(uint64_t bytes) {
    static constexpr const char* kUnits[] = {"B", "KB", "MB", "GB", "TB"};
    int u = 0;
    while (u < 4 && bytes >= 1024 && bytes % 1024 == 0) bytes /= 1024, ++u;
    return fmt::format("{} {}", bytes, kUnits[u]);
}

// A decimal integer: digits with an optional leading '-'. Negative values and values beyond
// uint64_t are reported as out of range rather than as garbage.
struct ParsedInt {
    bool negative = false;
    bool overflow = false;
    uint64_t value = 0;
};

std::optional<ParsedInt> parseInt(const std::string& s) {
    ParsedInt r;
    std::string_view digits = s;
    if (!digits.empty() && digits.front() == '-') r.negative = true, digits.remove_prefix(1);
    if (digits.empty() ||
        !std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), r.value);
    if (ec == std::errc::result_out_of_range)
        r.overflow = true;
    else if (ec != std::errc() || end != digits.data() + digits.size())
        return std::nullopt;
    if (r.negative && r.value == 0 && !r.overflow) r.negative = false;  // "-0"
    return r;
}

size_t editDistance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            const size_t up = row[j];
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] != b[j - 1])});
            diag = up;
        }
    }
    return row[b.size()];
}

// An unquoted integer value in [min, max]; the message names only the bound that was crossed.
uint64_t parseUInt(const YamlReader& v, uint64_t min, uint64_t max, uint64_t typeMax,
                   const std::string& text) {
    const auto parsed = parseInt(text);
    if (!parsed) v.failHere(intRange(min, max, typeMax));
    if (parsed->negative || (!parsed->overflow && parsed->value < min))
        v.failHere(intRange(min, typeMax, typeMax));
    if (parsed->overflow || parsed->value > max) v.failHere(fmt::format("an integer <= {}", max));
    return parsed->value;
}

// A quantity default (SI) as config text in a unit the loaders accept.
std::string defaultQuantity(double v, Dim dim) {
    switch (dim) {
        case Dim::Time:
            return fmt::format("{:g} s", v);
        case Dim::Frequency:
            return fmt::format("{:g} Hz", v);
        case Dim::Size:
            return fmt::format("{:g} B", v);
        case Dim::Bandwidth:
            return fmt::format("{:g} B/s", v);
        case Dim::EnergyPerBit:
            return fmt::format("{:g} pJ/bit", v * 1e12);
        case Dim::Length:
            return fmt::format("{:g} m", v);
        case Dim::EnergyPerFlop:
            return fmt::format("{:g} pJ/FLOP", v * 1e12);
        case Dim::Power:
            return fmt::format("{:g} W", v);
        case Dim::Throughput:
            return fmt::format("{:g} GFLOPS", v * 1e-9);
    }
    return fmt::format("{:g}", v);
}

}  // namespace

YamlReader::YamlReader(YAML::Node node, std::string file, std::string path, YAML::Mark mark,
                       std::shared_ptr<SourceMap> sources)
    : node_(std::move(node)),
      file_(std::move(file)),
      path_(std::move(path)),
      mark_(mark),
      sources_(std::move(sources)) {
    if (sources_) {
        const bool known = mark_.line >= 0 && mark_.column >= 0;
        sources_->record(path_, file_, known ? mark_.line + 1 : 0, known ? mark_.column + 1 : 0);
    }
}

YamlReader YamlReader::loadFile(const std::string& path, uint64_t max_bytes) {
    try {
        return loadString(noc::InputFile::read(path, max_bytes), path);
    } catch (const noc::InputFile::Error& e) {
        throw ConfigError(path, 0, 0, "", e.what());
    }
}

YamlReader YamlReader::loadString(const std::string& text, const std::string& name) {
    YAML::Node doc;
    DocumentStarts starts;
    try {
        doc = YAML::Load(text);  // the first document
        std::istringstream in(text);
        YAML::Parser parser(in);
        for (int i = 0; i < 2 && parser.HandleNextDocument(starts); ++i) {
        }
    } catch (const YAML::ParserException& e) {
        throw ConfigError::fromParser(name, e);
    } catch (const YAML::Exception& e) {
        throw ConfigError::atMark(name, e.mark, "", "invalid YAML: " + e.msg);
    }
    if (doc.IsNull())
        throw ConfigError(name, 1, 1, "",
                          "expected a map of configuration keys, got an empty "
                          "document");
    if (starts.starts.size() > 1)
        throw ConfigError::atMark(name, starts.starts[1], "",
                                  "expected a single YAML document, got a second one ('---' or "
                                  "text after the end of the first)");
    YamlReader root(doc, name, "", doc.Mark(), std::make_shared<SourceMap>());
    if (!root.isMap()) root.failHere("a map of configuration keys at the top level");
    return root;
}

std::string YamlReader::keyPath(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
}

void YamlReader::requireMap() const {
    if (!node_.IsMap()) failHere("a map");
}

std::optional<YamlReader::Entry> YamlReader::find(const std::string& key) const {
    requireMap();
    // Range-for on purpose: yaml-cpp's iterator operator-> trips GCC 12 -Wdangling-pointer.
    for (const auto& kv : node_)
        if (kv.first.IsScalar() && kv.first.Scalar() == key) return Entry{kv.first, kv.second};
    return std::nullopt;
}

YamlReader YamlReader::wrap(const std::string& key, const Entry& e) const {
    // A value from --set has no file position: its errors name the flag (hw/ConfigOverrides).
    if (const std::string* flag = overrideFlag(keyPath(key)))
        return YamlReader(e.value, *flag, keyPath(key), YAML::Mark::null_mark(), sources_);
    // yaml-cpp marks an empty value at the next token, often on a later line: point at the key.
    return YamlReader(e.value, file_, keyPath(key),
                      e.value.IsNull() ? e.key.Mark() : e.value.Mark(), sources_);
}

void YamlReader::recordDefault(const std::string& key, const std::string& text) const {
    if (sources_) sources_->recordDefault(keyPath(key), text);
}

const std::string* YamlReader::overrideFlag(const std::string& keyPath) const {
    return sources_ ? sources_->overrideFlag(keyPath) : nullptr;
}

YamlReader YamlReader::loadFile(const std::string& path, const ConfigOverrides& overrides) {
    YamlReader root = loadFile(path);
    overrides.applyTo(root);
    return root;
}

bool YamlReader::has(const std::string& key) const {
    return find(key).has_value();
}

std::optional<YamlReader> YamlReader::value(const std::string& key, bool hasDefault,
                                            const std::string& expected) const {
    const auto e = find(key);
    if (e) return wrap(key, *e);
    if (hasDefault) return std::nullopt;
    throw ConfigError::atMark(file_, mark_, keyPath(key),
                              "missing required key (expected " + expected + ")");
}

YamlReader YamlReader::entry(const std::string& key) const {
    return *value(key, false, "a value");
}

YamlReader YamlReader::child(const std::string& key) const {
    YamlReader c = *value(key, false, "a map");
    c.requireMap();
    return c;
}

std::optional<YamlReader> YamlReader::optionalChild(const std::string& key) const {
    auto c = value(key, true, "a map");
    if (c) c->requireMap();
    return c;
}

void YamlReader::checkKeys(std::initializer_list<std::string_view> allowed) const {
    std::string allowedList;
    for (std::string_view a : allowed)
        allowedList += (allowedList.empty() ? "" : ", ") + std::string(a);
    checkKeysImpl(allowed.begin(), allowed.end(), "expected one of: " + allowedList);
}

void YamlReader::checkKeys(const std::vector<std::string_view>& allowed,
                           const std::string& allowedWhat) const {
    checkKeysImpl(allowed.data(), allowed.data() + allowed.size(), "expected " + allowedWhat);
}

void YamlReader::checkKeysImpl(const std::string_view* begin, const std::string_view* end,
                               const std::string& allowedText) const {
    requireMap();
    std::vector<std::pair<std::string, YAML::Mark>> seen;
    for (const auto& kv : node_) {
        const YAML::Node& k = kv.first;
        if (!k.IsScalar())
            throw ConfigError::atMark(file_, k.Mark(), path_,
                                      "expected a plain key name, got a complex key");
        const std::string name = k.Scalar();
        for (const auto& [prev, mark] : seen)
            if (prev == name)
                throw ConfigError::atMark(
                    file_, k.Mark(), keyPath(name),
                    fmt::format("duplicate key (first given at line {})", mark.line + 1));
        seen.emplace_back(name, k.Mark());
        if (std::find(begin, end, name) != end) continue;
        // The closest allowed key within a quarter of its length (at least one edit).
        std::string hint;
        size_t best = std::numeric_limits<size_t>::max();
        for (const std::string_view* a = begin; a != end; ++a) {
            const size_t d = editDistance(*a, name);
            if (d <= std::max<size_t>(1, a->size() / 4) && d < best) {
                best = d;
                hint = fmt::format(" (did you mean '{}'?)", *a);
            }
        }
        if (const std::string* flag = overrideFlag(keyPath(name)))
            throw ConfigError(*flag, 0, 0, keyPath(name),
                              "unknown key" + hint + "; " + allowedText);
        throw ConfigError::atMark(file_, k.Mark(), keyPath(name),
                                  "unknown key" + hint + "; " + allowedText);
    }
}

std::vector<YamlReader> YamlReader::elements() const {
    if (!node_.IsSequence()) failHere("a sequence");
    std::vector<YamlReader> out;
    for (size_t i = 0; i < node_.size(); ++i) {
        const YAML::Node item = node_[i];
        out.emplace_back(item, file_, fmt::format("{}[{}]", path_, i),
                         item.IsNull() ? mark_ : item.Mark(), sources_);
    }
    return out;
}

std::string YamlReader::found() const {
    if (node_.IsMap()) return "a map";
    if (node_.IsSequence()) return "a sequence";
    if (!node_.IsScalar()) return "an empty value";
    if (node_.Tag() == "!") return "the quoted string \"" + node_.Scalar() + "\"";
    if (node_.Tag() == "tag:yaml.org,2002:str")
        return "the string \"" + node_.Scalar() + "\" (tagged !!str)";
    return "'" + node_.Scalar() + "'";
}

std::string YamlReader::scalar(const std::string& expected) const {
    if (!node_.IsScalar()) failHere(expected);
    return node_.Scalar();
}

std::string YamlReader::plainScalar(const std::string& expected) const {
    // A quoted scalar is a string in YAML; accepting "4" (or !!str 4) as 4 would hide a typing
    // mistake.
    if (!node_.IsScalar() || node_.Tag() == "!" || node_.Tag() == "tag:yaml.org,2002:str")
        failHere(expected);
    return node_.Scalar();
}

ConfigError YamlReader::errorHere(const std::string& message) const {
    return ConfigError::atMark(file_, mark_, path_, message);
}

ConfigError YamlReader::errorAt(const std::string& key, const std::string& message) const {
    const auto e = find(key);
    if (!e) return ConfigError::atMark(file_, mark_, keyPath(key), message);
    return wrap(key, *e).errorHere(message);
}

void YamlReader::failHere(const std::string& expected) const {
    throw errorHere("expected " + expected + ", got " + found());
}

void YamlReader::fail(const std::string& key, const std::string& expected) const {
    const auto e = find(key);
    if (!e) throw ConfigError::atMark(file_, mark_, keyPath(key), "expected " + expected);
    wrap(key, *e).failHere(expected);
}

uint32_t YamlReader::getUInt(const std::string& key, uint32_t min, uint32_t max,
                             std::optional<uint32_t> def) const {
    const auto v = value(key, def.has_value(), intRange(min, max, kMaxU32));
    if (!v) return defaulted(key, fmt::format("{}", *def), *def);
    const std::string text = v->plainScalar(intRange(min, max, kMaxU32));
    return static_cast<uint32_t>(parseUInt(*v, min, max, kMaxU32, text));
}

uint64_t YamlReader::getUInt64(const std::string& key, uint64_t min, uint64_t max,
                               std::optional<uint64_t> def) const {
    const auto v = value(key, def.has_value(), intRange(min, max, kMaxU64));
    if (!v) return defaulted(key, fmt::format("{}", *def), *def);
    return parseUInt(*v, min, max, kMaxU64, v->plainScalar(intRange(min, max, kMaxU64)));
}

double YamlReader::getDouble(const std::string& key, double min, double max,
                             std::optional<double> def) const {
    const std::string expected = fmt::format("a number between {:g} and {:g}", min, max);
    const auto v = value(key, def.has_value(), expected);
    if (!v) return defaulted(key, fmt::format("{:g}", *def), *def);
    const std::string text = v->plainScalar(expected);
    double x = 0.0;
    try {
        x = Units::parseNumber(text);
    } catch (const UnitError&) {
        v->failHere(expected);
    }
    if (x < min) v->failHere(fmt::format("a number >= {:g}", min));
    if (x > max) v->failHere(fmt::format("a number <= {:g}", max));
    return x;
}

bool YamlReader::getBool(const std::string& key, std::optional<bool> def) const {
    const std::string expected = "true or false";
    const auto v = value(key, def.has_value(), expected);
    if (!v) return defaulted(key, std::string(*def ? "true" : "false"), *def);
    const std::string text = v->plainScalar(expected);
    // YAML 1.2 core schema only: "yes"/"on"/"y" are YAML 1.1 surprises, not booleans here.
    if (text == "true" || text == "True" || text == "TRUE") return true;
    if (text == "false" || text == "False" || text == "FALSE") return false;
    v->failHere(expected);
}

std::string YamlReader::getString(const std::string& key, std::optional<std::string> def) const {
    const auto v = value(key, def.has_value(), "a string");
    if (!v) return defaulted(key, *def, *def);
    return v->scalar("a string");
}

std::string YamlReader::getEnum(const std::string& key, const std::vector<std::string>& allowed,
                                std::optional<std::string> def) const {
    std::string expected = "one of ";
    for (size_t i = 0; i < allowed.size(); ++i) expected += (i ? ", " : "") + allowed[i];
    const auto v = value(key, def.has_value(), expected);
    if (!v) return defaulted(key, *def, *def);
    const std::string text = v->scalar(expected);
    if (std::find(allowed.begin(), allowed.end(), text) == allowed.end()) v->failHere(expected);
    return text;
}

double YamlReader::getQuantity(const std::string& key, Dim dim, std::optional<double> def) const {
    const std::string expected = Units::describe(dim);
    const auto v = value(key, def.has_value(), expected);
    if (!v) return defaulted(key, defaultQuantity(*def, dim), *def);
    return convert(*v, expected, [dim](const std::string& t) { return Units::parse(t, dim); });
}

uint64_t YamlReader::getBytes(const std::string& key, uint64_t min, uint64_t max,
                              std::optional<uint64_t> def) const {
    const std::string expected = Units::describe(Dim::Size);
    const auto v = value(key, def.has_value(), expected);
    if (!v) return defaulted(key, fmt::format("{} B", *def), *def);
    const uint64_t bytes =
        convert(*v, expected, [](const std::string& t) { return Units::parseBytes(t); });
    if (bytes < min) v->failHere("a size >= " + formatBytes(min));
    if (bytes > max) v->failHere("a size <= " + formatBytes(max));
    return bytes;
}

uint32_t YamlReader::getCycles(const std::string& key, double clock_hz, uint32_t min, uint32_t max,
                               std::optional<uint32_t> def) const {
    const auto v = value(key, def.has_value(), cycleRange(min, max, kMaxU32));
    if (!v) return defaulted(key, fmt::format("{} cycles", *def), *def);
    const uint32_t c = convert(*v, cycleRange(min, max, kMaxU32), [clock_hz](const std::string& t) {
        return Units::toCycles(t, clock_hz);
    });
    if (c < min) v->failHere(cycleRange(min, kMaxU32, kMaxU32));
    if (c > max) v->failHere(fmt::format("a duration <= {} cycles", max));
    return c;
}

uint64_t YamlReader::getCycles64(const std::string& key, double clock_hz, uint64_t min,
                                 uint64_t max, std::optional<uint64_t> def) const {
    const auto v = value(key, def.has_value(), cycleRange(min, max, kMaxU64));
    if (!v) return defaulted(key, fmt::format("{} cycles", *def), *def);
    const uint64_t c = convert(*v, cycleRange(min, max, kMaxU64), [clock_hz](const std::string& t) {
        return Units::toCycles64(t, clock_hz);
    });
    if (c < min) v->failHere(cycleRange(min, kMaxU64, kMaxU64));
    if (c > max) v->failHere(fmt::format("a duration <= {} cycles", max));
    return c;
}

uint32_t YamlReader::getFlits(const std::string& key, uint32_t flit_bytes, uint32_t min,
                              uint32_t max, std::optional<uint32_t> def) const {
    const std::string expected = flitRange(min, max, kMaxU32) + " ('8 flits' or a size in bytes)";
    const auto v = value(key, def.has_value(), expected);
    if (!v) return defaulted(key, fmt::format("{} flits", *def), *def);
    const uint32_t n = convert(*v, expected, [flit_bytes](const std::string& t) {
        return Units::parseFlitsOrBytes(t, flit_bytes);
    });
    if (n < min) v->failHere(flitRange(min, kMaxU32, kMaxU32));
    if (n > max) v->failHere(fmt::format("at most {} flits", max));
    return n;
}

}  // namespace wsc::hw
