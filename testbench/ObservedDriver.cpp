#include "testbench/ObservedDriver.h"

namespace wsc::tb {

ObservedDriver::ObservedDriver(noc::CycleDriver& inner, const std::vector<RunObserver*>& observers,
                               const noc::Network& net, core::CoreArray* cores)
    : inner_(inner), observers_(observers) {
    for (RunObserver* o : observers_) o->attach(net, cores);
}

void ObservedDriver::beforeStep(uint64_t cycle) {
    // Observers first: they see the state at the start of the cycle, before anything of it.
    for (RunObserver* o : observers_) o->beforeStep(cycle);
    inner_.beforeStep(cycle);
}

void ObservedDriver::afterStep(uint64_t cycle) {
    inner_.afterStep(cycle);
    for (RunObserver* o : observers_) o->afterStep(cycle);
}

void ObservedDriver::finish(uint64_t last_cycle) {
    for (RunObserver* o : observers_) o->finish(last_cycle);
}

}  // namespace wsc::tb
