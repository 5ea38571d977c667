// Expert traces in JSON Lines (firmware/moe/ExpertTrace): round trip, the shipped trace, and the
// error every kind of bad line gets (file, line, column, key, what was expected).
#include <catch2/catch.hpp>
#include <fstream>
#include <sstream>

#include "firmware/moe/ExpertTrace.h"
#include "firmware/moe/TraceError.h"

using namespace wsc::firmware::moe;

namespace {

// The generator behind configs/traces/moe_temporal_e32k4.jsonl (docs/MOE.md "Trace format").
GatingConfig shippedConfig() {
    GatingConfig c;
    c.kind = GatingKind::Temporal;
    c.experts = 32;
    c.topK = 4;
    c.layers = 2;
    c.tokens = 8;
    c.seed = 15;
    c.hotExperts = 4;
    c.hotProbability = 0.6;
    c.driftRate = 0.1;
    return c;
}
constexpr uint32_t kShippedIterations = 8;

std::string shippedPath() {
    return std::string(WSC_SOURCE_DIR) + "/configs/traces/moe_temporal_e32k4.jsonl";
}

const char* kHeader =
    "{\"format\":\"wsc-moe-trace\",\"version\":1,\"experts\":32,\"top_k\":4,\"layers\":2,"
    "\"tokens\":8}\n";

// The error a two-line trace (header + `line`) gets.
TraceError errorOf(const std::string& text) {
    std::istringstream is(text);
    try {
        ExpertTrace::read(is, "t.jsonl");
    } catch (const TraceError& e) {
        return e;
    }
    FAIL("no error for:\n" << text);
    throw std::logic_error("unreachable");
}

}  // namespace

TEST_CASE("a generated trace survives write and read unchanged") {
    const ExpertTrace t = ExpertTrace::fromModel(GatingModel(shippedConfig()), 5);
    CHECK(t.records().size() == 5 * 2 * 8);
    std::stringstream ss;
    t.write(ss);
    const ExpertTrace back = ExpertTrace::read(ss, "mem");
    CHECK(back.header().experts == 32);
    CHECK(back.header().topK == 4);
    CHECK(back.iterations() == 5);
    REQUIRE(back.records().size() == t.records().size());
    for (size_t i = 0; i < t.records().size(); ++i) {
        const TraceRecord &a = t.records()[i], &b = back.records()[i];
        CHECK((a.iter == b.iter && a.layer == b.layer && a.token == b.token &&
               a.experts == b.experts));
    }
    std::stringstream again;
    back.write(again);
    std::stringstream first;
    t.write(first);
    CHECK(again.str() == first.str());
}

TEST_CASE("the shipped trace is what its documented generator writes") {
    std::ifstream is(shippedPath());
    REQUIRE(is);
    std::stringstream file;
    file << is.rdbuf();
    std::stringstream gen;
    ExpertTrace::fromModel(GatingModel(shippedConfig()), kShippedIterations).write(gen);
    CHECK(file.str() == gen.str());
    const ExpertTrace t = ExpertTrace::readFile(shippedPath());
    CHECK(t.iterations() == kShippedIterations);
    // Loads per expert at layer 0 over all iterations: 8 iterations x 8 tokens x 4 picks.
    const auto load = t.expertLoad(0, 0, kShippedIterations - 1);
    double sum = 0;
    for (double v : load) sum += v;
    CHECK(sum == 256);
}

// Rewrites configs/traces/moe_temporal_e32k4.jsonl: `test_moe "[.regenerate]"`.
TEST_CASE("regenerate the shipped trace", "[.regenerate]") {
    ExpertTrace::fromModel(GatingModel(shippedConfig()), kShippedIterations)
        .writeFile(shippedPath());
}

TEST_CASE("bad trace lines name file, line, column, key and what was expected") {
    struct Bad {
        std::string text;
        int line;
        std::string key;
        std::string what;
    };
    const std::string h = kHeader;
    const std::vector<Bad> cases = {
        {"", 0, "", "t.jsonl: expected a header line, got an empty file"},
        {"hello\n", 1, "", "t.jsonl:1:1: expected a JSON object ('{'), got 'hello'"},
        {"{\"format\":\"other\",\"version\":1,\"experts\":32,\"top_k\":4,\"layers\":2,\"tokens\":8}"
         "\n",
         1, "format",
         "t.jsonl:1:11: key 'format': expected \"wsc-moe-trace\" (the first line is the header), "
         "got \"other\""},
        {"{\"format\":\"wsc-moe-trace\",\"version\":1,\"experts\":4,\"top_k\":8,\"layers\":2,"
         "\"tokens\":8}\n",
         1, "top_k", "t.jsonl:1:59: key 'top_k': expected at most the experts (4), got 8"},
        {"{\"format\":\"wsc-moe-trace\",\"version\":1,\"experts\":32,\"top_k\":4,\"layers\":2}\n",
         1, "tokens", "t.jsonl:1: key 'tokens': missing (every line of this kind needs it)"},
        {h + "\n", 2, "", "t.jsonl:2:1: expected a JSON object ('{'), got the end of the line"},
        {h + "{\"iter\":0,\"layer\":0,\"token\":0}\n", 2, "experts",
         "t.jsonl:2: key 'experts': missing (every line of this kind needs it)"},
        {h + "{\"iter\":0,\"layer\":0,\"tok\":0,\"experts\":[1,2,3,4]}\n", 2, "tok",
         "t.jsonl:2:21: key 'tok': unknown in a record line (expected iter, layer, token, "
         "experts)"},
        {h + "{\"iter\":-1,\"layer\":0,\"token\":0,\"experts\":[1,2,3,4]}\n", 2, "iter",
         "t.jsonl:2:9: key 'iter': expected an integer >= 0 (no sign, fraction or exponent), got "
         "-1"},
        {h + "{\"iter\":\"0\",\"layer\":0,\"token\":0,\"experts\":[1,2,3,4]}\n", 2, "iter",
         "t.jsonl:2:9: key 'iter': expected an integer >= 0 (no sign, fraction or exponent), got "
         "\"0\""},
        {h + "{\"iter\":0,\"layer\":0.5,\"token\":0,\"experts\":[1,2,3,4]}\n", 2, "layer",
         "t.jsonl:2:19: key 'layer': expected an integer >= 0 (no sign, fraction or exponent), got "
         "0.5"},
        {h + "{\"iter\":0,\"layer\":2,\"token\":0,\"experts\":[1,2,3,4]}\n", 2, "layer",
         "t.jsonl:2:19: key 'layer': expected a layer < 2 (the header's layers), got 2"},
        {h + "{\"iter\":0,\"layer\":0,\"token\":0,\"experts\":[1,1,2,3]}\n", 2, "experts",
         "t.jsonl:2:41: key 'experts': expected 4 distinct expert ids < 32 (the header's top_k, "
         "experts), got [1, "
         "1, 2, 3]"},
        {h + "{\"iter\":0,\"layer\":0,\"token\":0,\"experts\":[1,2,3,32]}\n", 2, "experts",
         "t.jsonl:2:41: key 'experts': expected 4 distinct expert ids < 32 (the header's top_k, "
         "experts), got [1, "
         "2, 3, 32]"},
        {h + "{\"iter\":0,\"layer\":0,\"token\":0,\"experts\":[1,2,x,4]}\n", 2, "experts",
         "t.jsonl:2:46: key 'experts': expected expert ids (integers >= 0 without sign or "
         "fraction), got x"},
        {h + "{\"iter\":0,\"layer\":0,\"token\":0,\"experts\":7}\n", 2, "experts",
         "t.jsonl:2:41: key 'experts': expected an array of 4 expert ids, got 7"},
        {h + "{\"iter\":0,\"iter\":1,\"layer\":0,\"token\":0,\"experts\":[1,2,3,4]}\n", 2, "iter",
         "t.jsonl:2:11: key 'iter': appears twice in one line"},
        {h + "{\"iter\":0,\"layer\":0,\"token\":0,\"experts\":[1,2,3,4]} x\n", 2, "",
         "t.jsonl:2:52: expected the end of the line after the object, got 'x'"},
        {h + "{\"iter\":0,\"layer\":0,\"token\":1,\"experts\":[1,2,3,4]}\n" +
             "{\"iter\":0,\"layer\":0,\"token\":1,\"experts\":[5,2,3,4]}\n",
         3, "",
         "t.jsonl:3:1: expected records in increasing (iter, layer, token) order, got (0, 0, 1) "
         "after (0, 0, 1)"},
    };
    for (const Bad& b : cases) {
        INFO(b.text);
        const TraceError e = errorOf(b.text);
        CHECK(std::string(e.what()) == b.what);
        CHECK(e.line() == b.line);
        CHECK(e.key() == b.key);
        CHECK(e.file() == "t.jsonl");
    }
}

TEST_CASE("a trace path that is not a regular file is refused by name") {
    CHECK_THROWS_WITH(
        ExpertTrace::readFile("/nonexistent/x.jsonl"),
        "/nonexistent/x.jsonl: cannot read: not a regular file (missing, a directory or a device)");
    CHECK_THROWS_AS(ExpertTrace::readFile(std::string(WSC_SOURCE_DIR) + "/configs"), TraceError);
}

TEST_CASE("a trace larger than the read limit is refused by name, not read") {
    const std::string shipped =
        std::string(WSC_SOURCE_DIR) + "/configs/traces/moe_temporal_e32k4.jsonl";
    CHECK_THROWS_WITH(ExpertTrace::readFile(shipped, 1000),
                      Catch::Contains("moe_temporal_e32k4.jsonl: cannot read: file of") &&
                          Catch::Contains("larger than the 1000 bytes"));
    CHECK_NOTHROW(ExpertTrace::readFile(shipped));
}
