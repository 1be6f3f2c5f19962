// maxent/optim/evaluate.hpp — how good is a fixed policy? Roll it out on private streams and
// count what the feedbacks count.
//
//   rollout_fixed_policy(model, updater, policy, options, seed, run, first, end, sink)
//     episodes [first, end) of `policy` with `updater` (copied, θ fixed), episode e drawing
//     from stream(seed, run, e); sink(e, trajectory, g) sees each finished one.
//   visit_counts(model, updater, policy, counting, seed, run, episodes)
//     -> per state bin, its counted steps, and the episodes' mean H(d(τ_S)).
//   evaluate(model, updater, policy, EvaluateOptions{.episodes, .seed, .threads, .counting, .knn})
//     -> mean and 95% Student-t interval of H(d(τ_S)), MOE's H(d(τ_O)), MBE's H(d(τ_S̃)) and
//        Σ_t H(b_t); evaluate_uniform the same for the uniform policy (bit for bit a softmax
//        policy at θ = 0; UniformBoxPolicy for a world with continuous actions). The
//        positional form (episodes, seed[, threads, counting, knn]) is the same call. Typed observations: MOE binned when the world bins them, else the kNN
//        entropy of the raw points, else not computed; worlds with state points also get a kNN
//        true-state entropy. Repeated points are counted by the estimator's scale rule unless
//        KnnCounting::min_distance says otherwise; Evaluation names each estimator, the kNN
//        rule, the resolutions applied and how many points lay below them.
//   windowed_means(history, window[, field]) -> a history in windows with mean and 95% interval.
//
// Episode n draws from stream(seed, evaluation_stream_run, n), disjoint from the trainer's
// streams; episodes run on `threads` threads and combine in order of n (identical results for
// any thread count). config_error: fewer than 2 episodes, a window or history below 2, and
// whatever the Sampler throws.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <span>
#include <string_view>
#include <type_traits>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/knn_entropy.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/draws.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/uniform.hpp"
#include "maxent/policy/uniform_box.hpp"

namespace maxent {

/// The `run` of the evaluation streams: episode n draws from stream(seed, evaluation_stream_run, n).
inline constexpr std::uint64_t evaluation_stream_run = 0x6576616c75617465ULL;  // "evaluate"

/// How evaluate counts what has no bins: the kNN estimator's k (0: no kNN quantity) and
/// distance floor (KnnEntropy's min_distance: unset = the scale rule, 0 = refuse ties, > 0 =
/// that resolution), and whether true states are also counted as points when the world has
/// them (a run-time opt-out for worlds whose point map may be absent).
struct KnnCounting {
    std::size_t k = 4;
    std::optional<double> min_distance = std::nullopt;
    bool state_points = true;
};

/// evaluate's settings in one struct, for designated initialisers:
/// evaluate(model, updater, policy, {.episodes = 500, .seed = 3, .knn = {.k = 2}}).
struct EvaluateOptions {
    std::size_t episodes = 1000;                     ///< at least 2 (an interval needs two)
    std::uint64_t seed = 0;                          ///< episode n draws from stream(seed, evaluation_stream_run, n)
    std::size_t threads = 1;                         ///< 0: all hardware threads; results do not depend on it
    StateCounting counting = StateCounting::paper;  ///< the steps counted (as training counts them)
    KnnCounting knn{};                              ///< the kNN quantities of worlds with points
};

/// What evaluate returns: per quantity, the mean over the episodes and its 95% interval
/// (n = 0 and estimator "none": not computed for this world).
struct Evaluation {
    std::size_t episodes = 0;
    MeanInterval true_entropy;         ///< H(d(τ_S)), binned
    MeanInterval observation_entropy;  ///< H(d(τ_O)): binned, or kNN over the raw observations (nats)
    MeanInterval believed_entropy;     ///< H(d(τ_S̃)), s̃_t ~ b_t
    MeanInterval belief_entropy_sum;   ///< Σ_t H(b_t)
    MeanInterval true_entropy_knn;     ///< kNN entropy of the true states' points (nats)
    std::string_view observation_entropy_estimator = "binned";  ///< "binned", "knn" or "none"
    std::string_view true_entropy_knn_estimator = "none";       ///< "knn" or "none"
    std::size_t knn_k = 0;             ///< k of the kNN quantities (0: none computed)
    /// How the kNN quantities floored their distances (KnnEntropy::rule): "scale" (10^-12 of
    /// each point set's bounding-box diagonal), "min_distance" (KnnCounting's), "refuse"
    /// (min_distance = 0) or "none" (no kNN quantity).
    std::string_view knn_rule = "none";
    double knn_resolution_low = 0.0;   ///< the smallest resolution δ applied (over episodes and quantities)
    double knn_resolution_high = 0.0;  ///< the largest
    std::size_t knn_floored = 0;       ///< points whose k-th neighbour lay closer than δ, counted at δ (all episodes)
};

/// Rolls out `policy` (copied) with `updater` (copied) on `model` for episodes e in
/// [first, end), episode e drawing from stream(seed, run, e), and calls sink(e, t, g) with each
/// finished trajectory t and its generator g. The episodes run in order on this thread.
template <class M, class U, class P, class Sink>
void rollout_fixed_policy(const M& model, const U& updater, const P& policy, const RolloutOptions& options,
                          std::uint64_t seed, std::uint64_t run, std::size_t first, std::size_t end, Sink&& sink) {
    static_assert(require_environment<M>());
    static_assert(require_belief_updater<U>());
    static_assert(require_policy_for_actions<P, continuous_actions<M>>());
    Sampler<M, U> sampler(model, updater, options);
    P local = policy;
    // A continuous policy must fit the world's actions: their dimension and, for a policy built
    // for a box (GaussianPolicy), the box itself (config_error before any episode).
    if constexpr (continuous_actions<M>) local.check_dimensions(sampler.agent_dimensions());
    Eigen::MatrixXd score;  // stays 0 x 0 for a policy without parameters
    if constexpr (requires { local.parameters(); })
        score.setZero(local.parameters().rows(), local.parameters().cols());
    for (std::size_t e = first; e < end; ++e) {
        DefaultRng g = stream(seed, run, e);
        const Trajectory& t = sampler.run(local, g, score);
        sink(e, t, g);
    }
}

/// Where a fixed policy takes the true state: per state bin, its counted steps.
struct VisitCounts {
    std::size_t episodes = 0;             ///< E; 0 = not counted
    std::vector<std::uint64_t> counts{};  ///< per state bin: its counted steps over the E episodes
    double mean_entropy = 0.0;            ///< mean over the E episodes of H(d(τ_S))

    friend bool operator==(const VisitCounts&, const VisitCounts&) = default;
};

/// The state bins visited by `episodes` episodes of `policy` with `updater` on `model`,
/// counted as `counting` says (the steps MSE counts), episode e drawn from stream(seed, run, e);
/// also their mean true-state entropy. A pure function of its arguments.
template <class M, class U, class P>
[[nodiscard]] VisitCounts visit_counts(const M& model, const U& updater, const P& policy, StateCounting counting,
                                       std::uint64_t seed, std::uint64_t run, std::size_t episodes) {
    static_assert(require_environment<M>());
    static_assert(require_belief_updater<U>());
    static_assert(require_policy_for_actions<P, continuous_actions<M>>());
    VisitCounts v;
    v.episodes = episodes;
    v.counts.assign(state_bins(model), 0);
    if (episodes == 0) return v;
    EmpiricalCounter counter(state_bins(model));
    double entropy = 0.0;
    rollout_fixed_policy(model, updater, policy, RolloutOptions{counting, {}}, seed, run, 0, episodes,
                         [&](std::size_t, const Trajectory& t, DefaultRng&) {
                             for (const std::size_t s : t.counted_states()) ++v.counts[s];
                             entropy += true_state_entropy(t, counter);
                         });
    v.mean_entropy = entropy / static_cast<double>(episodes);
    return v;
}

/// The policy's mean true-state entropy and other feedbacks over options.episodes episodes,
/// with 95% intervals (see the header). The updater and policy are copied per thread.
template <class M, class U, class P>
[[nodiscard]] Evaluation evaluate(const M& model, const U& updater, const P& policy, const EvaluateOptions& options) {
    static_assert(require_environment<M>());
    static_assert(require_belief_updater<U>());
    static_assert(require_policy_for_actions<P, continuous_actions<M>>());
    const std::size_t episodes = options.episodes;
    const KnnCounting& knn = options.knn;
    if (episodes < 2)
        throw config_error(detail::message("evaluate: ", episodes, " episodes; an interval needs at least 2"));
    // What this world can count: binned MOE needs observation indices or bins; the kNN
    // quantities need points (compiled only for worlds that have them).
    const bool moe_binned = observation_count(model) > 0;
    bool moe_knn = false, mse_knn = false;
    if constexpr (has_observation_points<M>) moe_knn = !moe_binned && knn.k > 0;
    if constexpr (has_state_points<M>) mse_knn = knn.state_points && knn.k > 0;
    std::string_view knn_rule = "none";
    if (moe_knn || mse_knn)  // config_error for bad settings, before any episode
        knn_rule = KnnEntropy(knn.k, knn.min_distance).rule();
    constexpr std::size_t quantities = 5;
    const std::size_t threads = options.threads;
    const std::size_t workers = std::min(episodes, threads == 0 ? hardware_threads() : threads);
    RolloutOptions rollout{options.counting, {.belief_entropy = true, .believed_states = true}};
    rollout.needs.state_points = mse_knn;
    rollout.needs.observation_points = moe_knn;
    // What one job returns: its episodes' values, quantity-major per episode, and what the
    // kNN estimator floored (min, max and sum: the same for any split of the episodes).
    struct Block {
        std::vector<double> values;
        double resolution_low = std::numeric_limits<double>::infinity();
        double resolution_high = 0.0;
        std::size_t floored = 0;
    };
    // Job w runs episodes [w E / W, (w + 1) E / W).
    const std::vector<Block> blocks = run_parallel(workers, workers, [&](std::size_t w) {
        EmpiricalCounter counter(state_bins(model));
        const ObservationEntropy moe;
        const BelievedStateEntropy mbe;
        // The kNN estimator (its workspace) exists only for worlds with points.
        constexpr bool points = has_observation_points<M> || has_state_points<M>;
        [[maybe_unused]] std::conditional_t<points, KnnEntropy, int> knn_estimator = [&] {
            if constexpr (points) return KnnEntropy(std::max<std::size_t>(knn.k, 1), knn.min_distance);
            else return 0;
        }();
        const std::size_t begin = w * episodes / workers;
        const std::size_t end = (w + 1) * episodes / workers;
        Block block;
        std::vector<double>& values = block.values;
        values.reserve((end - begin) * quantities);
        [[maybe_unused]] auto count_knn = [&](std::span<const double> points_of_t, std::size_t dim) {
            if constexpr (points) {
                double h = 0.0;
                try {
                    h = knn_estimator(points_of_t, dim);
                } catch (const numeric_error& e) {  // ties under "refuse", or overflow: say which settings count them
                    throw numeric_error(detail::message(
                        e.what(), " [evaluate: KnnCounting::min_distance unset counts ties by the scale rule, > 0 "
                                  "at that resolution; KnnCounting::k = 0 computes no kNN quantity]"));
                }
                block.resolution_low = std::min(block.resolution_low, knn_estimator.resolution());
                block.resolution_high = std::max(block.resolution_high, knn_estimator.resolution());
                block.floored += knn_estimator.floored();
                return h;
            } else {
                return 0.0;
            }
        };
        rollout_fixed_policy(model, updater, policy, rollout, options.seed, evaluation_stream_run, begin, end,
                             [&](std::size_t, const Trajectory& t, DefaultRng& g) {
                                 values.push_back(true_state_entropy(t, counter));
                                 double h_obs = 0.0, h_knn = 0.0;
                                 if (moe_binned) h_obs = moe(t, g);
                                 if (moe_knn)
                                     h_obs = count_knn(t.counted_observation_points(), t.observation_point_dimension);
                                 if (mse_knn) h_knn = count_knn(t.counted_state_points(), t.state_point_dimension);
                                 values.push_back(h_obs);
                                 values.push_back(mbe(t, g));
                                 values.push_back(belief_entropy_sum(t));
                                 values.push_back(h_knn);
                             });
        return block;
    });
    std::vector<double> per_quantity[quantities];
    for (auto& v : per_quantity) v.reserve(episodes);
    Evaluation out;
    double resolution_low = std::numeric_limits<double>::infinity();
    for (const Block& block : blocks) {
        for (std::size_t i = 0; i < block.values.size(); ++i) per_quantity[i % quantities].push_back(block.values[i]);
        resolution_low = std::min(resolution_low, block.resolution_low);
        out.knn_resolution_high = std::max(out.knn_resolution_high, block.resolution_high);
        out.knn_floored += block.floored;
    }
    out.episodes = episodes;
    out.true_entropy = mean_interval(per_quantity[0]);
    if (moe_binned || moe_knn) out.observation_entropy = mean_interval(per_quantity[1]);
    out.observation_entropy_estimator = moe_binned ? "binned" : (moe_knn ? "knn" : "none");
    out.believed_entropy = mean_interval(per_quantity[2]);
    out.belief_entropy_sum = mean_interval(per_quantity[3]);
    if (mse_knn) {
        out.true_entropy_knn = mean_interval(per_quantity[4]);
        out.true_entropy_knn_estimator = "knn";
    }
    if (moe_knn || mse_knn) {
        out.knn_k = knn.k;
        out.knn_rule = knn_rule;
        out.knn_resolution_low = resolution_low;
    }
    return out;
}

/// The same call with its settings as arguments (threads, counting and knn defaulted).
template <class M, class U, class P>
[[nodiscard]] Evaluation evaluate(const M& model, const U& updater, const P& policy, std::size_t episodes,
                                  std::uint64_t seed, std::size_t threads = 1,
                                  StateCounting counting = StateCounting::paper, const KnnCounting& knn = {}) {
    return evaluate(model, updater, policy,
                    EvaluateOptions{.episodes = episodes, .seed = seed, .threads = threads, .counting = counting,
                                    .knn = knn});
}

/// evaluate() of the uniformly random policy on the same episodes' streams: the baseline.
template <class M, class U>
[[nodiscard]] Evaluation evaluate_uniform(const M& model, const U& updater, const EvaluateOptions& options) {
    static_assert(require_environment<M>());
    if constexpr (continuous_actions<M>)
        return evaluate(model, updater, UniformBoxPolicy(action_box(model)), options);
    else
        return evaluate(model, updater, UniformPolicy(model.num_actions()), options);
}

/// The same with its settings as arguments.
template <class M, class U>
[[nodiscard]] Evaluation evaluate_uniform(const M& model, const U& updater, std::size_t episodes, std::uint64_t seed,
                                          std::size_t threads = 1, StateCounting counting = StateCounting::paper,
                                          const KnnCounting& knn = {}) {
    return evaluate_uniform(model, updater,
                            EvaluateOptions{.episodes = episodes, .seed = seed, .threads = threads,
                                            .counting = counting, .knn = knn});
}

/// One window of a training history: iterations [first, first + count).
struct HistoryWindow {
    std::size_t first = 0;
    std::size_t count = 0;
    MeanInterval value;  ///< mean of the metric over the window's iterations, 95% interval
};

/// The history cut into consecutive windows of `window` iterations (the last one takes the
/// remainder, or joins the one before when only 1 iteration would be left), each with the
/// mean of `field` and its 95% interval. Throws config_error for window < 2 or a history
/// of fewer than 2 iterations.
[[nodiscard]] inline std::vector<HistoryWindow> windowed_means(std::span<const IterationMetrics> history,
                                                              std::size_t window,
                                                              double IterationMetrics::*field =
                                                                  &IterationMetrics::true_entropy) {
    if (window < 2) throw config_error(detail::message("windowed_means: window ", window, " must be >= 2"));
    if (history.size() < 2)
        throw config_error(detail::message("windowed_means: ", history.size(),
                                           " iterations in the history; a window needs at least 2"));
    std::vector<HistoryWindow> out;
    std::vector<double> values;
    values.reserve(window + 1);
    for (std::size_t first = 0; first < history.size();) {
        std::size_t count = std::min(window, history.size() - first);
        if (history.size() - first - count == 1) ++count;  // no window of 1
        values.clear();
        for (std::size_t k = first; k < first + count; ++k) values.push_back(history[k].*field);
        out.push_back({first, count, mean_interval(values)});
        first += count;
    }
    return out;
}

}  // namespace maxent
