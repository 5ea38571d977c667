#include "hw/ResolvedConfig.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <set>
#include <sstream>

#include "hw/HardwareLoader.h"
#include "hw/ScenarioLoader.h"
#include "hw/YamlReader.h"

namespace wsc::hw {

namespace {

// "a.b[2].c" -> {"a", "b", "[2]", "c"}
std::vector<std::string> segments(const std::string& path) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : path) {
        if (c == '.' || c == '[') {
            if (!cur.empty()) out.push_back(cur);
            cur = c == '[' ? "[" : "";
        } else {
            cur += c;
        }
    }
    if (!cur.empty()) out.push_back(cur);
    return out;
}

// Writes `text` at `path` into `doc` unless something is there already; false if the path
// crosses a scalar or a missing sequence element.
bool insertDefault(YAML::Node doc, const std::string& path, const std::string& text) {
    const std::vector<std::string> seg = segments(path);
    YAML::Node n = doc;
    for (size_t i = 0; i < seg.size(); ++i) {
        const bool last = i + 1 == seg.size();
        YAML::Node next;
        if (seg[i][0] == '[') {
            const size_t k = std::stoul(seg[i].substr(1, seg[i].size() - 2));
            if (!n.IsSequence() || k >= n.size()) return false;
            next.reset(n[k]);
        } else {
            if (n.IsNull()) n = YAML::Node(YAML::NodeType::Map);
            if (!n.IsMap()) return false;
            bool found = false;
            for (const auto& kv : n)
                if (kv.first.Scalar() == seg[i]) next.reset(kv.second), found = true;
            if (!found) {
                if (last) {
                    n[seg[i]] = text;
                    return true;
                }
                n[seg[i]] = YAML::Node(YAML::NodeType::Map);
                next.reset(n[seg[i]]);
            }
        }
        if (last) return false;  // the document gives it
        n.reset(next);
    }
    return false;
}

std::string scalarText(const YAML::Node& n) {
    YAML::Emitter e;
    e << n;
    return e.c_str();
}

void emit(std::ostringstream& os, const YAML::Node& n, const std::string& path, int indent,
          const std::set<std::string>& defaults) {
    const std::string pad(size_t(indent), ' ');
    auto childPath = [&](const std::string& k) { return path.empty() ? k : path + "." + k; };
    for (const auto& kv : n) {
        const std::string key = kv.first.Scalar();
        const YAML::Node& v = kv.second;
        const std::string p = childPath(key);
        if (v.IsMap() && v.size() > 0) {
            os << pad << key << ":\n";
            emit(os, v, p, indent + 2, defaults);
        } else if (v.IsSequence() && v.size() > 0) {
            bool scalars = true;
            for (const auto& e : v) scalars &= e.IsScalar();
            if (scalars) {
                YAML::Emitter e;
                e << YAML::Flow << v;
                os << pad << key << ": " << e.c_str() << "\n";
            } else {
                os << pad << key << ":\n";
                for (size_t i = 0; i < v.size(); ++i) {
                    os << pad << "  -\n";
                    emit(os, v[i], fmt::format("{}[{}]", p, i), indent + 4, defaults);
                }
            }
        } else {
            os << pad << key << ": " << scalarText(v) << (defaults.count(p) ? "  # default" : "")
               << "\n";
        }
    }
}

}  // namespace

std::string ResolvedConfig::print(const std::string& path, const ConfigOverrides& ov) {
    // Errors with their true positions first, exactly as a run loads the file.
    const YamlReader check = YamlReader::loadFile(path);
    if (check.has("scenario"))
        ScenarioLoader::load(check, ov);
    else {
        ov.applyTo(check);
        HardwareLoader::load(check);
    }
    // Then the document to print: overrides applied, an included hardware file inlined, loaded
    // again so the loaders record the defaults of every key path in one document.
    const YamlReader root = YamlReader::loadFile(path);
    if (root.has("scenario")) {
        ov.outside("scenario.hardware").applyTo(root);
        if (const auto hp = ScenarioLoader::hardwareFile(root)) {
            const YamlReader hw = YamlReader::loadFile(*hp, ov.under("scenario.hardware"));
            YAML::Node sc = root.node()["scenario"];
            sc["hardware"] = hw.node();
        } else {
            ov.applyTo(root);
        }
        ScenarioLoader::load(root);
    } else {
        ov.applyTo(root);
        HardwareLoader::load(root);
    }
    YAML::Node doc = YAML::Clone(root.node());
    std::set<std::string> marked;
    for (const auto& [k, text] : root.sources()->defaults())
        if (insertDefault(doc, k, text)) marked.insert(k);
    std::ostringstream os;
    os << "# " << path << " resolved";
    for (const auto& e : ov.entries()) os << ", " << e.flag;
    os << " (docs/CONFIG.md; '# default': not in the file, the loader's default)\n";
    emit(os, doc, "", 0, marked);
    return os.str();
}

}  // namespace wsc::hw
