// maxent/optim/learned_belief.hpp — exploration without a simulator (paper, Section 5): the
// agent learns its belief model from its own actions and observations while it trains.
//
// Section 5 trains with MBE or Reg-MBE on an approximate belief oracle; this builds it:
//   1. Warm-up: `warmup_episodes` episodes of uniformly random actions (episode e from stream
//      (data seed, 0, e)), plus `heldout_episodes` (stream (data seed, 1, e)) only scored.
//   2. First fit: fit_iohmm (belief/learned/em.hpp) on the warm-up episodes; the model becomes
//      a FinitePomdp over its L latent states and the agent's BayesFilter on it (b_1: the
//      learned μ̂ by default, or uniform, the paper's b_1, with `learned_prior = false`).
//   3. Training: Algorithm 1 (the library's Trainer, unchanged) with that filter as the
//      agent's belief model and the real world as the environment; the actions and
//      observations of the `window` most recent episodes are kept.
//   4. Every `refit_every` iterations: EM warm-started from the current model (refit_iohmm,
//      at most `refit_iterations` steps) on the warm-up episodes plus the window, then the
//      agent's filter is replaced (Trainer::set_updater). Warm starting keeps latent state z
//      the same state across refits, so θ and the step rule's state keep their meaning. The
//      warm-up episodes stay in the data: without them, rows of latent states the policy
//      rarely visits would drift back to the smoothing prior.
// The true state is read only for IterationMetrics::true_entropy. Streams: trajectories draw
// from (seed, k, n); the data from derive_seed(seed, 2^64 - 1, 1), the fits from
// derive_seed(seed, 2^64 - 1, 2): a run is a pure function of its inputs, for any thread count.
// FitRecord reports every fit (log-likelihood per observation, EM iterations run, whether
// options.fit.stop cut it short; the caller then stops training too: run's callback).
// After training, learned_model(), belief_model() and updater() are the final learned model
// and the agent's filter: evaluate(world, t.updater(), t.policy(), ...) evaluates the learned
// policy on fresh episodes of the real world. Defaults: belief/learned/defaults.hpp.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <utility>
#include <vector>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned/defaults.hpp"
#include "maxent/belief/learned_model.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/draws.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/optim/trainer.hpp"

namespace maxent {

/// How the agent's belief model is learned: EM on a general IOHMM (fit_iohmm, refit_iohmm;
/// IohmmOptions::fixed and prior say what the agent knows), or a cloned HMM (fit_cloned_hmm,
/// refit_cloned_hmm: latent states are clones of observations; knows nothing of the dynamics).
enum class BeliefLearner { iohmm, cloned_hmm };

struct LearnedBeliefOptions {
    /// The model and the first fit: latent_states L (>= 1, required), emission, smoothing
    /// (> 0 here: with α = 0 the learned model may give an observation probability 0, which the
    /// agent's filter cannot update on), restarts, anchor_weight, max_iterations, tolerance,
    /// threads, block_size, stop (every fit, see IohmmOptions::stop). num_actions and
    /// num_observations: 0 = the world's (else they must equal the world's). seed is not read
    /// (derived from the trainer's seed, see the header).
    IohmmOptions fit{};
    /// uniform-action episodes before the first fit (>= 1)
    std::size_t warmup_episodes = learned_belief_defaults.warmup;
    /// uniform-action episodes only scored (0 = none)
    std::size_t heldout_episodes = learned_belief_defaults.heldout;
    /// M: refit after every M iterations (0 = never refit)
    std::size_t refit_every = learned_belief_defaults.refit_every;
    /// EM steps per warm-started refit at most (>= 1)
    std::size_t refit_iterations = learned_belief_defaults.refit_iterations;
    /// the most recent training episodes fitted to (>= 1)
    std::size_t window = learned_belief_defaults.window;
    /// b_1 = the learned μ̂ (true, the default) or uniform (false, the paper's b_1)
    bool learned_prior = learned_belief_defaults.learned_prior;
    BeliefLearner learner = BeliefLearner::iohmm;  ///< the model class and its EM
    std::vector<std::size_t> clones{};   ///< cloned HMM: clones per observation (empty: L split equally)

    /// Throws config_error naming the field and its value.
    void validate() const {
        if (fit.latent_states == 0)
            throw config_error("LearnedBeliefOptions: fit.latent_states (L) must be at least 1, got 0");
        if (!(fit.smoothing > 0.0 && fit.smoothing <= max_iohmm_smoothing))
            throw config_error(detail::message(
                "LearnedBeliefOptions: fit.smoothing must be in (0, ", max_iohmm_smoothing, "], got ", fit.smoothing,
                fit.smoothing == 0.0 ? " (with α = 0 the learned model may give an observation probability 0, "
                                       "which the agent's filter cannot update on)"
                                     : ""));
        if (!(fit.anchor_weight >= 0.0 && fit.anchor_weight < 1.0))
            throw config_error(detail::message("LearnedBeliefOptions: fit.anchor_weight must be in [0, 1), got ",
                                               fit.anchor_weight));
        if (fit.restarts == 0) throw config_error("LearnedBeliefOptions: fit.restarts must be at least 1, got 0");
        if (!(fit.tolerance >= 0.0) || !std::isfinite(fit.tolerance))
            throw config_error(detail::message("LearnedBeliefOptions: fit.tolerance must be finite and >= 0, got ",
                                               fit.tolerance));
        if (fit.block_size == 0) throw config_error("LearnedBeliefOptions: fit.block_size must be at least 1, got 0");
        if (warmup_episodes == 0) throw config_error("LearnedBeliefOptions: warmup_episodes must be at least 1, got 0");
        if (refit_iterations == 0)
            throw config_error("LearnedBeliefOptions: refit_iterations must be at least 1, got 0");
        if (window == 0) throw config_error("LearnedBeliefOptions: window must be at least 1, got 0");
    }
};

/// One fit of the belief model.
struct FitRecord {
    std::size_t iteration = 0;        ///< training iterations done before it (0 for the first fit)
    std::size_t episodes = 0;         ///< sequences fitted to
    std::size_t em_iterations = 0;    ///< M steps run (chosen restart, for the first fit)
    bool converged = false;           ///< stopped by the tolerance
    double train_log_likelihood = 0;  ///< per observation, after the fit
    double heldout_log_likelihood = std::numeric_limits<double>::quiet_NaN();  ///< per observation; NaN if no held-out set
    bool stopped = false;             ///< cut short by the stop flag (options.fit.stop)
};

namespace detail {

/// An episode of the world under uniformly random actions, recorded as a sequence with
/// `actions` actions (Trajectory's layout); its true states s_1..s_{K+1} also go to `states`
/// when given (diagnostics only: the agent never reads them).
template <class M, class G>
void uniform_episode(const M& world, std::size_t actions, G& g, ActionObservationSequence& out,
                     std::vector<world_state_t<M>>* states = nullptr) {
    out.actions.clear();
    out.observations.clear();
    if (states != nullptr) states->clear();
    auto s = draw_initial_state(world, g);
    if (states != nullptr) states->push_back(s);
    out.observations.push_back(draw_initial_observation(world, s, g));
    const std::uint64_t A = world.num_actions();
    for (std::size_t k = 0; k < actions; ++k) {
        const auto a = static_cast<std::size_t>(uniform_index(g, A));
        s = draw_next_state(world, s, a, g);
        if (states != nullptr) states->push_back(s);
        out.actions.push_back(a);
        out.observations.push_back(draw_observation(world, a, s, g));
    }
}

inline double per_observation(double ll, std::span<const ActionObservationSequence> data) {
    std::size_t n = 0;
    for (const auto& s : data) n += s.observations.size();
    return n == 0 ? std::numeric_limits<double>::quiet_NaN() : ll / static_cast<double>(n);
}

}  // namespace detail

/// The uniform-action episodes LearnedBeliefTrainer collects for `config`: part 0 the warm-up
/// episodes (the first fit's data), part 1 the held-out ones (only scored); `n` of them. A
/// caller that chooses the model's size first (model selection on the warm-up episodes) reads
/// the same data here.
template <class M>
[[nodiscard]] std::vector<ActionObservationSequence> learned_belief_episodes(const M& world,
                                                                             const TrainerConfig& config,
                                                                             std::size_t n, std::uint64_t part) {
    const std::uint64_t data_seed = derive_seed(config.seed, ~std::uint64_t{0}, 1);
    const std::size_t K = Trajectory::actions_for(config.counting, world.horizon());
    std::vector<ActionObservationSequence> out(n);
    for (std::size_t e = 0; e < n; ++e) {
        DefaultRng g = stream(data_seed, part, e);
        detail::uniform_episode(world, K, g, out[e]);
    }
    return out;
}

/// The seed of LearnedBeliefTrainer's fits (IohmmOptions::seed) for `config`.
[[nodiscard]] inline std::uint64_t learned_belief_fit_seed(const TrainerConfig& config) {
    return derive_seed(config.seed, ~std::uint64_t{0}, 2);
}

/// Algorithm 1 with a belief model learned from the agent's own actions and observations
/// (see the header). M is the world (any Environment); P, F, E, R as for Trainer, with P
/// sized for the learned model (e.g. BeliefAveragedPolicy(L, A)).
template <class M, class P, class F, class E, class R>
class LearnedBeliefTrainer {
    static_assert(require_index_actions<M>());  // the learned (IOHMM) belief models are finite-action
    static_assert(require_environment<M>());
    static_assert(require_differentiable_policy<P>());
    static_assert(require_feedback<F>());
    static_assert(require_gradient_estimator<E>());
    static_assert(require_step_rule<R>());

public:
    using belief_model_type = FinitePomdp<std::size_t, std::size_t, std::size_t>;
    using updater_type = BayesFilter<belief_model_type>;
    using trainer_type = Trainer<M, updater_type, P, F, E, R>;

    /// Collects the warm-up and held-out episodes and fits the first model (so construction
    /// costs one fit). The world must outlive the trainer. Throws config_error for bad options
    /// or sizes, and what fit_iohmm and Trainer throw.
    LearnedBeliefTrainer(const M& world, P policy, F feedback, E estimator, R step, TrainerConfig config,
                         LearnedBeliefOptions options)
        : world_(&world), options_(std::move(options)) {
        config.validate();
        options_.validate();
        IohmmOptions& fit = options_.fit;
        if (fit.num_actions == 0) fit.num_actions = world.num_actions();
        if (fit.num_observations == 0) fit.num_observations = world.num_observations();
        if (fit.num_actions != world.num_actions() || fit.num_observations != world.num_observations())
            throw config_error(detail::message("LearnedBeliefTrainer: fit.num_actions = ", fit.num_actions,
                                               " and fit.num_observations = ", fit.num_observations,
                                               " must be the world's ", world.num_actions(), " and ",
                                               world.num_observations(), " (or 0)"));
        fit.seed = learned_belief_fit_seed(config);
        warmup_ = learned_belief_episodes(world, config, options_.warmup_episodes, 0);
        heldout_ = learned_belief_episodes(world, config, options_.heldout_episodes, 1);
        IohmmFit first = options_.learner == BeliefLearner::cloned_hmm
                             ? fit_cloned_hmm(warmup_, fit, options_.clones, heldout_)
                             : fit_iohmm(warmup_, fit, heldout_);
        record(first, 0, warmup_);
        current_ = std::move(first.model);
        model_ = std::make_unique<belief_model_type>(to_finite_pomdp(current_, world.horizon()));
        trainer_.emplace(world, make_updater(*model_), std::move(policy), std::move(feedback), std::move(estimator),
                         std::move(step), config);
        window_.resize(options_.window);
    }

    /// One iteration of Algorithm 1, then a refit if M iterations have passed since the last.
    IterationMetrics iterate() {
        const IterationMetrics m = trainer_->iterate([this](std::size_t, const Trajectory& t) { keep(t); });
        const std::size_t done = trainer_->iterations_done();
        if (options_.refit_every != 0 && done % options_.refit_every == 0 && done < trainer_->config().iterations)
            refit();
        return m;
    }

    /// Runs the remaining iterations; `callback(metrics)` may return void, or bool where false
    /// stops early (as Trainer::run).
    template <class Callback>
    TrainResultOf<P> run(Callback&& callback) {
        TrainResult result;
        const TrainerConfig& c = trainer_->config();
        result.history.reserve(c.iterations - trainer_->iterations_done());
        while (trainer_->iterations_done() < c.iterations) {
            const IterationMetrics metrics = iterate();
            result.history.push_back(metrics);
            if (!detail::keep_training(callback, metrics)) {
                result.stopped_early = true;
                break;
            }
        }
        result.parameters = trainer_->policy().parameters();
        return TrainResultOf<P>{std::move(result), trainer_->policy()};
    }
    TrainResultOf<P> run() {
        return run([](const IterationMetrics&) {});
    }

    /// Every fit so far, the first at index 0.
    [[nodiscard]] const std::vector<FitRecord>& fits() const noexcept { return fits_; }
    /// The current learned model (IOHMM parameters; after training, the last fit's) and the
    /// agent's FinitePomdp built from it.
    [[nodiscard]] const IohmmModel& learned_model() const noexcept { return current_; }
    [[nodiscard]] const belief_model_type& belief_model() const noexcept { return *model_; }
    /// The agent's filter on belief_model() (b_1 as options().learned_prior says): with policy(),
    /// what evaluate needs. It refers to belief_model(), which lives as long as the trainer
    /// and until the next refit: copy the model (learned_model(), to_finite_pomdp) to keep it.
    [[nodiscard]] const updater_type& updater() const noexcept { return trainer_->updater(); }
    [[nodiscard]] const trainer_type& trainer() const noexcept { return *trainer_; }
    [[nodiscard]] trainer_type& trainer() noexcept { return *trainer_; }
    [[nodiscard]] const P& policy() const noexcept { return trainer_->policy(); }
    [[nodiscard]] const LearnedBeliefOptions& options() const noexcept { return options_; }
    /// The warm-up and held-out sequences (uniform actions).
    [[nodiscard]] std::span<const ActionObservationSequence> warmup_episodes() const noexcept { return warmup_; }
    [[nodiscard]] std::span<const ActionObservationSequence> heldout_episodes() const noexcept { return heldout_; }

private:
    updater_type make_updater(const belief_model_type& m) const {
        return options_.learned_prior ? updater_type(m, model_prior) : updater_type(m);
    }

    void keep(const Trajectory& t) {
        ActionObservationSequence& slot = window_[next_slot_];
        slot.actions.assign(t.actions.begin(), t.actions.end());
        slot.observations.assign(t.observations.begin(), t.observations.end());
        next_slot_ = (next_slot_ + 1) % window_.size();
        kept_ = std::min(kept_ + 1, window_.size());
    }

    void refit() {
        // Warm-up episodes first, then the window oldest first: a fixed order for a fixed run.
        data_.clear();
        data_.insert(data_.end(), warmup_.begin(), warmup_.end());
        const std::size_t start = kept_ < window_.size() ? 0 : next_slot_;
        for (std::size_t i = 0; i < kept_; ++i) data_.push_back(window_[(start + i) % window_.size()]);
        IohmmOptions o = options_.fit;
        o.max_iterations = options_.refit_iterations;
        IohmmFit f = options_.learner == BeliefLearner::cloned_hmm ? refit_cloned_hmm(current_, data_, o, heldout_)
                                                                   : refit_iohmm(current_, data_, o, heldout_);
        record(f, trainer_->iterations_done(), data_);
        current_ = std::move(f.model);
        auto next = std::make_unique<belief_model_type>(to_finite_pomdp(current_, world_->horizon()));
        trainer_->set_updater(make_updater(*next));
        model_ = std::move(next);  // the old model is released only once no filter points to it
    }

    void record(const IohmmFit& f, std::size_t iteration, std::span<const ActionObservationSequence> data) {
        FitRecord r;
        r.iteration = iteration;
        r.episodes = data.size();
        r.em_iterations = f.iterations;
        r.converged = f.converged;
        r.stopped = f.stopped;
        r.train_log_likelihood = detail::per_observation(f.final_log_likelihood(), data);
        if (!heldout_.empty())
            r.heldout_log_likelihood = detail::per_observation(f.heldout_log_likelihood.back(), heldout_);
        fits_.push_back(r);
    }

    const M* world_;
    LearnedBeliefOptions options_;
    std::vector<ActionObservationSequence> warmup_, heldout_, window_, data_;
    std::size_t next_slot_ = 0, kept_ = 0;
    IohmmModel current_;
    std::unique_ptr<belief_model_type> model_;
    std::optional<trainer_type> trainer_;
    std::vector<FitRecord> fits_;
};

}  // namespace maxent
