// python/src/sim_train.cpp — train() on a simulator (a Python world, or GenerativeView) with its
// particle filter, with ObservationPolicy (over the world's observations), BeliefAveragedPolicy,
// BelievedStatePolicy or BeliefMixturePolicy (over the filter's bins), or ObservationFeaturePolicy
// (a vector world's observations), through the runtime's run_algorithm1, which compiles one trainer
// per world kind and policy class (runtime/algorithm_simulator.hpp: a Python world as the runtime's
// IndexSimulator or VectorSimulator, GenerativeView). TabularBeliefPolicy (class B) is refused and never instantiated: its
// table has one row per distinct belief (equal within its tolerance), which the exact filter makes
// a function of the action-observation history; a particle filter's belief is a random histogram
// of freshly drawn particles, so the same history gives a different belief in every episode (one
// history of the 4 x 4 room with Gaussian observations, replayed 50 times through a filter of 1000
// particles: 50 distinct beliefs at every step from the third on; the exact filter: one). Rows
// other than b_1's would almost never be visited twice, and the table would add a row at nearly
// every step.
//
// A Python world runs on the calling thread with the GIL held, signals polled between
// iterations; GenerativeView's runs go to run_jobs with the GIL released.
#include <charconv>
#include <chrono>
#include <string_view>

#include "features.hpp"
#include "results.hpp"
#include "sim_worlds.hpp"

namespace maxent::python {

namespace {

py::object train_simulator(const py::object& world, const py::object& updater, const SimPolicy& policy,
                           const FeedbackBox& feedback, const EstimatorBox& estimator, const StepBox& step,
                           const TrainOptions& options) {
    if (py::isinstance<PyModel>(world)) {
        if (std::holds_alternative<const PyGaussianPolicy*>(policy))
            throw config_error("train: GaussianPolicy draws continuous actions; a finite Model's actions are indices "
                               "(use a simulator that declares action_dim, action_low and action_high)");
        throw config_error("train: ObservationFeaturePolicy reads observations as vectors; a finite Model observes "
                           "indices (use a simulator that declares observation_dim)");
    }
    if (!py::isinstance<PyParticleFilter>(updater))
        throw config_error(detail::message("train: a simulator world needs a ParticleFilter as its updater, got ",
                                           std::string(py::repr(updater))));
    if (const auto* const* pp = std::get_if<const PyPolicy*>(&policy))
        if (const auto* b = std::get_if<TabularBeliefPolicy>(&(*pp)->p)) {
            char tolerance[32];  // the shortest text that reads back as the tolerance ("1e-09", not 17 digits)
            const auto printed = std::to_chars(tolerance, tolerance + sizeof tolerance, b->tolerance());
            throw config_error(detail::message(
                "train: TabularBeliefPolicy (class B) is not offered with a particle filter: its table has one row "
                "per distinct belief (equal within tolerance ", std::string_view(tolerance, printed.ptr),
                "), and a particle filter's belief is a random histogram of freshly drawn particles, not a function "
                "of the actions and observations: the same history gives a different belief in every episode, so "
                "rows other than b_1's would almost never be visited twice and the table would add a row at nearly "
                "every step; use ObservationPolicy, BeliefAveragedPolicy, BelievedStatePolicy or "
                "BeliefMixturePolicy"));
        }
    const auto pf = updater.cast<std::shared_ptr<PyParticleFilter>>();
    const std::vector<std::uint64_t> seeds = seeds_of(options);
    std::vector<PyTrainResult> out(seeds.size());
    // Run i through the runtime's run_algorithm1 (runtime/algorithm_simulator.hpp compiles the trainers).
    auto run = [&](std::size_t i, const auto& world_ref, const auto& filter, const programs::AnyPolicy& p,
                   programs::RunControl control) {
        programs::RunChoices choices{p, feedback, estimator, step, options.config};
        choices.config.seed = seeds[i];
        programs::Algorithm1Run r = programs::run_algorithm1(world_ref, filter, choices, control);
        out[i].seed = seeds[i];
        out[i].parameters = std::move(r.trained.parameters);
        out[i].history = std::move(r.trained.history);
        out[i].stopped_early = r.trained.stopped_early;
        if (auto* fp = std::get_if<programs::FeaturePolicy>(&*r.policy)) {
            // A vector world's run: on this thread, with the GIL held.
            out[i].policy_class = "ObservationFeaturePolicy";
            out[i].feature_policy = PyRef(py::cast(PyFeaturePolicy{std::move(*fp)}));
        } else if (auto* gp = std::get_if<programs::AnyGaussianPolicy>(&*r.policy)) {
            // A continuous-action world's run: on this thread, with the GIL held.
            out[i].policy_class = "GaussianPolicy";
            out[i].feature_policy = PyRef(py::cast(PyGaussianPolicy{std::move(*gp)}));
        } else {
            out[i].policy = bound_policy(std::move(*r.policy));
            out[i].policy_class = PyPolicy{*out[i].policy}.class_name();
        }
    };
    if (py::isinstance<PyGenerativeView>(world)) {
        if (!pf->view_filter)
            throw config_error("train: the ParticleFilter was built for a Python world, not this GenerativeView");
        const auto v = world.cast<std::shared_ptr<PyGenerativeView>>();
        const programs::AnyPolicy p = sim_run_policy(policy, SimKind::index, "train");
        std::atomic<bool> stop{false};
        run_jobs(seeds.size(), options.threads, [&](std::size_t i) {
            programs::RunControl control;
            control.after_iteration = [&](const IterationMetrics& m) {
                return !stop.load(std::memory_order_relaxed) && options.progress(seeds[i], m);
            };
            run(i, *v->view, *pf->view_filter, p, std::move(control));
        }, stop);
    } else {
        check_filter_world(*pf, world, "train");
        const FilterInUse hold(*pf);
        // A Python world runs on the calling thread with the GIL held; signals are polled.
        auto each = [&](const auto& w, const auto& filter) {
            const programs::AnyPolicy p = sim_run_policy(policy, sim_kind(*pf), "train");
            for (std::size_t i = 0; i < seeds.size(); ++i) {
                SignalPoll poll;
                poll.last_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch()).count();
                programs::RunControl control;
                control.after_iteration = [&](const IterationMetrics& m) { return poll(m) && options.progress(seeds[i], m); };
                run(i, w, filter, p, std::move(control));
                if (poll.interrupted) throw py::error_already_set();
            }
        };
        if (pf->act_filter) {
            const PyActWorld w(world);
            if (const auto* const* g = std::get_if<const PyGaussianPolicy*>(&policy))
                check_policy_box((*g)->p, w, "train");
            each(static_cast<const programs::ContinuousSimulator&>(w), *pf->act_filter);
        } else if (pf->vec_filter) each(static_cast<const programs::VectorSimulator&>(PyVecWorld(world)), *pf->vec_filter);
        else each(static_cast<const programs::IndexSimulator&>(PyWorld(world)), *pf->py_filter);
    }
    return results(std::move(out), options);
}

}  // namespace

py::object train_generative(const py::object& world, const py::object& updater, const PyPolicy& policy,
                            const FeedbackBox& feedback, const EstimatorBox& estimator, const StepBox& step,
                            const TrainOptions& options) {
    return train_simulator(world, updater, SimPolicy{&policy}, feedback, estimator, step, options);
}

void bind_sim_train(py::module_& m) {
    m.def(
        "_train_simulator",
        [](const py::object& world, const py::object& updater, const py::object& policy, const py::object& feedback,
           const py::object& estimator, const py::object& step, std::size_t iterations, std::size_t batch,
           std::uint64_t seed, std::optional<std::vector<std::uint64_t>> seeds, const std::string& counting,
           bool track_belief_entropy, std::size_t threads, const py::object& progress, std::size_t progress_every) {
            const TrainOptions o = train_options(iterations, batch, seed, std::move(seeds), counting,
                                                 track_belief_entropy, threads, progress, progress_every);
            return train_simulator(world, updater, sim_policy(policy), to_feedback(feedback), to_estimator(estimator),
                                   to_step(step), o);
        },
        py::arg("world"), py::arg("updater"), py::arg("policy"), py::arg("feedback") = "mse",
        py::arg("estimator") = "batch-mean", py::arg("step") = "constant", py::kw_only(),
        py::arg("iterations") = 1000, py::arg("batch") = 10, py::arg("seed") = 0, py::arg("seeds") = py::none(),
        py::arg("counting") = "paper", py::arg("track_belief_entropy") = true, py::arg("threads") = 0,
        py::arg("progress") = py::none(), py::arg("progress_every") = 1,
        "train() on a simulator with any policy it is offered with, ObservationFeaturePolicy included (maxent.train\n"
        "calls it for that policy).");
}

}  // namespace maxent::python
