// LLVMFuzzerTestOneInput for one of tb::FuzzTargets, chosen at compile time by WSC_FUZZ_TARGET
// (testbench/fuzz/CMakeLists.txt builds fuzz_yaml, fuzz_firmware and fuzz_model from this file).
// A finding aborts with its message, so libFuzzer (or ReplayMain) reports the input.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "testbench/FuzzTargets.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    try {
        wsc::tb::FuzzTargets::WSC_FUZZ_TARGET(
            std::string(reinterpret_cast<const char*>(data), size));
    } catch (const std::exception& e) {
        std::fprintf(stderr, "\nwsc fuzz finding: %s\n", e.what());
        std::abort();
    }
    return 0;
}

// libsystemc references sc_main; the targets never start the SystemC kernel.
extern "C" int sc_main(int, char**) {
    return 1;
}
