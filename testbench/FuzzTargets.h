#pragma once
// The fuzz targets of the input formats (issue 13; docs/RELIABILITY.md): each takes one input
// the way the CLI would and checks the contract for bad input: it is accepted, or refused with
// the format's located error (a hw::ConfigError with file, line and key; a firmware ParseError
// with its line). Anything else — another exception (which the CLI would turn into exit 1 or an
// unlocated message), a crash, a sanitizer report, a hang — is a finding. A target throws
// ContractViolation for a finding it can see itself; testbench/fuzz/ wraps each in
// LLVMFuzzerTestOneInput, which aborts on it so that libFuzzer (or the replay driver) reports
// the input.
#include <cstdint>
#include <stdexcept>
#include <string>

namespace wsc::tb {

class ContractViolation : public std::logic_error {
  public:
    using std::logic_error::logic_error;
};

class FuzzTargets {
  public:
    // A hardware or scenario YAML, as `wsc validate` takes it: loaded, then every check a run
    // makes (tb::Preflight) under a memory budget of kBudgetBytes, so that a config too large
    // for the fuzzing machine is refused by the estimate instead of built.
    static void yamlConfig(const std::string& text);
    // Firmware text (firmware::ProgramText): parsed and validated; accepted text must dump to a
    // canonical form that parses back to the same dump.
    static void firmwareText(const std::string& text);
    // A HuggingFace config.json (hw::ModelConfigLoader): loaded; an accepted model must expand
    // into its layer graph (what `wsc validate` prints) without error.
    static void modelConfig(const std::string& text);

    static constexpr uint64_t kBudgetBytes = uint64_t{256} << 20;
};

}  // namespace wsc::tb
