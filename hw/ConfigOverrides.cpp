#include "hw/ConfigOverrides.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include "hw/ConfigError.h"
#include "hw/YamlReader.h"

namespace wsc::hw {

namespace {

bool validKey(const std::string& k) {
    if (k.empty()) return false;
    for (char c : k)
        if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
    return true;
}

std::string join(const std::vector<std::string>& path, size_t n) {
    std::string out;
    for (size_t i = 0; i < n; ++i) out += (i ? "." : "") + path[i];
    return out;
}

bool startsWith(const std::vector<std::string>& path, const std::vector<std::string>& prefix) {
    if (path.size() <= prefix.size()) return false;
    for (size_t i = 0; i < prefix.size(); ++i)
        if (path[i] != prefix[i]) return false;
    return true;
}

std::vector<std::string> split(const std::string& dotted) {
    std::vector<std::string> out;
    size_t start = 0;
    for (;;) {
        const size_t dot = dotted.find('.', start);
        out.push_back(dotted.substr(start, dot == std::string::npos ? dotted.npos : dot - start));
        if (dot == std::string::npos) return out;
        start = dot + 1;
    }
}

}  // namespace

ConfigOverrides::ConfigOverrides(const std::vector<std::string>& assignments) {
    for (const std::string& a : assignments) {
        const std::string flag = "--set " + a;
        const size_t eq = a.find('=');
        if (eq == std::string::npos)
            throw ConfigError(flag, 0, 0, "",
                              "expected KEY.PATH=VALUE (e.g. noc.router.pipeline=2), got no '='");
        Entry e{split(a.substr(0, eq)), a.substr(eq + 1), flag};
        for (const std::string& k : e.path)
            if (!validKey(k))
                throw ConfigError(flag, 0, 0, "",
                                  fmt::format("expected a key path of map keys separated by '.' "
                                              "(letters, digits, '_', '-'), got '{}'",
                                              a.substr(0, eq)));
        if (e.value.empty())
            throw ConfigError(flag, 0, 0, join(e.path, e.path.size()),
                              "expected a value after '=', got an empty value");
        entries_.push_back(std::move(e));
    }
}

ConfigOverrides ConfigOverrides::under(const std::string& prefix) const {
    const std::vector<std::string> p = split(prefix);
    ConfigOverrides out;
    for (const Entry& e : entries_)
        if (startsWith(e.path, p))
            out.entries_.push_back(
                {std::vector<std::string>(e.path.begin() + long(p.size()), e.path.end()), e.value,
                 e.flag});
    return out;
}

ConfigOverrides ConfigOverrides::outside(const std::string& prefix) const {
    const std::vector<std::string> p = split(prefix);
    ConfigOverrides out;
    for (const Entry& e : entries_)
        if (!startsWith(e.path, p)) out.entries_.push_back(e);
    return out;
}

void ConfigOverrides::applyTo(const YamlReader& root) const {
    for (const Entry& e : entries_) {
        YAML::Node value;
        try {
            value = YAML::Load(e.value);
        } catch (const YAML::Exception& x) {
            throw ConfigError(e.flag, 0, 0, join(e.path, e.path.size()),
                              "expected a YAML value, got '" + e.value + "' (" + x.msg + ")");
        }
        YAML::Node map = root.node();  // a handle on the document: writes go into it
        for (size_t i = 0; i + 1 < e.path.size(); ++i) {
            YAML::Node next;
            for (const auto& kv : map)
                if (kv.first.IsScalar() && kv.first.Scalar() == e.path[i]) next.reset(kv.second);
            if (!next.IsDefined() || next.IsNull()) {
                map[e.path[i]] = YAML::Node(YAML::NodeType::Map);
                next.reset(map[e.path[i]]);
                // A map the file did not have: an unknown key there is the flag's mistake.
                if (root.sources()) root.sources()->markOverride(join(e.path, i + 1), e.flag);
            } else if (!next.IsMap()) {
                throw ConfigError(e.flag, 0, 0, join(e.path, e.path.size()),
                                  fmt::format("expected a key inside a map, but '{}' in {} is "
                                              "not a map",
                                              join(e.path, i + 1), root.file()));
            }
            map.reset(next);
        }
        map[e.path.back()] = value;
        if (root.sources()) root.sources()->markOverride(join(e.path, e.path.size()), e.flag);
    }
}

}  // namespace wsc::hw
