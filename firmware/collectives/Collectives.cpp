#include "firmware/collectives/Collectives.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>
#include <stdexcept>

#include "firmware/collectives/CollectiveEmitter.h"
#include "firmware/collectives/Partition.h"
#include "firmware/collectives/RingSchedule.h"
#include "firmware/collectives/TreeSchedule.h"

namespace wsc::firmware::coll {

const char* collectiveName(Collective c) {
    switch (c) {
        case Collective::AllReduce:
            return "all-reduce";
        case Collective::ReduceScatter:
            return "reduce-scatter";
        case Collective::AllGather:
            return "all-gather";
        case Collective::AllToAll:
            return "all-to-all";
        case Collective::Broadcast:
            return "broadcast";
        case Collective::Reduce:
            return "reduce";
        case Collective::SendRecv:
            return "send-recv";
    }
    return "?";
}

const char* algorithmName(Algorithm a) {
    switch (a) {
        case Algorithm::Ring:
            return "ring";
        case Algorithm::Ring2D:
            return "ring2d";
        case Algorithm::Direct:
            return "direct";
        case Algorithm::Tree:
            return "tree";
        case Algorithm::Tree2D:
            return "tree2d";
    }
    return "?";
}

uint64_t CollectiveSpec::pair(uint32_t q, uint32_t j) const {
    return counts.empty() ? Partition::size(elems, size(), j) : counts.at(uint64_t(q) * size() + j);
}

std::string describe(const CollectiveSpec& s) {
    std::string knobs;
    auto add = [&](const std::string& k) { knobs += (knobs.empty() ? "" : ", ") + k; };
    if (s.algo == Algorithm::Ring2D || s.algo == Algorithm::Tree2D)
        add(fmt::format("{}x{} grid", s.rows, s.cols));
    if (s.pieces > 1) add(fmt::format("{} pieces", s.pieces));
    if (s.bidirectional) add("bidirectional");
    if (s.kind == Collective::AllToAll && !s.staggered) add("not staggered");
    if (s.kind == Collective::Broadcast || s.kind == Collective::Reduce)
        add(fmt::format("root rank {}", s.root));
    if (s.kind == Collective::AllToAll && !s.counts.empty()) {
        uint64_t total = 0;
        for (uint64_t c : s.counts) total += c;
        return fmt::format("{} {}-v of {} {} in all on {} ranks{}", algorithmName(s.algo),
                           collectiveName(s.kind), total, dtypeName(s.dtype), s.ranks.size(),
                           knobs.empty() ? "" : " (" + knobs + ")");
    }
    return fmt::format("{} {} of {} {} on {} ranks{}", algorithmName(s.algo),
                       collectiveName(s.kind), s.elems, dtypeName(s.dtype), s.ranks.size(),
                       knobs.empty() ? "" : " (" + knobs + ")");
}

namespace {

bool ringKind(Collective k) {
    return k == Collective::AllReduce || k == Collective::ReduceScatter ||
           k == Collective::AllGather;
}

// The tensor's first-level blocks: the chunk each rank owns after a reduce-scatter (Ring: rank
// q owns block q; Ring2D: block (j, i) = j * rows + i, owned by the rank at row i, column j), or
// the whole tensor for trees and send-recv. All-to-all: the n x n pair matrix, row-major (entry
// q * n + j: what rank q sends to rank j), the counts or the uniform blocks of `elems`.
std::vector<uint64_t> blocksOf(const CollectiveSpec& s) {
    const uint32_t n = s.size();
    if (s.kind == Collective::AllToAll) {
        if (!s.counts.empty()) {
            if (s.counts.size() != uint64_t(n) * n)
                throw std::invalid_argument(fmt::format(
                    "collective '{}': {} per-pair counts for {} ranks (needs {} x {} = {})",
                    s.prefix, s.counts.size(), n, n, n, uint64_t(n) * n));
            return s.counts;
        }
        std::vector<uint64_t> m;
        m.reserve(uint64_t(n) * n);
        for (uint32_t q = 0; q < n; ++q)
            for (uint64_t x : Partition::sizes(s.elems, n)) m.push_back(x);
        return m;
    }
    if (s.algo == Algorithm::Ring2D) {
        std::vector<uint64_t> b;
        for (uint32_t j = 0; j < s.cols; ++j)
            for (uint64_t x : Partition::sizes(Partition::size(s.elems, s.cols, j), s.rows))
                b.push_back(x);
        return b;
    }
    if (ringKind(s.kind)) return Partition::sizes(s.elems, n);
    return {s.elems};
}

// The block rank r owns after a reduce-scatter (and brings to an all-gather).
uint32_t ownBlock(const CollectiveSpec& s, uint32_t r) {
    return s.algo == Algorithm::Ring2D ? (r % s.cols) * s.rows + r / s.cols : r;
}

std::vector<uint64_t> beginsOf(const std::vector<uint64_t>& sizes) {
    std::vector<uint64_t> b(sizes.size() + 1, 0);
    for (size_t i = 0; i < sizes.size(); ++i) b[i + 1] = b[i] + sizes[i];
    return b;
}

// All-to-all over the pair matrix m (n x n, row-major): where rank q's block for each
// destination j starts in its input (blocks in destination order), and where the block from
// each source i starts in its output (blocks in source order); n + 1 entries, the last the total.
std::vector<uint64_t> rowBegins(const std::vector<uint64_t>& m, uint32_t n, uint32_t q) {
    std::vector<uint64_t> b(n + 1, 0);
    for (uint32_t j = 0; j < n; ++j) b[j + 1] = b[j] + m[uint64_t(q) * n + j];
    return b;
}

std::vector<uint64_t> colBegins(const std::vector<uint64_t>& m, uint32_t n, uint32_t q) {
    std::vector<uint64_t> b(n + 1, 0);
    for (uint32_t i = 0; i < n; ++i) b[i + 1] = b[i] + m[uint64_t(i) * n + q];
    return b;
}

// The block of a begins vector (above) that holds index t: the last begin at or before t (empty
// blocks share their begin with the next one and are skipped).
size_t blockAt(const std::vector<uint64_t>& begins, uint64_t t) {
    return std::upper_bound(begins.begin(), begins.end(), t) - begins.begin() - 1;
}

struct Seg {
    std::string name;
    uint64_t begin = 0, count = 0;
};

// Builds one collective over `blocks` (blocksOf: for an all-to-all the pair matrix) with data
// buffers "<data>.*" and receive buffers "<rx>.*": declares the data buffers rank by rank in
// tensor order, emits the schedule, returns the layout.
CollectiveLayout build(CollectiveEmitter& e, const CollectiveSpec& s,
                       const std::vector<uint64_t>& blocks, const std::string& data,
                       const std::string& rx) {
    const uint32_t n = s.size(), k = s.pieces;
    const std::vector<uint64_t> bb = beginsOf(blocks);
    CollectiveLayout lay;
    lay.ranks.resize(n);
    for (uint32_t r = 0; r < n; ++r) lay.ranks[r].node = s.ranks[r];
    auto put = [](std::vector<Segment>& v, const Seg& g) {
        if (g.count) v.push_back({g.name, g.begin, g.count});
    };
    auto declare = [&](uint32_t r, const Seg& g) {
        if (g.count) e.buffer(r, g.name, g.count);
    };

    if (ringKind(s.kind)) {
        const uint32_t halves = s.bidirectional ? 2 : 1;
        // seg[b][h][x]
        std::vector<std::vector<std::vector<Seg>>> seg(blocks.size());
        for (size_t b = 0; b < blocks.size(); ++b) {
            seg[b].resize(halves);
            for (uint32_t h = 0; h < halves; ++h) {
                const uint64_t hs = Partition::size(blocks[b], halves, h);
                const uint64_t hb = bb[b] + Partition::begin(blocks[b], halves, h);
                for (uint32_t x = 0; x < k; ++x)
                    seg[b][h].push_back({halves > 1 ? fmt::format("{}.b{}.h{}.p{}", data, b, h, x)
                                                    : fmt::format("{}.b{}.p{}", data, b, x),
                                         hb + Partition::begin(hs, k, x),
                                         Partition::size(hs, k, x)});
            }
        }
        for (uint32_t r = 0; r < n; ++r) {
            const uint32_t own = ownBlock(s, r);
            for (size_t b = 0; b < blocks.size(); ++b)
                for (const auto& hv : seg[b])
                    for (const Seg& g : hv) {
                        declare(r, g);
                        if (s.kind != Collective::AllGather || b == own) put(lay.ranks[r].input, g);
                        if (s.kind != Collective::ReduceScatter || b == own)
                            put(lay.ranks[r].output, g);
                    }
        }
        // A lane over `ranks` (ring order) whose position p owns the slots chunk(ranks[p]);
        // h = 1 is the reversed ring.
        auto lanesOf = [&](std::vector<uint32_t> ranks, auto chunk, const std::string& rxname) {
            std::vector<RingLane> lanes(halves);
            for (uint32_t h = 0; h < halves; ++h) {
                RingLane& l = lanes[h];
                l.ranks = ranks;
                if (h == 1) std::reverse(l.ranks.begin(), l.ranks.end());
                for (uint32_t r : l.ranks) l.chunks.push_back(chunk(r, h));
                l.rx = fmt::format("{}.{}{}", rx, rxname, h);
            }
            return lanes;
        };
        auto slots = [&](uint32_t b, uint32_t h) {
            std::vector<RingLane::Slot> v;
            for (const Seg& g : seg[b][h]) v.push_back({g.name, g.count});
            return v;
        };
        const uint32_t rs = s.kind == Collective::AllGather ? 1 : 0;  // phases to run
        const uint32_t ag = s.kind == Collective::ReduceScatter ? 0 : 1;
        if (s.algo == Algorithm::Ring) {
            std::vector<uint32_t> all(n);
            std::iota(all.begin(), all.end(), 0);
            const auto lanes = lanesOf(all, slots, "rx");
            RingSchedule::emit(e, lanes, rs ? n - 1 : 0, ag ? 2 * n - 2 : n - 1);
            return lay;
        }
        const uint32_t R = s.rows, C = s.cols;
        auto rowLanes = [&](uint32_t i) {
            std::vector<uint32_t> ranks(C);
            for (uint32_t j = 0; j < C; ++j) ranks[j] = i * C + j;
            // The rank at column j owns every block (j, *).
            auto chunk = [&](uint32_t r, uint32_t h) {
                std::vector<RingLane::Slot> v;
                for (uint32_t ii = 0; ii < R; ++ii)
                    for (const auto& sl : slots((r % C) * R + ii, h)) v.push_back(sl);
                return v;
            };
            return lanesOf(ranks, chunk, "rxr");
        };
        auto colLanes = [&](uint32_t j) {
            std::vector<uint32_t> ranks(R);
            for (uint32_t i = 0; i < R; ++i) ranks[i] = i * C + j;
            auto chunk = [&](uint32_t r, uint32_t h) { return slots(ownBlock(s, r), h); };
            return lanesOf(ranks, chunk, "rxc");
        };
        auto rows = [&](uint32_t first, uint32_t last) {
            for (uint32_t i = 0; i < R; ++i) RingSchedule::emit(e, rowLanes(i), first, last);
        };
        auto cols = [&](uint32_t first, uint32_t last) {
            for (uint32_t j = 0; j < C; ++j) RingSchedule::emit(e, colLanes(j), first, last);
        };
        if (s.kind == Collective::AllReduce) {
            rows(0, C - 1), cols(0, 2 * R - 2), rows(C - 1, 2 * C - 2);
        } else if (s.kind == Collective::ReduceScatter) {
            rows(0, C - 1), cols(0, R - 1);
        } else {
            cols(R - 1, 2 * R - 2), rows(C - 1, 2 * C - 2);
        }
        return lay;
    }

    if (s.kind == Collective::AllToAll) {
        // blocks: the pair matrix. Rank q's input is its row's blocks in destination order, its
        // output its column's blocks in source order (the uniform case: i * blocks[q]).
        for (uint32_t q = 0; q < n; ++q) {
            RankLayout& rl = lay.ranks[q];
            const std::vector<uint64_t> ib = rowBegins(blocks, n, q), ob = colBegins(blocks, n, q);
            std::vector<std::vector<Seg>> out(n, std::vector<Seg>(k)), in(n, std::vector<Seg>(k));
            for (uint32_t j = 0; j < n; ++j) {
                const uint64_t c = blocks[uint64_t(q) * n + j];
                for (uint32_t x = 0; x < k; ++x)
                    in[j][x] = {fmt::format("{}.s{}.p{}", data, j, x),
                                ib[j] + Partition::begin(c, k, x), Partition::size(c, k, x)};
            }
            for (uint32_t i = 0; i < n; ++i) {
                const uint64_t c = blocks[uint64_t(i) * n + q];
                for (uint32_t x = 0; x < k; ++x)
                    out[i][x] = {i == q ? in[q][x].name : fmt::format("{}.r{}.p{}", data, i, x),
                                 ob[i] + Partition::begin(c, k, x), Partition::size(c, k, x)};
            }
            std::vector<std::vector<uint16_t>> sb(n, std::vector<uint16_t>(k, kNoBuf));
            std::vector<std::vector<uint16_t>> rb = sb;
            for (uint32_t j = 0; j < n; ++j)
                for (uint32_t x = 0; x < k; ++x) {
                    if (in[j][x].count) sb[j][x] = e.buffer(q, in[j][x].name, in[j][x].count);
                    put(rl.input, in[j][x]);
                }
            for (uint32_t i = 0; i < n; ++i)
                for (uint32_t x = 0; x < k; ++x) {
                    if (i != q && out[i][x].count)
                        rb[i][x] = e.buffer(q, out[i][x].name, out[i][x].count);
                    put(rl.output, out[i][x]);
                }
            if (e.dry()) continue;
            // Round r: staggered, rank q sends to q + r and receives from q - r, so no rank is
            // everyone's first target; otherwise every rank goes through the others in order.
            auto peer = [&](uint32_t r, bool to) {
                if (s.staggered) return to ? (q + r) % n : (q + n - r) % n;
                const uint32_t p = r - 1;  // the others in ascending order
                return p < q ? p : p + 1;
            };
            for (uint32_t x = 0; x < k; ++x)
                for (uint32_t r = 1; r < n; ++r) {
                    const uint32_t d = peer(r, true);
                    if (in[d][x].count) e.send(q, sb[d][x], d, in[d][x].count);
                }
            for (uint32_t x = 0; x < k; ++x)
                for (uint32_t r = 1; r < n; ++r) {
                    const uint32_t f = peer(r, false);
                    if (out[f][x].count) e.recv(q, rb[f][x], f, out[f][x].count);
                }
        }
        return lay;
    }

    // Trees and send-recv: one block, cut into pieces.
    std::vector<Seg> seg(k);
    std::vector<TreeSchedule::Slot> slots(k);
    for (uint32_t x = 0; x < k; ++x) {
        seg[x] = {fmt::format("{}.b0.p{}", data, x), Partition::begin(blocks[0], k, x),
                  Partition::size(blocks[0], k, x)};
        slots[x] = {seg[x].name, seg[x].count};
    }
    const uint32_t root = s.kind == Collective::SendRecv ? 0 : s.root;
    for (uint32_t r = 0; r < n; ++r) {
        for (const Seg& g : seg) {
            declare(r, g);
            const bool in = s.kind == Collective::Broadcast  ? r == root
                            : s.kind == Collective::SendRecv ? r == 0
                                                             : true;
            const bool out = s.kind == Collective::Broadcast  ? true
                             : s.kind == Collective::SendRecv ? r == 1
                                                              : r == root;
            if (in) put(lay.ranks[r].input, g);
            if (out) put(lay.ranks[r].output, g);
        }
    }
    if (s.kind == Collective::SendRecv) {
        if (e.dry()) return lay;
        const std::vector<uint16_t> a = [&] {
            std::vector<uint16_t> v;
            for (const Seg& g : seg) v.push_back(g.count ? e.buffer(0, g.name, g.count) : kNoBuf);
            return v;
        }();
        for (uint32_t x = 0; x < k; ++x)
            if (seg[x].count) e.send(0, a[x], 1, seg[x].count);
        for (uint32_t x = 0; x < k; ++x)
            if (seg[x].count) e.recv(1, e.buffer(1, seg[x].name, seg[x].count), 0, seg[x].count);
        return lay;
    }
    const Tree t = s.algo == Algorithm::Tree2D ? TreeSchedule::grid(s.rows, s.cols, s.root)
                                               : TreeSchedule::binomial(n, s.root);
    if (s.kind == Collective::Broadcast)
        TreeSchedule::broadcast(e, t, slots);
    else
        TreeSchedule::reduce(e, t, slots, rx + ".rx");
    return lay;
}

std::string what(const CollectiveSpec& s) {
    return fmt::format("collective '{}' ({})", s.prefix, describe(s));
}

}  // namespace

void Collectives::validate(const CollectiveSpec& s, uint32_t nodes) {
    auto fail = [&](const std::string& why) {
        throw std::invalid_argument(fmt::format("{}: {}", what(s), why));
    };
    if (s.prefix.empty()) fail("needs a buffer-name prefix");
    if (s.ranks.empty()) fail("has no ranks");
    if (!s.counts.empty()) {
        // All-to-all-v: an n x n pair matrix; elems, if given, is the largest rank input.
        const uint64_t n = s.ranks.size();
        if (s.kind != Collective::AllToAll || s.algo != Algorithm::Direct)
            fail(fmt::format("per-pair counts are for the direct all-to-all only, not a {} {}",
                             algorithmName(s.algo), collectiveName(s.kind)));
        if (s.counts.size() != n * n)
            fail(
                fmt::format("has {} per-pair counts, but {} ranks need {} x {} = {} (row-major: "
                            "counts[q * n + j] = elements rank q sends to rank j)",
                            s.counts.size(), n, n, n, n * n));
        uint64_t most = 0, who = 0, total = 0;
        for (uint64_t q = 0; q < n; ++q) {
            uint64_t row = 0;
            for (uint64_t j = 0; j < n; ++j) row += s.counts[q * n + j];
            if (row > most) most = row, who = q;
            total += row;
        }
        if (total == 0) fail("has no elements (every per-pair count is 0)");
        if (s.elems != 0 && s.elems != most)
            fail(
                fmt::format("elems is {}, but with per-pair counts it must be 0 or the largest "
                            "row sum, {} (rank {}'s input)",
                            s.elems, most, who));
    } else if (s.elems == 0) {
        fail("has no elements");
    }
    if (s.pieces == 0) fail("pieces must be at least 1");
    for (size_t i = 0; i < s.ranks.size(); ++i) {
        if (s.ranks[i] >= nodes)
            fail(
                fmt::format("rank {} is node {}, but the chip has {} nodes", i, s.ranks[i], nodes));
        for (size_t j = 0; j < i; ++j)
            if (s.ranks[j] == s.ranks[i])
                fail(fmt::format("node {} is rank {} and rank {}", s.ranks[i], j, i));
    }
    const bool grid = s.algo == Algorithm::Ring2D || s.algo == Algorithm::Tree2D;
    if (grid && (s.rows == 0 || s.cols == 0 || uint64_t(s.rows) * s.cols != s.ranks.size()))
        fail(
            fmt::format("a {}x{} grid does not hold its {} ranks", s.rows, s.cols, s.ranks.size()));
    const Algorithm a = s.algo;
    bool ok = false;
    switch (s.kind) {
        case Collective::AllReduce:
        case Collective::ReduceScatter:
        case Collective::AllGather:
            ok = a == Algorithm::Ring || a == Algorithm::Ring2D;
            break;
        case Collective::AllToAll:
            ok = a == Algorithm::Direct;
            break;
        case Collective::Broadcast:
        case Collective::Reduce:
            ok = a == Algorithm::Tree || a == Algorithm::Tree2D;
            break;
        case Collective::SendRecv:
            ok = a == Algorithm::Direct;
            break;
    }
    if (!ok)
        fail(
            fmt::format("{} has no {} algorithm (ring and ring2d: all-reduce, reduce-scatter, "
                        "all-gather; direct: all-to-all, send-recv; tree and tree2d: broadcast, "
                        "reduce)",
                        collectiveName(s.kind), algorithmName(a)));
    if (s.bidirectional && !ringKind(s.kind)) fail("only ring collectives are bidirectional");
    if (s.kind == Collective::SendRecv && s.ranks.size() != 2)
        fail(fmt::format("send-recv takes two ranks {{src, dst}}, got {}", s.ranks.size()));
    if ((s.kind == Collective::Broadcast || s.kind == Collective::Reduce) && s.root >= s.size())
        fail(fmt::format("root rank {} is not one of the {} ranks", s.root, s.size()));
}

CollectiveLayout Collectives::emit(Firmware& fw, const CollectiveSpec& s) {
    validate(s, fw.cores());
    CollectiveEmitter e(&fw, s.ranks, s.dtype, what(s));
    CollectiveLayout lay = build(e, s, blocksOf(s), s.prefix, s.prefix);
    e.commit();
    return lay;
}

uint64_t Collectives::sramBytes(const CollectiveSpec& s) {
    CollectiveEmitter e(nullptr, s.ranks, s.dtype, what(s));
    build(e, s, blocksOf(s), s.prefix, s.prefix);
    return e.maxBytes();
}

StagedPlan Collectives::emitStaged(Firmware& fw, const CollectiveSpec& s, const Staging& st) {
    validate(s, fw.cores());
    const uint32_t n = s.size();
    const std::string who = what(s);
    if (st.in_addr.size() != n)
        throw std::invalid_argument(
            fmt::format("{}: staging needs one input address per rank ({}), "
                        "got {}",
                        who, n, st.in_addr.size()));
    if (!st.out_addr.empty() && st.out_addr.size() != n)
        throw std::invalid_argument(
            fmt::format("{}: staging needs one output address per rank ({}) or none, got {}", who,
                        n, st.out_addr.size()));
    // Ring kinds: the first-level blocks; all-to-all: the pair matrix, every pair's block cut
    // into the S segments alike.
    const bool a2a = s.kind == Collective::AllToAll;
    const std::vector<uint64_t> blocks = blocksOf(s);
    const std::vector<uint64_t> bb = beginsOf(blocks);
    auto segBlocks = [&](uint64_t S, uint64_t seg) {
        std::vector<uint64_t> v;
        for (uint64_t b : blocks) v.push_back(Partition::size(b, S, seg));
        return v;
    };
    auto setName = [&](uint64_t seg) { return fmt::format("{}.s{}", s.prefix, seg % 2); };
    // SRAM of two sets of segment 0 (the largest) plus the shared receive buffers, together
    // with what earlier collectives on the same prefix declared (their buffers are reused and
    // grow, so the prefix's whole set is what must fit the budget).
    auto sramFor = [&](uint64_t S) {
        CollectiveEmitter dry(nullptr, s.ranks, s.dtype, who);
        for (uint64_t set = 0; set < std::min<uint64_t>(S, 2); ++set)
            build(dry, s, segBlocks(S, 0), setName(set), s.prefix);
        return dry.unionBytes(fw, s.prefix);
    };
    const uint64_t most = *std::max_element(blocks.begin(), blocks.end());
    if (sramFor(most) > st.budget_bytes)
        throw std::invalid_argument(fmt::format(
            "{}: a staging budget of {} bytes per rank cannot hold even the smallest segments "
            "({} bytes for two sets of one element per block)",
            who, st.budget_bytes, sramFor(most)));
    uint64_t lo = 1, hi = most;  // the fewest segments that fit
    while (lo < hi) {
        const uint64_t mid = lo + (hi - lo) / 2;
        if (sramFor(mid) <= st.budget_bytes)
            hi = mid;
        else
            lo = mid + 1;
    }
    const uint64_t S = lo;

    const uint32_t eb = dtypeBytes(s.dtype);
    struct Dma {
        uint16_t buf;
        uint64_t addr, bytes;
    };
    // Per segment and rank: the code range of its communication, its loads and stores.
    struct Part {
        size_t begin = 0, end = 0;
        std::vector<Dma> loads, stores;
    };
    std::vector<std::vector<Part>> parts(S, std::vector<Part>(n));
    CollectiveEmitter e(&fw, s.ranks, s.dtype, who);
    StagedPlan plan;
    plan.segments = static_cast<uint32_t>(S);
    for (uint64_t seg = 0; seg < S; ++seg) {
        const std::vector<uint64_t> sb = segBlocks(S, seg);
        const std::vector<uint64_t> sbb = beginsOf(sb);
        for (uint32_t r = 0; r < n; ++r) parts[seg][r].begin = e.codeSize(r);
        const CollectiveLayout lay = build(e, s, sb, setName(seg), s.prefix);
        if (seg == 0) {
            plan.first = lay;
            plan.segment_elems = sbb.back();
            if (a2a) {  // the largest rank input of the segment
                plan.segment_elems = 0;
                for (uint32_t r = 0; r < n; ++r)
                    plan.segment_elems = std::max(plan.segment_elems, rowBegins(sb, n, r)[n]);
            }
        }
        for (uint32_t r = 0; r < n; ++r) {
            Part& p = parts[seg][r];
            p.end = e.codeSize(r);
            const uint32_t own = ownBlock(s, r);
            // Segment-tensor index -> element offset in the rank's memory image.
            auto full = [&](uint64_t t) {
                const size_t b = blockAt(sbb, t);
                return bb[b] + Partition::begin(blocks[b], S, seg) + (t - sbb[b]);
            };
            // All-to-all: the segment's input (output) is rank r's row (column) of the segment's
            // pair matrix, each pair's block part `seg` of the whole pair's block.
            std::vector<uint64_t> ib, ob, sib, sob;
            if (a2a) {
                ib = rowBegins(blocks, n, r), ob = colBegins(blocks, n, r);
                sib = rowBegins(sb, n, r), sob = colBegins(sb, n, r);
            }
            auto inOffset = [&](uint64_t t) -> uint64_t {
                if (a2a) {
                    const size_t j = blockAt(sib, t);
                    return ib[j] + Partition::begin(blocks[uint64_t(r) * n + j], S, seg) +
                           (t - sib[j]);
                }
                const uint64_t f = full(t);
                return s.kind == Collective::AllGather ? f - bb[own] : f;
            };
            auto outOffset = [&](uint64_t t) -> uint64_t {
                if (a2a) {
                    const size_t i = blockAt(sob, t);
                    return ob[i] + Partition::begin(blocks[uint64_t(i) * n + r], S, seg) +
                           (t - sob[i]);
                }
                const uint64_t f = full(t);
                return s.kind == Collective::ReduceScatter ? f - bb[own] : f;
            };
            const uint64_t in = st.in_addr[r];
            const uint64_t out = st.out_addr.empty() ? in : st.out_addr[r];
            Program& prog = e.program(r);
            for (const Segment& g : lay.ranks[r].input)
                p.loads.push_back(
                    {prog.findBuffer(g.buffer), in + inOffset(g.begin) * eb, g.count * eb});
            for (const Segment& g : lay.ranks[r].output)
                p.stores.push_back(
                    {prog.findBuffer(g.buffer), out + outOffset(g.begin) * eb, g.count * eb});
        }
    }
    auto load = [](const Dma& d) {
        Instruction i;
        i.op = Opcode::DmaLoad, i.c = d.buf, i.addr = d.addr, i.bytes = d.bytes;
        return i;
    };
    auto store = [](const Dma& d) {
        Instruction i;
        i.op = Opcode::DmaStore, i.a = d.buf, i.addr = d.addr, i.bytes = d.bytes;
        return i;
    };
    // The DMA instructions go between the communication's: every insertion names a place in
    // the communication code (before the instruction at that index). They are chosen from the
    // last segment back, each at or before the previous one, and merged in one pass (inserting
    // one by one into the vector was quadratic in the segments: minutes for a 512 MB gather).
    std::vector<std::pair<size_t, Instruction>> ins;  // in the order chosen
    auto spread = [&](size_t from, size_t to, const std::vector<Instruction>& ops) {
        for (size_t m = ops.size(); m-- > 0;)
            ins.push_back({from + (to - from) * m / ops.size(), ops[m]});
    };
    auto at = [&](size_t pos, const std::vector<Instruction>& ops) {
        for (size_t m = ops.size(); m-- > 0;) ins.push_back({pos, ops[m]});
    };
    for (uint32_t r = 0; r < n; ++r) {
        std::vector<Instruction>& code = e.code(r);
        ins.clear();
        for (uint64_t seg = S; seg-- > 0;) {
            const Part& p = parts[seg][r];
            if (seg + 1 == S) {
                std::vector<Instruction> st_ops;
                for (const Dma& d : p.stores) st_ops.push_back(store(d));
                at(p.end, st_ops);
            }
            // During segment seg: store seg - 1 in the first half, load seg + 1 in the second
            // (the same set: each load waits for the store of its buffer).
            const size_t mid = p.begin + (p.end - p.begin) / 2;
            if (seg + 1 < S) {
                std::vector<Instruction> ops;
                for (const Dma& d : parts[seg + 1][r].loads) ops.push_back(load(d));
                spread(mid, p.end, ops);
            }
            if (seg > 0) {
                std::vector<Instruction> ops;
                for (const Dma& d : parts[seg - 1][r].stores) ops.push_back(store(d));
                spread(p.begin, mid, ops);
            }
            if (seg == 0) {
                std::vector<Instruction> ops;
                for (const Dma& d : p.loads) ops.push_back(load(d));
                at(p.begin, ops);
            }
        }
        // Later choices sit at earlier (or equal) places and in front of earlier ones there, so
        // the insertions in reverse order are sorted by place.
        std::vector<Instruction> merged;
        merged.reserve(code.size() + ins.size());
        auto it = ins.rbegin();
        for (size_t k = 0; k <= code.size(); ++k) {
            for (; it != ins.rend() && it->first == k; ++it) merged.push_back(it->second);
            if (k < code.size()) merged.push_back(code[k]);
        }
        if (it != ins.rend())
            throw std::logic_error("staged collective: an insertion is out of order");
        code = std::move(merged);
    }
    plan.sram_bytes = e.maxBytes();
    e.commit();
    return plan;
}

}  // namespace wsc::firmware::coll
