#pragma once
// A sweep's search (docs/SWEEPS.md, "Searches"): genomes of GeneticSearch are points of the
// sweep, and every generation is one batch handed to the executor (the local pool, or a Slurm
// job array that the search waits for), so a search runs on a cluster unchanged. A point already
// finished in the results folder is not run again: a re-run of the same search (same seed)
// replays it from the folder and runs only what is missing.
//   ga:          one genetic search over all axes.
//   dual-level:  level 1 evaluates every combination of the outer axes (the parallel degrees)
//                with each inner axis at its first value; level 2 runs a genetic search over
//                the inner axes (the mapping) for each of the `keep` best outer combinations.
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "testbench/sweep/PointStore.h"

namespace wsc::tb::sweep {

class SweepSearch {
  public:
    // Runs the points that have no status yet (an executor); returns when they all have one.
    using Runner = std::function<void(const std::vector<const Point*>&)>;
    // Writes plan.json, results.csv and the plots of the evaluated points, and search.csv (one
    // row per evaluation: stage, generation, point, axes, objective, best so far). Returns
    // whether any point was found feasible.
    static bool run(const SweepSpec& spec, const PointStore& store, const Runner& runner,
                    std::ostream& os);
};

}  // namespace wsc::tb::sweep
