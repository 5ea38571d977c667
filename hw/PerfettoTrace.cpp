#include "hw/PerfettoTrace.h"

#include <fstream>
#include <stdexcept>

namespace wsc::hw {

PerfettoTrace::PerfettoTrace(double clock_hz) : usPerCycle_(1e6 / clock_hz) {
    doc_ = {{"traceEvents", nlohmann::json::array()}, {"displayTimeUnit", "ns"}};
}

uint32_t PerfettoTrace::process(const std::string& name) {
    const uint32_t pid = next_pid_++;
    doc_["traceEvents"].push_back({{"ph", "M"},
                                   {"name", "process_name"},
                                   {"pid", pid},
                                   {"tid", 0},
                                   {"args", {{"name", name}}}});
    return pid;
}

uint32_t PerfettoTrace::track(uint32_t pid, const std::string& name, int64_t order) {
    // Thread ids are unique over the whole trace so a track is found by its tid alone.
    const uint32_t tid = next_tid_++;
    auto& ev = doc_["traceEvents"];
    ev.push_back({{"ph", "M"},
                  {"name", "thread_name"},
                  {"pid", pid},
                  {"tid", tid},
                  {"args", {{"name", name}}}});
    ev.push_back({{"ph", "M"},
                  {"name", "thread_sort_index"},
                  {"pid", pid},
                  {"tid", tid},
                  {"args", {{"sort_index", order}}}});
    return tid;
}

void PerfettoTrace::span(uint32_t pid, uint32_t tid, const std::string& name, uint64_t begin,
                         uint64_t end, nlohmann::json args) {
    nlohmann::json e = {{"ph", "X"},
                        {"name", name},
                        {"pid", pid},
                        {"tid", tid},
                        {"ts", double(begin) * usPerCycle_},
                        {"dur", double(end - begin) * usPerCycle_}};
    if (!args.is_null()) e["args"] = std::move(args);
    doc_["traceEvents"].push_back(std::move(e));
    ++spans_;
}

void PerfettoTrace::counter(uint32_t pid, const std::string& name, uint64_t cycle, double value) {
    doc_["traceEvents"].push_back({{"ph", "C"},
                                   {"name", name},
                                   {"pid", pid},
                                   {"tid", 0},
                                   {"ts", double(cycle) * usPerCycle_},
                                   {"args", {{"value", value}}}});
}

void PerfettoTrace::writeFile(const std::string& path) const {
    std::ofstream f(path);
    if (!f) throw std::runtime_error("cannot write " + path);
    f << doc_.dump() << "\n";
}

}  // namespace wsc::hw
