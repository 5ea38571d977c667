#include "dram/HbmParams.h"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

#include "dram/AddressMapper.h"
#include "dram/TimingTracker.h"

namespace wsc::dram {

namespace {
bool isPow2(uint64_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}

void requirePow2(const char* name, uint64_t v) {
    if (!isPow2(v))
        throw std::invalid_argument(fmt::format("hbm: {} = {} must be a power of two", name, v));
}

void requirePositive(const char* name, uint64_t v) {
    if (v == 0) throw std::invalid_argument(fmt::format("hbm: {} must be at least 1", name));
}
}  // namespace

uint32_t HbmParams::nsToCycles(double ns) const {
    // Work in picoseconds so exact multiples (12.5 ns / 0.625 ns) do not round up by float noise.
    const double ps = std::round(ns * 1000.0);
    return static_cast<uint32_t>(std::ceil(ps / tCK_ps - 1e-9));
}

uint32_t HbmParams::burstCycles() const {
    // beats per cycle = rate[MT/s] * tCK[ps] / 1e6; cycles = ceil(BL / beats per cycle).
    const uint64_t num = uint64_t(burst_length) * 1000000u;
    const uint64_t den = uint64_t(data_rate_mtps) * tCK_ps;
    return den == 0 ? 0 : static_cast<uint32_t>((num + den - 1) / den);
}

double HbmParams::peakBandwidthBytesPerSec() const {
    return double(stacks) * channels * pseudo_channels * bus_width_bits * data_rate_mtps * 1e6 /
           8.0;
}

uint64_t HbmParams::stackCapacityBytes() const {
    return uint64_t(channels) * pseudo_channels * bank_groups * banks_per_group * rows * columns *
           (bus_width_bits / 8);
}

HbmParams HbmParams::hbm3Default() {
    HbmParams p;
    p.tCK_ps = 625;
    // From the facts file (JESD238 as used by Ramulator 2): converted at tCK = 0.625 ns, rounded
    // up.
    p.tCL = p.nsToCycles(12.5);
    p.tRCD = p.nsToCycles(19.4);
    p.tRCDWR = p.tRCD;  // the facts give tRCD for reads only; writes assumed the same
    p.tRP = p.nsToCycles(16.25);
    p.tRAS = p.nsToCycles(28.1);
    p.tRC = p.nsToCycles(45.0);
    p.tRRD_S = p.nsToCycles(2.5);
    p.tRRD_L = p.nsToCycles(3.1);
    p.tFAW = p.nsToCycles(15.0);
    p.tREFI = p.nsToCycles(3900.0);
    // Not in the facts file: Ramulator 2's HBM3 preset values in ns (its tCK is 1 ns).
    p.tWL = p.nsToCycles(2.0);
    p.tWR = p.nsToCycles(8.0);
    p.tRTP = p.nsToCycles(2.0);
    p.tCCD_L = p.nsToCycles(2.0);
    p.tWTR_S = p.nsToCycles(3.0);
    p.tWTR_L = p.nsToCycles(4.0);
    p.tRFC = p.nsToCycles(350.0);  // 8 Gb-class die
    p.tRFCpb = p.nsToCycles(160.0);
    p.tRREFD = p.nsToCycles(8.0);
    p.tRTRS = 1;
    // A column command every burst keeps the bus full: tCCD_S is the burst time (2 cycles).
    p.tCCD_S = p.burstCycles();
    // Per-bank refresh visits every bank once per tREFI.
    p.tREFIpb = p.tREFI / p.banksPerPseudoChannel();
    return p;
}

void HbmParams::validate() const {
    requirePositive("stacks", stacks);
    requirePow2("channels", channels);
    requirePow2("pseudo_channels", pseudo_channels);
    requirePow2("bank_groups", bank_groups);
    requirePow2("banks_per_group", banks_per_group);
    requirePow2("rows", rows);
    requirePow2("columns", columns);
    requirePow2("burst_length", burst_length);
    if (bus_width_bits == 0 || bus_width_bits % 8 != 0 || !isPow2(bus_width_bits / 8))
        throw std::invalid_argument(
            fmt::format("hbm: bus_width_bits = {} must be 8 times a power of two", bus_width_bits));
    if (columns < burst_length)
        throw std::invalid_argument(fmt::format(
            "hbm: columns = {} per row is fewer than one burst of {}", columns, burst_length));
    if (banksPerPseudoChannel() > 64)
        throw std::invalid_argument(
            fmt::format("hbm: {} banks per pseudo-channel exceeds the model's limit of 64",
                        banksPerPseudoChannel()));
    requirePositive("data_rate_mtps", data_rate_mtps);
    requirePositive("tCK_ps", tCK_ps);

    const struct {
        const char* n;
        uint32_t v;
    } timings[] = {{"tCL", tCL},       {"tWL", tWL},       {"tRCD", tRCD},     {"tRCDWR", tRCDWR},
                   {"tRP", tRP},       {"tRAS", tRAS},     {"tRC", tRC},       {"tCCD_S", tCCD_S},
                   {"tCCD_L", tCCD_L}, {"tRRD_S", tRRD_S}, {"tRRD_L", tRRD_L}, {"tRTP", tRTP}};
    for (const auto& t : timings) requirePositive(t.n, t.v);
    if (tCCD_S < burstCycles() || tCCD_L < burstCycles())
        throw std::invalid_argument(fmt::format(
            "hbm: tCCD_S = {} / tCCD_L = {} cycles is shorter than a burst ({} cycles): bursts "
            "would overlap on the data bus",
            tCCD_S, tCCD_L, burstCycles()));
    if (tRC < tRAS)
        throw std::invalid_argument(fmt::format("hbm: tRC = {} < tRAS = {}", tRC, tRAS));
    if (tCL + burstCycles() + tRTRS < tWL)
        throw std::invalid_argument("hbm: tWL longer than tCL + burst + tRTRS is not modelled");
    if (refresh_mode == RefreshMode::AllBank && tREFI <= tRFC)
        throw std::invalid_argument(
            fmt::format("hbm: tREFI = {} must exceed tRFC = {} cycles", tREFI, tRFC));
    if (refresh_mode == RefreshMode::PerBank) {
        if (tREFIpb == 0 || tREFIpb <= tRREFD)
            throw std::invalid_argument(
                fmt::format("hbm: tREFIpb = {} must exceed tRREFD = {} cycles", tREFIpb, tRREFD));
        if (uint64_t(tREFIpb) * banksPerPseudoChannel() > tREFI)
            throw std::invalid_argument(fmt::format(
                "hbm: per-bank refresh every tREFIpb = {} cycles over {} banks takes {} cycles, "
                "more than tREFI = {}: some bank would miss its refresh",
                tREFIpb, banksPerPseudoChannel(), uint64_t(tREFIpb) * banksPerPseudoChannel(),
                tREFI));
    }

    requirePositive("read_queue_depth", read_queue_depth);
    requirePositive("write_queue_depth", write_queue_depth);
    requirePositive("max_outstanding", max_outstanding);
    if (!(write_low_watermark < write_high_watermark && write_high_watermark <= write_queue_depth))
        throw std::invalid_argument(fmt::format(
            "hbm: watermarks must satisfy low ({}) < high ({}) <= write_queue_depth ({})",
            write_low_watermark, write_high_watermark, write_queue_depth));

    AddressMapper::parse(address_mapping);  // throws on a malformed mapping string
    if (!debug_break_rule.empty() && !TimingTracker::canBreak(debug_break_rule))
        throw std::invalid_argument(fmt::format(
            "hbm: debug_break_rule '{}' is not a rule the scheduler can ignore", debug_break_rule));

    const double peak = peakBandwidthBytesPerSec();
    if (required_bandwidth_gbps > 0 && peak < required_bandwidth_gbps * 1e9) {
        const double stackPeak = stackPeakBandwidthBytesPerSec();
        throw std::invalid_argument(fmt::format(
            "hbm: {} stack(s) x {} channels x {} pseudo-channels x {} bits x {} MT/s / 8 = "
            "{:.1f} GB/s, but {:.1f} GB/s is required (needs at least {} stacks of {:.1f} GB/s)",
            stacks, channels, pseudo_channels, bus_width_bits, data_rate_mtps, peak / 1e9,
            required_bandwidth_gbps, uint64_t(std::ceil(required_bandwidth_gbps * 1e9 / stackPeak)),
            stackPeak / 1e9));
    }
    const double cap = double(capacityBytes());
    if (required_capacity_gb > 0 && cap < required_capacity_gb * 1e9) {
        const double stackCap = double(stackCapacityBytes());
        throw std::invalid_argument(fmt::format(
            "hbm: {} stack(s) x {} channels x {} pseudo-channels x {} banks x {} rows x {} B/row "
            "= {:.2f} GB, but {:.2f} GB is required (needs at least {} stacks of {:.2f} GB)",
            stacks, channels, pseudo_channels, banksPerPseudoChannel(), rows, rowBytes(), cap / 1e9,
            required_capacity_gb, uint64_t(std::ceil(required_capacity_gb * 1e9 / stackCap)),
            stackCap / 1e9));
    }
}

const char* toString(PagePolicy p) {
    return p == PagePolicy::Open ? "open" : "closed";
}

const char* toString(RefreshMode m) {
    switch (m) {
        case RefreshMode::None:
            return "none";
        case RefreshMode::AllBank:
            return "all-bank";
        case RefreshMode::PerBank:
            return "per-bank";
    }
    return "?";
}

}  // namespace wsc::dram
