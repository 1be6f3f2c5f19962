// Benchmark of maxent/model/pomdp_file.hpp: parse_pomdp on a synthetic ~3 MB model file
// with 1000 named states, 4 actions and 16 observations, generated in memory:
//   * 24 successors per (action, state) in element form  (T: a : s : s' p, 96 000 lines),
//   * one O: * : s' row of 16 probabilities per state,
//   * one R: * : s : * : * reward per state.
// Probabilities are printed with 6 decimals, as real files do (rows sum to 1 within 1e-6).
// Reports time per parse and bytes per second. Target: under 0.3 s per parse (Release).
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "maxent/core/random.hpp"
#include "maxent/model/pomdp_file.hpp"

namespace {

#ifndef NDEBUG
[[maybe_unused]] const bool debug_warning = [] {
    std::fprintf(stderr,
                 "WARNING: bench_pomdp_file was built without NDEBUG (not a Release build); "
                 "its timings do not represent the reader's speed.\n");
    return true;
}();
#endif

void append_probability(std::string& out, double p) {
    char buffer[32];
    const int n = std::snprintf(buffer, sizeof buffer, "%.6f", p);
    out.append(buffer, static_cast<std::size_t>(n));
}

/// A model file with `S` named states, 4 actions, 16 observations and `successors` element
/// entries per (action, state); deterministic (fixed seed).
std::string synthetic_pomdp_text(std::size_t S, std::size_t successors) {
    const char* actions[] = {"north", "south", "east", "west"};
    const std::size_t O = 16;
    maxent::DefaultRng g(12345);
    std::string out;
    out.reserve(3'200'000);
    out += "# synthetic benchmark model\ndiscount: 0.95\nvalues: reward\nstates:";
    for (std::size_t s = 0; s < S; ++s) out += " s" + std::to_string(s);
    out += "\nactions: north south east west\nobservations: " + std::to_string(O) + "\nstart: uniform\n\n";
    std::vector<double> w(successors);
    for (const char* a : actions)
        for (std::size_t s = 0; s < S; ++s) {
            double total = 0.0;
            for (double& x : w) total += (x = 1.0 + static_cast<double>(maxent::uniform_index(g, 1000)));
            double printed = 0.0;
            for (std::size_t j = 0; j < successors; ++j) {
                const std::size_t next = (s + 37 * j) % S;  // distinct: 37 is coprime to S = 1000
                double p = w[j] / total;
                if (j + 1 == successors) p = 1.0 - printed;  // rows sum to 1 within the printing precision
                char buffer[32];
                std::snprintf(buffer, sizeof buffer, "%.6f", p);
                printed += std::strtod(buffer, nullptr);
                out += "T: ";
                out += a;
                out += " : s" + std::to_string(s) + " : s" + std::to_string(next) + " ";
                out += buffer;
                out += '\n';
            }
        }
    for (std::size_t s = 0; s < S; ++s) {
        out += "O: * : s" + std::to_string(s) + "\n";
        for (std::size_t o = 0; o < O; ++o) {
            append_probability(out, o == s % O ? 0.85 : 0.01);
            out += o + 1 == O ? '\n' : ' ';
        }
    }
    for (std::size_t s = 0; s < S; ++s) out += "R: * : s" + std::to_string(s) + " : * : * -1.0\n";
    return out;
}

void BM_parse_pomdp_3MB(benchmark::State& state) {
    const std::string text = synthetic_pomdp_text(1000, 24);
    for (auto _ : state) {
        maxent::PomdpFile file = maxent::parse_pomdp(text, "synthetic.pomdp");
        benchmark::DoNotOptimize(file);
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(text.size()));
    state.counters["file_MB"] = static_cast<double>(text.size()) / 1e6;
}
BENCHMARK(BM_parse_pomdp_3MB)->Unit(benchmark::kMillisecond);

}  // namespace
