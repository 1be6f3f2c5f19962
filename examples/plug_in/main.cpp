// maxent-plug-in — a user's simulator and a user's belief models, plugged into the library.
//
//   1. Your simulator: the continuous room of continuous_room.hpp (a point in the unit
//      square, Gaussian moves, a noisy quadrant sensor), its true states counted in a
//      5 x 5 grid of bins, and your own belief model: a 4 x 4 histogram filter.
//   2. Your own belief model of a known world: the 8 x 8 grid room of the paper's library,
//      filtered by the agent with the same map coarsened 2 x 2 (16 latent states).
// Each trains MSE and Reg-MBE (Algorithm 1, belief-averaged policy sized by the agent's
// belief) and prints the true-state entropy of the last 100 iterations next to the uniform
// policy's. Exit status 0 when every trained policy beats the uniform one.
//
//   maxent-plug-in [ITERATIONS=1000]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/model/wrappers.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/rollout.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/belief_averaged.hpp"

#include "continuous_room.hpp"

namespace {

/// Mean true-state entropy of `episodes` rollouts of the uniform policy (BA with θ = 0).
template <class M, class U>
double uniform_entropy(const M& world, const U& updater, std::size_t features, std::size_t episodes) {
    maxent::Sampler<M, U> sampler(world, updater);
    maxent::BeliefAveragedPolicy uniform(features, world.num_actions());
    Eigen::MatrixXd score = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(features),
                                                  static_cast<Eigen::Index>(world.num_actions()));
    double sum = 0.0;
    for (std::size_t n = 0; n < episodes; ++n) {
        maxent::DefaultRng g = maxent::stream(12345, 0, n);
        sum += maxent::true_state_entropy(sampler.run(uniform, g, score));
    }
    return sum / static_cast<double>(episodes);
}

/// Trains `feedback` and returns the mean true-state entropy of the last 100 iterations.
template <class M, class U, class F>
double trained_entropy(const M& world, const U& updater, std::size_t features, F feedback, std::size_t iterations) {
    maxent::TrainerConfig config;
    config.iterations = iterations;
    const auto r = maxent::train(world, updater, maxent::BeliefAveragedPolicy(features, world.num_actions()),
                                 std::move(feedback), maxent::BatchMeanBaseline{}, maxent::ConstantStep(0.3), config);
    const std::size_t window = std::min<std::size_t>(100, r.history.size());
    double sum = 0.0;
    for (std::size_t k = r.history.size() - window; k < r.history.size(); ++k) sum += r.history[k].true_entropy;
    return sum / static_cast<double>(window);
}

bool report(const char* what, double bins, double uniform, double mse, double reg) {
    std::printf("%-50s max log %-3.0f = %.3f   uniform %.3f   MSE %.3f   Reg-MBE %.3f\n", what, bins, std::log(bins),
                uniform, mse, reg);
    return mse > uniform && reg > uniform;
}

}  // namespace

int main(int argc, char** argv) try {
    std::size_t iterations = 1000;
    if (argc > 2 || (argc == 2 && std::string(argv[1]) == "--help")) {
        std::fprintf(stderr, "usage: maxent-plug-in [ITERATIONS=1000]\n");
        return 2;
    }
    if (argc == 2) {
        char* end = nullptr;
        const unsigned long long k = std::strtoull(argv[1], &end, 10);
        if (end == argv[1] || *end != '\0' || k == 0 || k > 1000000 || argv[1][0] == '-') {
            std::fprintf(stderr, "maxent-plug-in: ITERATIONS must be an integer in [1, 1000000], got '%s'\n", argv[1]);
            return 2;
        }
        iterations = static_cast<std::size_t>(k);
    }
    bool ok = true;

    // 1. A simulator (continuous states) and a histogram filter of the agent's own.
    const plug_in::ContinuousRoom room(30);
    const auto world = maxent::with_state_binning(room, 25, plug_in::SquareBinning{5});
    const plug_in::HistogramFilter filter(4, room.step(), room.accuracy());
    ok &= report("continuous room, 25 bins, 4 x 4 histogram filter", 25, uniform_entropy(world, filter, 16, 2000),
                 trained_entropy(world, filter, 16, maxent::MSE{}, iterations),
                 trained_entropy(world, filter, 16, maxent::RegMBE(0.02), iterations));

    // 2. A known grid world, filtered with a coarser model of the agent's: the 8 x 8 room's
    //    map coarsened 2 x 2 (4 x 4 latent cells; a move crosses into the next coarse cell
    //    with probability 1/2), observed through the world's Gaussian sensor model averaged
    //    over each coarse cell.
    const auto grid = maxent::single_room(8, 8, 0.0, maxent::observe::gaussian(10.0));
    using Coarse = maxent::FinitePomdp<int, int, std::size_t>;
    std::vector<int> cells(16);
    for (int c = 0; c < 16; ++c) cells[static_cast<std::size_t>(c)] = c;
    std::vector<std::size_t> observations(grid.num_observations());
    for (std::size_t o = 0; o < observations.size(); ++o) observations[o] = o;
    const Coarse coarse = Coarse::from_functions(
        cells, {0, 1, 2, 3}, observations,
        [](int c, int a) {
            const int x = c % 4, y = c / 4;
            // Move order of the grid worlds: up (y - 1), down (y + 1), left, right.
            const int nx = x + (a == 3) - (a == 2), ny = y + (a == 1) - (a == 0);
            if (nx < 0 || nx > 3 || ny < 0 || ny > 3) return std::vector<std::pair<int, double>>{{c, 1.0}};
            return std::vector<std::pair<int, double>>{{nx + 4 * ny, 0.5}, {c, 0.5}};
        },
        [&grid](int c) {
            std::vector<std::pair<std::size_t, double>> row;
            const int x = c % 4, y = c / 4;
            for (int dy = 0; dy < 2; ++dy)
                for (int dx = 0; dx < 2; ++dx) {
                    const auto s = static_cast<std::size_t>((2 * x + dx) + 8 * (2 * y + dy));
                    const maxent::SparseDistribution d = grid.observation(0, s);
                    for (std::size_t i = 0; i < d.index.size(); ++i)
                        row.emplace_back(static_cast<std::size_t>(d.index[i]), 0.25 * d.probability[i]);
                }
            return row;
        },
        {{0, 1.0}}, grid.horizon());
    const maxent::BayesFilter coarse_filter(coarse);
    ok &= report("8 x 8 room, 64 cells, agent's map coarsened 2 x 2", 64, uniform_entropy(grid, coarse_filter, 16, 2000),
                 trained_entropy(grid, coarse_filter, 16, maxent::MSE{}, iterations),
                 trained_entropy(grid, coarse_filter, 16, maxent::RegMBE(0.02), iterations));

    std::printf("%s\n", ok ? "every trained policy beats the uniform one" : "SOME trained policy does not beat the uniform one");
    return ok ? 0 : 1;
} catch (const maxent::error& e) {
    std::fprintf(stderr, "maxent-plug-in: %s\n", e.what());
    return 1;
}
