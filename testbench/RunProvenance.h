#pragma once
// What produced a --stats file (docs/STATS.md, "header"): the wsc version and git describe, the
// command line as typed, the working directory, start time (UTC) and wall time, the config files
// as the run resolved them (YAML after --set) and the overrides, plus what each subcommand adds
// (seed, workload). One object per process, made in main and handed to every stats writer, which
// writes through writeStats so every file carries the same header.
#include <chrono>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace wsc::hw {
class ConfigOverrides;
}

namespace wsc::tb {

class RunProvenance {
  public:
    RunProvenance() : RunProvenance(0, nullptr) {}
    RunProvenance(int argc, char** argv);

    // A config file the run read, resolved: the YAML document after `overrides`, re-emitted
    // (keys in file order, comments dropped). Reading it again cannot fail where the run did not.
    void addConfigFile(const std::string& path, const hw::ConfigOverrides& overrides);
    // A config that is not a file (the embedded default scenario), from its text.
    void addConfigText(const std::string& name, const std::string& yaml,
                       const hw::ConfigOverrides& overrides);
    void setOverrides(const std::vector<std::string>& assignments) { overrides_ = assignments; }
    // Subcommand facts ("seed", "workload", ...) for the header.
    void note(const std::string& key, nlohmann::json value) { notes_[key] = std::move(value); }

    const std::string& commandLine() const { return command_line_; }
    // The header as of now (wall_seconds since construction).
    nlohmann::json header() const;
    // Writes `stats` with "header" set to header(); throws std::runtime_error if it cannot.
    void writeStats(const std::string& path, nlohmann::json stats) const;

    // POSIX shell quoting of one argument (as a user would retype it).
    static std::string shellQuote(const std::string& arg);

  private:
    std::string command_line_;
    std::string cwd_;
    std::string start_utc_;
    std::chrono::steady_clock::time_point t0_;
    nlohmann::json configs_ = nlohmann::json::object();
    std::vector<std::string> overrides_;
    nlohmann::json notes_ = nlohmann::json::object();
};

}  // namespace wsc::tb
