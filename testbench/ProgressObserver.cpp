#include "testbench/ProgressObserver.h"

#include <fmt/format.h>

namespace wsc::tb {

void ProgressObserver::attach(const noc::Network& net, core::CoreArray* cores) {
    line_ = std::make_unique<ProgressLine>([&net, cores](uint64_t) {
        std::string s = fmt::format("{} flits in flight", net.flitsInNetwork());
        if (cores) s += fmt::format(", {}/{} cores done", cores->finishedCores(), cores->cores());
        return s;
    });
}

}  // namespace wsc::tb
