// maxent/optim/evaluate.hpp — how good is a policy? One call runs it for a number of
// episodes and returns the mean and a 95% interval of every quantity the paper reports.
//
//   evaluate(model, updater, policy, episodes, seed[, threads, counting])
//     -> for the episodes' trajectories (Section 2.1, counted as `counting` says):
//        true_entropy         H(d(τ_S)), the true-state entropy (MSE's feedback; the
//                             figures' y axis)
//        observation_entropy  H(d(τ_O)) (MOE)
//        believed_entropy     H(d(τ_S̃)) with one believed state s̃_t ~ b_t per counted step (MBE)
//        belief_entropy_sum   Σ_t H(b_t) (Reg-MBE's regulariser)
//   evaluate_uniform(model, updater, episodes, seed[, threads, counting])
//     -> the same for the uniformly random policy (policy/uniform.hpp) on the same
//        episodes' streams: the ready baseline. It equals evaluating any softmax policy at
//        θ = 0, bit for bit.
//   windowed_means(history, window[, field])
//     -> a training history (TrainResult::history) cut into consecutive windows of
//        `window` iterations, each with the mean of a metric (true_entropy by default) and
//        its 95% interval over the window's iterations. Those are batch means of one run
//        whose θ changes, so the interval describes the spread within the window, not the
//        uncertainty across seeds (for that, run seeds and use core/statistics.hpp).
//
// Intervals are Student-t: mean ± t_{0.975, n-1} s / sqrt(n) (core/statistics.hpp). Episode
// n draws only from stream(seed, evaluation_stream_run, n) (core/random.hpp): disjoint from
// the trainer's streams (seed, k, n) for any iteration a run would reach, so a policy may be
// evaluated with its training seed. Episodes run in parallel on `threads` threads (0 = all),
// each thread with its own copies of the updater and policy, and the values are combined in
// order of n: results are identical for any thread count.
//
// Errors (config_error): fewer than 2 episodes or a window below 2 or a history shorter
// than 2 (an interval needs a spread), and whatever the Sampler throws for a policy or
// updater that does not fit the world.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/concepts.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/statistics.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/uniform.hpp"

namespace maxent {

/// The `run` of the evaluation streams: episode n draws from stream(seed, evaluation_stream_run, n).
inline constexpr std::uint64_t evaluation_stream_run = 0x6576616c75617465ULL;  // "evaluate"

/// What evaluate returns: per quantity, the mean over the episodes and its 95% interval.
struct Evaluation {
    std::size_t episodes = 0;
    MeanInterval true_entropy;         ///< H(d(τ_S))
    MeanInterval observation_entropy;  ///< H(d(τ_O))
    MeanInterval believed_entropy;     ///< H(d(τ_S̃)), s̃_t ~ b_t
    MeanInterval belief_entropy_sum;   ///< Σ_t H(b_t)
};

/// The policy's mean true-state entropy and other feedbacks over `episodes` episodes, with
/// 95% intervals (see the header). The updater and policy are copied per thread.
template <class M, class U, class P>
[[nodiscard]] Evaluation evaluate(const M& model, const U& updater, const P& policy, std::size_t episodes,
                                  std::uint64_t seed, std::size_t threads = 1,
                                  StateCounting counting = StateCounting::paper) {
    static_assert(require_environment<M>());
    static_assert(require_belief_updater<U>());
    static_assert(require_policy<P>());
    if (episodes < 2)
        throw config_error(detail::message("evaluate: ", episodes, " episodes; an interval needs at least 2"));
    constexpr std::size_t quantities = 4;
    const std::size_t workers = std::min(episodes, threads == 0 ? hardware_threads() : threads);
    const RolloutOptions options{counting, {.belief_entropy = true, .believed_states = true}};
    // Job w runs episodes [w E / W, (w + 1) E / W) and returns their values, quantity-major per episode.
    const std::vector<std::vector<double>> blocks = run_parallel(workers, workers, [&](std::size_t w) {
        Sampler<M, U> sampler(model, updater, options);
        P local = policy;
        Eigen::MatrixXd score;  // stays empty unless the policy has parameters
        if constexpr (requires { local.parameters(); })
            score.setZero(local.parameters().rows(), local.parameters().cols());
        EmpiricalCounter counter(state_bins(model));
        const ObservationEntropy moe;
        const BelievedStateEntropy mbe;
        const std::size_t begin = w * episodes / workers;
        const std::size_t end = (w + 1) * episodes / workers;
        std::vector<double> values;
        values.reserve((end - begin) * quantities);
        for (std::size_t n = begin; n < end; ++n) {
            DefaultRng g = stream(seed, evaluation_stream_run, n);
            const Trajectory& t = sampler.run(local, g, score);
            values.push_back(true_state_entropy(t, counter));
            values.push_back(moe(t, g));
            values.push_back(mbe(t, g));
            values.push_back(belief_entropy_sum(t));
        }
        return values;
    });
    std::vector<double> per_quantity[quantities];
    for (auto& v : per_quantity) v.reserve(episodes);
    for (const std::vector<double>& block : blocks)
        for (std::size_t i = 0; i < block.size(); ++i) per_quantity[i % quantities].push_back(block[i]);
    Evaluation out;
    out.episodes = episodes;
    out.true_entropy = mean_interval(per_quantity[0]);
    out.observation_entropy = mean_interval(per_quantity[1]);
    out.believed_entropy = mean_interval(per_quantity[2]);
    out.belief_entropy_sum = mean_interval(per_quantity[3]);
    return out;
}

/// evaluate() of the uniformly random policy on the same episodes' streams: the baseline.
template <class M, class U>
[[nodiscard]] Evaluation evaluate_uniform(const M& model, const U& updater, std::size_t episodes, std::uint64_t seed,
                                          std::size_t threads = 1, StateCounting counting = StateCounting::paper) {
    static_assert(require_environment<M>());
    return evaluate(model, updater, UniformPolicy(model.num_actions()), episodes, seed, threads, counting);
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
