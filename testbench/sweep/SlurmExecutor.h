#pragma once
// Runs a sweep's points as a Slurm job array (docs/SWEEPS.md): writes OUT/slurm/<stamp>.sbatch
// and the list of points it runs (one "index id" line per array task), submits it with
// `sbatch --parsable`, and records the job id. Each array task runs
// `wsc sweep SPEC --out OUT --task INDEX --expect-id ID` into the shared results folder, so the
// cluster needs the same paths on every node (a shared filesystem), as Slurm itself assumes.
#include <ostream>
#include <string>
#include <vector>

#include "testbench/sweep/PointStore.h"

namespace wsc::tb::sweep {

class SlurmExecutor {
  public:
    struct Submission {
        std::string script, list, job;  // job: "" when not submitted
        size_t tasks = 0;
    };
    // `cap`: at most this many tasks at once (%cap); 0: no cap.
    static Submission submit(const SweepSpec& spec, const std::vector<const Point*>& todo,
                             const PointStore& store, const std::string& wsc,
                             const std::string& specPath, unsigned cap, bool doSubmit,
                             std::ostream& log);
    static std::string script(const SweepSpec& spec, const std::string& listFile, size_t tasks,
                              const std::string& wsc, const std::string& specPath,
                              const std::string& out, const std::string& cwd, unsigned cap);
    // Blocks until every point of `pts` has a status (polling the folder and squeue); throws
    // when the job has left the queue with points unrecorded (their task logs say why).
    static void wait(const std::string& job, const std::vector<const Point*>& pts,
                     const PointStore& store, std::ostream& log);
    // The last job submitted for this results folder ("" if none).
    static std::string lastJob(const PointStore& store);
    // Tasks of `job` still queued or running, from squeue; -1 if squeue cannot tell.
    static long queued(const std::string& job);
    static std::string quote(const std::string& s);  // for a POSIX shell
};

}  // namespace wsc::tb::sweep
