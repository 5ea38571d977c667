#include "testbench/CliArgs.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <sstream>

#include "hw/UnitError.h"
#include "hw/Units.h"

namespace wsc::tb {

namespace {

std::string intRange(uint64_t min, uint64_t max) {
    if (max == std::numeric_limits<uint64_t>::max())
        return fmt::format("an integer >= {} (decimal digits only)", min);
    return fmt::format("an integer in [{}, {}] (decimal digits only)", min, max);
}

std::vector<std::string> split(const std::string& text, char sep) {
    std::vector<std::string> out;
    std::string item;
    std::stringstream ss(text);
    while (std::getline(ss, item, sep)) out.push_back(item);
    // getline drops a trailing empty element ("1,2,"): keep it so it is refused.
    if (!text.empty() && text.back() == sep) out.emplace_back();
    return out;
}

}  // namespace

uint64_t CliArgs::parseUInt(const std::string& text, const std::string& flag, uint64_t min,
                            uint64_t max) {
    const std::string expected = intRange(min, max);
    const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string::npos;
    uint64_t v = 0;
    if (digits) {
        const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
        if (ec == std::errc::result_out_of_range)
            throw UsageError(
                fmt::format("{}: expected {}, got '{}' (too large)", flag, expected, text));
        if (ec != std::errc() || end != text.data() + text.size())
            throw UsageError(fmt::format("{}: expected {}, got '{}'", flag, expected, text));
    } else {
        throw UsageError(fmt::format("{}: expected {}, got '{}'", flag, expected, text));
    }
    if (v < min || v > max)
        throw UsageError(fmt::format("{}: expected {}, got {}", flag, expected, text));
    return v;
}

double CliArgs::parseDouble(const std::string& text, const std::string& flag, double min,
                            double max, bool min_exclusive) {
    const std::string expected =
        fmt::format("a number in {}{:g}, {:g}]", min_exclusive ? "(" : "[", min, max);
    // strtod accepts "nan", "inf", hex floats and leading spaces: allow only the decimal form.
    const bool chars =
        !text.empty() && text.find_first_not_of("0123456789.eE+-") == std::string::npos;
    char* end = nullptr;
    errno = 0;
    const double v = chars ? std::strtod(text.c_str(), &end) : 0.0;
    if (!chars || end != text.c_str() + text.size() || !std::isfinite(v) || errno == ERANGE)
        throw UsageError(fmt::format("{}: expected {}, got '{}'", flag, expected, text));
    if (v < min || v > max || (min_exclusive && v == min))
        throw UsageError(fmt::format("{}: expected {}, got {}", flag, expected, text));
    return v;
}

uint64_t CliArgs::parseBytes(const std::string& text, const std::string& flag) {
    if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos)
        return parseUInt(text, flag, 0, UINT64_MAX);
    try {
        return hw::Units::parseBytes(text);
    } catch (const hw::UnitError& e) {
        throw UsageError(fmt::format("{}: {}", flag, e.what()));
    }
}

std::vector<std::string> CliArgs::parseStrings(const std::string& text, const std::string& flag,
                                               char sep) {
    std::vector<std::string> out = split(text, sep);
    if (out.empty())
        throw UsageError(
            fmt::format("{}: expected a '{}'-separated list, got an empty one", flag, sep));
    for (const std::string& item : out)
        if (item.empty())
            throw UsageError(
                fmt::format("{}: expected a '{}'-separated list without empty "
                            "elements, got '{}'",
                            flag, sep, text));
    return out;
}

std::vector<uint64_t> CliArgs::parseUIntList(const std::string& text, const std::string& flag,
                                             uint64_t min, uint64_t max, char sep) {
    std::vector<uint64_t> out;
    for (const std::string& item : parseStrings(text, flag, sep))
        out.push_back(parseUInt(item, flag, min, max));
    return out;
}

std::vector<double> CliArgs::parseDoubleList(const std::string& text, const std::string& flag,
                                             double min, double max, bool min_exclusive, char sep) {
    std::vector<double> out;
    for (const std::string& item : parseStrings(text, flag, sep))
        out.push_back(parseDouble(item, flag, min, max, min_exclusive));
    return out;
}

CLI::Option* CliArgs::addSet(CLI::App* app, std::vector<std::string>& target,
                             const std::string& root) {
    return app
        ->add_option("--set", target,
                     fmt::format("override a config key of {}: KEY.PATH=VALUE, the key path as "
                                 "errors print it, the value as YAML with its unit, e.g. "
                                 "noc.router.vcs=4 (repeatable; a later one for the same key "
                                 "wins)",
                                 root))
        ->type_name("KEY=VALUE")
        ->allow_extra_args(false);
}

CLI::Option* CliArgs::addBytes(CLI::App* app, const std::string& name, uint64_t& target,
                               const std::string& help) {
    const std::string flag = name;
    return app
        ->add_option_function<std::string>(
            name,
            [&target, flag](const std::string& v) {
                target = validated([&] { return parseBytes(v, flag); });
            },
            help)
        ->type_name("SIZE");
}

CLI::Option* CliArgs::addDouble(CLI::App* app, const std::string& name, double& target, double min,
                                double max, const std::string& help, bool min_exclusive) {
    const std::string flag = name;
    return app
        ->add_option_function<std::string>(
            name,
            [&target, flag, min, max, min_exclusive](const std::string& v) {
                target = validated([&] { return parseDouble(v, flag, min, max, min_exclusive); });
            },
            help)
        ->type_name("NUMBER");
}

void CliArgs::checkOutput(const std::string& path, const std::string& flag,
                          const std::vector<std::string>& inputs) {
    if (path.empty()) return;
    namespace fs = std::filesystem;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    const bool exists = fs::exists(st);
    if (exists && fs::is_directory(st))
        throw UsageError(
            fmt::format("{}: '{}' is a directory, expected a file to write", flag, path));
    for (const std::string& in : inputs) {
        if (in.empty()) continue;
        std::error_code e2;
        if ((exists && fs::equivalent(path, in, e2)) || fs::path(path) == fs::path(in))
            throw UsageError(fmt::format(
                "{}: '{}' is an input of this run; refusing to overwrite it", flag, path));
    }
    // Open without truncating (an existing file stays as it is until the run writes it); a new
    // file is created and removed again, so a failed run leaves nothing behind.
    const int fd = exists ? ::open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC)
                          : ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0)
        throw UsageError(
            fmt::format("{}: cannot write '{}': {}", flag, path, std::strerror(errno)));
    ::close(fd);
    if (!exists) ::unlink(path.c_str());
}

void CliArgs::checkOutputs(const std::vector<std::pair<std::string, std::string>>& flag_paths,
                           const std::vector<std::string>& inputs) {
    namespace fs = std::filesystem;
    for (size_t i = 0; i < flag_paths.size(); ++i) {
        const auto& [flag, path] = flag_paths[i];
        if (path.empty()) continue;
        checkOutput(path, flag, inputs);
        for (size_t j = 0; j < i; ++j)
            if (!flag_paths[j].second.empty() &&
                fs::path(flag_paths[j].second).lexically_normal() ==
                    fs::path(path).lexically_normal())
                throw UsageError(fmt::format("{} and {} name the same file '{}'",
                                             flag_paths[j].first, flag, path));
    }
}

void CliArgs::rejectUnused(const CLI::App* app, std::initializer_list<const char*> flags,
                           const std::string& mode) {
    for (const char* f : flags)
        if (app->count(f)) throw UsageError(fmt::format("{} is not used by {}", f, mode));
}

}  // namespace wsc::tb
