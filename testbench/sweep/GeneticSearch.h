#pragma once
// A genetic algorithm over discrete genes (a sweep's axes: gene i takes one of sizes[i] values),
// evaluated a generation at a time, so each generation is one batch of sweep points that an
// executor (a local pool, a Slurm job array) runs in parallel. Plain C++: no process, no file.
//
// Generation 0: `population` distinct random genomes. Each next generation keeps the `elite`
// best, then fills up with children: two parents by tournament (the best of `tournament`
// random members), uniform crossover with probability `crossover` (else a copy of the first),
// and each free gene mutated to another value with probability `mutation`. A genome is
// evaluated once: fitness is cached, so a child equal to an earlier genome costs nothing, and
// when no new genome turns up in 100 x population tries the search has converged and stops.
// Fitness is minimised; +inf marks an infeasible genome (a failed or invalid point).
#include <cstdint>
#include <functional>
#include <map>
#include <vector>

namespace wsc::tb::sweep {

class GeneticSearch {
  public:
    using Genome = std::vector<size_t>;
    struct Params {
        uint32_t population = 8, generations = 5, elite = 2, tournament = 2;
        double crossover = 0.8, mutation = 0.2;
        uint64_t seed = 1;
    };
    // Fitness of each genome of a batch (all new), in order.
    using Evaluate = std::function<std::vector<double>(const std::vector<Genome>&)>;
    using Allowed = std::function<bool(const Genome&)>;
    struct Generation {
        std::vector<Genome> members;  // in the order evaluated
        size_t fresh = 0;             // genomes evaluated for the first time
        Genome best;                  // best so far
        double best_fitness = 0;
    };
    struct Result {
        std::vector<Generation> generations;
        Genome best;
        double best_fitness = 0;
        size_t evaluations = 0;
    };

    // Told after each generation is evaluated (its index and record), for progress reports.
    using OnGeneration = std::function<void(size_t, const Generation&)>;

    // `free[i]`: gene i varies; fixed genes keep `start`'s value (the inner level of a
    // dual-level search fixes the outer genes).
    static Result run(const std::vector<size_t>& sizes, const std::vector<bool>& free,
                      const Genome& start, const Params& params, const Evaluate& evaluate,
                      const Allowed& allowed, const OnGeneration& onGeneration = {});
};

}  // namespace wsc::tb::sweep
