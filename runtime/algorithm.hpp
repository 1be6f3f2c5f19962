// runtime/algorithm.hpp — run_algorithm1: Algorithm 1 (paper; optim/trainer.hpp) from choices
// made at run time, the one place where the programs and the Python module build a trainer.
//
//   run_algorithm1(world, belief, choices, control) -> Algorithm1Run
//
// `world` is any environment of the library; `belief` is the agent's belief updater (an exact
// or noisy Bayes filter, a particle filter) or LearnedBelief (a model learned from the agent's
// own data, optim/learned_belief.hpp); `choices` holds the policy (AnyPolicy: its class and
// initial θ), the feedback, the estimator and the step rule (components.hpp boxes) and the
// trainer's settings; `control` polls a stop flag and reports each iteration. The result is
// the run's history, its final policy and what a learned-belief run learned.
//
// Why one function: the policy class is chosen at run time but is a template parameter of the
// trainer, so every caller needs a dispatch from the class to a compiled trainer. Here is the
// one dispatch (a std::visit over AnyPolicy), and each (world, belief) kind the runtime serves
// is compiled once, in the runtime's .cpp files (explicit instantiations, declared `extern
// template` in algorithm_kinds.hpp so that programs and the Python module compile no trainer).
// This header declares only; the definition is algorithm_impl.hpp, which the instantiating
// files alone include. Which classes a kind is offered with is Algorithm1Policies (a class
// not offered is refused with config_error naming it, and never compiled for that kind).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/learned_model.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/learned_belief.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/gaussian.hpp"
#include "maxent/policy/observation_features.hpp"
#include "maxent/policy/policies.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

#include "components.hpp"
#include "experiments.hpp"

namespace maxent::programs {

/// ψ of the observation-feature policy given as a callable (a Python function): fn(x, out)
/// writes ψ(x) (F entries) into out; `name` is what kind() says.
struct CallableObservationFeatures {
    std::function<void(std::span<const double>, Eigen::VectorXd&)> fn;
    std::size_t F = 0;
    std::string name = "a callable";
    std::shared_ptr<const void> source;  ///< what built fn (the caller's handle: a Python function), kept for it
};

/// The arguments a feature map was built from (the library's maps keep theirs private), for a
/// caller that rebuilds the map: pickling and saving a Python policy. Unused fields stay zero.
struct ObservationFeatureArgs {
    std::size_t observation_dim = 0;  ///< RawObservationFeatures, ObservationTiles
    Eigen::MatrixXd centres;          ///< RbfObservationFeatures
    double width = 0.0;               ///< RbfObservationFeatures
    double low = 0.0, high = 0.0;     ///< ObservationTiles
    std::size_t tiles = 0, tilings = 0;
};

/// The observation feature maps (policy/observation_features.hpp) in one type, so that the
/// observation-feature policy is one trainer per world kind.
class AnyObservationFeatures {
public:
    using Variant =
        std::variant<RawObservationFeatures, RbfObservationFeatures, ObservationTiles, CallableObservationFeatures>;
    explicit AnyObservationFeatures(Variant f, ObservationFeatureArgs args = {})
        : f_(std::move(f)), args_(std::make_shared<const ObservationFeatureArgs>(std::move(args))) {}

    [[nodiscard]] std::size_t dimension() const {
        return std::visit(
            [](const auto& f) -> std::size_t {
                if constexpr (std::is_same_v<std::decay_t<decltype(f)>, CallableObservationFeatures>) return f.F;
                else return f.dimension();
            },
            f_);
    }
    void operator()(std::span<const double> x, Eigen::VectorXd& out) const {
        std::visit(
            [&](const auto& f) {
                if constexpr (std::is_same_v<std::decay_t<decltype(f)>, CallableObservationFeatures>) f.fn(x, out);
                else f(x, out);
            },
            f_);
    }
    /// The held map's name: "RawObservationFeatures", "RbfObservationFeatures", "ObservationTiles"
    /// or the callable's name.
    [[nodiscard]] const char* kind() const {
        static constexpr const char* names[] = {"RawObservationFeatures", "RbfObservationFeatures", "ObservationTiles"};
        if (const auto* c = std::get_if<CallableObservationFeatures>(&f_)) return c->name.c_str();
        return names[f_.index()];
    }

    /// The map held, and the arguments it was built from.
    [[nodiscard]] const Variant& map() const { return f_; }
    [[nodiscard]] const ObservationFeatureArgs& arguments() const { return *args_; }

private:
    Variant f_;
    std::shared_ptr<const ObservationFeatureArgs> args_;
};

using FeaturePolicy = ObservationFeaturePolicy<AnyObservationFeatures>;

/// ψ of the Gaussian policy: an AnyObservationFeatures, or none (dimension 0: the policy reads
/// the bias and φ(b) only), so that one Gaussian policy type serves every choice of inputs.
class MaybeObservationFeatures {
public:
    MaybeObservationFeatures() = default;
    explicit MaybeObservationFeatures(AnyObservationFeatures f) : f_(std::move(f)) {}
    [[nodiscard]] std::size_t dimension() const { return f_ ? f_->dimension() : 0; }
    void operator()(std::span<const double> x, Eigen::VectorXd& out) const {
        if (f_) (*f_)(x, out);
        else out.resize(0);
    }
    /// The map held (nullptr: none).
    [[nodiscard]] const AnyObservationFeatures* get() const { return f_ ? &*f_ : nullptr; }

private:
    std::optional<AnyObservationFeatures> f_;
};

/// The Gaussian policy (policy/gaussian.hpp) of worlds with continuous actions, mean (and
/// optionally log σ) linear in (1, φ(b), ψ(o)); ψ absent or one of AnyObservationFeatures.
using AnyGaussianPolicy = GaussianPolicy<MaybeObservationFeatures>;

/// A policy chosen at run time: the five classes of PolicyClass, at the index of their
/// PolicyClass, the observation-feature policy (worlds observing vectors), and the Gaussian
/// policy (worlds with continuous actions, which are offered no other).
using AnyPolicy = std::variant<ObservationPolicy, BeliefAveragedPolicy, BelievedStatePolicy, BeliefMixturePolicy,
                               TabularBeliefPolicy, FeaturePolicy, AnyGaussianPolicy>;

/// A fresh policy of class `c` (θ = 0) with `rows` rows of parameters (policy_rows) for a world
/// of `actions` actions: the one mapping from PolicyClass to the library's policy types.
[[nodiscard]] AnyPolicy make_policy(PolicyClass c, std::size_t rows, std::size_t actions);

/// The agent's belief model learned from its own data (LearnedBeliefTrainer with `options`);
/// the world serves the environment only.
struct LearnedBelief {
    LearnedBeliefOptions options;
};

/// What run_algorithm1 runs besides the world and the belief model.
struct RunChoices {
    AnyPolicy policy;       ///< its class and initial θ
    AnyFeedback feedback;
    AnyEstimator estimator;
    AnyStep step;
    TrainerConfig config;   ///< K, N, the seed, the counting, ...
    /// > 0: after a complete run, the true states its final policy visits in this many
    /// episodes (visit_counts on stream(config.seed, heatmap_stream_run, e), config.counting);
    /// finite worlds only (config_error otherwise).
    std::size_t visit_episodes = 0;
};

/// How a run is watched: all optional.
struct RunControl {
    const std::atomic<bool>* stop = nullptr;           ///< polled before every iteration (and between EM iterations)
    std::atomic<std::uint64_t>* iterations = nullptr;  ///< +1 after every iteration
    std::function<bool(const IterationMetrics&)> after_iteration;  ///< after every iteration; false stops the run
};

/// One run of Algorithm 1.
struct Algorithm1Run {
    TrainResult trained;          ///< θ, one IterationMetrics per iteration run, stopped_early
    std::optional<AnyPolicy> policy;  ///< the final policy (θ = trained.parameters)
    VisitCounts visits{};         ///< RunChoices::visit_episodes > 0 and complete, else empty
    // Learned-belief runs (LearnedBelief), else empty:
    std::vector<FitRecord> fits{};                      ///< every fit of the belief model
    std::optional<IohmmModel> learned_model;            ///< the last fit's model (the agent's filter ends with)
    bool learned_prior = false;                         ///< the agent's b_1 is the learned μ̂ (else uniform)
    std::vector<ActionObservationSequence> heldout{};  ///< the held-out episodes the fits are scored on

    /// All K iterations ran.
    [[nodiscard]] bool complete(const TrainerConfig& c) const {
        return !trained.stopped_early && trained.history.size() == c.iterations;
    }
};

/// Bit i set: a (world, belief) kind is offered the alternative i of AnyPolicy.
template <class World, class Belief>
struct Algorithm1Policies;  // defined in algorithm_impl.hpp (default) and specialised per kind there

/// Runs Algorithm 1 on `world` with the agent's belief model `belief` (a belief updater, copied
/// into the trainer, or LearnedBelief) and `choices`, watched by `control`. A stop (control.stop
/// set, or after_iteration false) ends the run early: trained.stopped_early. Throws config_error
/// for a policy class the kind is not offered, and what the trainers throw.
template <class World, class Belief>
[[nodiscard]] Algorithm1Run run_algorithm1(const World& world, const Belief& belief, const RunChoices& choices,
                                           const RunControl& control = {});

/// The policy's class name for messages: "ObservationPolicy", ..., "ObservationFeaturePolicy", "GaussianPolicy".
[[nodiscard]] std::string_view policy_type_name(const AnyPolicy& p);

}  // namespace maxent::programs
