#include "testbench/sweep/SlurmExecutor.h"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <thread>

#include "testbench/CliArgs.h"

namespace wsc::tb::sweep {

namespace fs = std::filesystem;

std::string SlurmExecutor::quote(const std::string& s) {
    std::string q = "'";
    for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return q + "'";
}

std::string SlurmExecutor::script(const SweepSpec& spec, const std::string& list, size_t tasks,
                                  const std::string& wsc, const std::string& specPath,
                                  const std::string& out, const std::string& cwd, unsigned cap) {
    std::string s = "#!/bin/bash\n";
    s += fmt::format("# wsc sweep '{}': {} points as a Slurm job array (docs/SWEEPS.md).\n",
                     spec.name, tasks);
    s += "# Written by `wsc sweep --executor slurm`; each task runs one point.\n";
    s += fmt::format("#SBATCH --job-name=wsc-{}\n", spec.name);
    s += fmt::format("#SBATCH --array=0-{}{}\n", tasks - 1, cap ? fmt::format("%{}", cap) : "");
    s += fmt::format("#SBATCH --output={}/slurm/%A_%a.out\n", out);
    s += fmt::format("#SBATCH --chdir={}\n", cwd);
    s += fmt::format("#SBATCH --cpus-per-task={}\n", spec.slurm.cpus_per_task);
    s += "#SBATCH --ntasks=1\n";
    if (!spec.slurm.partition.empty())
        s += fmt::format("#SBATCH --partition={}\n", spec.slurm.partition);
    if (!spec.slurm.time.empty()) s += fmt::format("#SBATCH --time={}\n", spec.slurm.time);
    if (!spec.slurm.mem.empty()) s += fmt::format("#SBATCH --mem={}\n", spec.slurm.mem);
    for (const auto& e : spec.slurm.extra) s += fmt::format("#SBATCH {}\n", e);
    s += "set -eu\n";
    s += fmt::format("read -r index id < <(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" {})\n",
                     quote(list));
    s += fmt::format("exec {} sweep {} --out {} --task \"$index\" --expect-id \"$id\"\n",
                     quote(wsc), quote(specPath), quote(out));
    return s;
}

namespace {

// Runs a command, returning its exit code and stdout.
int capture(const std::string& cmd, std::string& out) {
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) return -1;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    const int st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

std::string trim(std::string s) {
    while (!s.empty() && (s.back() == '\n' || s.back() == ' ' || s.back() == '\r')) s.pop_back();
    return s;
}

}  // namespace

SlurmExecutor::Submission SlurmExecutor::submit(const SweepSpec& spec,
                                                const std::vector<const Point*>& todo,
                                                const PointStore& store, const std::string& wsc,
                                                const std::string& specPath, unsigned cap,
                                                bool doSubmit, std::ostream& log) {
    Submission sub;
    sub.tasks = todo.size();
    const std::string out = fs::absolute(store.out()).lexically_normal().string();
    const std::string dir = out + "/slurm";
    fs::create_directories(dir);
    // #SBATCH lines end at a space and at '#': such a path cannot be written into the script.
    for (const auto& [what, path] : {std::pair<std::string, std::string>{"--out", out},
                                     {"the current folder", fs::current_path().string()}})
        if (path.find_first_of(" \t#'\"\\") != std::string::npos)
            throw UsageError(
                fmt::format("slurm: {} '{}' has a space, '#', a quote or a backslash, "
                            "which #SBATCH lines cannot carry; use another path",
                            what, path));
    // Unique per submission (two in one second do not overwrite each other's files).
    std::string base = fmt::format("{}-{}", PointStore::utcNow(), getpid());
    std::replace(base.begin(), base.end(), ':', '-');
    std::string stamp = base;
    for (int k = 2; fs::exists(fmt::format("{}/{}.sbatch", dir, stamp)); ++k)
        stamp = fmt::format("{}-{}", base, k);
    sub.list = fmt::format("{}/{}.points", dir, stamp);
    sub.script = fmt::format("{}/{}.sbatch", dir, stamp);
    {
        std::ofstream f(sub.list);
        for (const Point* p : todo) f << p->index << ' ' << p->id << '\n';
        if (!f.flush()) throw std::runtime_error("cannot write " + sub.list);
    }
    {
        std::ofstream f(sub.script);
        f << script(spec, sub.list, todo.size(), wsc,
                    fs::absolute(specPath).lexically_normal().string(), out,
                    fs::current_path().string(), cap);
        if (!f.flush()) throw std::runtime_error("cannot write " + sub.script);
    }
    fs::permissions(sub.script, fs::perms::owner_exec, fs::perm_options::add);
    log << fmt::format("slurm: {} tasks in {}\n", sub.tasks, sub.script);
    if (!doSubmit) return sub;
    std::string o;
    const int rc = capture(fmt::format("sbatch --parsable {} 2>&1", quote(sub.script)), o);
    if (rc != 0)
        throw UsageError(fmt::format("sbatch {} failed (exit {}): {}", sub.script, rc,
                                     trim(o).empty() ? "is Slurm installed and running? (sbatch "
                                                       "not found or no controller)"
                                                     : trim(o)));
    sub.job = trim(o);
    const size_t semi = sub.job.find(';');  // "jobid;cluster" on multi-cluster set-ups
    if (semi != std::string::npos) sub.job = sub.job.substr(0, semi);
    std::ofstream(dir + "/last_job") << sub.job << '\n';
    log << fmt::format("slurm: submitted job array {} ({} tasks{})\n", sub.job, sub.tasks,
                       cap ? fmt::format(", at most {} at once", cap) : "");
    return sub;
}

void SlurmExecutor::wait(const std::string& job, const std::vector<const Point*>& pts,
                         const PointStore& store, std::ostream& log) {
    size_t reported = 0;
    int goneChecks = 0, blindChecks = 0;
    size_t before = 0;  // points recorded at the previous poll
    for (;;) {
        size_t done = 0;
        for (const Point* p : pts) done += store.status(*p).has_value();
        if (done == pts.size()) return;
        if (done != reported) {
            log << fmt::format("  slurm job {}: {}/{} points recorded\n", job, done, pts.size())
                << std::flush;
            reported = done;
        }
        // Out of the queue with points missing: allow a few polls for the shared folder to show
        // the last files (NFS attribute caching), then give up.
        const long q = queued(job);
        // squeue failing for ten minutes with nothing recorded: the controller is gone.
        blindChecks = q < 0 && done == before ? blindChecks + 1 : 0;
        before = done;
        if (blindChecks > 600)
            throw std::runtime_error(fmt::format(
                "slurm job {}: squeue has not answered for 10 minutes and no point finished; "
                "the search stops (re-run it to resume once Slurm is back)",
                job));
        if (q == 0 && ++goneChecks > 15)
            throw std::runtime_error(
                fmt::format("slurm job {} left the queue with {} of {} points unrecorded; see "
                            "{}/slurm/{}_*.out",
                            job, pts.size() - done, pts.size(), store.out(), job));
        std::this_thread::sleep_for(std::chrono::seconds(1));
    }
}

std::string SlurmExecutor::lastJob(const PointStore& store) {
    std::ifstream f(store.out() + "/slurm/last_job");
    std::string j;
    f >> j;
    return j;
}

long SlurmExecutor::queued(const std::string& job) {
    if (job.empty()) return -1;
    std::string o;
    if (capture(fmt::format("squeue -h -r -j {} -o %i 2>/dev/null", quote(job)), o) != 0) return -1;
    long n = 0;
    for (char c : o) n += c == '\n';
    return n;
}

}  // namespace wsc::tb::sweep
