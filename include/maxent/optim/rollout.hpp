// maxent/optim/rollout.hpp — one episode of interaction under a policy (Algorithm 1, line 3).
//
// Paper, Section 2.1: s_1 ~ μ, o_1 ~ Obs(· | s_1), b_1 = the updater's prior (uniform by
// default: the paper does not condition b_1 on o_1); then for each step: act
// a_t ~ π(· | o_t, b_t) (accumulating the score ∇_θ log π), transition s_{t+1} ~ P(· | s_t, a_t),
// observe o_{t+1} ~ Obs(· | s_{t+1}, a_t), update b_{t+1} = updater(b_t, a_t, o_{t+1}). The
// number of actions follows StateCounting (core/trajectory.hpp): T - 1 (paper) or T.
// Actions are world_action_t<M>: indices drawn by a Policy, or, for a world with continuous
// actions (model/concepts.hpp), the d coordinates a ContinuousPolicy writes, checked inside
// the world's ActionBox, turned into its action_type (core/actions.hpp) and recorded in
// Trajectory::action_points; the updater then reads that action_type (a ParticleFilter).
//
// The world is any Environment (model/concepts.hpp), sampled only through the draw_*
// functions of model/draws.hpp, its true states recorded as bins (state_bin); the agent's belief model sees only
// actions and observations and keeps beliefs over its own dimension() latent states. With
// BeliefFeatures the policy reads φ(b_t) (AgentView::features()). Belief updates are skipped
// when neither the policy (policy_needs_belief) nor the needs read beliefs.
//
// `Sampler` owns every buffer an episode needs: after the first episode a rollout allocates
// nothing. One loop (Sampler::episode) runs every episode; where b_k lives is one type
// behind one interface: DenseBeliefs, the reference (run_dense), or, for a
// SupportTrackingUpdater that says it pays (belief/concepts.hpp), TrackedBeliefs
// (run_on_support), which keeps the belief's support and starts from the updater's prior
// without copying it (PriorStartUpdater), O(|support|) per step instead of O(S), with the
// same draws and bits (tests/unit/test_support.cpp).
#pragma once

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/core/actions.hpp"
#include "maxent/core/budget.hpp"
#include "maxent/core/optional_members.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/draws.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/support.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/policy/concepts.hpp"

namespace maxent {

struct RolloutOptions {
    StateCounting counting = StateCounting::paper;
    RolloutNeeds needs{};
};


template <class M, class U>  // constraints checked by the static_asserts below (readable messages)
class Sampler {
    static_assert(require_environment<M>());
    static_assert(require_belief_updater<U>());

public:
    /// The world's observations as the rollout passes them to the updater (model/concepts.hpp).
    using observation_type = world_observation_t<M>;
    static_assert(std::same_as<updater_observation_t<U>, observation_type>,
                  "maxent::Sampler: the belief updater reads observations of another type than the world emits "
                  "(updater_observation_t<U> must be world_observation_t<M>: declare the same observation_type)");
    /// The world's actions: indices, or its continuous action_type (model/concepts.hpp).
    using action_type = world_action_t<M>;
    static constexpr bool continuous = continuous_actions<M>;
    static_assert(!continuous || !std::same_as<updater_action_t<U>, std::size_t>,
                  "maxent::Sampler: the world's actions are continuous but the belief updater reads action indices: "
                  "the exact filter (BayesFilter) and the learned (IOHMM) belief models are finite-action; use a "
                  "ParticleFilter of the world (belief/particle_filter.hpp), which reads its action_type");
    static_assert(!continuous || std::same_as<updater_action_t<U>, action_type>,
                  "maxent::Sampler: the belief updater reads actions of another type than the world takes "
                  "(updater_action_t<U> must be world_action_t<M>: declare the same action_type)");

    /// The world model must outlive the sampler. The updater's belief space is its own.
    /// Throws budget_error when the trajectory record for the model's horizon would exceed
    /// max_buffer_bytes (core/budget.hpp).
    Sampler(const M& model, U updater, RolloutOptions options = {})
        : model_(&model), updater_(std::move(updater)), options_(options) {
        const std::size_t L = updater_.dimension();
        if (L == 0) throw config_error("Sampler: the belief updater's dimension() is 0");
        const std::size_t T = model.horizon();
        if (T == 0) throw config_error("Sampler: the world's horizon() is 0; an episode needs at least 1 step");
        const std::size_t K = Trajectory::actions_for(options_.counting, T);
        check_buffer_budget(trajectory_record_cost(L, K, options_.needs),
                            "Sampler: the trajectory record for horizon T = ", T);  // before reserving it
        traj_.counting = options_.counting;
        traj_.horizon = T;
        traj_.num_states = state_bins(model);
        traj_.num_observations = observation_count(model);
        traj_.belief_dimension = L;
        if (options_.needs.state_points) {
            if constexpr (has_state_points<M>) {
                const std::size_t d = model.state_point_dimension();
                if (d == 0) throw config_error("Sampler: the world's state_point_dimension() is 0");
                traj_.state_point_dimension = d;
                state_point_.assign(d, 0.0);
                traj_.state_points.reserve((K + 1) * d);
            } else {
                throw config_error("Sampler: the feedback counts true states as points, but the world has no "
                                   "state_point_dimension() and state_point(s, out): wrap it with "
                                   "maxent::with_state_points(model, d, fn)");
            }
        }
        if (options_.needs.observation_points && !has_observation_points<M>)
            throw config_error("Sampler: the feedback counts observations as points, but the world's observations are "
                               "indices or of a type that is not a point (declare a PointLike observation_type, or "
                               "observation_point_dimension() and observation_point(o, out))");
        traj_.states.reserve(K + 1);
        traj_.observations.reserve(K + 1);
        if constexpr (continuous) {
            box_ = action_box(model);
            const std::size_t d = box_.dimension();
            traj_.action_dimension = d;
            traj_.action_points.reserve(K * d);
            action_point_.assign(d, 0.0);
            read_action(std::span<const double>(action_point_), action_);  // sized once
        } else {
            traj_.actions.reserve(K);
        }
        traj_.belief_entropy.reserve(K + 1);
        traj_.believed.reserve(K + 1);
        if (options_.needs.beliefs)
            traj_.beliefs.resize(static_cast<Eigen::Index>(L), static_cast<Eigen::Index>(K + 1));
        if constexpr (can_track_support) {
            track_ = updater_support_tracking_pays(updater_);
            support_.reserve(L);
        }
        updater_.initial(belief_);
        if (static_cast<std::size_t>(belief_.size()) != L)
            throw config_error(detail::message("Sampler: the belief updater's prior has ", belief_.size(),
                                               " entries but its dimension() is ", L));
        if constexpr (has_features) {
            updater_.features(belief_, features_);
            const std::size_t F = updater_.feature_dimension();
            if (static_cast<std::size_t>(features_.size()) != F)
                throw config_error(detail::message("Sampler: the belief model's features(b) have ", features_.size(),
                                                   " entries but its feature_dimension() is ", F));
        }
    }

    [[nodiscard]] const Trajectory& trajectory() const noexcept { return traj_; }
    [[nodiscard]] const RolloutOptions& options() const noexcept { return options_; }
    [[nodiscard]] U& updater() noexcept { return updater_; }
    [[nodiscard]] const U& updater() const noexcept { return updater_; }
    /// What the agent has, for Policy::check_dimensions: the updater's belief dimension (and
    /// features), the world's actions (A, or d and the action box, which this sampler holds)
    /// and observations.
    [[nodiscard]] AgentDimensions agent_dimensions() const {
        AgentDimensions d{updater_.dimension(), continuous ? box_.dimension() : std::size_t{0},
                          observation_count(*model_)};
        if constexpr (continuous) d.box = &box_;
        else d.actions = model_->num_actions();
        if constexpr (BeliefFeatures<U>) d.features = updater_.feature_dimension();
        return d;
    }
    /// Whether episodes keep the belief's support and show it to the policy (a
    /// SupportTrackingUpdater that says it pays).
    [[nodiscard]] bool tracks_support() const noexcept { return track_; }

    /// Replaces the belief updater between episodes (e.g. a belief model refitted from new
    /// data). The new one must have the same dimension() (and feature_dimension()) as the
    /// old, so the trajectory record and the policy still fit; config_error otherwise.
    void set_updater(U updater) {
        const std::size_t L = updater.dimension();
        if (L != traj_.belief_dimension)
            throw config_error(detail::message("Sampler::set_updater: the new belief updater's dimension() is ", L,
                                               ", the old one's ", traj_.belief_dimension, "; they must be equal"));
        if constexpr (has_features) {
            if (updater.feature_dimension() != updater_.feature_dimension())
                throw config_error(detail::message(
                    "Sampler::set_updater: the new belief updater's feature_dimension() is ",
                    updater.feature_dimension(), ", the old one's ", updater_.feature_dimension(),
                    "; they must be equal"));
        }
        Eigen::VectorXd prior;
        updater.initial(prior);
        if (static_cast<std::size_t>(prior.size()) != L)
            throw config_error(detail::message("Sampler::set_updater: the belief updater's prior has ", prior.size(),
                                               " entries but its dimension() is ", L));
        updater_ = std::move(updater);
        if constexpr (can_track_support) track_ = updater_support_tracking_pays(updater_);
        prior_entropy_known_ = false;
        prior_sums_known_ = false;
    }
    [[nodiscard]] const M& model() const noexcept { return *model_; }

    /// Runs one episode; `score` (shape of the policy's parameters) is set to
    /// Σ_t ∇_θ log π(a_t | i_t). Returns the recorded trajectory (valid until the next run).
    /// The loop is run_dense, or run_on_support when the updater tracks the support and
    /// says it pays: the same draws and the same bits.
    template <class P, std::uniform_random_bit_generator G>
    const Trajectory& run(P& policy, G& g, Eigen::MatrixXd& score) {
        static_assert(require_policy_for_actions<P, continuous>());
        if constexpr (!policy_fits_actions<P, continuous>) {
            return traj_;  // not compiled further: the message above says what is wrong
        } else {
            if constexpr (can_track_support) {
                if (track_) return run_on_support(policy, g, score);
            }
            return run_dense(policy, g, score);
        }
    }

    /// Whether tracked episodes start from the updater's own prior (PriorStartUpdater and a
    /// policy reading the belief itself; see run_on_support).
    static constexpr bool starts_from_prior = PriorStartUpdater<U> && !BeliefFeatures<U>;

private:
    static constexpr bool can_track_support = SupportTrackingUpdater<U>;
    static constexpr bool has_features = BeliefFeatures<U>;

    /// The loop of one episode (Section 2.1): record s_k, o_k and what the needs ask of b_k;
    /// act a_k ~ π(· | o_k, b_k); draw s_{k+1}, o_{k+1}; update b_{k+1}. Where b_k lives and
    /// how it is updated is `Beliefs`: DenseBeliefs, the reference, or TrackedBeliefs (below
    /// it), the same values with the belief's support kept alongside.
    template <class Beliefs, class P, class G>
    [[gnu::always_inline]] inline const Trajectory& episode(P& policy, G& g, Eigen::MatrixXd& score) {
        const M& m = *model_;
        const RolloutNeeds& need = options_.needs;
        const bool update_beliefs = updates_beliefs<P>();
        const std::size_t K = Trajectory::actions_for(options_.counting, m.horizon());
        start_episode(score);
        Beliefs beliefs{*this};
        beliefs.begin(update_beliefs);  // b_1
        if constexpr (has_features) updater_.features(belief_, features_);
        world_state_t<M> s = draw_initial_state(m, g);
        observation_type o = draw_initial_observation(m, s, g);
        for (std::size_t k = 0;; ++k) {
            traj_.states.push_back(state_bin(m, s));
            if constexpr (indexed_observations<M>) traj_.observations.push_back(o);
            if constexpr (records_extras) record_extras(k, s, o);
            if (need.belief_entropy) traj_.belief_entropy.push_back(beliefs.entropy(k));
            if (need.believed_states) traj_.believed.push_back(beliefs.draw(k, g));
            if (need.beliefs) traj_.beliefs.col(static_cast<Eigen::Index>(k)) = beliefs.belief(k);
            if (k == K) break;

            const AgentView view{k,       view_observation(o), beliefs.belief(k), beliefs.support(k), Beliefs::tracked,
                                 feature_pointer(), observation_point()};
            decltype(auto) a = act(policy, view, g, score, k);  // an index, or action_ (continuous)
            s = draw_next_state(m, s, a, g);
            o = draw_observation(m, a, s, g);
            if (update_beliefs) {
                try {
                    beliefs.update(k, a, o, g);
                } catch (const zero_likelihood_error& e) {
                    rethrow_located(e, a, view_observation(o), k, s);
                }
                if constexpr (has_features) updater_.features(belief_, features_);
            }
        }
        return traj_;
    }

    /// The reference's beliefs: b_k is belief_, dense, from the updater's initial and update.
    struct DenseBeliefs {
        static constexpr bool tracked = false;  // AgentView::support_known
        Sampler& r;

        void begin(bool /*update_beliefs*/) {
            r.updater_.initial(r.belief_);
            r.belief_zero_outside_support_ = false;
        }
        [[nodiscard]] const Eigen::VectorXd& belief(std::size_t) const noexcept { return r.belief_; }
        [[nodiscard]] std::span<const sparse_index> support(std::size_t) const noexcept { return {}; }
        [[nodiscard]] double entropy(std::size_t k) const { return r.belief_entropy(k); }
        template <class G>
        [[nodiscard]] std::size_t draw(std::size_t, G& g) const {
            return sample_categorical(r.belief_, g);
        }
        template <class G>
        void update(std::size_t, action_arg_t<M> a, const observation_type& o, G& g) {
            r.updater_.update(r.belief_, a, o, g);
        }
    };

    /// DenseBeliefs keeping the belief's support (support_) next to it and showing it to the
    /// policy (AgentView::support): O(|support|) per step instead of O(S), the same bits
    /// (SupportTrackingUpdater's contract). With starts_from_prior, an episode that updates
    /// beliefs shows the policy the updater's own prior at the first step and computes b_2
    /// from it (update_from_prior), so nothing of size S is copied per episode: belief_ then
    /// only has to be zero outside support_ (the previous posterior), which update_from_prior
    /// clears.
    struct TrackedBeliefs {
        static constexpr bool tracked = true;
        Sampler& r;
        bool from_prior = false;  // this episode starts from the updater's prior

        void begin(bool update_beliefs) {
            from_prior = starts_from_prior && update_beliefs;
            if (!from_prior) {
                r.updater_.initial(r.belief_, r.support_);
            } else if (!r.belief_zero_outside_support_) {  // start afresh, once
                r.belief_.setZero();
                r.support_.clear();
            }
            r.belief_zero_outside_support_ = true;
        }
        /// b_k and its support: the updater's prior at the first step of an episode started
        /// from it, belief_ and support_ otherwise.
        [[nodiscard]] bool at_prior(std::size_t k) const noexcept { return from_prior && k == 0; }
        [[nodiscard]] const Eigen::VectorXd& belief(std::size_t k) const noexcept {
            return at_prior(k) ? r.prior_of(r.updater_) : r.belief_;
        }
        [[nodiscard]] std::span<const sparse_index> support(std::size_t k) const noexcept {
            return at_prior(k) ? prior_support_of(r.updater_) : std::span<const sparse_index>(r.support_);
        }
        [[nodiscard]] double entropy(std::size_t k) const {
            return at_prior(k) ? r.prior_entropy() : entropy_on_support(support(k), belief(k));
        }
        template <class G>
        [[nodiscard]] std::size_t draw(std::size_t k, G& g) const {
            return at_prior(k) ? r.sample_prior(g) : sample_categorical_on_support(support(k), belief(k), g);
        }
        template <class G>
        void update(std::size_t k, std::size_t a, const observation_type& o, G& g) {
            if constexpr (starts_from_prior) {
                if (at_prior(k)) {
                    r.updater_.update_from_prior(r.belief_, r.support_, a, o, g);
                    return;
                }
            }
            r.updater_.update_on_support(r.belief_, r.support_, a, o, g);
        }
    };

    /// The reference loop.
    template <class P, class G>
    const Trajectory& run_dense(P& policy, G& g, Eigen::MatrixXd& score) {
        return episode<DenseBeliefs>(policy, g, score);
    }
    /// The loop on the belief's support; out of line, so that run_dense stays small enough to
    /// be inlined into run().
    template <class P, class G>
    [[gnu::noinline]] const Trajectory& run_on_support(P& policy, G& g, Eigen::MatrixXd& score) {
        return episode<TrackedBeliefs>(policy, g, score);
    }

    /// Whether beliefs are updated at all: not when neither the policy nor the needs read
    /// them (the policy then sees the prior).
    template <class P>
    [[nodiscard]] bool updates_beliefs() const noexcept {
        const RolloutNeeds& need = options_.needs;
        return policy_needs_belief<P> || need.belief_entropy || need.believed_states || need.beliefs;
    }

    /// a_k ~ π(· | view), recorded; its score added. An index, returned by value; or, for a
    /// continuous-action world, the policy's coordinates checked (finite, inside the world's
    /// box: model_error naming the coordinate, value and step) and turned into action_, which
    /// is returned by reference.
    template <class P, class G>
    [[gnu::always_inline]] inline decltype(auto) act(P& policy, const AgentView& view, G& g, Eigen::MatrixXd& score,
                                                     std::size_t k) {
        if constexpr (continuous) {
            policy.sample(view, g, score, std::span<double>(action_point_));
            if (!box_.contains(std::span<const double>(action_point_))) throw_action_outside(k);
            read_action(std::span<const double>(action_point_), action_);
            traj_.action_points.insert(traj_.action_points.end(), action_point_.begin(), action_point_.end());
            return static_cast<const action_type&>(action_);
        } else {
            const std::size_t a = policy.sample(view, g, score);
            traj_.actions.push_back(a);
            return a;
        }
    }

    [[noreturn]] void throw_action_outside(std::size_t k) const {
        for (std::size_t j = 0; j < action_point_.size(); ++j)
            if (!(action_point_[j] >= box_.lower[j] && action_point_[j] <= box_.upper[j]))
                throw model_error(detail::message("Sampler: the policy's action at step ", k + 1, " has coordinate ",
                                                  j, " = ", action_point_[j], ", outside the world's action box [",
                                                  box_.lower[j], ", ", box_.upper[j], "]"));
        throw model_error("Sampler: the policy's action is outside the world's action box");
    }

    /// Clears the trajectory record and the score.
    void start_episode(Eigen::MatrixXd& score) {
        traj_.states.clear();
        traj_.observations.clear();
        traj_.actions.clear();
        traj_.action_points.clear();
        traj_.belief_entropy.clear();
        traj_.believed.clear();
        traj_.state_points.clear();
        traj_.observation_points.clear();
        score.setZero();
    }

    /// What the rollout records beyond state bins and observation indices: a typed world's
    /// observation bins and points, true states as points.
    static constexpr bool records_extras = !indexed_observations<M> || has_state_points<M>;

    /// The index the policy's view shows: the observation itself, or a typed world's bin (0
    /// when it has none).
    [[nodiscard]] std::size_t view_observation(const observation_type& o) const {
        if constexpr (indexed_observations<M>)
            return o;
        else
            return traj_.observations.empty() ? 0 : traj_.observations.back();
    }

    /// The observation as a point for the policy's view (empty for index observations).
    [[nodiscard]] std::span<const double> observation_point() const noexcept {
        return std::span<const double>(observation_point_);
    }

    /// Records step k's typed observation (its bin and its point) and the true state's point,
    /// each checked: a bin out of range, a point whose dimension changes within an episode or
    /// between episodes, or a non-finite coordinate is a model_error naming it.
    void record_extras(std::size_t k, const world_state_t<M>& s, const observation_type& o) {
        const M& m = *model_;
        if constexpr (!indexed_observations<M>) {
            if (traj_.num_observations != 0) traj_.observations.push_back(observation_bin(m, o));
            if constexpr (has_observation_points<M>) {
                const std::size_t d = observation_point_dimension(m, o);
                if (d == 0)  // before the comparison below, which a first empty point would pass
                    throw model_error(detail::message(
                        "Sampler: the observation at step ", k + 1, " is a point of size 0 (",
                        concept_checks::has_observation_point<M> ? "the world's observation_point_dimension()"
                                                                 : "its point_dimension",
                        " is 0); an observation read as a point needs at least 1 coordinate"));
                if (observation_point_.size() != d) {
                    if (!observation_point_.empty())
                        throw model_error(detail::message("Sampler: the observation at step ", k + 1, " has ", d,
                                                          " coordinates, earlier ones ", observation_point_.size(),
                                                          "; observation vectors must not mix dimensions"));
                    observation_point_.assign(d, 0.0);
                    if (options_.needs.observation_points) {
                        traj_.observation_point_dimension = d;
                        traj_.observation_points.reserve((traj_.states.capacity()) * d);
                    }
                }
                write_observation_point(m, o, std::span<double>(observation_point_));
                check_point(observation_point_, "observation", k);
                if (options_.needs.observation_points)
                    traj_.observation_points.insert(traj_.observation_points.end(), observation_point_.begin(),
                                                    observation_point_.end());
            }
        }
        if constexpr (has_state_points<M>) {
            if (options_.needs.state_points) {
                m.state_point(s, std::span<double>(state_point_));
                check_point(state_point_, "true state", k);
                traj_.state_points.insert(traj_.state_points.end(), state_point_.begin(), state_point_.end());
            }
        }
    }

    static void check_point(const std::vector<double>& x, const char* what, std::size_t k) {
        for (std::size_t j = 0; j < x.size(); ++j)
            if (!std::isfinite(x[j]))
                throw model_error(detail::message("Sampler: coordinate ", j, " of the ", what, "'s point at step ",
                                                  k + 1, " is ", x[j], "; points must be finite"));
    }

    /// The updater's zero_likelihood_error, with the rollout's step and true state added.
    [[noreturn]] void rethrow_located(const zero_likelihood_error& e, action_arg_t<M> a, std::size_t o,
                                      std::size_t k, const world_state_t<M>& s) const {
        std::size_t index = 0;  // a continuous action has none (its coordinates are in the message)
        if constexpr (!continuous) index = a;
        throw zero_likelihood_error(index, o, k + 1,
                                    detail::message(e.what(), " [rollout: update after step ", k + 1,
                                                    ExplicitPomdp<M> ? ", true state index " : ", true state bin ",
                                                    state_bin(*model_, s), "]"));
    }

    /// H(b_k) of belief_ as recorded: the updater's own belief_entropy when it has one
    /// (core/optional_members.hpp), checked finite (numeric_error naming the step), else
    /// the entropy of b.
    [[nodiscard]] double belief_entropy(std::size_t k) const {
        if constexpr (updater_has_belief_entropy<U>) {
            const double h = updater_.belief_entropy(belief_);
            if (!std::isfinite(h))
                throw numeric_error(detail::message("Sampler: the belief updater's belief_entropy at step ", k + 1,
                                                    " is ", h));
            return h;
        } else {
            return entropy_unchecked(belief_);
        }
    }

    /// The updater's prior (starts_from_prior; belief_ otherwise, never asked for then).
    [[nodiscard]] const Eigen::VectorXd& prior_of(const U& u) const noexcept {
        if constexpr (starts_from_prior)
            return u.prior();
        else
            return belief_;
    }
    [[nodiscard]] static std::span<const sparse_index> prior_support_of(const U& u) noexcept {
        if constexpr (starts_from_prior)
            return u.prior_support();
        else
            return {};
    }
    /// H(b_1) of the updater's prior, as entropy_on_support computes it from the prior and its
    /// support (the same value in every episode: computed once per updater).
    double prior_entropy() {
        if (!prior_entropy_known_) {
            prior_entropy_ = entropy_on_support(prior_support_of(updater_), prior_of(updater_));
            prior_entropy_known_ = true;
        }
        return prior_entropy_;
    }
    /// sample_categorical_on_support(prior support, prior, g): the same draw and the same
    /// state, found by a binary search in the running sums of the prior over its support
    /// (kept once per updater: S doubles), not by summing up to it in every episode. The
    /// running sums are those of the linear search (the same additions in the same order)
    /// and never decrease (the entries are >= 0), so the first sum above u is where the
    /// linear search stops; beyond the last sum, its fallback (the last positive entry).
    template <class G>
    std::size_t sample_prior(G& g) {
        const std::span<const sparse_index> support = prior_support_of(updater_);
        const Eigen::VectorXd& p = prior_of(updater_);
        if (!prior_sums_known_) {
            prior_sums_.resize(support.size());
            double cumulative = 0.0;
            for (std::size_t j = 0; j < support.size(); ++j) {
                cumulative += p[support[j]];
                prior_sums_[j] = cumulative;
            }
            prior_sums_known_ = true;
        }
        const double u = uniform01(g);
        const auto j = static_cast<std::size_t>(std::upper_bound(prior_sums_.begin(), prior_sums_.end(), u) -
                                                prior_sums_.begin());
        if (j < support.size()) return static_cast<std::size_t>(support[j]);
        for (std::size_t k = support.size(); k-- > 0;)
            if (p[support[k]] > 0.0) return static_cast<std::size_t>(support[k]);
        throw config_error(detail::message("sample_categorical_on_support: none of the ", support.size(),
                                           " listed entries of the probability vector of size ", p.size(),
                                           " is positive"));
    }

    /// φ(b) for the view: nullptr (the belief itself) unless the updater has features.
    [[nodiscard]] const Eigen::VectorXd* feature_pointer() const noexcept {
        if constexpr (has_features)
            return &features_;
        else
            return nullptr;
    }

    const M* model_;
    U updater_;
    RolloutOptions options_;
    Trajectory traj_;
    Eigen::VectorXd belief_;
    Eigen::VectorXd features_;           // φ(b) (BeliefFeatures only)
    std::vector<sparse_index> support_;  // the belief's support (track_ only; capacity S)
    bool track_ = false;                 // can_track_support and the updater says it pays
    bool belief_zero_outside_support_ = false;  // what update_from_prior needs of belief_
    bool prior_entropy_known_ = false;   // prior_entropy_ is that of the current updater's prior
    double prior_entropy_ = 0.0;
    bool prior_sums_known_ = false;      // prior_sums_ are the running sums of the current prior
    std::vector<double> prior_sums_;     // sample_prior
    std::vector<double> observation_point_;  // the current typed observation as a point (d, once known)
    std::vector<double> state_point_;        // scratch for a true state's point (needs.state_points)
    ActionBox box_;                          // the world's action box (continuous actions only)
    std::vector<double> action_point_;       // the policy's action coordinates (continuous actions only)
    action_type action_{};                   // the current action as the world takes it (continuous only)
};

}  // namespace maxent
