// The noc.rtl_routers key: parsed into NocParams, with file:line errors for bad entries. Needs no
// Verilator (the key is part of the config schema in every build).
#include <catch2/catch.hpp>
#include <string>

#include "hw/ConfigError.h"
#include "hw/HardwareLoader.h"

using wsc::hw::ConfigError;
using wsc::hw::HardwareLoader;

namespace {

std::string config(const std::string& rtl) {
    return "noc:\n"
           "  clock: 1 GHz\n"
           "  flit_size: 16 B\n"
           "  topology:\n"
           "    mesh: {x: 4, y: 4}\n"
           "  link:\n"
           "    latency: 1 cycle\n"
           "    width: 16 B\n"
           "  router: {model: delay_line}\n" +  // the model RTL routers implement
           rtl;
}

std::string errorOf(const std::string& rtl) {
    try {
        HardwareLoader::loadString(config(rtl), "t.yaml");
    } catch (const ConfigError& e) {
        return e.what();
    }
    return "";
}

}  // namespace

TEST_CASE("noc.rtl_routers lists router indices, default empty", "[rtl][config]") {
    CHECK(HardwareLoader::loadString(config(""), "t.yaml").noc.rtl_routers.empty());
    CHECK(HardwareLoader::loadString(config("  rtl_routers: [0, 5, 15]\n"), "t.yaml")
              .noc.rtl_routers == std::vector<uint32_t>{0, 5, 15});
    CHECK(HardwareLoader::loadString(config("  rtl_routers: []\n"), "t.yaml")
              .noc.rtl_routers.empty());
}

TEST_CASE("noc.rtl_routers rejects bad entries with the position", "[rtl][config]") {
    std::string e = errorOf("  rtl_routers: [3, 16]\n");
    CHECK_THAT(e, Catch::Contains("t.yaml:10"));
    CHECK_THAT(e, Catch::Contains("a router index in [0, 15]"));
    CHECK_THAT(errorOf("  rtl_routers: [2, 2]\n"), Catch::Contains("each router at most once"));
    CHECK_THAT(errorOf("  rtl_routers: [-1]\n"), Catch::Contains("a router index"));
    CHECK_THAT(errorOf("  rtl_routers: 5\n"), Catch::Contains("a list of router indices"));
}
