#pragma once
// Expert selections as JSON Lines (docs/MOE.md "Trace format"): a header line, then one object per
// (iteration, layer, token):
//   {"format":"wsc-moe-trace","version":1,"experts":32,"top_k":4,"layers":2,"tokens":8}
//   {"iter":0,"layer":0,"token":0,"experts":[5,17,2,30]}
// Reading is strict: every key required, no unknown or repeated key, integers without sign,
// fraction or exponent, k distinct expert ids below the header's experts, layer and token below
// the header's counts, records in increasing (iter, layer, token) order. Any violation is a
// TraceError naming file, line, column, key and what was expected; nothing defaults.
#include <cstdint>
#include <iosfwd>
#include <string>
#include <vector>

#include "firmware/moe/GatingModel.h"

namespace wsc::firmware::moe {

struct TraceHeader {
    uint32_t experts = 0;
    uint32_t topK = 0;
    uint32_t layers = 0;
    uint32_t tokens = 0;  // per iteration and layer
};

struct TraceRecord {
    uint32_t iter = 0;
    uint32_t layer = 0;
    uint32_t token = 0;
    std::vector<uint32_t> experts;
};

class ExpertTrace {
  public:
    explicit ExpertTrace(const TraceHeader& h);  // throws std::invalid_argument on zero counts

    const TraceHeader& header() const { return h_; }
    const std::vector<TraceRecord>& records() const { return records_; }
    // Appends a record; throws std::invalid_argument when it breaks a rule of the format.
    void add(TraceRecord r);
    uint32_t iterations() const;  // last iteration + 1 (0 when empty)

    // Every token of every layer for iterations 0 .. iterations - 1 (the generator behind
    // configs/traces/; `wsc moe trace` once the CLI wires it).
    static ExpertTrace fromModel(const GatingModel& model, uint32_t iterations);

    void write(std::ostream& os) const;
    void writeFile(const std::string& path) const;  // throws TraceError if it cannot be written
    // `name` is the file name errors report.
    static ExpertTrace read(std::istream& is, const std::string& name);
    // At most `max_bytes` are read (checked before and while reading: a trace that does not fit
    // is refused by name instead of exhausting memory).
    static constexpr uint64_t kMaxTraceBytes = uint64_t{256} << 20;
    static ExpertTrace readFile(const std::string& path, uint64_t max_bytes = kMaxTraceBytes);

    // Tokens per expert at one layer, summed over iterations [first, last] (inclusive).
    std::vector<double> expertLoad(uint32_t layer, uint32_t first, uint32_t last) const;
    // The selections of one (iteration, layer), indexed by token (empty for absent tokens).
    std::vector<std::vector<uint32_t>> selections(uint32_t iter, uint32_t layer) const;

  private:
    // Returns the reason a record cannot be appended and the key it is about (empty if fine).
    std::pair<std::string, std::string> check(const TraceRecord& r) const;
    TraceHeader h_;
    std::vector<TraceRecord> records_;
};

}  // namespace wsc::firmware::moe
