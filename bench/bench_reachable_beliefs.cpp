// bench/bench_reachable_beliefs.cpp — reachable-belief enumeration (Algorithm 2) and the
// per-iteration cost of training the belief-state class B with a large table.
//
// Run each benchmark in its own process for a meaningful peak-memory counter
// (peak_rss_MiB is the process's high-water mark, VmHWM), e.g.
//   build/bench/maxent_bench_reachable_beliefs --benchmark_filter='Enumerate_room4x4_1e6/'
// Counters: beliefs, bytes of the index (MiB), peak RSS (MiB), new beliefs per depth (d0, d1,
// ...), complete (1) or stopped by the budget (0).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/reachable_beliefs.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

namespace {

using namespace maxent;

/// The process's peak resident set (VmHWM) in MiB, or -1.
double peak_rss_mib() {
    std::FILE* f = std::fopen("/proc/self/status", "r");
    if (f == nullptr) return -1.0;
    char line[256];
    double kib = -1.0;
    while (std::fgets(line, sizeof line, f) != nullptr)
        if (std::strncmp(line, "VmHWM:", 6) == 0) kib = std::strtod(line + 6, nullptr);
    std::fclose(f);
    return kib < 0 ? -1.0 : kib / 1024.0;
}

GridPomdp fig5_room(std::size_t n) { return single_room(n, n, 0.0, observe::gaussian_variance(0.2)); }

constexpr std::size_t GiB = std::size_t{1} << 30;

/// Enumerates the n x n room of Figure 5 to `depth` updates under the budgets.
void enumerate(benchmark::State& state, std::size_t n, std::size_t depth, std::size_t max_beliefs,
               std::size_t max_bytes) {
    const GridPomdp m = fig5_room(n);
    ReachableOptions o;
    o.max_depth = depth;
    o.max_beliefs = max_beliefs;
    o.max_bytes = max_bytes;
    o.stop_at_budget = true;
    ReachableBeliefs last{BeliefIndex(1), {}, {}, 0, 0, true, {}};
    for (auto _ : state) {
        ReachableBeliefs r = reachable_beliefs(m, o);
        benchmark::DoNotOptimize(r.size());
        last = std::move(r);
    }
    state.counters["beliefs"] = static_cast<double>(last.size());
    state.counters["index_MiB"] = static_cast<double>(last.beliefs.bytes()) / (1024.0 * 1024.0);
    state.counters["bytes_per_belief"] =
        last.size() ? static_cast<double>(last.beliefs.bytes()) / static_cast<double>(last.size()) : 0.0;
    state.counters["peak_rss_MiB"] = peak_rss_mib();
    state.counters["complete"] = last.complete ? 1.0 : 0.0;
    state.counters["depth_reached"] = static_cast<double>(last.depth_reached());
    for (std::size_t d = 0; d < last.new_per_depth.size(); ++d) {
        std::string key(1, 'd');  // appended, not "d" + ...: that form draws a false -Wrestrict
        key.append(std::to_string(d));
        state.counters[key] = static_cast<double>(last.new_per_depth[d]);
    }
}

// Figure 5 at its horizon (T = S, paper counting: beliefs b_1..b_{T-1}, depth T - 2; authors'
// counting: depth T - 1), under a budget of 10^7 beliefs and 2 GiB: complete for 3 x 3, the
// growth per depth until the budget stops it for 4 x 4.
void Enumerate_room3x3_fig5(benchmark::State& s) {
    enumerate(s, 3, policy_belief_depth(StateCounting::paper, 9), 10'000'000, 2 * GiB);
}
void Enumerate_room3x3_fig5_authors(benchmark::State& s) {
    enumerate(s, 3, policy_belief_depth(StateCounting::authors, 9), 10'000'000, 2 * GiB);
}
void Enumerate_room4x4_fig5(benchmark::State& s) {
    enumerate(s, 4, policy_belief_depth(StateCounting::paper, 16), 10'000'000, 2 * GiB);
}
// >= 10^6 distinct beliefs: the first 10^6 beliefs of the 4 x 4 room (budget of beliefs).
void Enumerate_room4x4_1e6(benchmark::State& s) {
    enumerate(s, 4, policy_belief_depth(StateCounting::paper, 16), 1'000'000, 2 * GiB);
}

BENCHMARK(Enumerate_room4x4_1e6)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(Enumerate_room3x3_fig5)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(Enumerate_room3x3_fig5_authors)->Iterations(1)->Unit(benchmark::kMillisecond);
BENCHMARK(Enumerate_room4x4_fig5)->Iterations(1)->Unit(benchmark::kMillisecond);

/// TabularBeliefPolicy without sample_rows: forces the trainer's dense path (one score
/// matrix of the table's shape per trajectory), to measure what the row-sparse path saves.
class DenseOnlyTable {
public:
    explicit DenseOnlyTable(TabularBeliefPolicy p) : p_(std::move(p)) {}
    [[nodiscard]] std::size_t num_actions() const { return p_.num_actions(); }
    void probabilities(const AgentView& v, Eigen::VectorXd& out) const { p_.probabilities(v, out); }
    template <class G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        return p_.sample(v, g, score);
    }
    void check_dimensions(const AgentDimensions& d) const { p_.check_dimensions(d); }
    [[nodiscard]] Eigen::MatrixXd& parameters() { return p_.parameters(); }
    [[nodiscard]] const Eigen::MatrixXd& parameters() const { return p_.parameters(); }
    void log_gradient(const AgentView& v, std::size_t a, Eigen::MatrixXd& grad) const { p_.log_gradient(v, a, grad); }

private:
    TabularBeliefPolicy p_;
};

/// A table pre-seeded with the first `rows` reachable beliefs of the 4 x 4 room.
TabularBeliefPolicy seeded_table(const GridPomdp& m, std::size_t rows) {
    if (rows == 0) return TabularBeliefPolicy(m.num_states(), m.num_actions());
    ReachableOptions o;
    o.max_depth = policy_belief_depth(StateCounting::paper, m.horizon());
    o.max_beliefs = rows;
    o.stop_at_budget = true;
    return TabularBeliefPolicy(reachable_beliefs(m, o).beliefs, m.num_actions());
}

/// Time per Trainer iteration (N = 10, MSE, batch-mean, constant step 0.3) on the 4 x 4 room
/// with a table pre-seeded with state.range(0) rows; the table keeps growing lazily.
template <class P>
void trainer_iteration(benchmark::State& state, P policy) {
    const GridPomdp m = fig5_room(4);
    TrainerConfig cfg;
    cfg.iterations = 1'000'000'000;
    cfg.batch = 10;
    cfg.seed = 1;
    Trainer trainer(m, BayesFilter<GridPomdp>(m), std::move(policy), MSE{}, BatchMeanBaseline{}, ConstantStep(0.3),
                    cfg);
    for (auto _ : state) benchmark::DoNotOptimize(trainer.iterate().true_entropy);
    state.counters["rows_at_end"] = static_cast<double>(trainer.policy().parameters().rows());
    state.counters["peak_rss_MiB"] = peak_rss_mib();
}

void Iteration_B_rowsparse(benchmark::State& s) {
    const GridPomdp m = fig5_room(4);
    trainer_iteration(s, seeded_table(m, static_cast<std::size_t>(s.range(0))));
}
void Iteration_B_dense(benchmark::State& s) {
    // The trainer's dense path cannot follow a table that grows during a batch (the scores of
    // one batch would differ in shape): one extra row doubles θ's capacity first, which then
    // lasts for far more than the 200 timed iterations (~150 new rows each).
    const GridPomdp m = fig5_room(4);
    TabularBeliefPolicy p = seeded_table(m, static_cast<std::size_t>(s.range(0)));
    Eigen::VectorXd extra = Eigen::VectorXd::Zero(16);
    extra[0] = 0.123;
    extra[1] = 0.877;
    (void)p.row_for(extra);
    trainer_iteration(s, DenseOnlyTable(std::move(p)));
}
void Iteration_BA(benchmark::State& s) { trainer_iteration(s, BeliefAveragedPolicy(16, 4)); }

BENCHMARK(Iteration_B_rowsparse)->Arg(0)->Arg(100'000)->Arg(1'000'000)->Unit(benchmark::kMicrosecond);
BENCHMARK(Iteration_B_dense)->Arg(100'000)->Iterations(200)->Unit(benchmark::kMicrosecond);
BENCHMARK(Iteration_BA)->Unit(benchmark::kMicrosecond);

}  // namespace
