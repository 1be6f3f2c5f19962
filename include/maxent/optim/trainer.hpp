// maxent/optim/trainer.hpp — Algorithm 1 (Reg-)PG for MaxEnt POMDPs, generic over models,
// belief updaters, policies, feedbacks, gradient estimators and step rules.
//
// Paper, Algorithm 1: for k = 1..K, sample N trajectories with π_θk (line 3), compute their
// feedbacks (line 4: MSE / MOE / MBE, or Reg-MBE's H - ρ Σ_t H(b_t)) and scores (line 5),
// and take a gradient step (line 6). Every piece is a type satisfying a concept; nothing is
// chosen by flags. Trajectory n of iteration k draws from the stream (seed, k, n)
// (core/random.hpp), so a run is a pure function of (model, components, config, seed).
//
// After each iteration the trainer reports IterationMetrics to an optional callback:
// the batch means of the true-state entropy H(d(τ_S)) (what the paper's figures plot), of
// the feedback and of Σ_t H(b_t), and the norm of the gradient estimate. A callback that
// returns `false` stops training early. After the first iteration nothing is allocated.
//
// Row-sparse policies (RowSparsePolicy, policy/row_score.hpp) can take a second path: each
// trajectory's score is a RowScore over the rows it touched, the N scores are combined on
// the union of their rows (optim/row_sparse_batch.hpp; the estimator must be entry-wise)
// and the step is applied to those rows (apply_step_rows), so an iteration costs
// O(N · K · A) plus the policy's own work, independent of the number of rows of θ (except
// with step rules that must see every parameter, like Adam). Which path (ScorePath in the
// config; both give the same bits where both apply, tests/unit/test_row_sparse_scores.cpp):
//  * a policy that may grow θ (class B; no `fixed_parameters`) always takes the row path,
//    and needs an entry-wise estimator without per-step scores (static_assert);
//  * a policy with fixed parameters (BA, the mixture, S̃) takes it automatically when the
//    estimator is entry-wise and records no per-step scores, the rollout tracks the
//    belief's support (Sampler::tracks_support) and θ has at least 8 N K rows (K actions
//    per trajectory); otherwise the dense path, silently (ScorePath::rows forces the row
//    path and throws config_error naming why when it cannot be taken).
// With fixed parameters and a flat, spread prior b_1 (the paper's uniform b_1), the first
// step's score b_1 (e_a - π)ᵀ is kept as a lead term on the prior (RowScore::set_base): every
// row where b_1 > 0 then has a gradient (the batch's background row), and the estimate is
// scattered into a parameter-shaped gradient and stepped densely: O(θ) once per iteration,
// never per trajectory. The policy may also compute what depends only on θ and b_1 once per
// batch (`batch_base`, core/optional_members.hpp: BA's first-step logits θᵀb_1, the same bits), so
// with the rollout's prior start (optim/rollout.hpp) nothing of size S is read or written
// per trajectory. Otherwise the gradient's norm is summed in the association of the dense
// one (detail::EigenOrderSum) and only the touched rows are stepped. On the row path
// last_gradient() is the compact gradient whose row i belongs to parameter row
// last_gradient_rows()[i] (and row |rows| to the background, last_gradient_background()).
// Every other policy takes the dense path, unchanged.

// Estimators that opt into per-step information (estimate(f, s, steps, out), core/
// step_scores.hpp) get each trajectory's K step scores and the iteration index k; the
// trainer then keeps N · K step matrices (checked against the budget) and records them
// through optim/step_recording.hpp. Other estimators pay nothing for it. An estimator that
// chooses at run time (uses_steps(), core/optional_members.hpp) is asked once, at construction; when
// it declines it is treated as one without per-step information (the same bits).
//
// Bad values stop a run instead of propagating: each iteration checks that the feedbacks, the
// gradient estimate, its norm and θ after the step (the touched rows, on the row-sparse
// path) are finite, and throws numeric_error naming the iteration. The constructor refuses
// batch buffers above max_buffer_bytes (core/budget.hpp) with budget_error.
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <span>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/core/budget.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/finite.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/support.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/row_sparse_batch.hpp"
#include "maxent/optim/step_recording.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/row_score.hpp"

namespace maxent {

/// Which score representation the trainer uses (see the header): `automatic` picks the row
/// path where it pays, `dense` and `rows` force one (config_error when impossible). Both
/// give the same bits wherever both apply.
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
    static_assert(require_differentiable_policy<P>());
    static_assert(require_feedback<F>());
    static_assert(require_gradient_estimator<E>());
    static_assert(require_step_rule<R>());
    // The estimator may want per-step scores (it has the per-step form); always, unless it
    // chooses at run time (uses_steps(), core/optional_members.hpp), which steps_ records.
    static constexpr bool may_step = estimator_uses_steps<E>;
    static constexpr bool always_step = may_step && !estimator_chooses_steps<E>;
    // A row-sparse policy that may grow θ (class B) can only take the row path; one with
    // fixed parameters (BA, mixture, S̃) takes it when it is possible and pays.
    static constexpr bool must_rows = RowSparsePolicy<P> && !policy_has_fixed_parameters<P>;
    static constexpr bool can_rows = RowSparsePolicy<P> && estimator_is_entrywise<E> && !always_step;
    static_assert(!must_rows || estimator_is_entrywise<E>,
                  "maxent::Trainer: the policy is row-sparse (it has sample_rows), so the gradient estimator is "
                  "called on the rows the batch touched only; the estimator must declare "
                  "`static constexpr bool entrywise = true;` (its estimate at a parameter depends only on that "
                  "parameter's scores and is 0 where they are all 0)");
    static_assert(!must_rows || !always_step,
                  "maxent::Trainer: the policy is row-sparse (it has sample_rows), which records no per-step "
                  "scores; use an estimator without `estimate(f, s, steps, out)`");

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
          sampler_(model, std::move(updater), make_options(feedback_, config)),
          steps_(estimator_wants_steps(estimator_)) {
        config_.validate();
        policy_.check_dimensions(agent_dimensions(model, sampler_.updater()));
        const Eigen::MatrixXd& theta = policy_.parameters();
        check_buffer_budget(batch_cost(config_, model.horizon(), theta, steps_), "Trainer: the batch buffers for N = ",
                            config_.batch, " trajectories of horizon T = ", model.horizon());
        rows_ = choose_path();
        if (rows_) {
            // Dense scores stay 0 x 0 (the Sampler's setZero is then free); see the header.
            const std::size_t height =
                config_.batch * Trajectory::actions_for(config_.counting, model.horizon());
            scores_.assign(config_.batch, Eigen::MatrixXd());
            row_scores_.assign(config_.batch, RowScore(static_cast<std::size_t>(theta.cols())));
            // Class B: at most N·K rows; fixed parameters: at most every row and the background
            // (the compact buffers grow to the largest batch, then stay).
            batch_ = RowSparseBatch(config_.batch,
                                    must_rows ? height : std::min(height, static_cast<std::size_t>(theta.rows()) + 1),
                                    static_cast<std::size_t>(theta.cols()));
            gradient_ = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(batch_.height()), theta.cols());
            if constexpr (!must_rows) find_base();
        } else {
            scores_.assign(config_.batch, Eigen::MatrixXd::Zero(theta.rows(), theta.cols()));
            gradient_ = Eigen::MatrixXd::Zero(theta.rows(), theta.cols());
            if (steps_)
                step_scores_.assign(config_.batch * Trajectory::actions_for(config_.counting, model.horizon()),
                                    Eigen::MatrixXd::Zero(theta.rows(), theta.cols()));
        }
        feedbacks_.assign(config_.batch, 0.0);
        counter_.resize(state_bins(model));
    }

    /// Runs the remaining iterations (K in total across calls). `callback(metrics)` may
    /// return void, or bool where false stops early.
    template <class Callback>
    TrainResult run(Callback&& callback) {
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
        return result;
    }
    TrainResult run() {
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
        if (base_used_) bind_base();
        IterationMetrics out;
        out.iteration = k;
        {
            // θ stays fixed while the batch is sampled: a policy with batch_base (core/
            // optional_members.hpp) may compute what depends only on θ and the base b_1 once per batch
            // (BA: the first step's logits); the base is withdrawn before the step, also on a throw.
            const BatchBaseScope batch_scope(policy_, base_used_ ? &prior_ : nullptr);
            for (std::size_t n = 0; n < config_.batch; ++n) {
                DefaultRng g = stream(config_.seed, k, n);
                const Trajectory& t = run_one(n, g);
                observe(n, static_cast<const Trajectory&>(t));
                feedbacks_[n] = feedback_(t, g);
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
        if (rows_) {
            if constexpr (can_rows || must_rows) step_on_rows(k, out);
        } else {
            if constexpr (!must_rows) {
                const std::span<const double> f(feedbacks_);
                const std::span<const Eigen::MatrixXd> s(scores_);
                if constexpr (may_step) {
                    if (steps_) {
                        const StepScores steps{k, step_scores_.size() / config_.batch, step_scores_};
                        estimator_.estimate(f, s, steps, gradient_);
                    }
                }
                if constexpr (!always_step) {
                    if (!steps_) estimator_.estimate(f, s, gradient_);
                }
                out.gradient_norm = checked_norm(gradient_, k);
                step_.apply(policy_.parameters(), gradient_);
                detail::require_finite(policy_.parameters(), "Trainer: parameters after the step of iteration ", k);
            }
        }
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
        policy_.check_dimensions(agent_dimensions(*model_, sampler_.updater()));
        if constexpr (!must_rows) {
            if (rows_) find_base();  // the new updater's prior
        }
    }
    /// Whether iterations take the row-sparse path (ScorePath; fixed at construction).
    [[nodiscard]] bool uses_row_scores() const noexcept { return rows_; }
    /// The last gradient estimate: parameter-shaped (dense path), or compact (row-sparse
    /// path: row i is parameter row last_gradient_rows()[i]; when last_gradient_background(),
    /// row last_gradient_rows().size() is the gradient of every other row where the prior is
    /// non-zero; rows beyond are zero).
    [[nodiscard]] const Eigen::MatrixXd& last_gradient() const noexcept { return gradient_; }
    /// Row-sparse path: the parameter rows of last_gradient(); dense path: empty.
    [[nodiscard]] std::span<const Eigen::Index> last_gradient_rows() const noexcept { return batch_.rows(); }
    [[nodiscard]] bool last_gradient_background() const noexcept { return rows_ && batch_.background(); }

private:
    /// Declares the batch's base to a policy with batch_base for the scope's lifetime.
    class BatchBaseScope {
    public:
        BatchBaseScope(P& policy, const Eigen::VectorXd* base) noexcept : policy_(&policy), set_(base != nullptr) {
            if constexpr (policy_has_batch_base<P>)
                if (set_) policy_->batch_base(base);
        }
        ~BatchBaseScope() {
            if constexpr (policy_has_batch_base<P>)
                if (set_) policy_->batch_base(nullptr);
        }
        BatchBaseScope(const BatchBaseScope&) = delete;
        BatchBaseScope& operator=(const BatchBaseScope&) = delete;

    private:
        P* policy_;
        bool set_;
    };

    /// The gradient estimate's norm, after checking the estimate is finite; numeric_error
    /// naming iteration k otherwise.
    static double checked_norm(const Eigen::MatrixXd& gradient, std::size_t k) {
        // A non-finite entry makes the norm non-finite, so the entries are scanned (to name
        // the culprit) only then.
        const double norm = detail::norm_without_overflow(gradient);
        if (!std::isfinite(norm)) {
            detail::require_finite(gradient, "Trainer: gradient estimate at iteration ", k);
            detail::require_finite(norm, "Trainer: norm of the gradient estimate at iteration ", k);
        }
        return norm;
    }

    /// Bytes of the batch buffers: N feedbacks; N scores and the gradient, parameter-shaped
    /// (dense path) or N·K x A (row-sparse path); N·K step scores when `steps` — counted
    /// before any is allocated.
    static BufferCost batch_cost(const TrainerConfig& config, std::size_t T, const Eigen::MatrixXd& theta,
                                 bool steps) {
        const std::size_t N = config.batch;
        const std::size_t K = Trajectory::actions_for(config.counting, T);
        const auto cols = static_cast<std::size_t>(theta.cols());
        const auto size = static_cast<std::size_t>(theta.size());
        BufferCost cost;
        cost.add({N}, sizeof(double));
        if constexpr (must_rows)
            cost.add({N, N, K, cols}, sizeof(double)).add({N, K, cols}, sizeof(double));
        else
            cost.add({N, size}, sizeof(double)).add({size}, sizeof(double));  // either path, at worst
        if (steps && !must_rows) cost.add({N, K, size}, sizeof(double));
        return cost;
    }

    /// The path this trainer takes (see ScorePath and the header); config_error when the
    /// configuration asks for one that cannot be taken.
    bool choose_path() const {
        if constexpr (must_rows) {
            if (steps_)
                throw config_error("Trainer: the estimator asks for per-step scores (uses_steps()), but the policy may "
                                   "grow its parameters while sampling, so it takes the row-sparse path, which "
                                   "records none; choose an estimator without per-step scores for this policy");
            if (config_.scores == ScorePath::dense)
                throw config_error("Trainer: ScorePath::dense was asked for, but the policy may grow its parameters "
                                   "while sampling (a RowSparsePolicy without `static constexpr bool "
                                   "fixed_parameters = true;`), so it needs the row-sparse path");
            return true;
        } else if constexpr (can_rows) {
            if (steps_) {
                if (config_.scores == ScorePath::rows)
                    throw config_error("Trainer: ScorePath::rows was asked for, but the estimator uses per-step "
                                       "scores (uses_steps()), which the row path does not record");
                return false;
            }
            if (config_.scores == ScorePath::dense) return false;
            if (config_.scores == ScorePath::rows) return true;
            // Automatic: the row path pays when the rollout keeps the belief's support (each
            // step's score then lives on a few rows), the policy reads the belief itself, and
            // θ has at least 8 N K rows, so that a batch's N K steps leave most rows untouched
            // (on an 80 x 80 room with N K = 990 the batch covers most of the map and the dense
            // scores are faster; docs/performance.md).
            const auto rows = static_cast<std::size_t>(policy_.parameters().rows());
            const std::size_t steps = config_.batch * Trajectory::actions_for(config_.counting, model_->horizon());
            return sampler_.tracks_support() && !BeliefFeatures<U> && rows >= 8 * steps;
        } else {
            if (config_.scores == ScorePath::rows)
                throw config_error(detail::message(
                    "Trainer: ScorePath::rows was asked for, but ",
                    !RowSparsePolicy<P> ? "the policy has no sample_rows (RowSparsePolicy)"
                    : may_step          ? "the estimator uses per-step scores, which the row path does not record"
                                        : "the estimator is not entry-wise (static constexpr bool entrywise)"));
            return false;
        }
    }

    /// Row path, fixed parameters: declares the updater's prior b_1 as the base of the row
    /// scores' lead terms (RowScore::set_base) when it is flat and spread (more than S/8
    /// states, where touching its rows in every episode would not pay), e.g. the paper's
    /// uniform b_1; otherwise no base, and the first step touches the prior's rows.
    void find_base() {
        base_used_ = false;
        for (RowScore& rs : row_scores_) rs.set_base(nullptr);
        batch_.set_base(nullptr);
        if constexpr (!BeliefFeatures<U>) {
            sampler_.updater().initial(prior_);
            const Eigen::Index S = policy_.parameters().rows();
            if (prior_.size() != S) return;
            std::size_t nonzeros = 0;
            double value = 0.0;
            for (Eigen::Index r = 0; r < S; ++r) {
                const double x = prior_[r];
                if (x == 0.0) continue;
                if (nonzeros > 0 && x != value) return;  // not flat
                value = x;
                ++nonzeros;
            }
            if (support_pays(nonzeros, static_cast<std::size_t>(S))) return;
            batch_.set_base(&prior_);
            base_used_ = true;
            bind_base();
        }
    }
    /// Points the row scores and the batch at prior_ (each iteration, before sampling: the
    /// pointers follow the trainer if it was moved).
    void bind_base() {
        for (RowScore& rs : row_scores_) rs.set_base(&prior_);
        batch_.rebind_base(&prior_);
    }

    /// Estimate and step on the row path (the scores are in row_scores_).
    void step_on_rows(std::size_t k, IterationMetrics& out) {
        batch_.gather(std::span<const RowScore>(row_scores_));
        estimator_.estimate(std::span<const double>(feedbacks_), batch_.compact(), gradient_);
        Eigen::MatrixXd& theta = policy_.parameters();
        if (!must_rows && batch_.background()) {
            // Every row where the prior is non-zero has a gradient: the dense step, on the
            // dense gradient, with the dense path's bits (O(θ) once per iteration).
            scatter_gradient();
            out.gradient_norm = checked_norm(dense_scratch_, k);
            step_.apply(theta, dense_scratch_);
            detail::require_finite(theta, "Trainer: parameters after the step of iteration ", k);
            return;
        }
        out.gradient_norm = must_rows ? checked_norm(gradient_, k) : rows_norm(k);
        apply_step_rows(step_, theta, batch_.rows(), gradient_, dense_scratch_);
        for (const Eigen::Index r : batch_.rows())
            detail::require_finite(theta.row(r), "Trainer: parameter row ", r, " after the step of iteration ", k);
    }

    /// dense_scratch_ <- the parameter-shaped gradient of the row path (compact rows, the
    /// background's rows, zero elsewhere).
    void scatter_gradient() {
        const Eigen::MatrixXd& theta = policy_.parameters();
        if (dense_scratch_.rows() != theta.rows() || dense_scratch_.cols() != theta.cols())
            dense_scratch_.resize(theta.rows(), theta.cols());
        const std::span<const Eigen::Index> rows = batch_.rows();
        if (batch_.background()) {
            // The background's rows are those where the base (prior_, as many entries as θ
            // has rows: find_base) is non-zero, less the touched rows, which are overwritten
            // below: written column by column (θ is column-major) in one pass.
            const auto b = static_cast<Eigen::Index>(rows.size());
            const Eigen::Index S = theta.rows();
            const double* base = prior_.data();
            for (Eigen::Index c = 0; c < theta.cols(); ++c) {
                const double v = gradient_(b, c);
                double* out = dense_scratch_.col(c).data();
                for (Eigen::Index r = 0; r < S; ++r) out[r] = base[r] != 0.0 ? v : 0.0;
            }
        } else {
            dense_scratch_.setZero();
        }
        for (std::size_t i = 0; i < rows.size(); ++i)
            dense_scratch_.row(rows[i]) = gradient_.row(static_cast<Eigen::Index>(i));
    }

    /// The norm of the row path's gradient (no background) with the bits of the dense path's
    /// norm of the parameter-shaped gradient: the squares added in the association of Eigen's
    /// squaredNorm (detail::EigenOrderSum), in O(rows touched · A).
    double rows_norm(std::size_t k) {
        if constexpr (support_dot_matches_eigen) {
            const std::span<const Eigen::Index> rows = batch_.rows();
            const auto S = static_cast<std::size_t>(policy_.parameters().rows());
            const auto C = static_cast<std::size_t>(gradient_.cols());
            detail::EigenOrderSum sum(S * C);
            for (std::size_t c = 0; c < C; ++c)
                for (std::size_t i = 0; i < rows.size(); ++i) {
                    const double x = gradient_(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(c));
                    sum.add(c * S + static_cast<std::size_t>(rows[i]), x * x);
                }
            const double norm = std::sqrt(sum.result());
            if (std::isfinite(norm)) return norm;
        }
        scatter_gradient();
        return checked_norm(dense_scratch_, k);
    }

    template <class G>
    const Trajectory& run_one(std::size_t n, G& g) {
        if constexpr (can_rows || must_rows) {
            if (rows_) {
                RowScoringView<P> view(policy_, row_scores_[n]);
                return sampler_.run(view, g, scores_[n]);
            }
        }
        if constexpr (must_rows) {
            throw config_error("Trainer: internal error: a growing row-sparse policy off the row path");
        } else {
            if constexpr (may_step) {
                if (steps_) {
                    const std::size_t K = step_scores_.size() / config_.batch;
                    StepRecordingView<P> view(policy_, std::span<Eigen::MatrixXd>(step_scores_).subspan(n * K, K));
                    return sampler_.run(view, g, scores_[n]);
                }
            }
            return sampler_.run(policy_, g, scores_[n]);
        }
    }

    static AgentDimensions agent_dimensions(const M& model, const U& updater) {
        AgentDimensions d{updater.dimension(), model.num_actions(), model.num_observations()};
        if constexpr (BeliefFeatures<U>) d.features = updater.feature_dimension();
        return d;
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
    bool steps_ = false;  // the estimator wants per-step scores (estimator_wants_steps; fixed)
    std::vector<Eigen::MatrixXd> scores_;
    std::vector<double> feedbacks_;
    std::vector<Eigen::MatrixXd> step_scores_;  // N x K per-step scores (per-step estimators only)
    Eigen::MatrixXd gradient_;
    std::vector<RowScore> row_scores_;  // row-sparse path only
    RowSparseBatch batch_;              // row-sparse path only
    Eigen::MatrixXd dense_scratch_;     // row-sparse path: a dense-only step rule (Adam), the background
    Eigen::VectorXd prior_;             // row-sparse path, fixed parameters: the base b_1 (find_base)
    bool base_used_ = false;
    bool rows_ = false;                 // the row-sparse path (choose_path)
    EmpiricalCounter counter_;
    std::size_t next_iteration_ = 0;
};

/// Convenience: builds a Trainer and runs it to completion.
template <class M, class U, class P, class F, class E, class R,
          class Callback>
TrainResult train(const M& model, U updater, P policy, F feedback, E estimator, R step, const TrainerConfig& config,
                  Callback&& callback) {
    Trainer<M, U, P, F, E, R> trainer(model, std::move(updater), std::move(policy), std::move(feedback),
                                      std::move(estimator), std::move(step), config);
    return trainer.run(std::forward<Callback>(callback));
}

template <class M, class U, class P, class F, class E, class R>
TrainResult train(const M& model, U updater, P policy, F feedback, E estimator, R step, const TrainerConfig& config) {
    return train(model, std::move(updater), std::move(policy), std::move(feedback), std::move(estimator),
                 std::move(step), config, [](const IterationMetrics&) {});
}

}  // namespace maxent
