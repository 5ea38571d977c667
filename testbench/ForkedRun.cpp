#include "testbench/ForkedRun.h"

#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <exception>

namespace wsc::tb {

ForkedResult ForkedRun::run(const std::function<std::string()>& work) {
    ForkedResult res;
    int fds[2];
    if (pipe(fds) != 0) {
        res.answer = "pipe failed";
        return res;
    }
    const pid_t pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        res.answer = "fork failed";
        return res;
    }
    if (pid == 0) {
        close(fds[0]);
        std::string msg;
        try {
            msg = "ok " + work();
        } catch (const std::exception& e) {
            msg = std::string("error ") + e.what();
        }
        (void)!write(fds[1], msg.data(), msg.size());
        close(fds[1]);
        _exit(0);
    }
    close(fds[1]);
    std::string buf;
    char tmp[4096];
    ssize_t n;
    while ((n = read(fds[0], tmp, sizeof tmp)) > 0) buf.append(tmp, size_t(n));
    close(fds[0]);
    int status = 0;
    rusage ru{};
    wait4(pid, &status, 0, &ru);
    res.max_rss_kb = ru.ru_maxrss;
    res.cpu_seconds = double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) +
                      1e-6 * double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec);
    if (buf.rfind("ok ", 0) == 0) {
        res.ok = true;
        res.answer = buf.substr(3);
    } else {
        res.answer = buf.empty() ? "child crashed" : buf;
    }
    return res;
}

}  // namespace wsc::tb
