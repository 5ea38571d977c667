// The genetic search of sweeps (testbench/sweep/GeneticSearch) on fitness functions with a known
// optimum: it finds it, evaluates no genome twice, keeps fixed genes, never proposes a genome
// that is not allowed, and repeats itself for a seed.
#include <catch2/catch.hpp>
#include <set>

#include "testbench/sweep/GeneticSearch.h"

using namespace wsc::tb::sweep;
using Genome = GeneticSearch::Genome;

namespace {

// Squared distance to a target genome: the optimum is the target, fitness 0.
struct Bowl {
    Genome target;
    std::set<Genome> seen;
    size_t batches = 0, duplicates = 0;
    std::vector<double> operator()(const std::vector<Genome>& batch) {
        ++batches;
        std::vector<double> f;
        for (const auto& g : batch) {
            duplicates += !seen.insert(g).second;
            double d = 0;
            for (size_t i = 0; i < g.size(); ++i) {
                const double x = double(g[i]) - double(target[i]);
                d += x * x;
            }
            f.push_back(d);
        }
        return f;
    }
};

GeneticSearch::Params params(uint32_t pop, uint32_t gens, uint64_t seed) {
    GeneticSearch::Params p;
    p.population = pop;
    p.generations = gens;
    p.seed = seed;
    return p;
}

}  // namespace

TEST_CASE("the genetic search finds the optimum of a 10^4 space evaluating a fraction of it",
          "[sweep][search]") {
    const std::vector<size_t> sizes(4, 10);
    Bowl bowl{{7, 2, 9, 4}, {}, 0, 0};
    auto evaluate = [&](const std::vector<Genome>& b) { return bowl(b); };
    const auto r =
        GeneticSearch::run(sizes, std::vector<bool>(4, true), Genome(4, 0), params(16, 40, 3),
                           evaluate, [](const Genome&) { return true; });
    CHECK(r.best == Genome{7, 2, 9, 4});
    CHECK(r.best_fitness == 0);
    CHECK(bowl.duplicates == 0);  // each genome evaluated once
    CHECK(r.evaluations == bowl.seen.size());
    CHECK(r.evaluations < 1000);  // under a tenth of the space
    CHECK(bowl.batches == r.generations.size());
    // The best so far never gets worse.
    for (size_t i = 1; i < r.generations.size(); ++i)
        CHECK(r.generations[i].best_fitness <= r.generations[i - 1].best_fitness);

    // The same seed, the same search.
    Bowl again{{7, 2, 9, 4}, {}, 0, 0};
    auto evaluate2 = [&](const std::vector<Genome>& b) { return again(b); };
    const auto r2 =
        GeneticSearch::run(sizes, std::vector<bool>(4, true), Genome(4, 0), params(16, 40, 3),
                           evaluate2, [](const Genome&) { return true; });
    REQUIRE(r2.generations.size() == r.generations.size());
    for (size_t i = 0; i < r.generations.size(); ++i)
        CHECK(r2.generations[i].members == r.generations[i].members);
}

TEST_CASE("the genetic search keeps fixed genes and proposes only allowed genomes",
          "[sweep][search]") {
    const std::vector<size_t> sizes{5, 6, 6};
    Bowl bowl{{1, 3, 3}, {}, 0, 0};
    std::vector<Genome> all;
    auto evaluate = [&](const std::vector<Genome>& b) {
        all.insert(all.end(), b.begin(), b.end());
        return bowl(b);
    };
    // Gene 0 is fixed at 4 (an outer level); (4, 3, 3), the best reachable, is not allowed.
    auto allowed = [](const Genome& g) { return !(g[1] == 3 && g[2] == 3); };
    const auto r = GeneticSearch::run(sizes, {false, true, true}, Genome{4, 0, 0},
                                      params(6, 30, 11), evaluate, allowed);
    for (const auto& g : all) {
        CHECK(g[0] == 4);
        CHECK(allowed(g));
    }
    // Next best: one step away from (3, 3) in one gene, fitness 9 + 1.
    CHECK(r.best_fitness == 10);
    CHECK(r.best[0] == 4);
}

TEST_CASE("a space smaller than the population is evaluated whole, once", "[sweep][search]") {
    Bowl bowl{{1, 0}, {}, 0, 0};
    auto evaluate = [&](const std::vector<Genome>& b) { return bowl(b); };
    const auto r = GeneticSearch::run({2, 2}, {true, true}, Genome{0, 0}, params(8, 10, 1),
                                      evaluate, [](const Genome&) { return true; });
    CHECK(r.evaluations == 4);
    CHECK(r.generations.size() == 1);  // nothing new to breed: converged
    CHECK(r.best == Genome{1, 0});
}
