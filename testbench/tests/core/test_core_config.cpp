// The hardware YAML's core: section.
#include <catch2/catch.hpp>

#include "hw/ConfigError.h"
#include "hw/HardwareLoader.h"

using namespace wsc;
using Catch::Matchers::Contains;

namespace {
const std::string kNoc = R"(noc:
  clock: 1 GHz
  flit_size: 4 B
  topology: {mesh: {x: 2, y: 2}}
  link: {latency: 1 cycle, width: 4 B}
)";
}

TEST_CASE("core: section loads into CoreParams", "[core][config]") {
    const auto hw = hw::HardwareLoader::loadString(kNoc + R"(core:
  pe_array: {rows: 8, cols: 16, macs_per_cycle: 2, data_bits: 16, dataflow: ws}
  vector: {lanes: 8, latency: 3 cycles, special_latency: 10 ns}
  sram: {capacity: 1.25 MB, banks: 16, bank_width: 32 B, ports: 4, port_width: 64 B, latency: 2 cycles}
  dma: {queue: 8, burst: 512 B}
  memory: {ports: 2, latency: 100 ns, bandwidth: 1 TB/s, capacity: 1 GB, max_outstanding: 32}
  relay_latency: 12 cycles
  tx_queue: 6
)",
                                                   "hw.yaml");
    const auto& c = hw.core;
    CHECK(c.pe.rows == 8);
    CHECK(c.pe.cols == 16);
    CHECK(c.pe.macs_per_cycle == 2);
    CHECK(c.pe.data_bits == 16);
    CHECK(c.pe.dataflow == core::DataflowKind::WeightStationary);
    CHECK(c.vector.lanes == 8);
    CHECK(c.vector.special_latency == 10);
    CHECK(c.sram.capacity_bytes == 1310720);
    CHECK(c.sram.ports == 4);
    CHECK(c.sram.port_bytes == 64);
    CHECK(c.sram.bank_width == 32);
    CHECK(c.dma.burst_bytes == 512);
    CHECK(c.memory.ports == 2);
    CHECK(c.memory.latency_ps == 100000);
    CHECK(c.memory.bytes_per_ns == Approx(1000.0));
    CHECK(c.relay_cycles == 12);
    CHECK(c.tx_queue == 6);
    // Without a core: section the defaults apply.
    CHECK(hw::HardwareLoader::loadString(kNoc, "hw.yaml").core.sram.capacity_bytes == 48 * 1024);
}

TEST_CASE("core: section errors name the key", "[core][config]") {
    CHECK_THROWS_WITH(
        hw::HardwareLoader::loadString(kNoc + "core:\n  pe_array: {rows: 0}\n", "hw.yaml"),
        Contains("core.pe_array.rows"));
    CHECK_THROWS_WITH(
        hw::HardwareLoader::loadString(kNoc + "core:\n  sram: {capasity: 1 KB}\n", "hw.yaml"),
        Contains("capasity"));
    CHECK_THROWS_WITH(
        hw::HardwareLoader::loadString(kNoc + "core:\n  sram: {banks: 2, ports: 4}\n", "hw.yaml"),
        Contains("core.sram.ports"));
    CHECK_THROWS_WITH(
        hw::HardwareLoader::loadString(kNoc + "core:\n  pe_array: {dataflow: rs}\n", "hw.yaml"),
        Contains("core.pe_array.dataflow"));
}
