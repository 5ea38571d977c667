#pragma once
// The ranges every input quantity is held to (docs/CONFIG.md, "Ranges and overflow"). They are
// chosen so that the sums and products the model forms cannot overflow their types and so that a
// run cannot silently take forever:
//   - a latency is at most 2^20 cycles, so a link's flight + credit + serialisation (a few of them)
//     fits uint32_t with room for the retry and clock-crossing factors, and the watchdog's sums of
//     round trips cannot wrap;
//   - a run phase (warm-up, measure, drain, watchdog) is at most 2^40 cycles (1100 s of simulated
//     time at 1 GHz, weeks of wall time), so window ends and drain limits (sums of three) fit
//     uint64_t with no check at run time;
//   - clocks lie in [1 MHz, 1 THz]: below, a nanosecond-scale default latency (HBM refresh, FEC)
//     rounds to whole cycles of a second and the HBM clock runs millions of events per NoC cycle;
//     above, it is a unit slip ("1e9 GHz");
//   - widths are at most 1 MB per cycle (more than any flit, so wider is meaningless).
// The CLI flags that override these keys use the same constants (testbench/CliArgs).
#include <cstdint>

namespace wsc::hw::limits {

constexpr double kMinClockHz = 1e6;
constexpr double kMaxClockHz = 1e12;
constexpr uint32_t kMaxLatencyCycles = 1u << 20;
constexpr uint64_t kMaxPhaseCycles = uint64_t{1} << 40;
constexpr uint32_t kMaxWidthBytes = 1u << 20;
// Simple memory ports (core.memory): a per-port bandwidth below 1 MB/s makes one 1 MB burst
// take seconds of simulated time; above 1 PB/s it is a unit slip.
constexpr double kMinMemoryBandwidth = 1e6;
constexpr double kMaxMemoryBandwidth = 1e15;
// Sizes: a core's SRAM is addressed with 32-bit element counts in firmware (4 GB of fp32); a
// memory port's capacity bounds its addresses (sparse pages, so only what is written costs).
constexpr uint64_t kMaxSramBytes = uint64_t{1} << 32;
constexpr uint64_t kMaxMemoryBytes = uint64_t{1} << 50;

}  // namespace wsc::hw::limits
