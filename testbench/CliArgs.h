#pragma once
// Strict command-line values for every wsc subcommand (docs/ARCHITECTURE.md, "Input hardening").
// New subcommands declare their numeric flags with addUInt/addDouble and check their outputs and
// unused flags with checkOutput/rejectUnused, so every flag gets the same contract:
//   - integers are decimal digits only: no sign, no spaces, no "0x", no trailing characters
//     ("4x", "4,", "-1" and "1e3" are refused), and must lie in the flag's [min, max];
//   - numbers are finite decimals or scientific ("0.3", "1e-3"): NaN, inf and trailing
//     characters are refused, and so are values outside [min, max];
//   - lists are comma-separated, each element as above, no empty element;
//   - an output path is checked before simulating: it must not be an input of the run, a
//     directory, or a file that cannot be created or written;
//   - a flag the chosen mode does not use is an error, not silently ignored.
// Every error is a UsageError naming the flag and what was expected; `wsc` exits 2 on it.
#include <CLI/CLI.hpp>
#include <cstdint>
#include <initializer_list>
#include <limits>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace wsc::tb {

// A bad flag value, flags that do not fit the mode, an unusable output path: exit code 2.
class UsageError : public std::runtime_error {
  public:
    using std::runtime_error::runtime_error;
};

class CliArgs {
  public:
    static uint64_t parseUInt(const std::string& text, const std::string& flag, uint64_t min,
                              uint64_t max);
    // With min_exclusive the range is (min, max].
    static double parseDouble(const std::string& text, const std::string& flag, double min,
                              double max, bool min_exclusive = false);
    // A size: "8 GB", "512MB", "64 KiB" (hw::Units, binary multiples) or a plain byte count.
    static uint64_t parseBytes(const std::string& text, const std::string& flag);
    // The non-empty elements of a `sep`-separated list (an empty list or element is refused).
    static std::vector<std::string> parseStrings(const std::string& text, const std::string& flag,
                                                 char sep = ',');
    static std::vector<uint64_t> parseUIntList(const std::string& text, const std::string& flag,
                                               uint64_t min, uint64_t max, char sep = ',');
    static std::vector<double> parseDoubleList(const std::string& text, const std::string& flag,
                                               double min, double max, bool min_exclusive = false,
                                               char sep = ',');

    // Options parsed strictly while CLI11 reads the command line: a bad value ends the parse
    // with a CLI::ValidationError naming the flag (exit 2). `target` keeps its value when the
    // flag is absent; app->count(name) tells whether it was given.
    template <typename T>
    static CLI::Option* addUInt(CLI::App* app, const std::string& name, T& target, uint64_t min,
                                uint64_t max, const std::string& help) {
        static_assert(std::is_unsigned_v<T>);
        const uint64_t hi = std::min<uint64_t>(max, std::numeric_limits<T>::max());
        const std::string flag = name;
        return app
            ->add_option_function<std::string>(
                name,
                [&target, flag, min, hi](const std::string& v) {
                    target = static_cast<T>(validated([&] { return parseUInt(v, flag, min, hi); }));
                },
                help)
            ->type_name(min == 0 && hi == std::numeric_limits<T>::max() ? "UINT" : "INT");
    }
    static CLI::Option* addBytes(CLI::App* app, const std::string& name, uint64_t& target,
                                 const std::string& help);
    static CLI::Option* addDouble(CLI::App* app, const std::string& name, double& target,
                                  double min, double max, const std::string& help,
                                  bool min_exclusive = false);
    // --set KEY.PATH=VALUE, repeatable: config overrides (hw/ConfigOverrides); `root` says what
    // the key paths start from ("the hardware file", "the scenario or hardware file").
    static CLI::Option* addSet(CLI::App* app, std::vector<std::string>& target,
                               const std::string& root);

    // Refuses an output path before the run: equal to one of `inputs` (the same file, through
    // links too), a directory, a path whose directory does not exist, or a file that cannot be
    // opened for writing. Creates nothing that stays: a probe file is removed again.
    static void checkOutput(const std::string& path, const std::string& flag,
                            const std::vector<std::string>& inputs);

    // checkOutput for each (flag, path) with a path, and no two of them the same file.
    static void checkOutputs(const std::vector<std::pair<std::string, std::string>>& flag_paths,
                             const std::vector<std::string>& inputs);

    // Throws UsageError for the first of `flags` given on `app`: "--vcd is not used by <mode>".
    static void rejectUnused(const CLI::App* app, std::initializer_list<const char*> flags,
                             const std::string& mode);

  private:
    // Runs a parse and turns its UsageError into the CLI::ValidationError CLI11 expects.
    template <typename Fn>
    static auto validated(Fn fn) {
        try {
            return fn();
        } catch (const UsageError& e) {
            throw CLI::ValidationError(e.what());
        }
    }
};

}  // namespace wsc::tb
