#include "testbench/sweep/GeneticSearch.h"

#include <algorithm>
#include <limits>
#include <random>
#include <set>

namespace wsc::tb::sweep {

GeneticSearch::Result GeneticSearch::run(const std::vector<size_t>& sizes,
                                         const std::vector<bool>& free, const Genome& start,
                                         const Params& prm, const Evaluate& evaluate,
                                         const Allowed& allowed, const OnGeneration& onGeneration) {
    std::mt19937_64 rng(prm.seed);
    auto uniform = [&](size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); };
    auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
    std::map<Genome, double> cache;
    Result res;
    res.best_fitness = std::numeric_limits<double>::infinity();

    // The number of distinct genomes, capped: a space smaller than the population is taken whole.
    double space = 1;
    for (size_t i = 0; i < sizes.size(); ++i)
        if (free[i]) space = std::min(1e18, space * static_cast<double>(sizes[i]));
    const size_t maxTries = 100 * static_cast<size_t>(prm.population);

    auto randomGenome = [&] {
        Genome g = start;
        for (size_t i = 0; i < sizes.size(); ++i)
            if (free[i]) g[i] = uniform(sizes[i]);
        return g;
    };
    auto evaluateAll = [&](const std::vector<Genome>& gen) {
        std::vector<Genome> fresh;
        for (const auto& g : gen)
            if (!cache.count(g)) fresh.push_back(g);
        if (!fresh.empty()) {
            const std::vector<double> f = evaluate(fresh);
            for (size_t i = 0; i < fresh.size(); ++i) cache[fresh[i]] = f[i];
        }
        res.evaluations += fresh.size();
        Generation rec;
        rec.members = gen;
        rec.fresh = fresh.size();
        for (const auto& g : gen)
            if (res.best.empty() || cache[g] < res.best_fitness) {
                res.best = g;
                res.best_fitness = cache[g];
            }
        rec.best = res.best;
        rec.best_fitness = res.best_fitness;
        res.generations.push_back(rec);
        if (onGeneration) onGeneration(res.generations.size() - 1, res.generations.back());
    };

    // Generation 0: distinct random genomes.
    std::vector<Genome> pop;
    std::set<Genome> inPop;
    for (size_t t = 0; pop.size() < prm.population && t < maxTries; ++t) {
        Genome g = randomGenome();
        if (!allowed(g) || inPop.count(g)) continue;
        inPop.insert(g);
        pop.push_back(g);
    }
    if (pop.empty()) return res;
    evaluateAll(pop);

    for (uint32_t gen = 1; gen < prm.generations; ++gen) {
        std::sort(pop.begin(), pop.end(),
                  [&](const Genome& a, const Genome& b) { return cache[a] < cache[b]; });
        auto tournament = [&]() -> const Genome& {
            size_t best = uniform(pop.size());
            for (uint32_t k = 1; k < prm.tournament; ++k) {
                const size_t c = uniform(pop.size());
                if (cache[pop[c]] < cache[pop[best]]) best = c;
            }
            return pop[best];
        };
        std::vector<Genome> next(pop.begin(),
                                 pop.begin() + std::min<size_t>(prm.elite, pop.size()));
        std::set<Genome> inNext(next.begin(), next.end());
        size_t newOnes = 0;
        for (size_t t = 0; next.size() < prm.population && t < maxTries; ++t) {
            const Genome& a = tournament();
            const Genome& b = tournament();
            Genome child = a;
            if (chance(prm.crossover))
                for (size_t i = 0; i < child.size(); ++i)
                    if (free[i] && chance(0.5)) child[i] = b[i];
            for (size_t i = 0; i < child.size(); ++i)
                if (free[i] && sizes[i] > 1 && chance(prm.mutation)) {
                    const size_t other = uniform(sizes[i] - 1);
                    child[i] = other >= child[i] ? other + 1 : other;
                }
            if (!allowed(child) || inNext.count(child)) continue;
            // Prefer genomes not seen yet; an already evaluated one only once the space is used.
            if (cache.count(child) && static_cast<double>(cache.size()) < space &&
                t + 1 < maxTries / 2)
                continue;
            inNext.insert(child);
            next.push_back(child);
            newOnes += !cache.count(child);
        }
        if (newOnes == 0) break;  // converged: nothing new to evaluate
        pop = next;
        evaluateAll(pop);
    }
    return res;
}

}  // namespace wsc::tb::sweep
