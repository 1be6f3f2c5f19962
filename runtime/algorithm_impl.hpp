// runtime/algorithm_impl.hpp — the definition of run_algorithm1 (algorithm.hpp), for the
// runtime's .cpp files that instantiate it (algorithm_*.cpp) and nothing else: programs and the
// Python module see the declaration and the `extern template` lines of algorithm_kinds.hpp.
//
// The one policy dispatch: a std::visit over AnyPolicy, each alternative the kind is offered
// (Algorithm1Policies) building Trainer<World, Belief, P, AnyFeedback, AnyEstimator, AnyStep>
// (or LearnedBeliefTrainer for LearnedBelief) and running its K iterations; the others throw.
#pragma once

#include <string>
#include <type_traits>
#include <utility>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/model/concepts.hpp"

#include "algorithm.hpp"

namespace maxent::programs {

namespace algorithm_detail {

template <class P, class... Ts>
inline constexpr std::size_t index_in = 0;
template <class P, class... Ts>
inline constexpr std::size_t index_in<P, std::variant<Ts...>> = [] {
    std::size_t i = 0;
    ((std::is_same_v<P, Ts> ? false : (++i, true)) && ...);
    return i;
}();

template <class P>
inline constexpr unsigned bit = 1u << index_in<P, AnyPolicy>;

template <class B>
inline constexpr bool is_exact_filter = false;  // NoisyBelief<BayesFilter<M>>: TabularBeliefPolicy's rows are beliefs
template <class M>
inline constexpr bool is_exact_filter<NoisyBelief<BayesFilter<M>>> = true;

/// The classes a kind is offered by default: a world with continuous actions the Gaussian
/// policy alone; a world observing vectors (observation points) BA and the observation-feature
/// policy; otherwise O, BA, S̃ and BM, and class B with the exact filter only (its table has one
/// row per belief, a function of the history only there). The Gaussian policy is offered to no
/// world over action indices (nor an index policy to a continuous one), so neither compiles there.
template <class World, class Belief>
constexpr unsigned default_policies() {
    if constexpr (continuous_actions<World>) {
        return bit<AnyGaussianPolicy>;
    } else if constexpr (std::is_same_v<Belief, LearnedBelief>) {
        return bit<ObservationPolicy> | bit<BeliefAveragedPolicy> | bit<BelievedStatePolicy> |
               bit<BeliefMixturePolicy>;
    } else if constexpr (has_observation_points<World>) {
        return bit<BeliefAveragedPolicy> | bit<FeaturePolicy>;
    } else {
        return bit<ObservationPolicy> | bit<BeliefAveragedPolicy> | bit<BelievedStatePolicy> |
               bit<BeliefMixturePolicy> | (is_exact_filter<Belief> ? bit<TabularBeliefPolicy> : 0u);
    }
}

/// Runs the trainer's remaining iterations under `control` into r.trained.
template <class T>
void run_iterations(T& trainer, const TrainerConfig& c, const RunControl& control, Algorithm1Run& r) {
    r.trained.history.reserve(c.iterations);
    for (std::size_t k = 0; k < c.iterations; ++k) {
        if (control.stop != nullptr && control.stop->load(std::memory_order_relaxed)) {
            r.trained.stopped_early = true;
            break;
        }
        const IterationMetrics m = trainer.iterate();
        r.trained.history.push_back(m);
        if (control.iterations != nullptr) control.iterations->fetch_add(1, std::memory_order_relaxed);
        if (control.after_iteration && !control.after_iteration(m)) {
            r.trained.stopped_early = true;
            break;
        }
    }
    r.trained.parameters = trainer.policy().parameters();
}

}  // namespace algorithm_detail

template <class World, class Belief>
struct Algorithm1Policies {
    static constexpr unsigned offered = algorithm_detail::default_policies<World, Belief>();
};

template <class World, class Belief>
Algorithm1Run run_algorithm1(const World& world, const Belief& belief, const RunChoices& choices,
                             const RunControl& control) {
    static_assert(require_environment<World>());
    constexpr unsigned offered = Algorithm1Policies<World, Belief>::offered;
    Algorithm1Run r;
    std::visit(
        [&]<class P>(const P& policy) {
            if constexpr ((offered & algorithm_detail::bit<P>) == 0u) {
                throw config_error(cat("run_algorithm1: ", policy_type_name(choices.policy),
                                       " is not offered with this world and belief model"));
            } else if constexpr (std::is_same_v<Belief, LearnedBelief>) {
                LearnedBeliefOptions o = belief.options;
                if (control.stop != nullptr) {
                    o.fit.stop = control.stop;  // a stop also cuts an EM fit short, between its iterations
                    if (control.stop->load(std::memory_order_relaxed)) {  // before the first fit
                        r.trained.stopped_early = true;
                        r.trained.parameters = policy.parameters();
                        r.policy.emplace(std::in_place_type<P>, policy);
                        return;
                    }
                }
                LearnedBeliefTrainer<World, P, AnyFeedback, AnyEstimator, AnyStep> trainer(
                    world, policy, choices.feedback, choices.estimator, choices.step, choices.config, std::move(o));
                algorithm_detail::run_iterations(trainer, choices.config, control, r);
                r.fits = trainer.fits();
                r.learned_model = trainer.learned_model();
                r.learned_prior = trainer.options().learned_prior;
                r.heldout.assign(trainer.heldout_episodes().begin(), trainer.heldout_episodes().end());
                if constexpr (TabularPomdp<World>) {
                    if (choices.visit_episodes > 0 && r.complete(choices.config))
                        r.visits = visit_counts(world, trainer.trainer().updater(), trainer.policy(),
                                                choices.config.counting, choices.config.seed, heatmap_stream_run,
                                                choices.visit_episodes);
                }
                r.policy.emplace(std::in_place_type<P>, trainer.policy());
            } else {
                Trainer<World, Belief, P, AnyFeedback, AnyEstimator, AnyStep> trainer(
                    world, belief, policy, choices.feedback, choices.estimator, choices.step, choices.config);
                algorithm_detail::run_iterations(trainer, choices.config, control, r);
                if constexpr (algorithm_detail::is_exact_filter<Belief>) {
                    if (choices.visit_episodes > 0 && r.complete(choices.config))
                        r.visits = visit_counts(world, trainer.updater(), trainer.policy(), choices.config.counting,
                                                choices.config.seed, heatmap_stream_run, choices.visit_episodes);
                }
                // Moved, not copied: class B's table keeps the capacity it trained with (TableMemory).
                r.policy.emplace(std::in_place_type<P>, std::move(trainer.policy()));
            }
        },
        choices.policy);
    if (choices.visit_episodes > 0 && r.complete(choices.config) && r.visits.episodes == 0)
        throw config_error("run_algorithm1: visit counts (visit_episodes > 0) are offered on finite worlds only");
    return r;
}

}  // namespace maxent::programs
