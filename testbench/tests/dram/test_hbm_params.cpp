#include <catch2/catch.hpp>
#include <stdexcept>
#include <string>

#include "dram/AddressMapper.h"
#include "dram/HbmParams.h"

using namespace wsc::dram;
using Catch::Matchers::Contains;

TEST_CASE("HBM3 defaults: facts-file timings in 0.625 ns cycles, 819.2 GB/s per stack",
          "[dram][params]") {
    const HbmParams p = HbmParams::hbm3Default();
    CHECK(p.tCK_ps == 625);
    CHECK(p.tCL == 20);      // 12.5 ns
    CHECK(p.tRCD == 32);     // 19.4 ns = 31.04 cycles, rounded up
    CHECK(p.tRP == 26);      // 16.25 ns
    CHECK(p.tRAS == 45);     // 28.1 ns = 44.96
    CHECK(p.tRC == 72);      // 45 ns
    CHECK(p.tRRD_S == 4);    // 2.5 ns
    CHECK(p.tRRD_L == 5);    // 3.1 ns = 4.96
    CHECK(p.tFAW == 24);     // 15 ns
    CHECK(p.tREFI == 6240);  // 3.9 us
    CHECK(p.burst_length == 8);
    CHECK(p.burstCycles() == 2);  // 8 beats at 6.4 GT/s = 1.25 ns
    CHECK(p.tCCD_S == 2);
    CHECK(p.channels == 16);
    CHECK(p.pseudo_channels == 2);
    CHECK(p.accessBytes() == 32);
    CHECK(p.peakBandwidthBytesPerSec() == Approx(819.2e9));
    CHECK(p.stackCapacityBytes() == (uint64_t(16) << 30));
    CHECK(p.tREFIpb * p.banksPerPseudoChannel() <= p.tREFI);
    // The in-struct defaults are the same numbers, so HbmParams{} is HBM3 too.
    const HbmParams d;
    CHECK(d.tRCD == p.tRCD);
    CHECK(d.tWR == p.tWR);
    CHECK(d.tRFC == p.tRFC);
    CHECK(d.tRFCpb == p.tRFCpb);
    CHECK(d.tREFIpb == p.tREFIpb);
    CHECK(d.tWTR_L == p.tWTR_L);
    CHECK_NOTHROW(p.validate());
}

TEST_CASE("validate rejects a bandwidth or capacity the organization cannot deliver",
          "[dram][params]") {
    HbmParams p = HbmParams::hbm3Default();
    // TEMP: 1 TB/s per die; one stack gives 819.2 GB/s.
    p.required_bandwidth_gbps = 1000.0;
    CHECK_THROWS_WITH(p.validate(), Contains("819.2 GB/s") && Contains("1000.0 GB/s") &&
                                        Contains("at least 2 stacks"));
    p.stacks = 2;
    CHECK_NOTHROW(p.validate());
    // TEMP also needs 72 GB: 2 stacks of 16 GiB hold 34.36 GB.
    p.required_capacity_gb = 72.0;
    CHECK_THROWS_WITH(p.validate(), Contains("34.36 GB") && Contains("72.00 GB") &&
                                        Contains("at least 5 stacks"));
    p.stacks = 5;
    CHECK_NOTHROW(p.validate());
    // MoEntwine: 8 TB/s and 180 GB per die.
    HbmParams m = HbmParams::hbm3Default();
    m.required_bandwidth_gbps = 8000.0;
    m.required_capacity_gb = 180.0;
    m.stacks = 10;  // 8.19 TB/s but only 171.8 GB
    CHECK_THROWS_WITH(m.validate(), Contains("171.80 GB") && Contains("180.00 GB"));
    m.stacks = 11;
    CHECK_NOTHROW(m.validate());
    m.stacks = 9;  // 7.37 TB/s
    CHECK_THROWS_WITH(m.validate(), Contains("7372.8 GB/s") && Contains("8000.0 GB/s"));
}

TEST_CASE("validate rejects malformed organizations, mappings and knobs", "[dram][params]") {
    auto bad = [](auto&& mutate) {
        HbmParams p = HbmParams::hbm3Default();
        mutate(p);
        return p;
    };
    CHECK_THROWS_AS(bad([](HbmParams& p) { p.channels = 12; }).validate(), std::invalid_argument);
    CHECK_THROWS_WITH(bad([](HbmParams& p) { p.address_mapping = "RoBaBgCoCh"; }).validate(),
                      Contains("exactly once"));
    CHECK_THROWS_WITH(bad([](HbmParams& p) { p.address_mapping = "RoBaBgCoChCh"; }).validate(),
                      Contains("repeated"));
    CHECK_THROWS_WITH(bad([](HbmParams& p) { p.address_mapping = "RoBaBgCoPcXx"; }).validate(),
                      Contains("unknown field"));
    CHECK_THROWS_WITH(bad([](HbmParams& p) { p.write_low_watermark = 50; }).validate(),
                      Contains("watermarks"));
    CHECK_THROWS_WITH(bad([](HbmParams& p) { p.tCCD_S = 1; }).validate(), Contains("burst"));
    CHECK_THROWS_WITH(bad([](HbmParams& p) { p.debug_break_rule = "tXYZ"; }).validate(),
                      Contains("tXYZ"));
    CHECK_THROWS_WITH(bad([](HbmParams& p) { p.tREFIpb = 500; }).validate(),
                      Contains("miss its refresh"));
    CHECK_NOTHROW(bad([](HbmParams& p) { p.debug_break_rule = "tRCD"; }).validate());
}

TEST_CASE("address mapping round-trips and places fields as the string says", "[dram][mapping]") {
    for (const char* mapping : {"RoBaCoBgPcCh", "RoBaBgCoPcCh", "RoBgBaCoChPc", "ChPcBgBaRoCo"}) {
        HbmParams p = HbmParams::hbm3Default();
        p.address_mapping = mapping;
        AddressMapper m(p);
        INFO(mapping);
        REQUIRE(m.capacity() == p.stackCapacityBytes());
        REQUIRE(m.offsetBits() == 5);
        uint64_t x = 0x9E3779B97F4A7C15ull;
        for (int i = 0; i < 20000; ++i) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;  // xorshift
            const uint64_t addr = x % m.capacity();
            const DecodedAddress d = m.decode(addr);
            REQUIRE(d.channel < p.channels);
            REQUIRE(d.pseudo_channel < p.pseudo_channels);
            REQUIRE(d.bank_group < p.bank_groups);
            REQUIRE(d.bank < p.banks_per_group);
            REQUIRE(d.row < p.rows);
            REQUIRE(d.column < p.burstsPerRow());
            REQUIRE(m.encode(d) == (addr & ~uint64_t(31)));
            REQUIRE(m.decode(m.encode(d)) == d);
        }
    }
    // Default "RoBaCoBgPcCh": consecutive bursts walk channels, then pseudo-channel, then bank
    // group, then column.
    AddressMapper m(HbmParams::hbm3Default());
    CHECK(m.decode(32).channel == 1);
    CHECK(m.decode(32 * 16).pseudo_channel == 1);
    CHECK(m.decode(32 * 32).bank_group == 1);
    CHECK(m.decode(32 * 32 * 4).column == 1);
    CHECK(m.decode(32 * 32 * 4 * 32).bank == 1);
    CHECK(m.decode(32 * 32 * 4 * 32 * 4).row == 1);
}
