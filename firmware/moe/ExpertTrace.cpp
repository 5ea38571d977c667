#include "firmware/moe/ExpertTrace.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <tuple>

#include "firmware/moe/TraceError.h"
#include "noc/InputFile.h"

namespace wsc::firmware::moe {

namespace {

constexpr const char* kFormat = "wsc-moe-trace";

// One parsed value of a flat JSON object: a number token, a string or an array of number tokens
// (anything else is refused by the parser). Columns are 1-based.
struct Value {
    enum class Kind { Number, String, Array } kind = Kind::Number;
    std::string raw;  // the value's text as written, for "got ..."
    int column = 0;
    std::string text;                                // String: contents
    std::vector<std::pair<std::string, int>> items;  // Array: number tokens and columns
};

class LineParser {
  public:
    LineParser(const std::string& file, int line, const std::string& s)
        : file_(file), line_(line), s_(s) {}

    // key -> value, in order of appearance; throws TraceError.
    std::vector<std::pair<std::string, Value>> object(std::vector<int>& keyColumns) {
        std::vector<std::pair<std::string, Value>> out;
        skip();
        if (peek() != '{') fail("", "expected a JSON object ('{'), got " + got());
        ++p_;
        skip();
        if (peek() == '}') {
            ++p_;
        } else {
            for (;;) {
                skip();
                const int kc = col();
                if (peek() != '"') fail("", "expected a key in double quotes, got " + got());
                const std::string key = string();
                for (const auto& kv : out)
                    if (kv.first == key) failAt(kc, key, "appears twice in one line");
                skip();
                if (peek() != ':') fail(key, "expected ':' after the key, got " + got());
                ++p_;
                skip();
                out.emplace_back(key, value(key));
                keyColumns.push_back(kc);
                skip();
                if (peek() == ',') {
                    ++p_;
                    continue;
                }
                if (peek() == '}') {
                    ++p_;
                    break;
                }
                fail(key, "expected ',' or '}' after the value, got " + got());
            }
        }
        skip();
        if (p_ < s_.size()) fail("", "expected the end of the line after the object, got " + got());
        return out;
    }

    [[noreturn]] void failAt(int column, const std::string& key, const std::string& msg) const {
        throw TraceError(file_, line_, column, key, msg);
    }

  private:
    char peek() const { return p_ < s_.size() ? s_[p_] : '\0'; }
    int col() const { return int(p_) + 1; }
    void skip() {
        while (p_ < s_.size() && (s_[p_] == ' ' || s_[p_] == '\t' || s_[p_] == '\r')) ++p_;
    }
    std::string got() const {
        if (p_ >= s_.size()) return "the end of the line";
        std::string t = s_.substr(p_, 16);
        return "'" + t + (p_ + 16 < s_.size() ? "...'" : "'");
    }
    [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
        throw TraceError(file_, line_, col(), key, msg);
    }
    std::string string() {
        ++p_;  // opening quote
        std::string out;
        while (p_ < s_.size() && s_[p_] != '"') {
            if (s_[p_] == '\\') fail("", "escapes are not used by this format; got " + got());
            out += s_[p_++];
        }
        if (p_ >= s_.size()) fail("", "expected a closing '\"', got the end of the line");
        ++p_;
        return out;
    }
    std::string token() {
        const size_t b = p_;
        while (p_ < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[p_])) ||
                                  s_[p_] == '-' || s_[p_] == '+' || s_[p_] == '.'))
            ++p_;
        return s_.substr(b, p_ - b);
    }
    Value value(const std::string& key) {
        Value v;
        v.column = col();
        const size_t b = p_;
        if (peek() == '"') {
            v.kind = Value::Kind::String;
            v.text = string();
        } else if (peek() == '[') {
            v.kind = Value::Kind::Array;
            ++p_;
            skip();
            if (peek() == ']') {
                ++p_;
            } else {
                for (;;) {
                    skip();
                    const int c = col();
                    const std::string t = token();
                    if (t.empty())
                        fail(key, "expected an array of non-negative integers, got " + got());
                    v.items.emplace_back(t, c);
                    skip();
                    if (peek() == ',') {
                        ++p_;
                        continue;
                    }
                    if (peek() == ']') {
                        ++p_;
                        break;
                    }
                    fail(key, "expected ',' or ']' in the array, got " + got());
                }
            }
        } else {
            v.kind = Value::Kind::Number;
            const std::string t = token();
            if (t.empty())
                fail(key, "expected a value (an integer, a string or an array), got " + got());
        }
        v.raw = s_.substr(b, p_ - b);
        return v;
    }

    const std::string& file_;
    int line_;
    const std::string& s_;
    size_t p_ = 0;
};

// A non-negative decimal integer that fits 32 bits, or nullopt.
std::optional<uint32_t> integer(const std::string& t) {
    if (t.empty() || t.size() > 10) return std::nullopt;
    if (t.size() > 1 && t[0] == '0') return std::nullopt;
    uint64_t v = 0;
    for (char c : t) {
        if (c < '0' || c > '9') return std::nullopt;
        v = v * 10 + uint64_t(c - '0');
    }
    if (v > 0xffffffffULL) return std::nullopt;
    return uint32_t(v);
}

struct Fields {
    const std::vector<std::pair<std::string, Value>>& kv;
    const std::vector<int>& cols;
    LineParser& p;

    const Value& need(const std::string& key) const {
        for (const auto& e : kv)
            if (e.first == key) return e.second;
        p.failAt(0, key, "missing (every line of this kind needs it)");
    }
    void onlyKeys(std::initializer_list<const char*> keys, const char* what) const {
        for (size_t i = 0; i < kv.size(); ++i) {
            bool known = false;
            std::string list;
            for (const char* k : keys) {
                known |= kv[i].first == k;
                list += std::string(list.empty() ? "" : ", ") + k;
            }
            if (!known)
                p.failAt(cols[i], kv[i].first,
                         fmt::format("unknown in a {} line (expected {})", what, list));
        }
    }
    uint32_t uint(const std::string& key, uint32_t min = 0) const {
        const Value& v = need(key);
        const auto n = v.kind == Value::Kind::Number ? integer(v.raw) : std::nullopt;
        if (!n || *n < min)
            p.failAt(
                v.column, key,
                fmt::format("expected an integer >= {} (no sign, fraction or exponent), got {}",
                            min, v.raw));
        return *n;
    }
};

}  // namespace

ExpertTrace::ExpertTrace(const TraceHeader& h) : h_(h) {
    if (!h.experts || !h.topK || !h.layers || !h.tokens || h.topK > h.experts)
        throw std::invalid_argument(
            fmt::format("expert trace: header needs experts, top_k, layers, tokens >= 1 and top_k "
                        "<= experts; got "
                        "experts {}, top_k {}, layers {}, tokens {}",
                        h.experts, h.topK, h.layers, h.tokens));
}

std::pair<std::string, std::string> ExpertTrace::check(const TraceRecord& r) const {
    if (r.layer >= h_.layers)
        return {"layer", fmt::format("expected a layer < {} (the header's layers), got {}",
                                     h_.layers, r.layer)};
    if (r.token >= h_.tokens)
        return {"token", fmt::format("expected a token < {} (the header's tokens), got {}",
                                     h_.tokens, r.token)};
    std::vector<uint32_t> e = r.experts;
    std::sort(e.begin(), e.end());
    const bool distinct = std::adjacent_find(e.begin(), e.end()) == e.end();
    if (r.experts.size() != h_.topK || !distinct || (!e.empty() && e.back() >= h_.experts))
        return {"experts",
                fmt::format(
                    "expected {} distinct expert ids < {} (the header's top_k, experts), got [{}]",
                    h_.topK, h_.experts, fmt::join(r.experts, ", "))};
    if (!records_.empty()) {
        const TraceRecord& b = records_.back();
        if (std::tie(r.iter, r.layer, r.token) <= std::tie(b.iter, b.layer, b.token))
            return {
                "",
                fmt::format(
                    "expected records in increasing (iter, layer, token) order, got ({}, {}, {}) "
                    "after ({}, {}, {})",
                    r.iter, r.layer, r.token, b.iter, b.layer, b.token)};
    }
    return {"", ""};
}

void ExpertTrace::add(TraceRecord r) {
    const auto [key, why] = check(r);
    if (!why.empty())
        throw std::invalid_argument("expert trace: " + (key.empty() ? "" : "key '" + key + "': ") +
                                    why);
    records_.push_back(std::move(r));
}

uint32_t ExpertTrace::iterations() const {
    return records_.empty() ? 0 : records_.back().iter + 1;
}

ExpertTrace ExpertTrace::fromModel(const GatingModel& model, uint32_t iterations) {
    const GatingConfig& c = model.config();
    ExpertTrace t({c.experts, c.topK, c.layers, c.tokens});
    for (uint32_t it = 0; it < iterations; ++it)
        for (uint32_t l = 0; l < c.layers; ++l) {
            const auto sel = model.selectLayer(it, l);
            for (uint32_t tok = 0; tok < c.tokens; ++tok) t.add({it, l, tok, sel[tok]});
        }
    return t;
}

void ExpertTrace::write(std::ostream& os) const {
    os << fmt::format(
        "{{\"format\":\"{}\",\"version\":1,\"experts\":{},\"top_k\":{},\"layers\":{},\"tokens\":{}}"
        "}\n",
        kFormat, h_.experts, h_.topK, h_.layers, h_.tokens);
    for (const TraceRecord& r : records_)
        os << fmt::format("{{\"iter\":{},\"layer\":{},\"token\":{},\"experts\":[{}]}}\n", r.iter,
                          r.layer, r.token, fmt::join(r.experts, ","));
}

void ExpertTrace::writeFile(const std::string& path) const {
    std::ofstream os(path);
    if (!os) throw TraceError(path, 0, 0, "", std::string("cannot write: ") + std::strerror(errno));
    write(os);
    if (!os) throw TraceError(path, 0, 0, "", "write failed");
}

ExpertTrace ExpertTrace::read(std::istream& is, const std::string& name) {
    std::string s;
    int line = 0;
    std::optional<ExpertTrace> t;
    while (std::getline(is, s)) {
        ++line;
        LineParser p(name, line, s);
        std::vector<int> cols;
        const auto kv = p.object(cols);
        const Fields f{kv, cols, p};
        if (!t) {
            f.onlyKeys({"format", "version", "experts", "top_k", "layers", "tokens"}, "header");
            const Value& fmtv = f.need("format");
            if (fmtv.kind != Value::Kind::String || fmtv.text != kFormat)
                p.failAt(fmtv.column, "format",
                         fmt::format("expected \"{}\" (the first line is the header), got {}",
                                     kFormat, fmtv.raw));
            const uint32_t version = f.uint("version");
            if (version != 1)
                p.failAt(f.need("version").column, "version",
                         fmt::format("expected 1, got {}", version));
            TraceHeader h;
            h.experts = f.uint("experts", 1);
            h.topK = f.uint("top_k", 1);
            if (h.topK > h.experts)
                p.failAt(
                    f.need("top_k").column, "top_k",
                    fmt::format("expected at most the experts ({}), got {}", h.experts, h.topK));
            h.layers = f.uint("layers", 1);
            h.tokens = f.uint("tokens", 1);
            t.emplace(h);
            continue;
        }
        f.onlyKeys({"iter", "layer", "token", "experts"}, "record");
        TraceRecord r;
        r.iter = f.uint("iter");
        r.layer = f.uint("layer");
        r.token = f.uint("token");
        const Value& ev = f.need("experts");
        if (ev.kind != Value::Kind::Array)
            p.failAt(ev.column, "experts",
                     fmt::format("expected an array of {} expert ids, got {}", t->header().topK,
                                 ev.raw));
        for (const auto& [tok, c] : ev.items) {
            const auto n = integer(tok);
            if (!n)
                p.failAt(c, "experts",
                         fmt::format(
                             "expected expert ids (integers >= 0 without sign or fraction), got {}",
                             tok));
            r.experts.push_back(*n);
        }
        const auto [key, why] = t->check(r);
        if (!why.empty()) {
            int c = 1;
            for (size_t i = 0; i < kv.size(); ++i)
                if (kv[i].first == key) c = kv[i].second.column;
            p.failAt(c, key, why);
        }
        t->records_.push_back(std::move(r));
    }
    if (!t) throw TraceError(name, 0, 0, "", "expected a header line, got an empty file");
    return std::move(*t);
}

ExpertTrace ExpertTrace::readFile(const std::string& path, uint64_t max_bytes) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec))
        throw TraceError(path, 0, 0, "",
                         "cannot read: not a regular file (missing, a directory or a device)");
    std::string text;
    try {
        text = noc::InputFile::read(path, max_bytes);
    } catch (const noc::InputFile::Error& e) {
        throw TraceError(path, 0, 0, "", std::string("cannot read: ") + e.what());
    }
    std::istringstream is(text);
    return read(is, path);
}

std::vector<double> ExpertTrace::expertLoad(uint32_t layer, uint32_t first, uint32_t last) const {
    std::vector<double> load(h_.experts, 0.0);
    for (const TraceRecord& r : records_)
        if (r.layer == layer && r.iter >= first && r.iter <= last)
            for (uint32_t e : r.experts) load[e] += 1.0;
    return load;
}

std::vector<std::vector<uint32_t>> ExpertTrace::selections(uint32_t iter, uint32_t layer) const {
    std::vector<std::vector<uint32_t>> out(h_.tokens);
    for (const TraceRecord& r : records_)
        if (r.iter == iter && r.layer == layer) out[r.token] = r.experts;
    return out;
}

}  // namespace wsc::firmware::moe
