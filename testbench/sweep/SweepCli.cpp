#include "testbench/sweep/SweepCli.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <ostream>
#include <thread>

#include "testbench/CliArgs.h"
#include "testbench/sweep/LocalExecutor.h"
#include "testbench/sweep/PointProcess.h"
#include "testbench/sweep/SlurmExecutor.h"
#include "testbench/sweep/SweepSearch.h"
#include "testbench/sweep/SweepSpecLoader.h"
#include "testbench/sweep/SweepTable.h"

namespace wsc::tb::sweep {

namespace fs = std::filesystem;

CLI::App* SweepCli::add(CLI::App& app, Options& o) {
    auto* c = app.add_subcommand(
        "sweep",
        "run a design-space sweep: points of a spec, locally or on Slurm (docs/SWEEPS.md)");
    c->add_option("spec", o.spec, "sweep spec YAML")->required();
    CliArgs::addUInt(c, "-j,--jobs", o.jobs, 1, 4096,
                     "points at once (local: processes, default the cores present; slurm: the "
                     "array's concurrency cap, default the spec's slurm.max_parallel)");
    c->add_option("--out", o.out, "results folder (default: sweep-NAME in the current folder)");
    c->add_option("--executor", o.executor, "local (default) or slurm")
        ->check(CLI::IsMember({"local", "slurm"}));
    c->add_flag("--status", o.status, "print what is done, failed, running and left; run nothing");
    c->add_flag("--collect", o.collect,
                "write results.csv and the plots from what is done; run nothing");
    c->add_flag("--retry-failed", o.retry_failed, "run failed points again (default: keep them)");
    c->add_flag("--no-submit", o.no_submit, "slurm: write the sbatch script, do not submit it");
    CliArgs::addUInt(c, "--task", o.task, 0, UINT64_MAX,
                     "run the point of this index only (what each Slurm array task runs)");
    c->add_option("--expect-id", o.expect_id,
                  "with --task: the point's id at submission (refused if the spec changed)");
    return c;
}

namespace {

std::string selfExe() {
    std::error_code ec;
    const fs::path p = fs::read_symlink("/proc/self/exe", ec);
    if (ec) throw std::runtime_error("cannot find the wsc binary (/proc/self/exe)");
    return p.string();
}

// One sweep at a time in a results folder: a second one would run the same points twice.
int lockFolder(const std::string& out) {
    fs::create_directories(out);
    const std::string f = out + "/.lock";
    const int fd = open(f.c_str(), O_RDWR | O_CREAT, 0644);
    if (fd < 0) throw UsageError(fmt::format("cannot write {}", f));
    if (flock(fd, LOCK_EX | LOCK_NB) != 0)
        throw UsageError(fmt::format("{}: another `wsc sweep` is running in this folder", out));
    return fd;  // held until the process exits
}

void printStatus(const SweepSpec& spec, const std::vector<Point>& pts, const PointStore& store,
                 std::ostream& os) {
    size_t ok = 0, failed = 0, running = 0, left = 0;
    std::string failures, runs;
    for (const auto& p : pts) {
        const auto s = store.status(p);
        if (s && s->status == "ok") {
            ++ok;
        } else if (s) {
            ++failed;
            failures +=
                fmt::format("    [{}] {} {}: {} exit {}: {}\n", p.index, p.id,
                            SweepPlan::describe(spec, p), s->status, s->exit_code, s->error);
        } else {
            const std::string r = store.running(p);
            if (r.rfind("running", 0) == 0) {
                ++running;
                runs += fmt::format("    [{}] {} {}: {}\n", p.index, p.id,
                                    SweepPlan::describe(spec, p), r);
            } else {
                ++left;
            }
        }
    }
    os << fmt::format("sweep {} ({}): {} points in {}\n", spec.name, spec.file, pts.size(),
                      store.out());
    os << fmt::format("  ok {}, failed {}, running {}, to run {}\n", ok, failed, running, left);
    if (!failures.empty()) os << "  failed:\n" << failures;
    if (!runs.empty()) os << "  running:\n" << runs;
    const std::string job = SlurmExecutor::lastJob(store);
    if (!job.empty()) {
        const long q = SlurmExecutor::queued(job);
        os << fmt::format("  slurm job {}: {}\n", job,
                          q < 0 ? std::string("squeue cannot tell (finished or no controller)")
                                : fmt::format("{} tasks queued or running", q));
    }
}

struct Interrupted {};

int collect(const SweepSpec& spec, const std::vector<Point>& pts, const PointStore& store,
            std::ostream& os) {
    const SweepTable table(spec, pts, store);
    size_t ok = 0, failed = 0, missing = 0;
    for (const auto& r : table.rows()) {
        if (r.state == "ok")
            ++ok;
        else if (r.state == "pending" || r.state == "running")
            ++missing;
        else
            ++failed;
    }
    for (const auto& f : table.write()) os << fmt::format("  wrote {}\n", f);
    for (const auto& w : table.warnings()) os << fmt::format("  warning: {}\n", w);
    os << fmt::format("{} points: {} ok, {} failed, {} not run\n", pts.size(), ok, failed, missing);
    return failed ? 1 : 0;
}

}  // namespace

std::string SweepCli::validate(const std::string& path) {
    const SweepSpec spec = SweepSpecLoader::loadFile(path);
    double grid = 1;
    for (const auto& a : spec.axes) grid *= static_cast<double>(a.values.size());
    std::vector<Point> pts;
    if (grid <= static_cast<double>(SweepSpecLoader::kMaxPoints)) {
        pts = SweepPlan::expand(spec);
    } else {
        SweepPlan plan(spec);
        pts.push_back(plan.make(std::vector<size_t>(spec.axes.size(), 0), 0));
    }
    std::string invalid;
    size_t bad = 0;
    for (const auto& p : pts)
        if (!p.error.empty()) {
            ++bad;
            invalid += fmt::format("\n  invalid point {} ({}): {}", p.index,
                                   SweepPlan::describe(spec, p), p.error);
        }
    std::string what =
        spec.search ? fmt::format("{} search over a grid of {:g} points{}", spec.search->kind, grid,
                                  pts.size() == 1 ? ", first point checked" : "")
                    : fmt::format("sweep of {} points", pts.size());
    if (bad)
        throw UsageError(
            fmt::format("{}: {} of {} points do not resolve (a sweep records them as "
                        "invalid and runs the others):{}",
                        path, bad, pts.size(), invalid));
    return what + ", all resolve";
}

int SweepCli::run(CLI::App* cmd, const Options& o, std::ostream& os) {
    const SweepSpec spec = SweepSpecLoader::loadFile(o.spec);
    const std::string out = o.out.empty() ? "sweep-" + spec.name : o.out;
    const bool task = cmd->count("--task") > 0;
    if (cmd->count("--expect-id") && !task) throw UsageError("--expect-id needs --task");
    if (int(o.status) + int(o.collect) + int(task) > 1)
        throw UsageError("--status, --collect and --task are separate modes: give one");
    if (task || o.status || o.collect)
        CliArgs::rejectUnused(cmd, {"--executor", "--retry-failed", "--no-submit", "-j"},
                              "--status, --collect and --task (they run no pool)");
    if (o.no_submit && o.executor != "slurm")
        throw UsageError("--no-submit needs --executor slurm");
    // The results folder: a directory, or a path where one can be made.
    {
        std::error_code ec;
        if (fs::exists(out, ec) && !fs::is_directory(out, ec))
            throw UsageError(fmt::format("--out {}: exists and is not a folder", out));
        const bool reading = o.status || o.collect || task;
        if (reading && !fs::exists(out, ec))
            throw UsageError(
                fmt::format("{}: nothing of this sweep has run in {} yet (no such "
                            "folder; --out names another?)",
                            spec.file, out));
        if (!reading) {
            fs::create_directories(out, ec);
            if (ec || access(out.c_str(), W_OK) != 0)
                throw UsageError(fmt::format("--out {}: cannot write there ({})", out,
                                             ec ? ec.message() : std::strerror(errno)));
        }
    }
    const PointStore store(out);
    if (spec.search && o.no_submit)
        throw UsageError("--no-submit: a search submits each generation and waits for it");
    // A search's points are the ones it has evaluated (plan.json); a grid's are all of them.
    const bool fromPlan = task || (spec.search && (o.status || o.collect));
    std::vector<Point> pts;
    if (fromPlan)
        pts = store.readPlan(spec);
    else if (!spec.search)
        pts = SweepPlan::expand(spec);

    if (o.status) {
        printStatus(spec, pts, store, os);
        return 0;
    }
    if (o.collect) return collect(spec, pts, store, os);
    const std::string wsc = selfExe();
    if (task) {
        if (pts.empty()) throw UsageError(fmt::format("--task: {} has no points", spec.file));
        if (o.task >= pts.size())
            throw UsageError(
                fmt::format("--task {}: the sweep has points 0..{}", o.task, pts.size() - 1));
        SweepPlan plan(spec);
        const Point p = plan.make(pts[o.task].value, o.task);
        if (p.id != pts[o.task].id || (!o.expect_id.empty() && o.expect_id != p.id))
            throw UsageError(fmt::format(
                "--task {}: the point is now {} but was {} when the job was submitted: {} "
                "changed; submit the sweep again",
                o.task, p.id, o.expect_id.empty() ? pts[o.task].id : o.expect_id, spec.file));
        const char* aj = std::getenv("SLURM_ARRAY_JOB_ID");
        const char* at = std::getenv("SLURM_ARRAY_TASK_ID");
        const std::string job = aj && at ? fmt::format("{}_{}", aj, at) : "";
        PointProcess proc(spec, p, store, wsc, job.empty() ? "task" : "slurm", job);
        proc.start();
        while (!proc.poll()) usleep(20000);
        const auto& s = proc.status();
        os << fmt::format(
            "[{}] {} {}: {} ({:.1f} s){}\n", p.index, p.id, SweepPlan::describe(spec, p), s.status,
            s.wall_s, s.status == "ok" ? "" : fmt::format(", exit {}: {}", s.exit_code, s.error));
        return s.status == "ok" ? 0 : 1;
    }

    const int lock = lockFolder(out);
    (void)lock;
    const unsigned jobs = o.jobs ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    const unsigned cap = cmd->count("-j") ? o.jobs : spec.slurm.max_parallel;
    if (spec.search) {
        if (o.retry_failed)
            throw UsageError("--retry-failed: a search keeps its failed points (infeasible)");
        SweepSearch::Runner runner = [&](const std::vector<const Point*>& todo) {
            if (o.executor == "slurm") {
                const auto sub =
                    SlurmExecutor::submit(spec, todo, store, wsc, o.spec, cap, true, os);
                SlurmExecutor::wait(sub.job, todo, store, os);
                return;
            }
            const RunSummary sum = LocalExecutor::run(spec, todo, store, wsc, jobs, os);
            if (sum.interrupted) throw Interrupted();
        };
        try {
            return SweepSearch::run(spec, store, runner, os) ? 0 : 1;
        } catch (const Interrupted&) {
            os << "interrupted: the search stopped; run the same command again to resume it "
                  "(finished points are not run again)\n";
            return 130;
        }
    }
    if (pts.empty())
        throw UsageError(fmt::format("{}: the exclusions drop every point", spec.file));
    size_t invalid = 0;
    for (const auto& p : pts) invalid += !p.error.empty();
    if (invalid == pts.size())
        throw UsageError(
            fmt::format("{}: no point's config resolves (a key the config does not "
                        "have?); point 0 ({}): {}",
                        spec.file, SweepPlan::describe(spec, pts[0]), pts[0].error));
    store.writePlan(spec, pts);
    std::vector<const Point*> todo;
    size_t done = 0, failedKept = 0;
    for (const auto& p : pts) {
        const auto s = store.status(p);
        if (!s || (o.retry_failed && s->status != "ok")) {
            todo.push_back(&p);
        } else {
            ++done;
            failedKept += s->status != "ok";
        }
    }
    os << fmt::format(
        "sweep {}: {} points, {} done{}, {} to run -> {}\n", spec.name, pts.size(), done,
        failedKept ? fmt::format(" ({} failed: --retry-failed runs them)", failedKept) : "",
        todo.size(), out);
    if (o.executor == "slurm") {
        if (todo.empty()) return collect(spec, pts, store, os);
        const auto sub =
            SlurmExecutor::submit(spec, todo, store, wsc, o.spec, cap, !o.no_submit, os);
        if (!sub.job.empty())
            os << fmt::format(
                "follow with: wsc sweep {0} --out {1} --status; then wsc sweep {0} "
                "--out {1} --collect\n",
                o.spec, out);
        return 0;
    }
    if (!todo.empty()) os << fmt::format("running with -j {}\n", jobs) << std::flush;
    const RunSummary sum = LocalExecutor::run(spec, todo, store, wsc, jobs, os);
    if (sum.interrupted) {
        os << fmt::format(
            "interrupted: {} of {} points ran; running points were stopped. Run "
            "the same command again to run the rest.\n",
            sum.ran, todo.size());
        return 130;
    }
    return collect(spec, pts, store, os);
}

}  // namespace wsc::tb::sweep
