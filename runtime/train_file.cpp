// runtime/train_file.cpp — run_curve_seed (runner.hpp) for the model files' FileModel, in
// maxent_runtime: the model is copied into the runtime's finite world over indices (IndexPomdp:
// the same sparse matrices, μ, horizon and tolerance, so the same bits; labels are not read by
// training) and trained by IndexPomdp's run_algorithm1 (algorithm_index.cpp), so that the
// trainers of a finite world are compiled once for the programs and the Python module alike.
#include "train_seed.hpp"

#include <vector>

namespace maxent::programs {

namespace {

std::vector<std::size_t> indices(std::size_t n) {
    std::vector<std::size_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = i;
    return v;
}

IndexPomdp index_model(const FileModel& m) {
    std::vector<SparseMatrix> P, Z;
    P.reserve(m.num_actions());
    for (std::size_t a = 0; a < m.num_actions(); ++a) P.push_back(m.transition_matrix(a));
    const std::size_t slots = m.observation_depends_on_action() ? m.num_actions() : 1;
    Z.reserve(slots);
    for (std::size_t a = 0; a < slots; ++a) Z.push_back(m.observation_matrix(a));
    IndexPomdp out(indices(m.num_states()), indices(m.num_actions()), indices(m.num_observations()), std::move(P),
                   std::move(Z), m.initial_distribution(), m.horizon(), {.tolerance = m.tolerance()});
    // The law of o_1 when it is not the (first) observation matrix itself.
    if (&m.initial_observation_matrix() != &m.observation_matrix(0))
        out.set_initial_observation(m.initial_observation_matrix());
    return out;
}

}  // namespace

SeedRun run_curve_seed(const FileModel& model, const Curve& c, const Settings& s, std::uint64_t seed,
                       const std::atomic<bool>* stop, std::atomic<std::uint64_t>* iterations) {
    return training::curve_seed(index_model(model), c, s, seed, stop, iterations);
}

}  // namespace maxent::programs
