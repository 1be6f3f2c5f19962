// examples/control/control.hpp — maxent-control's experiments: Algorithm 1 with continuous
// actions (a Gaussian policy, tanh-squashed into the world's action box) on the two bundled
// continuous-action worlds, the partially observed pendulum (model/pendulum.hpp) and the rescue
// robot steered by a velocity vector (model/rescue_velocity.hpp), each against the uniform
// policy of its box. train.cpp runs them through the runtime's run_algorithm1 (whose trainers
// maxent_runtime_control compiles) and evaluates them; main.cpp the command line, the tables
// and the files.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/results.hpp"

namespace maxent::control {

/// The curves' feedbacks: MSE over the world's state bins, MSE and MOE by kNN (true states'
/// points, raw readings), MBE and Reg-MBE over the particle filter's belief bins.
enum class Kind { mse, mse_knn, moe_knn, mbe, reg_mbe };
[[nodiscard]] const char* label_of(Kind k);

enum class WorldKind { pendulum, rescue_velocity };

/// One named experiment: the world, its size, the curves.
struct Experiment {
    std::string name;
    WorldKind world = WorldKind::pendulum;
    std::size_t horizon = 100;
    std::size_t particles = 200;
    std::size_t iterations = 300;      ///< K
    std::size_t seeds = 8;
    std::size_t final_episodes = 100;  ///< per seed, for each final policy and the uniform one
    std::vector<Kind> kinds;
};

[[nodiscard]] const std::vector<Experiment>& experiments();

/// The training constants shared by every curve (config.json and the README say them).
inline constexpr std::size_t batch = 10;
inline constexpr double alpha = 0.05;  // Adam's step
inline constexpr double rho = 0.02;    // Reg-MBE's weight
inline constexpr std::size_t knn_k = 3;

/// What a final policy (or the uniform one) does, averaged over its episodes of one seed.
struct Final {
    double bins = 0.0;     ///< true-state entropy over the world's state bins (nats)
    double knn = 0.0;      ///< true-state entropy by kNN over the states' points (differential)
    double moe_knn = 0.0;  ///< observation entropy by kNN over the raw readings (differential)
    double mean_abs_action = 0.0;  ///< mean |a| per coordinate over the steps (how hard it pushes)
    std::vector<double> heat;      ///< counted steps per heat cell (heat_width x heat_height)
};

/// One job: a curve trained on a seed (run + its final policy's evaluation), or (kind empty)
/// the uniform policy evaluated on that seed's episodes.
struct Job {
    programs::SeedRun run;
    Final final;
};

/// The world of experiment x as the program describes it (titles, config.json).
struct WorldFacts {
    std::size_t state_bins = 0;           ///< the bins MSE and the curves count
    std::size_t heat_width = 0, heat_height = 0;
    std::string description;              ///< one line for titles
    std::string json;                     ///< the world's object for config.json
    std::string agent_json;               ///< the belief model and the policy, for config.json
};
[[nodiscard]] WorldFacts world_facts(const Experiment& x);

/// Trains `kind` for `iterations` iterations on `seed` and evaluates its final policy on
/// x.final_episodes episodes (stream (seed, final_stream, e)); without a kind, evaluates the
/// uniform policy of the box on the same episodes' streams. Stops between iterations when
/// programs::stop_requested() (the run then incomplete).
[[nodiscard]] Job run_job(const Experiment& x, std::optional<Kind> kind, std::size_t iterations, std::uint64_t seed);

}  // namespace maxent::control
