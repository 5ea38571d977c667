#include "testbench/HugePageHeap.h"

#include <sys/auxv.h>
#include <unistd.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace wsc::tb {

namespace {

// Set by enable() in the process the re-execution started (glibc read the tunable at its start).
bool g_active = false;

// Carries the caller's GLIBC_TUNABLES across the re-execution: "=" + its value, or "" when it
// was unset, so the second start can put the environment back for whatever wsc starts.
constexpr const char* kMarker = "WSC_HUGEPAGES_ORIG";

bool sameFile(const char* a, const char* b) {
    char ra[PATH_MAX], rb[PATH_MAX];
    return a && b && realpath(a, ra) && realpath(b, rb) && std::strcmp(ra, rb) == 0;
}

}  // namespace

void HugePageHeap::enable(char** argv) {
    if (const char* orig = std::getenv(kMarker)) {
        // The second start: note what glibc was given, then restore the caller's environment.
        const char* t = std::getenv("GLIBC_TUNABLES");
        g_active = t && std::strstr(t, "glibc.malloc.hugetlb=1");
        if (orig[0] == '=')
            setenv("GLIBC_TUNABLES", orig + 1, 1);
        else
            unsetenv("GLIBC_TUNABLES");
        unsetenv(kMarker);
        return;
    }
    const char* opt = std::getenv("WSC_HUGEPAGES");
    if (opt && std::string(opt) != "0" && std::string(opt) != "1") {
        std::fprintf(stderr,
                     "error: WSC_HUGEPAGES: expected 0 (off) or 1 (on, the default), got '%s'\n",
                     opt);
        std::exit(2);
    }
    if (opt && std::string(opt) == "0") return;
    const char* old = std::getenv("GLIBC_TUNABLES");
    if (old && std::strstr(old, "glibc.malloc.hugetlb")) {
        g_active = std::strstr(old, "glibc.malloc.hugetlb=1") != nullptr;  // the user's choice
        return;
    }
    // Only when /proc/self/exe is the program the kernel was asked to run: under valgrind, an
    // explicit loader (ld.so ./wsc) or an emulator it is another binary, and executing that with
    // wsc's arguments would not run wsc. A preloaded library (a sanitizer, a profiler's shim)
    // keeps its own allocator arrangement: left alone too.
    const char* execfn = reinterpret_cast<const char*>(getauxval(AT_EXECFN));
    if (!sameFile("/proc/self/exe", execfn) || std::getenv("LD_PRELOAD")) return;
    const std::string saved = old ? std::string("=") + old : std::string();
    std::string t = old ? std::string(old) + ":" : std::string();
    t += "glibc.malloc.hugetlb=1";
    if (setenv(kMarker, saved.c_str(), 1) != 0 || setenv("GLIBC_TUNABLES", t.c_str(), 1) != 0) {
        unsetenv(kMarker);
        return;
    }
    execv("/proc/self/exe", argv);
    // Still here: run without, the environment as it was.
    unsetenv(kMarker);
    if (old)
        setenv("GLIBC_TUNABLES", saved.c_str() + 1, 1);
    else
        unsetenv("GLIBC_TUNABLES");
}

bool HugePageHeap::active() {
    return g_active;
}

}  // namespace wsc::tb
