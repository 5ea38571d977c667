#include "testbench/ProgressLine.h"

#include <fmt/format.h>

namespace wsc::tb {

ProgressLine::ProgressLine(Detail detail, std::FILE* out, std::chrono::milliseconds first,
                           std::chrono::milliseconds every)
    : detail_(std::move(detail)),
      out_(out),
      first_(first),
      every_(every),
      start_(std::chrono::steady_clock::now()),
      last_(start_) {}

void ProgressLine::update(uint64_t cycle) {
    const auto now = std::chrono::steady_clock::now();
    if (now - start_ < first_ || (shown_ && now - last_ < every_)) return;
    last_ = now;
    const double s = std::chrono::duration<double>(now - start_).count();
    std::string line = fmt::format("[wsc] cycle {:>10}, {:.0f} cycles/s", cycle, cycle / s);
    if (detail_) line += ", " + detail_(cycle);
    fmt::print(out_, "\r{:<78}", line);
    std::fflush(out_);
    shown_ = true;
    ++updates_;
}

void ProgressLine::clear() {
    if (!shown_) return;
    fmt::print(out_, "\r{:78}\r", "");
    std::fflush(out_);
    shown_ = false;
}

}  // namespace wsc::tb
