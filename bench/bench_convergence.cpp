// Convergence study: how many iterations each gradient estimator and step rule
// needs on the 5 x 5 room before the batch-mean true-state entropy first reaches
// 0.95 log 25, compared with the paper's choice (batch-mean baseline, constant α = 0.3).
//
// This is a plain executable, not a Google Benchmark: its result is a distribution over
// seeds of a first-passage iteration (a statistic of training runs, with early stopping),
// not the time of a repeated operation, and Google Benchmark's "repeat until the timing
// is stable" loop has nothing to repeat here. Its JSON output is turned into the Markdown
// table of docs/performance.md by scripts/bench.sh.
//
// Setting (paper, Section 6.1 and Algorithm 1): 5 x 5 single room, deterministic, Gaussian
// observations with precision k = 10 (Fig. 2a) and k = 0.1 (Fig. 2b), T = 25, paper state
// counting, BA policy (θ = 0 at the start), exact Bayes filter, MSE feedback, N = 10,
// TrainerConfig::track_belief_entropy off, at most K = 12000 iterations, seeds 0..15.
// For each k, estimator (reinforce, batch-mean, leave-one-out, optimal) and step rule
// (constant α = 0.3; Adam with α = 0.05, β1 = 0.9, β2 = 0.999, ε = 1e-8): the first
// iteration (1-based: the number of batches sampled so far) whose batch mean of
// H(d(τ_S)) is >= 0.95 log 25 ≈ 3.0583; the trainer's callback stops the run there.
// Runs that never reach it within K also report their best batch mean and the mean over
// their last 500 iterations. All (configuration, seed) runs go through run_parallel
// (core/parallel.hpp), so the results do not depend on the thread count.
//
// Usage: maxent_bench_convergence [--out FILE.json] [--threads N] [--K K] [--seeds N]
//                                 [--quick]   (quick: K = 1500, 4 seeds)
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

namespace {

#if defined(NDEBUG) && defined(__OPTIMIZE__)
constexpr bool release_build = true;
#else
constexpr bool release_build = false;
#endif

struct Options {
    std::string out = "convergence.json";
    std::size_t threads = 2;
    std::size_t K = 12000;
    std::size_t seeds = 16;
};

struct RunResult {
    std::uint64_t seed = 0;
    std::optional<std::size_t> hit;  // 1-based iteration, or none within K
    double best = 0.0;               // best batch-mean true-state entropy
    std::optional<double> end;       // mean of the last 500 iterations (runs that went to K)
    std::size_t iterations = 0;      // iterations run
    double cpu_seconds = 0.0;        // thread CPU time of the run
};

struct Config {
    double k = 10.0;
    std::string estimator;
    std::string step;
    double alpha = 0.3;
    std::function<RunResult(std::uint64_t)> run;
};

double thread_cpu_seconds() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

template <class E, class R>
RunResult train_once(const maxent::GridPomdp& m, R step, std::uint64_t seed, std::size_t K, double threshold) {
    const double start = thread_cpu_seconds();
    maxent::TrainerConfig config;
    config.iterations = K;
    config.batch = 10;
    config.seed = seed;
    config.track_belief_entropy = false;
    maxent::Trainer trainer(m, maxent::BayesFilter(m), maxent::BeliefAveragedPolicy(m.num_states(), m.num_actions()),
                            maxent::MSE{}, E{}, std::move(step), config);
    RunResult r;
    r.seed = seed;
    r.best = -1.0;
    const maxent::TrainResult result = trainer.run([&](const maxent::IterationMetrics& x) {
        r.best = std::max(r.best, x.true_entropy);
        if (x.true_entropy >= threshold) {
            r.hit = x.iteration + 1;
            return false;
        }
        return true;
    });
    r.iterations = result.history.size();
    if (!r.hit) {
        const std::size_t n = std::min<std::size_t>(500, result.history.size());
        double sum = 0.0;
        for (std::size_t i = result.history.size() - n; i < result.history.size(); ++i)
            sum += result.history[i].true_entropy;
        r.end = n > 0 ? sum / static_cast<double>(n) : 0.0;
    }
    r.cpu_seconds = thread_cpu_seconds() - start;
    return r;
}

template <class E>
void add_estimator(std::vector<Config>& out, const maxent::GridPomdp& m, double k, const std::string& name,
                   std::size_t K, double threshold) {
    out.push_back({k, name, "constant", 0.3, [&m, K, threshold](std::uint64_t seed) {
                       return train_once<E>(m, maxent::ConstantStep(0.3), seed, K, threshold);
                   }});
    out.push_back({k, name, "adam", 0.05, [&m, K, threshold](std::uint64_t seed) {
                       return train_once<E>(m, maxent::Adam(0.05), seed, K, threshold);
                   }});
}

[[noreturn]] void usage(const std::string& message) {
    std::cerr << "maxent_bench_convergence: " << message
              << "\nusage: maxent_bench_convergence [--out FILE.json] [--threads N] [--K K] [--seeds N] [--quick]\n";
    std::exit(2);
}

std::size_t parse_count(std::string_view flag, const char* value) {
    char* end = nullptr;
    const unsigned long long x = std::strtoull(value, &end, 10);
    if (end == value || *end != '\0' || x == 0) usage(std::string(flag) + ": expected a positive integer, got '" + value + "'");
    return static_cast<std::size_t>(x);
}

Options parse(int argc, char** argv) {
    Options o;
    for (int i = 1; i < argc; ++i) {
        const std::string_view a = argv[i];
        auto value = [&]() -> const char* {
            if (i + 1 >= argc) usage(std::string(a) + " needs a value");
            return argv[++i];
        };
        if (a == "--out") o.out = value();
        else if (a == "--threads") o.threads = parse_count(a, value());
        else if (a == "--K") o.K = parse_count(a, value());
        else if (a == "--seeds") o.seeds = parse_count(a, value());
        else if (a == "--quick") { o.K = 1500; o.seeds = 4; }
        else usage("unknown argument '" + std::string(a) + "'");
    }
    return o;
}

std::string json_number(double x) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.6g", x);
    return buffer;
}

}  // namespace

int main(int argc, char** argv) {
    const Options opt = parse(argc, argv);
    if (!release_build)
        std::cerr << "WARNING: maxent_bench_convergence is not a Release build (no NDEBUG or no -O): slow\n";
    const double threshold = 0.95 * std::log(25.0);
    const maxent::GridPomdp room_k10 = maxent::paper_environment(maxent::PaperEnvironment::single_room_gaussian, 0.0, 10.0);
    const maxent::GridPomdp room_k01 = maxent::paper_environment(maxent::PaperEnvironment::single_room_gaussian, 0.0, 0.1);

    std::vector<Config> configs;
    for (const auto& [k, m] : {std::pair<double, const maxent::GridPomdp*>{10.0, &room_k10},
                               std::pair<double, const maxent::GridPomdp*>{0.1, &room_k01}}) {
        add_estimator<maxent::Reinforce>(configs, *m, k, "reinforce", opt.K, threshold);
        add_estimator<maxent::BatchMeanBaseline>(configs, *m, k, "batch-mean", opt.K, threshold);
        add_estimator<maxent::LeaveOneOutBaseline>(configs, *m, k, "leave-one-out", opt.K, threshold);
        add_estimator<maxent::OptimalBaseline>(configs, *m, k, "optimal", opt.K, threshold);
    }

    const std::size_t jobs = configs.size() * opt.seeds;
    std::cerr << "maxent_bench_convergence: " << configs.size() << " configurations x " << opt.seeds
              << " seeds, K = " << opt.K << ", threshold 0.95 log 25 = " << threshold << ", " << opt.threads
              << " threads\n";
    timespec wall_start{}, wall_end{};
    clock_gettime(CLOCK_MONOTONIC, &wall_start);
    const std::vector<RunResult> results = maxent::run_parallel(jobs, opt.threads, [&](std::size_t i) {
        return configs[i / opt.seeds].run(static_cast<std::uint64_t>(i % opt.seeds));
    });
    clock_gettime(CLOCK_MONOTONIC, &wall_end);
    const double wall = static_cast<double>(wall_end.tv_sec - wall_start.tv_sec) +
                        1e-9 * static_cast<double>(wall_end.tv_nsec - wall_start.tv_nsec);

    std::ofstream out(opt.out);
    if (!out) {
        std::cerr << "maxent_bench_convergence: cannot write " << opt.out << "\n";
        return 1;
    }
    double cpu_total = 0.0;
    std::size_t iterations_total = 0;
    for (const RunResult& r : results) {
        cpu_total += r.cpu_seconds;
        iterations_total += r.iterations;
    }
    out << "{\n  \"description\": \"5x5 single room, deterministic, Gaussian observations (precision k), T = 25, "
           "paper counting, BA policy, exact filter, MSE feedback, N = 10, track_belief_entropy off; iterations "
           "(1-based) until the batch-mean true-state entropy first reaches 0.95 log 25\",\n";
    out << "  \"release_build\": " << (release_build ? "true" : "false") << ",\n";
    out << "  \"threshold\": " << json_number(threshold) << ",\n";
    out << "  \"K\": " << opt.K << ",\n  \"seeds\": " << opt.seeds << ",\n  \"threads\": " << opt.threads << ",\n";
    out << "  \"batch\": 10,\n  \"adam\": {\"alpha\": 0.05, \"beta1\": 0.9, \"beta2\": 0.999, \"epsilon\": 1e-8},\n";
    out << "  \"wall_seconds\": " << json_number(wall) << ",\n  \"cpu_seconds\": " << json_number(cpu_total)
        << ",\n  \"iterations_total\": " << iterations_total << ",\n  \"configs\": [\n";
    for (std::size_t c = 0; c < configs.size(); ++c) {
        const Config& cfg = configs[c];
        out << "    {\"k\": " << json_number(cfg.k) << ", \"estimator\": \"" << cfg.estimator << "\", \"step\": \""
            << cfg.step << "\", \"alpha\": " << json_number(cfg.alpha) << ", \"runs\": [\n";
        for (std::size_t s = 0; s < opt.seeds; ++s) {
            const RunResult& r = results[c * opt.seeds + s];
            out << "      {\"seed\": " << r.seed << ", \"hit\": " << (r.hit ? std::to_string(*r.hit) : "null")
                << ", \"best\": " << json_number(r.best) << ", \"end\": " << (r.end ? json_number(*r.end) : "null")
                << ", \"iterations\": " << r.iterations << ", \"cpu_seconds\": " << json_number(r.cpu_seconds) << "}"
                << (s + 1 < opt.seeds ? ",\n" : "\n");
        }
        out << "    ]}" << (c + 1 < configs.size() ? ",\n" : "\n");
    }
    out << "  ]\n}\n";

    // A short console summary (the Markdown table is made by scripts/bench.sh).
    std::cout << "k      estimator      step      reached  median-hit\n";
    for (std::size_t c = 0; c < configs.size(); ++c) {
        std::vector<double> hits;
        for (std::size_t s = 0; s < opt.seeds; ++s) {
            const RunResult& r = results[c * opt.seeds + s];
            hits.push_back(r.hit ? static_cast<double>(*r.hit) : INFINITY);
        }
        std::sort(hits.begin(), hits.end());
        const std::size_t reached = static_cast<std::size_t>(std::count_if(hits.begin(), hits.end(),
                                                                           [](double h) { return std::isfinite(h); }));
        const double median = hits[(hits.size() - 1) / 2];
        char line[160];
        std::snprintf(line, sizeof line, "%-6g %-14s %-9s %2zu/%-5zu %s\n", configs[c].k, configs[c].estimator.c_str(),
                      configs[c].step.c_str(), reached, opt.seeds,
                      std::isfinite(median) ? std::to_string(static_cast<long>(median)).c_str() : "never");
        std::cout << line;
    }
    std::cout << "wall " << wall << " s, CPU " << cpu_total << " s, " << iterations_total << " iterations ("
              << 1e6 * cpu_total / static_cast<double>(iterations_total) << " us CPU per iteration)\n";
    return 0;
}
