#pragma once
// Typed HBM parameters for one stack. hw/ fills these from YAML (units already converted: times in
// controller clock cycles, sizes in counts/bits/bytes); dram/ never sees YAML, so a controller can
// be built directly from C++ in tests.
#include <cstdint>
#include <string>

namespace wsc::dram {

enum class PagePolicy { Open, Closed };
enum class RefreshMode { None, AllBank, PerBank };

struct HbmParams {
    // ---- Organization (one stack). Counts other than `stacks` must be powers of two because the
    // address mapper slices address bits.
    uint32_t stacks = 1;           // stacks beside the die; one controller model per stack
    uint32_t channels = 16;        // channels per stack
    uint32_t pseudo_channels = 2;  // pseudo-channels per channel; each is scheduled on its own
    uint32_t bank_groups = 4;      // per pseudo-channel
    uint32_t banks_per_group = 4;
    uint32_t rows = 32768;           // rows per bank
    uint32_t columns = 256;          // column addresses per row, one per bus-width word (JEDEC)
    uint32_t burst_length = 8;       // beats per RD/WR; one access = bus_width_bits/8 * BL bytes
    uint32_t bus_width_bits = 32;    // DQ width of one pseudo-channel
    uint32_t data_rate_mtps = 6400;  // per-pin transfer rate, MT/s (6.4 Gb/s per pin)

    // ---- Timing, in controller clock cycles (tCK). Defaults: hbm3Default().
    uint32_t tCK_ps = 625;   // controller clock period in picoseconds
    uint32_t tCL = 20;       // read latency RL: RD to first data beat (no additive latency)
    uint32_t tWL = 4;        // write latency: WR to first data beat
    uint32_t tRCD = 32;      // ACT to RD
    uint32_t tRCDWR = 32;    // ACT to WR
    uint32_t tRP = 26;       // PRE to ACT (same bank)
    uint32_t tRAS = 45;      // ACT to PRE (same bank)
    uint32_t tRC = 72;       // ACT to ACT (same bank)
    uint32_t tCCD_S = 2;     // column to column, different bank group
    uint32_t tCCD_L = 4;     // column to column, same bank group
    uint32_t tRRD_S = 4;     // ACT to ACT, different bank group
    uint32_t tRRD_L = 5;     // ACT to ACT, same bank group
    uint32_t tFAW = 24;      // window holding at most four ACTs
    uint32_t tWR = 13;       // end of write data to PRE (write recovery)
    uint32_t tWTR_S = 5;     // end of write data to RD, different bank group
    uint32_t tWTR_L = 7;     // end of write data to RD, same bank group
    uint32_t tRTP = 4;       // RD to PRE
    uint32_t tRTRS = 1;      // idle bus cycle between a read burst and a write burst (turnaround)
    uint32_t tREFI = 6240;   // all-bank refresh interval
    uint32_t tRFC = 560;     // all-bank refresh cycle time
    uint32_t tREFIpb = 390;  // per-bank refresh interval (one bank every tREFIpb, round robin)
    uint32_t tRFCpb = 256;   // per-bank refresh cycle time
    uint32_t tRREFD = 13;    // REFpb to REFpb or ACT of another bank

    // ---- Address mapping, most significant field first. Tokens: Ro (row), Ba (bank in group),
    // Bg (bank group), Co (column, in bursts), Pc (pseudo-channel), Ch (channel). Each appears
    // exactly once; below them sit the log2(access bytes) offset bits. The default puts channel
    // and pseudo-channel lowest so a stream spreads over all 32 pseudo-channels, then bank group
    // so one pseudo-channel's stream alternates bank groups (tCCD_S instead of tCCD_L).
    std::string address_mapping = "RoBaCoBgPcCh";

    // ---- Controller (per pseudo-channel unless noted).
    PagePolicy page_policy = PagePolicy::Open;
    uint32_t read_queue_depth = 64;      // bursts
    uint32_t write_queue_depth = 64;     // bursts
    uint32_t write_high_watermark = 48;  // start draining writes at this many queued writes
    uint32_t write_low_watermark = 16;   // stop draining (if reads wait) at this many
    uint32_t max_outstanding = 4096;     // transactions in flight in the whole stack controller
    uint32_t starvation_limit = 4096;    // cycles; an older request waiting longer is served
                                         // first even against row hits (0 = pure FR-FCFS)
    RefreshMode refresh_mode = RefreshMode::PerBank;
    bool check_protocol = true;  // attach a ProtocolChecker to every pseudo-channel

    // ---- Energy.
    double read_pj_per_bit = 6.0;  // TEMP: 6 pJ/bit HBM access energy
    double write_pj_per_bit = 6.0;
    double act_pj = 800.0;     // one ACT (row open, 1 KB page); placeholder magnitude
    double pre_pj = 200.0;     // one bank precharge
    double ref_pj = 28000.0;   // one all-bank REF of a pseudo-channel
    double refpb_pj = 1750.0;  // one per-bank REFpb

    // ---- Requirements checked by validate(); 0 means "no requirement". Totals over `stacks`.
    double required_bandwidth_gbps = 0.0;  // GB/s (1e9 bytes/s)
    double required_capacity_gb = 0.0;     // GB (1e9 bytes)

    // ---- Test-only: name of one timing rule the scheduler ignores (e.g. "tRCD"), so a test can
    // show that the independent ProtocolChecker catches it. Empty in every real configuration.
    std::string debug_break_rule;

    // HBM3 at 6.4 Gb/s per pin, JESD238 figures as in Ramulator 2's preset (see docs/HBM.md).
    static HbmParams hbm3Default();

    // Throws std::invalid_argument naming the problem (and the numbers, for bandwidth/capacity).
    void validate() const;

    // ---- Derived quantities.
    uint32_t pseudoChannelCount() const { return channels * pseudo_channels; }
    uint32_t banksPerPseudoChannel() const { return bank_groups * banks_per_group; }
    uint32_t accessBytes() const { return bus_width_bits / 8 * burst_length; }
    uint32_t burstsPerRow() const { return columns / burst_length; }
    uint32_t rowBytes() const { return columns * bus_width_bits / 8; }
    // Data-bus cycles one burst occupies: BL beats at (data rate x tCK) beats per cycle.
    uint32_t burstCycles() const;
    double clockHz() const { return 1e12 / tCK_ps; }
    // Peak bytes/s: stacks x channels x pseudo-channels x bus width x data rate / 8.
    double peakBandwidthBytesPerSec() const;
    double stackPeakBandwidthBytesPerSec() const { return peakBandwidthBytesPerSec() / stacks; }
    uint64_t stackCapacityBytes() const;
    uint64_t capacityBytes() const { return stackCapacityBytes() * stacks; }
    // Converts nanoseconds to cycles of this tCK, rounding up (JEDEC minimums are lower bounds).
    uint32_t nsToCycles(double ns) const;
};

const char* toString(PagePolicy p);
const char* toString(RefreshMode m);

}  // namespace wsc::dram
