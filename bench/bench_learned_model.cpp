// Benchmark of maxent/belief/learned/em.hpp: EM for input–output HMMs.
//
// Data: episodes of the paper's environment ii, the 6 x 6 four rooms with Gaussian
// observations of precision k = 10 (S = O = 36, A = 4, T = 36: 36 observations and 35
// actions per episode), collected with a uniform random policy (the belief-averaged policy at
// θ = 0) through the library's Sampler, episode n from stream(2024, 0, n).
//
//   * BM_em_iteration/L/sequences/threads: the time of one EM iteration (an E step over all
//     sequences plus the M step) with L latent states, and the same time divided by
//     (observation steps x L²): the E step is O(steps · L²), so that ratio should stay flat in
//     L and in the number of sequences. Each benchmark iteration runs fit_iohmm with one
//     restart, max_iterations = 4 and tolerance 0: 5 E steps and 4 M steps, counted as 5
//     EM iterations (the M step costs O(A L² + L O), nothing next to the E step).
//   * BM_fit_four_rooms: the whole fit of L = 36 from 1000 episodes on 2 threads with the
//     default options (3 restarts, at most 200 iterations, tolerance 1e-6, α = 1e-3); target:
//     under 30 s. Reports the iterations run and the log-likelihood per observation of the
//     training episodes and of 200 held-out episodes, under the learned and the true model.
//   * BM_cloned_em_iteration/clones/sequences: one EM iteration of fit_cloned_hmm on the
//     paper's environment iii (6 x 6 four rooms, 4 room-id observations, A = 4, T = 36),
//     `clones` clones per observation (L = 4 clones), and that time divided by (observation
//     steps x clones²): the cloned E step touches only the clones of consecutive observations,
//     so the ratio should stay flat in clones (an L² cost would grow it 16-fold from 9 to 36).
//   * BM_fit_cloned_room_id: the whole cloned-HMM fit of environment iii (9 clones per room,
//     L = 36) from 1000 episodes on 2 threads, the defaults otherwise; target: under 30 s.
//     Reports the iterations and the held-out log-likelihood per observation (truth: 0).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <span>
#include <vector>

#include "common.hpp"
#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned_model.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

const maxent::GridPomdp& world() {
    static const maxent::GridPomdp w = maxent::four_rooms(6, 6, 0.0, maxent::observe::gaussian(10.0));
    return w;
}

const maxent::GridPomdp& room_id_world() {
    static const maxent::GridPomdp w = maxent::four_rooms(6, 6, 0.0, maxent::observe::room_id());
    return w;
}

/// Episodes [first, first + count) of the uniform random policy on the world.
std::vector<maxent::ActionObservationSequence> episodes(std::size_t first, std::size_t count,
                                                        const maxent::GridPomdp& w = world()) {
    maxent::Sampler<maxent::GridPomdp, maxent::BayesFilter<maxent::GridPomdp>> sampler(w, maxent::BayesFilter(w));
    maxent::BeliefAveragedPolicy uniform(w.num_states(), w.num_actions());  // θ = 0
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(uniform.parameters().rows(), uniform.parameters().cols());
    std::vector<maxent::ActionObservationSequence> out;
    out.reserve(count);
    for (std::size_t n = first; n < first + count; ++n) {
        maxent::DefaultRng g = maxent::stream(2024, 0, n);
        out.push_back(maxent::to_sequence(sampler.run(uniform, g, score)));
    }
    return out;
}

const std::vector<maxent::ActionObservationSequence>& training() {
    static const auto data = episodes(0, 1000);
    return data;
}
const std::vector<maxent::ActionObservationSequence>& heldout() {
    static const auto data = episodes(1000, 200);
    return data;
}

std::size_t steps_of(std::span<const maxent::ActionObservationSequence> data) {
    std::size_t steps = 0;
    for (const auto& s : data) steps += s.observations.size();
    return steps;
}

/// The world's own dynamics as an IOHMM over its 36 cells (for the reference log-likelihoods).
maxent::IohmmModel true_model() {
    const maxent::GridPomdp& w = world();
    maxent::IohmmModel m;
    m.emission_model = maxent::EmissionModel::shared;
    m.initial = w.initial_distribution();
    for (std::size_t a = 0; a < w.num_actions(); ++a) m.transitions.emplace_back(w.transition_matrix(a));
    m.emissions.emplace_back(w.observation_matrix(0));
    m.initial_emission = m.emissions[0];
    return m;
}

void BM_em_iteration(benchmark::State& state) {
    const auto L = static_cast<std::size_t>(state.range(0));
    const auto sequences = static_cast<std::size_t>(state.range(1));
    const auto threads = static_cast<std::size_t>(state.range(2));
    const std::span<const maxent::ActionObservationSequence> data(training().data(), sequences);
    maxent::IohmmOptions o;
    o.latent_states = L;
    o.num_actions = 4;
    o.num_observations = 36;
    o.restarts = 1;
    o.max_iterations = 4;
    o.tolerance = 0.0;
    o.threads = threads;
    for (auto _ : state) {
        auto fit = maxent::fit_iohmm(data, o);
        benchmark::DoNotOptimize(fit.model.initial.data());
    }
    const double passes = 5.0 * static_cast<double>(state.iterations());
    const double steps = static_cast<double>(steps_of(data));
    state.counters["time_per_em_iteration"] =
        benchmark::Counter(passes, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["time_per_step_L2"] = benchmark::Counter(
        passes * steps * static_cast<double>(L * L), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["steps"] = steps;
}
BENCHMARK(BM_em_iteration)
    ->ArgNames({"L", "sequences", "threads"})
    ->Args({4, 1000, 1})
    ->Args({8, 1000, 1})
    ->Args({16, 1000, 1})
    ->Args({36, 250, 1})
    ->Args({36, 1000, 1})
    ->Args({36, 1000, 2})
    ->Args({64, 1000, 1})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_fit_four_rooms(benchmark::State& state) {
    const auto& data = training();
    const auto& test = heldout();
    maxent::IohmmOptions o;
    o.latent_states = 36;
    o.num_actions = 4;
    o.num_observations = 36;
    o.threads = 2;
    maxent::IohmmFit fit;
    for (auto _ : state) {
        fit = maxent::fit_iohmm(data, o, test);
        benchmark::DoNotOptimize(fit.model.initial.data());
    }
    const double n_train = static_cast<double>(steps_of(data)), n_test = static_cast<double>(steps_of(test));
    const maxent::IohmmModel truth = true_model();
    state.counters["em_iterations"] = static_cast<double>(fit.iterations);
    state.counters["restart"] = static_cast<double>(fit.restart);
    state.counters["converged"] = fit.converged ? 1.0 : 0.0;
    state.counters["train_ll_per_obs"] = fit.final_log_likelihood() / n_train;
    state.counters["true_train_ll_per_obs"] = maxent::iohmm_log_likelihood(truth, data) / n_train;
    state.counters["heldout_ll_per_obs"] = fit.heldout_log_likelihood.back() / n_test;
    state.counters["true_heldout_ll_per_obs"] = maxent::iohmm_log_likelihood(truth, test) / n_test;
    std::size_t passes = 0;  // E steps over all restarts
    for (const std::size_t n : fit.restart_iterations) passes += n + 1;
    state.counters["e_steps_all_restarts"] = static_cast<double>(passes);
    state.counters["restarts"] = static_cast<double>(fit.restart_iterations.size());
}
BENCHMARK(BM_fit_four_rooms)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

const std::vector<maxent::ActionObservationSequence>& room_id_training() {
    static const auto data = episodes(0, 1000, room_id_world());
    return data;
}
const std::vector<maxent::ActionObservationSequence>& room_id_heldout() {
    static const auto data = episodes(1000, 200, room_id_world());
    return data;
}

void BM_cloned_em_iteration(benchmark::State& state) {
    const auto clones = static_cast<std::size_t>(state.range(0));
    const auto sequences = static_cast<std::size_t>(state.range(1));
    const std::span<const maxent::ActionObservationSequence> data(room_id_training().data(), sequences);
    maxent::IohmmOptions o;
    o.latent_states = 4 * clones;
    o.num_actions = 4;
    o.num_observations = 4;
    o.restarts = 1;
    o.max_iterations = 4;
    o.tolerance = 0.0;
    for (auto _ : state) {
        auto fit = maxent::fit_cloned_hmm(data, o);
        benchmark::DoNotOptimize(fit.model.initial.data());
    }
    const double passes = 5.0 * static_cast<double>(state.iterations());
    const double steps = static_cast<double>(steps_of(data));
    state.counters["time_per_em_iteration"] =
        benchmark::Counter(passes, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["time_per_step_clones2"] = benchmark::Counter(
        passes * steps * static_cast<double>(clones * clones), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
    state.counters["L"] = static_cast<double>(o.latent_states);
}
BENCHMARK(BM_cloned_em_iteration)
    ->ArgNames({"clones", "sequences"})
    ->Args({2, 1000})
    ->Args({4, 1000})
    ->Args({9, 250})
    ->Args({9, 1000})
    ->Args({18, 1000})
    ->Args({36, 1000})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

void BM_fit_cloned_room_id(benchmark::State& state) {
    const auto& data = room_id_training();
    const auto& test = room_id_heldout();
    maxent::IohmmOptions o;
    o.latent_states = 36;
    o.num_actions = 4;
    o.num_observations = 4;
    o.threads = 2;
    maxent::IohmmFit fit;
    for (auto _ : state) {
        fit = maxent::fit_cloned_hmm(data, o, {}, test);
        benchmark::DoNotOptimize(fit.model.initial.data());
    }
    state.counters["em_iterations"] = static_cast<double>(fit.iterations);
    state.counters["converged"] = fit.converged ? 1.0 : 0.0;
    state.counters["heldout_ll_per_obs"] = fit.heldout_log_likelihood.back() / static_cast<double>(steps_of(test));
    std::size_t passes = 0;
    for (const std::size_t n : fit.restart_iterations) passes += n + 1;
    state.counters["e_steps_all_restarts"] = static_cast<double>(passes);
}
BENCHMARK(BM_fit_cloned_room_id)->Iterations(1)->Unit(benchmark::kSecond)->UseRealTime();

}  // namespace
