#include "testbench/HugePageHeap.h"

#include <unistd.h>

#include <cstdlib>
#include <string>

namespace wsc::tb {

void HugePageHeap::enable(char** argv) {
    const char* opt = std::getenv("WSC_HUGEPAGES");
    if (opt && std::string(opt) == "0") return;
    // The marker keeps a second start from trying again (a failed tunable must not loop).
    if (std::getenv("WSC_HUGEPAGES_SET")) return;
    const char* old = std::getenv("GLIBC_TUNABLES");
    std::string t = old ? old : "";
    if (t.find("glibc.malloc.hugetlb") != std::string::npos) return;
    t += t.empty() ? "" : ":";
    t += "glibc.malloc.hugetlb=1";
    if (setenv("GLIBC_TUNABLES", t.c_str(), 1) != 0 || setenv("WSC_HUGEPAGES_SET", "1", 1) != 0)
        return;
    execv("/proc/self/exe", argv);
    // Still here: run without (and leave the environment as it was for what wsc starts).
    if (old)
        setenv("GLIBC_TUNABLES", old, 1);
    else
        unsetenv("GLIBC_TUNABLES");
}

bool HugePageHeap::active() {
    const char* t = std::getenv("GLIBC_TUNABLES");
    return t && std::string(t).find("glibc.malloc.hugetlb=1") != std::string::npos;
}

}  // namespace wsc::tb
