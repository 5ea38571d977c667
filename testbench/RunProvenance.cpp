#include "testbench/RunProvenance.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <ctime>
#include <filesystem>
#include <fstream>
#include <stdexcept>

#include "hw/ConfigOverrides.h"
#include "hw/YamlReader.h"
#include "testbench/BuildInfo.h"
#include "testbench/HugePageHeap.h"
#include "testbench/NaturalKeyOrder.h"

namespace wsc::tb {

RunProvenance::RunProvenance(int argc, char** argv) : t0_(std::chrono::steady_clock::now()) {
    for (int i = 0; i < argc; ++i) command_line_ += (i ? " " : "") + shellQuote(argv[i]);
    std::error_code ec;
    cwd_ = std::filesystem::current_path(ec).string();
    const std::time_t now = std::time(nullptr);
    std::tm utc{};
    gmtime_r(&now, &utc);
    char buf[32];
    std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &utc);
    start_utc_ = buf;
}

void RunProvenance::addConfigFile(const std::string& path, const hw::ConfigOverrides& ov) {
    const hw::YamlReader root = hw::YamlReader::loadFile(path, ov);
    configs_[path] = YAML::Dump(root.node()) + "\n";
}

void RunProvenance::addConfigText(const std::string& name, const std::string& yaml,
                                  const hw::ConfigOverrides& ov) {
    const hw::YamlReader root = hw::YamlReader::loadString(yaml, name);
    ov.applyTo(root);
    configs_[name] = YAML::Dump(root.node()) + "\n";
}

nlohmann::json RunProvenance::header() const {
    nlohmann::json h;
    h["wsc_version"] = BuildInfo::version();
    h["git_describe"] = BuildInfo::gitDescribe();
    h["command_line"] = command_line_;
    h["working_directory"] = cwd_;
    h["start_time_utc"] = start_utc_;
    h["wall_seconds"] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
    h["heap_huge_pages"] = HugePageHeap::active();
    h["config_files"] = configs_;
    h["overrides"] = overrides_;
    for (const auto& [k, v] : notes_.items()) h[k] = v;
    return h;
}

void RunProvenance::writeStats(const std::string& path, nlohmann::json stats) const {
    stats["header"] = header();
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    // Natural key order (ni2 before ni10), the header first.
    NaturalKeyOrder::write(f, stats, "header");
    f << "\n";
    if (!f) throw std::runtime_error("cannot write " + path);
}

std::string RunProvenance::shellQuote(const std::string& s) {
    if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                          "0123456789-_=+./,:@%") == std::string::npos)
        return s;
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

}  // namespace wsc::tb
