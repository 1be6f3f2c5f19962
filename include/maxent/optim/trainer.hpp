// maxent/optim/trainer.hpp — Algorithm 1, (Reg-)PG for MaxEnt POMDPs, generic over models,
// belief updaters, policies, feedbacks, gradient estimators and step rules.
//
// Paper, Algorithm 1: for k = 1..K, sample N trajectories with π_θk (line 3), compute their
// feedbacks (line 4: MSE / MOE / MBE, or Reg-MBE's H - ρ Σ_t H(b_t)) and scores (line 5),
// and take a gradient step (line 6): Trainer::iterate, in that order. Every piece is a type
// satisfying a concept. Trajectory n of iteration k draws from the stream (seed, k, n)
// (core/random.hpp), so a run is a pure function of (model, components, config, seed).
//
// Where the scores go is chosen once, at construction (ScorePath), each alternative one type:
//  * dense: one parameter-shaped score per trajectory (the reference);
//  * per-step: an estimator with the per-step form (core/step_scores.hpp) also gets each
//    trajectory's K step scores (StepScoreRecorder, optim/step_recording.hpp);
//  * row-sparse: a RowSparsePolicy's scores on the rows it touched (RowSparsePath,
//    optim/row_sparse_path.hpp, which states its assumptions). A policy that may grow θ
//    (class B) always takes it; one with fixed parameters when it pays (automatic) or asked.
// All give the same bits wherever more than one applies.
//
// After each iteration the trainer reports IterationMetrics to an optional callback (false
// stops early); run() and train() return θ, the history and a copy of the trained policy
// (TrainResultOf<P>: result.policy evaluates as it is). Each iteration checks that the
// feedbacks, the gradient estimate, its norm and θ after the step are finite (numeric_error
// naming the iteration); the constructor refuses batch buffers above max_buffer_bytes
// (budget_error). After the first iteration nothing is allocated.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/core/budget.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/finite.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/support.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/draws.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/row_sparse_path.hpp"
#include "maxent/optim/step_recording.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/row_score.hpp"

namespace maxent {

/// Which score representation the trainer uses (see the header): `automatic` picks the row
/// path where it pays, `dense` and `rows` force one (config_error when impossible). Both
/// give the same bits wherever both apply. (Per-step scores follow from the estimator.)
enum class ScorePath { automatic, dense, rows };

struct TrainerConfig {
    std::size_t iterations = 12000;  ///< K
    std::size_t batch = 10;          ///< N trajectories per iteration
    std::uint64_t seed = 0;          ///< the run's seed; streams are derived from it
    StateCounting counting = StateCounting::paper;
    bool track_belief_entropy = true;  ///< report mean Σ_t H(b_t) (costs one log per belief entry)
    ScorePath scores = ScorePath::automatic;  ///< dense or row-sparse scores (same results)

    /// Throws config_error naming the field.
    void validate() const {
        if (iterations == 0) throw config_error("TrainerConfig: iterations (K) must be >= 1, got 0");
        if (batch == 0) throw config_error("TrainerConfig: batch (N) must be >= 1, got 0");
    }
};

struct IterationMetrics {
    std::size_t iteration = 0;          ///< 0-based k
    double true_entropy = 0.0;          ///< mean over the batch of H(d(τ_S))
    double feedback = 0.0;              ///< mean over the batch of the feedback F_n
    double belief_entropy_sum = 0.0;    ///< mean over the batch of Σ_t H(b_t) (NaN-free; 0 if untracked)
    double gradient_norm = 0.0;         ///< Frobenius norm of the gradient estimate (scaled if it would overflow)
};

struct TrainResult {
    Eigen::MatrixXd parameters;             ///< θ after the last iteration run
    std::vector<IterationMetrics> history;  ///< one entry per iteration run
    bool stopped_early = false;             ///< a callback returned false
};

/// What train() and Trainer::run() return: the TrainResult and the trained policy itself, a
/// copy of the trainer's P with θ = parameters, ready for evaluate(world, updater,
/// result.policy, ...). Converts to a plain TrainResult (dropping the policy).
template <class P>
struct TrainResultOf : TrainResult {
    P policy;  ///< the policy after the last iteration run
};

namespace detail {
/// Calls a run() callback: one returning bool says whether to go on, one returning void
/// always goes on.
template <class Callback>
bool keep_training(Callback& callback, const IterationMetrics& metrics) {
    if constexpr (std::is_invocable_r_v<bool, Callback&, const IterationMetrics&> &&
                  !std::is_void_v<std::invoke_result_t<Callback&, const IterationMetrics&>>) {
        return static_cast<bool>(callback(metrics));
    } else {
        callback(metrics);
        return true;
    }
}
}  // namespace detail

template <class M, class U, class P, class F, class E, class R>
class Trainer {
    static_assert(require_environment<M>());
    static_assert(require_belief_updater<U>());
    static_assert(require_differentiable_policy_for_actions<P, continuous_actions<M>>());
    static_assert(require_feedback<F>());
    static_assert(require_gradient_estimator<E>());
    static_assert(require_step_rule<R>());

    // What the components allow, at compile time (the choice among these is made once, in
    // choose_route): an estimator with the per-step form may want per-step scores, and
    // always does unless it chooses at run time (uses_steps()); a RowSparsePolicy can take
    // the row path with an entry-wise estimator that does not always want per-step scores,
    // and a policy that may grow θ can take nothing else.
    static constexpr bool estimator_may_want_steps = estimator_uses_steps<E>;
    static constexpr bool estimator_always_wants_steps = estimator_may_want_steps && !estimator_chooses_steps<E>;
    static constexpr bool row_path_only = RowSparsePolicy<P> && !policy_has_fixed_parameters<P>;
    static constexpr bool row_path_possible =
        RowSparsePolicy<P> && estimator_is_entrywise<E> && !estimator_always_wants_steps;
    static_assert(!row_path_only || estimator_is_entrywise<E>,
                  "maxent::Trainer: the policy is row-sparse (it has sample_rows), so the gradient estimator is "
                  "called on the rows the batch touched only; the estimator must declare "
                  "`static constexpr bool entrywise = true;` (its estimate at a parameter depends only on that "
                  "parameter's scores and is 0 where they are all 0)");
    static_assert(!row_path_only || !estimator_always_wants_steps,
                  "maxent::Trainer: the policy is row-sparse (it has sample_rows), which records no per-step "
                  "scores; use an estimator without `estimate(f, s, steps, out)`");

    /// Where the scores go (fixed at construction).
    enum class Route { dense, per_step, row_sparse };
    struct NoPath {
        struct Batch {};
    };
    using RowPath = std::conditional_t<row_path_possible, RowSparsePath<P>, NoPath>;
    using StepPath = std::conditional_t<estimator_may_want_steps, StepScoreRecorder, NoPath>;

public:
    /// Validates everything before any work: the config, and that the policy fits what the
    /// agent has (its belief model's dimension or features, the world's actions and
    /// observations). The world model must outlive the trainer.
    Trainer(const M& model, U updater, P policy, F feedback, E estimator, R step, TrainerConfig config)
        : model_(&model),
          policy_(std::move(policy)),
          feedback_(std::move(feedback)),
          estimator_(std::move(estimator)),
          step_(std::move(step)),
          config_(config),
          sampler_(model, std::move(updater), make_options(feedback_, config)) {
        config_.validate();
        policy_.check_dimensions(sampler_.agent_dimensions());
        const Eigen::MatrixXd& theta = policy_.parameters();
        const std::size_t N = config_.batch;
        const std::size_t K = Trajectory::actions_for(config_.counting, model.horizon());
        const bool wants_steps = estimator_wants_steps(estimator_);
        check_buffer_budget(batch_cost(N, K, theta, wants_steps), "Trainer: the batch buffers for N = ", N,
                            " trajectories of horizon T = ", model.horizon());
        route_ = choose_route(wants_steps);
        if constexpr (row_path_possible) {
            if (route_ == Route::row_sparse) {
                row_path_ = RowSparsePath<P>(policy_, N, K);
                row_path_.use_prior_of(sampler_.updater(), policy_);
            }
        }
        if (route_ != Route::row_sparse) {
            scores_.assign(N, Eigen::MatrixXd::Zero(theta.rows(), theta.cols()));
            gradient_ = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
        }
        if constexpr (estimator_may_want_steps) {
            if (route_ == Route::per_step) step_path_ = StepScoreRecorder(N, K, theta);
        }
        feedbacks_.assign(N, 0.0);
        counter_.resize(state_bins(model));
    }

    /// Runs the remaining iterations (K in total across calls). `callback(metrics)` may
    /// return void, or bool where false stops early.
    template <class Callback>
    TrainResultOf<P> run(Callback&& callback) {
        TrainResult result;
        check_buffer_budget(BufferCost{}.add({config_.iterations - next_iteration_}, sizeof(IterationMetrics)),
                            "Trainer::run: the history of ", config_.iterations - next_iteration_, " iterations");
        result.history.reserve(config_.iterations - next_iteration_);
        for (; next_iteration_ < config_.iterations;) {
            const IterationMetrics metrics = iterate();
            result.history.push_back(metrics);
            if (!detail::keep_training(callback, metrics)) {
                result.stopped_early = true;
                break;
            }
        }
        result.parameters = policy_.parameters();
        return TrainResultOf<P>{std::move(result), policy_};
    }
    TrainResultOf<P> run() {
        return run([](const IterationMetrics&) {});
    }

    /// One iteration of Algorithm 1; returns its metrics.
    IterationMetrics iterate() {
        return iterate([](std::size_t, const Trajectory&) {});
    }
    /// The same, calling `observe(n, trajectory)` after trajectory n is sampled (before its
    /// feedback), e.g. to keep the actions and observations a learned belief model is fitted
    /// to. The trajectory is valid only during the call.
    template <class Observer>
        requires std::invocable<Observer&, std::size_t, const Trajectory&>
    IterationMetrics iterate(Observer&& observe) {
        const std::size_t k = next_iteration_++;
        IterationMetrics out;
        out.iteration = k;
        {
            std::optional<typename RowPath::Batch> batch;
            begin_batch(batch);  // θ stays fixed until the step
            for (std::size_t n = 0; n < config_.batch; ++n) {
                DefaultRng g = stream(config_.seed, k, n);
                const Trajectory& t = sample(n, g);  // line 3, and the score of line 5
                observe(n, t);
                feedbacks_[n] = feedback_(t, g);  // line 4
                detail::require_finite(feedbacks_[n], "feedback of trajectory ", n, " at iteration ", k);
                out.true_entropy += true_state_entropy(t, counter_);
                out.feedback += feedbacks_[n];
                if (sampler_.options().needs.belief_entropy) out.belief_entropy_sum += belief_entropy_sum(t);
            }
        }
        const auto N = static_cast<double>(config_.batch);
        out.true_entropy /= N;
        out.feedback /= N;
        out.belief_entropy_sum /= N;
        out.gradient_norm = estimate_and_step(k);  // line 6
        return out;
    }

    [[nodiscard]] const P& policy() const noexcept { return policy_; }
    [[nodiscard]] P& policy() noexcept { return policy_; }
    [[nodiscard]] const TrainerConfig& config() const noexcept { return config_; }
    /// The belief updater the rollouts use (e.g. NoisyBelief's stats(): clips and fallbacks).
    [[nodiscard]] const U& updater() const noexcept { return sampler_.updater(); }
    [[nodiscard]] U& updater() noexcept { return sampler_.updater(); }
    /// The gradient estimator (with whatever state it keeps).
    [[nodiscard]] const E& estimator() const noexcept { return estimator_; }
    [[nodiscard]] E& estimator() noexcept { return estimator_; }
    [[nodiscard]] std::size_t iterations_done() const noexcept { return next_iteration_; }
    /// Replaces the agent's belief updater between iterations (a refitted belief model); it
    /// must have the old one's dimension (Sampler::set_updater), and the policy is checked
    /// against it again. θ, the step rule's state and the iteration count are kept.
    void set_updater(U updater) {
        sampler_.set_updater(std::move(updater));
        policy_.check_dimensions(sampler_.agent_dimensions());
        if constexpr (row_path_possible) {
            if (route_ == Route::row_sparse) row_path_.use_prior_of(sampler_.updater(), policy_);  // its prior
        }
    }
    /// Whether iterations take the row-sparse path (ScorePath; fixed at construction).
    [[nodiscard]] bool uses_row_scores() const noexcept { return route_ == Route::row_sparse; }
    /// The last gradient estimate: parameter-shaped, or on the row-sparse path compact (row i
    /// is parameter row last_gradient_rows()[i]; when last_gradient_background(), row
    /// last_gradient_rows().size() is the gradient of every other row where the prior is
    /// non-zero; rows beyond are zero).
    [[nodiscard]] const Eigen::MatrixXd& last_gradient() const noexcept {
        if constexpr (row_path_possible)
            if (route_ == Route::row_sparse) return row_path_.gradient();
        return gradient_;
    }
    /// Row-sparse path: the parameter rows of last_gradient(); otherwise empty.
    [[nodiscard]] std::span<const Eigen::Index> last_gradient_rows() const noexcept {
        if constexpr (row_path_possible)
            if (route_ == Route::row_sparse) return row_path_.rows();
        return {};
    }
    [[nodiscard]] bool last_gradient_background() const noexcept {
        if constexpr (row_path_possible)
            if (route_ == Route::row_sparse) return row_path_.background();
        return false;
    }

private:
    /// Begins a batch: on the row path, declares the batch's base to the policy until `scope`
    /// ends (RowSparsePath::Batch); on the dense and per-step paths, nothing.
    void begin_batch(std::optional<typename RowPath::Batch>& scope) {
        if constexpr (row_path_possible)
            if (route_ == Route::row_sparse) row_path_.begin_batch(policy_, scope);
    }

    /// Line 3: trajectory n, its score where the route keeps it.
    template <class G>
    const Trajectory& sample(std::size_t n, G& g) {
        if constexpr (row_path_possible) {
            if (route_ == Route::row_sparse) {
                RowScoringView<P> view = row_path_.view(policy_, n);
                return sampler_.run(view, g, row_path_.unused_dense_score());
            }
        }
        if constexpr (estimator_may_want_steps) {
            if (route_ == Route::per_step) {
                StepRecordingView<P> view = step_path_.view(policy_, n);
                return sampler_.run(view, g, scores_[n]);
            }
        }
        if constexpr (row_path_only)
            throw config_error("Trainer: internal error: a growing row-sparse policy off the row path");
        else
            return sampler_.run(policy_, g, scores_[n]);
    }

    /// Lines 5–6: the gradient estimate from the feedbacks and scores, and the step; returns
    /// the estimate's norm.
    double estimate_and_step(std::size_t k) {
        const std::span<const double> f(feedbacks_);
        Eigen::MatrixXd& theta = policy_.parameters();
        if constexpr (row_path_possible)
            if (route_ == Route::row_sparse) return row_path_.estimate_and_step(estimator_, step_, theta, f, k);
        if constexpr (!row_path_only) {
            const std::span<const Eigen::MatrixXd> s(scores_);
            if constexpr (estimator_may_want_steps)
                if (route_ == Route::per_step) estimator_.estimate(f, s, step_path_.scores(k), gradient_);
            if constexpr (!estimator_always_wants_steps)
                if (route_ == Route::dense) estimator_.estimate(f, s, gradient_);
            return checked_step(step_, theta, gradient_, k);
        }
        return 0.0;
    }

    /// Bytes of the batch buffers, counted before any is allocated: N feedbacks, the route's
    /// scores and gradient (at worst), and N·K step scores when the estimator wants them.
    static BufferCost batch_cost(std::size_t N, std::size_t K, const Eigen::MatrixXd& theta, bool wants_steps) {
        const auto size = static_cast<std::size_t>(theta.size());
        BufferCost cost;
        cost.add({N}, sizeof(double));
        if constexpr (row_path_only) {
            RowSparsePath<P>::add_buffer_cost(cost, N, K, theta);
        } else {
            cost.add({N, size}, sizeof(double)).add({size}, sizeof(double));  // either route, at worst
            if (wants_steps) cost.add({N, K, size}, sizeof(double));
        }
        return cost;
    }

    /// The route this trainer takes (see ScorePath and the header); config_error when the
    /// configuration asks for one that cannot be taken.
    Route choose_route(bool wants_steps) const {
        if constexpr (row_path_only) {
            if (wants_steps)
                throw config_error("Trainer: the estimator asks for per-step scores (uses_steps()), but the policy may "
                                   "grow its parameters while sampling, so it takes the row-sparse path, which "
                                   "records none; choose an estimator without per-step scores for this policy");
            if (config_.scores == ScorePath::dense)
                throw config_error("Trainer: ScorePath::dense was asked for, but the policy may grow its parameters "
                                   "while sampling (a RowSparsePolicy without `static constexpr bool "
                                   "fixed_parameters = true;`), so it needs the row-sparse path");
            return Route::row_sparse;
        } else {
            const Route unsparse = wants_steps ? Route::per_step : Route::dense;
            if constexpr (row_path_possible) {
                if (wants_steps) {
                    if (config_.scores == ScorePath::rows)
                        throw config_error("Trainer: ScorePath::rows was asked for, but the estimator uses per-step "
                                           "scores (uses_steps()), which the row path does not record");
                    return unsparse;
                }
                if (config_.scores == ScorePath::dense) return unsparse;
                if (config_.scores == ScorePath::rows) return Route::row_sparse;
                const auto rows = static_cast<std::size_t>(policy_.parameters().rows());
                const std::size_t steps = config_.batch * Trajectory::actions_for(config_.counting, model_->horizon());
                return RowSparsePath<P>::pays(rows, steps, sampler_.tracks_support(), BeliefFeatures<U>)
                           ? Route::row_sparse
                           : unsparse;
            } else {
                if (config_.scores == ScorePath::rows)
                    throw config_error(detail::message(
                        "Trainer: ScorePath::rows was asked for, but ",
                        !RowSparsePolicy<P>      ? "the policy has no sample_rows (RowSparsePolicy)"
                        : estimator_may_want_steps ? "the estimator uses per-step scores, which the row path does not record"
                                                 : "the estimator is not entry-wise (static constexpr bool entrywise)"));
                return unsparse;
            }
        }
    }

    static RolloutOptions make_options(const F& feedback, const TrainerConfig& config) {
        RolloutOptions o;
        o.counting = config.counting;
        o.needs = feedback.needs();
        if (config.track_belief_entropy) o.needs.belief_entropy = true;
        return o;
    }

    const M* model_;
    P policy_;
    F feedback_;
    E estimator_;
    R step_;
    TrainerConfig config_;
    Sampler<M, U> sampler_;
    Route route_ = Route::dense;
    std::vector<double> feedbacks_;
    std::vector<Eigen::MatrixXd> scores_;  // dense and per-step routes: one per trajectory
    Eigen::MatrixXd gradient_;             // dense and per-step routes
    [[no_unique_address]] StepPath step_path_;
    [[no_unique_address]] RowPath row_path_;
    EmpiricalCounter counter_;
    std::size_t next_iteration_ = 0;
};

/// Convenience: builds a Trainer and runs it to completion.
template <class M, class U, class P, class F, class E, class R,
          class Callback>
TrainResultOf<P> train(const M& model, U updater, P policy, F feedback, E estimator, R step,
                       const TrainerConfig& config, Callback&& callback) {
    Trainer<M, U, P, F, E, R> trainer(model, std::move(updater), std::move(policy), std::move(feedback),
                                      std::move(estimator), std::move(step), config);
    return trainer.run(std::forward<Callback>(callback));
}

template <class M, class U, class P, class F, class E, class R>
TrainResultOf<P> train(const M& model, U updater, P policy, F feedback, E estimator, R step,
                       const TrainerConfig& config) {
    return train(model, std::move(updater), std::move(policy), std::move(feedback), std::move(estimator),
                 std::move(step), config, [](const IterationMetrics&) {});
}

}  // namespace maxent
