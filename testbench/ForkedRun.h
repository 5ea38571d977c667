#pragma once
// Runs a measurement in a forked child process, so each benchmark row starts from a fresh heap
// (its peak RSS is its own) and a crash or abort costs one row, not the bench: the child
// computes a one-line answer, writes it to a pipe and exits; the parent reads it and the
// child's resource usage (wait4).
#include <functional>
#include <string>

namespace wsc::tb {

struct ForkedResult {
    bool ok = false;         // the child answered "ok ..." (`answer` holds what follows "ok ")
    std::string answer;      // on failure: the child's "error ..." text or "child crashed"
    double cpu_seconds = 0;  // user + system time of the child
    long max_rss_kb = 0;     // the child's peak resident set
};

class ForkedRun {
  public:
    // `work` returns the answer text after "ok "; an exception becomes "error <what>".
    static ForkedResult run(const std::function<std::string()>& work);
};

}  // namespace wsc::tb
