// python/src/sim_evaluate.cpp — evaluate() and evaluate_uniform() on a Python simulator with its
// particle filter (run on the calling thread, with the GIL), for every policy a simulator is
// offered with, ObservationFeaturePolicy and (continuous actions) GaussianPolicy included, the
// uniform policy of a continuous world's box being UniformBoxPolicy; analysis.cpp binds both, sends simulators here and
// converts the Evaluation as it converts a finite model's (evaluation_dict).
#include <string_view>

#include "features.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/policy/uniform_box.hpp"
#include "sim_worlds.hpp"

namespace maxent::python {

namespace {

Evaluation evaluate_simulator(const py::object& world, const py::object& updater, const SimPolicy* policy,
                              std::size_t episodes, std::uint64_t seed, StateCounting counting, KnnCounting knn) {
    const char* who = policy != nullptr ? "evaluate" : "evaluate_uniform";
    if (py::isinstance<PyModel>(world)) {
        if (policy != nullptr && std::holds_alternative<const PyGaussianPolicy*>(*policy))
            throw config_error(detail::message(who, ": GaussianPolicy draws continuous actions; a finite Model's "
                                               "actions are indices"));
        throw config_error(detail::message(who, ": ObservationFeaturePolicy reads observations as vectors; a finite "
                                           "Model observes indices"));
    }
    if (!py::isinstance<PyParticleFilter>(updater))
        throw config_error(detail::message(who, ": a simulator world needs a ParticleFilter as its updater, got ",
                                           std::string(py::repr(updater))));
    const auto pf = updater.cast<std::shared_ptr<PyParticleFilter>>();
    // A GenerativeView is refused: its model is evaluated as a Model (each world type here
    // instantiates the evaluation for every policy class, compile time the module pays).
    if (py::isinstance<PyGenerativeView>(world))
        throw config_error(detail::message(who, ": a GenerativeView is evaluated through its finite model: ", who,
                                           "(view.model, updater, ...) with a BayesFilter or NoisyBelief"));
    check_filter_world(*pf, world, who);
    const FilterInUse hold(*pf);
    // A Python world runs on this thread, with the GIL (the results do not depend on the thread count).
    auto run = [&](const auto& w, const auto& filter) -> Evaluation {
        using W = std::decay_t<decltype(w)>;
        knn.state_points = w.has_state_map();
        // The uniform policy as the θ = 0 belief-averaged policy, which evaluate_uniform equals bit
        // for bit (optim/evaluate.hpp): one rollout instantiation fewer per world type.
        if constexpr (std::is_same_v<W, PyActWorld>) {
            // Continuous actions: the Gaussian policy, or the uniform policy of the box.
            if (policy == nullptr)
                return evaluate(w, filter, UniformBoxPolicy(w.action_box()), episodes, seed, 1, counting, knn);
            refuse_sim_policy(*policy, SimKind::continuous, who);
            const auto& g = std::get<const PyGaussianPolicy*>(*policy)->p;
            check_policy_box(g, w, who);
            return evaluate(w, filter, g, episodes, seed, 1, counting, knn);
        } else {
            if (policy == nullptr)
                return evaluate(w, filter, BeliefAveragedPolicy(filter.dimension(), w.num_actions()), episodes, seed,
                                1, counting, knn);
            return with_policy<W>(*policy, who, [&](const auto& p) {
                return evaluate(w, filter, p, episodes, seed, 1, counting, knn);
            });
        }
    };
    try {
        if (pf->act_filter) return run(PyActWorld(world), *pf->act_filter);
        if (pf->vec_filter) return run(PyVecWorld(world), *pf->vec_filter);
        return run(PyWorld(world), *pf->py_filter);
    } catch (const numeric_error& e) {
        if (std::string_view(e.what()).find("knn_entropy") == std::string_view::npos) throw;
        throw numeric_error(detail::message(e.what(), " (", who, ": leave knn_min_distance None for the scale rule, "
                                            "pass a resolution > 0 in the points' units, or knn_k = 0 for no kNN "
                                            "quantity)"));
    }
}

}  // namespace

Evaluation evaluate_generative(const py::object& world, const py::object& updater, const py::object& policy,
                               std::size_t episodes, std::uint64_t seed, StateCounting counting,
                               const KnnCounting& knn) {
    if (policy.is_none()) return evaluate_simulator(world, updater, nullptr, episodes, seed, counting, knn);
    const SimPolicy p = sim_policy(policy);
    return evaluate_simulator(world, updater, &p, episodes, seed, counting, knn);
}

}  // namespace maxent::python
