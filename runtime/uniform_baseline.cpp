// runtime/uniform_baseline.cpp — the uniform policy's rollouts on a paper experiment's
// world (uniform_baseline.hpp), compiled once.
#include "uniform_baseline.hpp"

#include <cstddef>
#include <vector>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/policy/uniform.hpp"

#include "uniform.hpp"

namespace maxent::programs {

std::vector<double> uniform_baseline(const Experiment& e, const Settings& s, std::size_t threads) {
    const GridPomdp model = e.env.build();
    return run_parallel(s.seeds.size(), threads, [&](std::size_t i) {
        return uniform_entropy(model, s.counting, s.seeds[i], paper_uniform_episodes);
    });
}

std::vector<VisitCounts> uniform_visits(const Experiment& e, const Settings& s, std::size_t threads) {
    const GridPomdp model = e.env.build();
    return run_parallel(s.seeds.size(), threads, [&](std::size_t i) {
        return count_visits(model, BayesFilter<GridPomdp>(model), UniformPolicy(model.num_actions()), s.counting,
                            s.seeds[i], s.heatmap_episodes);
    });
}

UniformRuns uniform_runs(const ExperimentResult& r, std::size_t threads) {
    UniformRuns u;
    if (r.complete_runs() == 0) return u;
    u.entropy = uniform_baseline(*r.experiment, r.settings, threads);
    if (r.settings.heatmap_episodes > 0) u.visits = uniform_visits(*r.experiment, r.settings, threads);
    return u;
}

}  // namespace maxent::programs
