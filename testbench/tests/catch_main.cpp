// Catch2 v2 runner, compiled once and shared by every test executable.
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#include <cstdlib>

// libsystemc references sc_main; the tests use their own main and never call it.
extern "C" int sc_main(int, char**) {
    return 1;
}

int main(int argc, char* argv[]) {
    setenv("SYSC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);  // before the SystemC kernel starts
    return Catch::Session().run(argc, argv);
}
