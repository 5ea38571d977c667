#pragma once
// `wsc sweep SPEC`: plan the points, run the missing ones (local process pool or a Slurm job
// array), and collect the table and plots (docs/SWEEPS.md). Bad specs and flags: exit 2.
// A finished sweep exits 0 when every point is ok and 1 when any failed (each failure is in the
// table); an interrupted one exits 130.
#include <CLI/CLI.hpp>
#include <iosfwd>
#include <string>

namespace wsc::tb::sweep {

class SweepCli {
  public:
    struct Options {
        std::string spec, out, executor = "local", expect_id;
        uint32_t jobs = 0;  // 0: the cores present
        uint64_t task = 0;
        bool status = false, collect = false, retry_failed = false, no_submit = false;
    };
    static CLI::App* add(CLI::App& app, Options& o);
    static int run(CLI::App* cmd, const Options& o, std::ostream& os);
    // `wsc validate SPEC`: the spec, and every point's config resolved (a search's grid when it
    // has at most SweepSpecLoader::kMaxPoints points, else its first point). Points whose config
    // does not resolve are listed ("invalid ..."): they would be recorded as invalid, not run.
    static std::string validate(const std::string& path);
};

}  // namespace wsc::tb::sweep
