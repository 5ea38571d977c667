#pragma once
// Runs collectives from firmware/collectives on a NoC with cores (CoreArray::run, no SystemC)
// and checks every rank's output against a plain reference.
#include <algorithm>
#include <catch2/catch.hpp>
#include <chrono>
#include <cmath>
#include <memory>
#include <numeric>
#include <random>
#include <string>
#include <vector>

#include "../noc/NocTestUtil.h"
#include "core/CoreArray.h"
#include "firmware/collectives/Collectives.h"
#include "firmware/collectives/Partition.h"
#include "hw/HardwareLoader.h"
#include "noc/Network.h"

namespace wsc::test {

inline std::string configPath(const std::string& name) {
    return std::string(WSC_SOURCE_DIR) + "/configs/" + name;
}

inline hw::HardwareConfig loadConfig(const std::string& name) {
    return hw::HardwareLoader::loadFile(configPath(name));
}

// Rank r's input element e (small integers: every sum is exact in fp32, whatever the order).
inline float inputValue(uint32_t r, uint64_t e) {
    return float(int64_t((r * 7 + e * 3 + (e >> 4)) % 13) - 6);
}

// What rank r must hold at output index t, with its input values as above.
inline float expectedValue(const firmware::coll::CollectiveSpec& s, uint32_t r, uint64_t t) {
    using firmware::coll::Collective;
    using firmware::coll::Partition;
    const uint32_t n = s.size();
    switch (s.kind) {
        case Collective::AllReduce:
        case Collective::ReduceScatter:
        case Collective::Reduce: {
            float sum = 0;
            for (uint32_t q = 0; q < n; ++q) sum += inputValue(q, t);
            return sum;
        }
        case Collective::AllGather:
            return inputValue(1000, t);  // one global tensor, every rank brings its block
        case Collective::Broadcast:
            return inputValue(s.root, t);
        case Collective::SendRecv:
            return inputValue(0, t);
        case Collective::AllToAll: {
            // Output: blocks in source order; source i's block for r sits in i's input after
            // i's blocks for ranks 0 .. r-1 (uniform or per-pair counts alike).
            uint64_t at = 0;
            for (uint32_t i = 0; i < n; ++i) {
                const uint64_t blk = s.pair(i, r);
                if (t < at + blk) {
                    uint64_t src = 0;
                    for (uint32_t j = 0; j < r; ++j) src += s.pair(i, j);
                    return inputValue(i, src + (t - at));
                }
                at += blk;
            }
            return -1.0e9f;  // past the output
        }
    }
    return 0;
}

// Output elements rank r must end with.
inline uint64_t expectedOutputElems(const firmware::coll::CollectiveSpec& s, uint32_t r) {
    using firmware::coll::Algorithm;
    using firmware::coll::Collective;
    using firmware::coll::Partition;
    const uint32_t n = s.size();
    switch (s.kind) {
        case Collective::ReduceScatter:
            if (s.algo == Algorithm::Ring2D) {
                const uint32_t i = r / s.cols, j = r % s.cols;
                return Partition::size(Partition::size(s.elems, s.cols, j), s.rows, i);
            }
            return Partition::size(s.elems, n, r);
        case Collective::AllToAll: {
            uint64_t sum = 0;  // rank r's column of the pair matrix
            for (uint32_t i = 0; i < n; ++i) sum += s.pair(i, r);
            return sum;
        }
        case Collective::Reduce:
            return r == s.root ? s.elems : 0;
        case Collective::SendRecv:
            return r == 1 ? s.elems : 0;
        default:
            return s.elems;
    }
}

// Input elements of rank r for an all-to-all (its row of the pair matrix).
inline uint64_t allToAllInputElems(const firmware::coll::CollectiveSpec& s, uint32_t r) {
    uint64_t sum = 0;
    for (uint32_t j = 0; j < s.size(); ++j) sum += s.pair(r, j);
    return sum;
}

inline float inputFor(const firmware::coll::CollectiveSpec& s, uint32_t r, uint64_t e) {
    return s.kind == firmware::coll::Collective::AllGather ? inputValue(1000, e) : inputValue(r, e);
}

struct CollRun {
    uint64_t cycles = 0;  // the last rank's finish cycle + 1
    bool correct = true;
    std::string first_error;
    uint64_t sram_max = 0;  // most SRAM any rank's program declares
    double wall_seconds = 0;
};

// Emits `specs` in order into one firmware, fills the first one's inputs (later ones chain on
// whatever the buffers hold), runs, and checks the LAST spec's outputs when `check` is set and
// the run is functional. Every buffer starts at a sentinel, so a value that never arrived shows.
inline CollRun runCollectives(const noc::NocParams& np, core::CoreParams cp,
                              const std::vector<firmware::coll::CollectiveSpec>& specs,
                              bool functional = true, bool check = true) {
    using namespace firmware::coll;
    CollRun out;
    noc::Network net(np, 1);
    cp.functional = functional;
    firmware::Firmware fw(net.nodes());
    std::vector<CollectiveLayout> lays;
    for (const auto& s : specs) lays.push_back(Collectives::emit(fw, s));
    for (uint32_t c = 0; c < fw.cores(); ++c) {
        uint64_t b = 0;
        for (const auto& d : fw.program(c).buffers()) b += d.bytes();
        out.sram_max = std::max(out.sram_max, b);
    }
    core::CoreArray cores(net, cp);
    cores.load(fw);
    if (functional) {
        for (uint32_t c = 0; c < fw.cores(); ++c)
            for (const auto& d : fw.program(c).buffers()) {
                float* p = cores.core(c).buffer(d.name);
                std::fill(p, p + d.elems, 1.0e6f);
            }
        const CollectiveSpec& s = specs.front();
        for (uint32_t r = 0; r < s.size(); ++r)
            for (const Segment& g : lays.front().ranks[r].input) {
                float* p = cores.core(s.ranks[r]).buffer(g.buffer);
                for (uint64_t i = 0; i < g.count; ++i) p[i] = inputFor(s, r, g.begin + i);
            }
    }
    const auto t0 = std::chrono::steady_clock::now();
    const uint64_t last = cores.run();
    cores.finish(last);
    out.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    net.checkConservation();
    for (uint32_t c = 0; c < fw.cores(); ++c)
        if (!fw.program(c).empty())
            out.cycles = std::max<uint64_t>(out.cycles, cores.core(c).stats().finish_cycle + 1);
    if (!functional || !check) return out;
    const CollectiveSpec& s = specs.back();
    const CollectiveLayout& lay = lays.back();
    for (uint32_t r = 0; r < s.size() && out.correct; ++r) {
        std::vector<uint8_t> seen(expectedOutputElems(s, r), 0);
        uint64_t covered = 0;
        for (const Segment& g : lay.ranks[r].output) {
            const float* p = cores.core(s.ranks[r]).buffer(g.buffer);
            for (uint64_t i = 0; i < g.count && out.correct; ++i) {
                const uint64_t t = g.begin + i;
                const float want = expectedValue(s, r, t);
                // Reduce-scatter indices are into the whole tensor; the others into the output.
                const uint64_t at =
                    s.kind == Collective::ReduceScatter ? t - lay.ranks[r].output.front().begin : t;
                if (at >= seen.size() || seen[at]) {
                    out.correct = false;
                    out.first_error = "rank " + std::to_string(r) + ": index " + std::to_string(t) +
                                      " outside the output or twice";
                } else if (p[i] != want) {
                    out.correct = false;
                    out.first_error = "rank " + std::to_string(r) + " node " +
                                      std::to_string(s.ranks[r]) + ": element " +
                                      std::to_string(t) + " (" + g.buffer + "[" +
                                      std::to_string(i) + "]) is " + std::to_string(p[i]) +
                                      ", expected " + std::to_string(want);
                } else {
                    seen[at] = 1, ++covered;
                }
            }
        }
        if (out.correct && covered != seen.size()) {
            out.correct = false;
            out.first_error = "rank " + std::to_string(r) + ": output covers " +
                              std::to_string(covered) + " of " + std::to_string(seen.size()) +
                              " elements";
        }
    }
    return out;
}

// A die-like core for collective runs: big SRAM, a wide vector unit and SRAM ports, so the
// communication is what is measured unless a test says otherwise.
inline core::CoreParams bigCore() {
    core::CoreParams cp;
    cp.sram.capacity_bytes = uint64_t(1) << 36;
    return cp;
}

// n distinct nodes out of `nodes`, in a random order (non-contiguous: logical hops cross
// several routers and share no pattern).
inline std::vector<uint32_t> scattered(uint32_t n, uint32_t nodes, uint64_t seed) {
    std::vector<uint32_t> all(nodes);
    std::iota(all.begin(), all.end(), 0);
    std::mt19937_64 rng(seed);
    std::shuffle(all.begin(), all.end(), rng);
    all.resize(n);
    return all;
}

// Runs one collective on a big core and checks every rank's output against the reference.
inline void checkCorrect(const noc::NocParams& np, const firmware::coll::CollectiveSpec& s) {
    INFO(firmware::coll::describe(s));
    std::string nodes;
    for (uint32_t r : s.ranks) nodes += std::to_string(r) + " ";
    INFO("nodes " << nodes);
    const CollRun r = runCollectives(np, bigCore(), {s});
    INFO(r.first_error);
    CHECK(r.correct);
}

}  // namespace wsc::test
