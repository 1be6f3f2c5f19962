// maxent-control's training: the runs of the two continuous-action worlds through the runtime's
// run_algorithm1 (runtime/algorithm_control.hpp: one Gaussian-policy trainer per world, compiled in
// maxent_runtime_control; the feedback a run-time box, programs::AnyFeedback; the estimator the
// batch-mean baseline; the step Adam), and the final evaluations.
//
// The agent on both worlds: a particle filter of the world (predict with the world's motion,
// weigh the raw readings by their log-density), its belief a grid histogram of the particles
// (MBE's believed states and Reg-MBE's H(b)), its features φ(b) the particles' mean bilinear
// features on a grid of the phase plane (pendulum: 8 x 8 over (θ, ω)) or of the arena (rescue:
// 6 x 6 over (x, y)); the Gaussian policy's mean linear in φ(b), its log standard deviation
// learned (state-independent for the robot, linear in φ(b) for the pendulum), squashed by tanh
// into the box. The uniform policy of the box is the baseline, rolled out on the same episode
// streams as the final policies.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numbers>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/belief/state_features.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/knn_entropy.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/pendulum.hpp"
#include "maxent/model/rescue_velocity.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/objective/knn_feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/policy/gaussian.hpp"
#include "maxent/policy/uniform_box.hpp"

#include "runtime/algorithm_control.hpp"
#include "runtime/components.hpp"
#include "runtime/signals.hpp"
#include "runtime/text.hpp"
#include "control.hpp"

namespace maxent::control {

namespace {

using programs::cat;
const auto num = [](double v) { return programs::format_number(v); };

constexpr std::uint64_t prior_stream = ~std::uint64_t{0} - 1;  // (seed, this): the filter's b_1 particles
constexpr std::uint64_t final_stream = ~std::uint64_t{0};      // (seed, this, e): the final evaluation's episodes

// --- the pendulum's agent -----------------------------------------------------------------
constexpr std::size_t pendulum_belief_angle = 12, pendulum_belief_speed = 8;  // the belief's bins
constexpr std::size_t pendulum_nodes = 8;                                     // φ(b): 8 x 8 bilinear
constexpr std::size_t pendulum_heat_angle = 36, pendulum_heat_speed = 24;     // the phase-plane heatmap
using PendulumFilter = programs::PendulumControlFilter;

// --- the rescue robot's agent (as maxent-rescue's range experiments) ---------------------------
constexpr std::size_t rescue_true_bins = 10, rescue_belief_bins = 8, rescue_nodes = 6, rescue_heat = 40;
constexpr double rescue_knn_floor = 1e-3;  // metres: repeated positions (a robot pinned to a wall) 1 mm apart
using RescueVelocityFilter = programs::RescueVelocityControlFilter;

PendulumWorld make_pendulum(const Experiment& x) {
    PendulumOptions o;
    o.horizon = x.horizon;
    return PendulumWorld(o);
}
RescueVelocityWorld make_rescue(const Experiment& x) {
    RescueVelocityOptions o;
    o.world.motion.horizon = x.horizon;
    o.bins_per_side = rescue_true_bins;
    return RescueVelocityWorld(o);
}

PendulumFilter make_filter(const PendulumWorld& world, std::size_t particles, std::uint64_t seed) {
    DefaultRng g = stream(seed, prior_stream);
    const double v = world.options().max_speed;
    return PendulumFilter(world, pendulum_belief_angle * pendulum_belief_speed,
                          PendulumGridBinning{pendulum_belief_angle, pendulum_belief_speed, v},
                          BilinearGridFeatures<PendulumPhase>(pendulum_nodes, pendulum_nodes,
                                                              Box{-std::numbers::pi, std::numbers::pi, -v, v},
                                                              PendulumPhase{}),
                          {.particles = particles}, g);
}
RescueVelocityFilter make_filter(const RescueVelocityWorld& world, std::size_t particles, std::uint64_t seed) {
    DefaultRng g = stream(seed, prior_stream);
    return RescueVelocityFilter(world, rescue_belief_bins * rescue_belief_bins, RescueGridBinning{rescue_belief_bins},
                                BilinearGridFeatures<RescuePosition>(rescue_nodes, rescue_nodes, Box{},
                                                                     RescuePosition{}),
                                {.particles = particles}, g);
}

/// The pendulum's policy learns log σ linear in φ(b) too (state_dependent_std): its one torque
/// coordinate's spread then follows the belief (the measured README table uses this setting).
/// The robot's two velocity coordinates keep a state-independent log σ.
GaussianPolicyOptions policy_options(const PendulumWorld&) { return {.state_dependent_std = true}; }
GaussianPolicyOptions policy_options(const RescueVelocityWorld&) { return {}; }

std::optional<double> knn_floor(const PendulumWorld&) { return std::nullopt; }  // the estimator's scale rule
std::optional<double> knn_floor(const RescueVelocityWorld&) { return rescue_knn_floor; }

/// The feedback of curve kind k: the runtime's box; the kNN entropies held as callables.
template <class W>
programs::AnyFeedback feedback_of(Kind k, const W& world) {
    auto knn = [](auto entropy, const char* name) {
        programs::CallableFeedback f;
        f.needs = entropy.needs();
        f.fn = [entropy](const Trajectory& t) {
            int unused = 0;
            return entropy(t, unused);
        };
        f.name = name;
        return programs::AnyFeedback(std::move(f));
    };
    switch (k) {
        case Kind::mse: return programs::AnyFeedback(MSE{});
        case Kind::mse_knn: return knn(KnnStateEntropy(knn_k, knn_floor(world)), "mse-knn");
        case Kind::moe_knn: return knn(KnnObservationEntropy(knn_k, knn_floor(world)), "moe-knn");
        case Kind::mbe: return programs::AnyFeedback(MBE{});
        case Kind::reg_mbe: return programs::AnyFeedback(RegMBE(rho));
    }
    throw config_error("maxent-control: unknown curve kind");
}

/// The heat cell of a counted state's point.
std::size_t heat_cell(const PendulumWorld& world, std::span<const double> p) {
    constexpr double pi = std::numbers::pi;
    const double theta = std::atan2(p[1], p[0]);
    const double v = world.options().max_speed;
    const auto ia = std::min(pendulum_heat_angle - 1,
                             static_cast<std::size_t>((theta + pi) / (2.0 * pi) * double{pendulum_heat_angle}));
    const auto iv = std::min(pendulum_heat_speed - 1,
                             static_cast<std::size_t>((std::clamp(p[2], -v, v) + v) / (2.0 * v) *
                                                      double{pendulum_heat_speed}));
    return ia + pendulum_heat_angle * iv;
}
std::size_t heat_cell(const RescueVelocityWorld&, std::span<const double> p) {
    const auto ix = std::min(rescue_heat - 1, static_cast<std::size_t>(p[0] * double{rescue_heat}));
    const auto iy = std::min(rescue_heat - 1, static_cast<std::size_t>(p[1] * double{rescue_heat}));
    return ix + rescue_heat * iy;
}
std::size_t heat_cells(const PendulumWorld&) { return pendulum_heat_angle * pendulum_heat_speed; }
std::size_t heat_cells(const RescueVelocityWorld&) { return rescue_heat * rescue_heat; }

/// The final evaluation: E episodes of `policy` on streams (seed, final_stream, e).
template <class W, class F, class P>
Final evaluate_final(const W& world, const F& filter, const P& policy, std::uint64_t seed, std::size_t episodes) {
    Final f;
    f.heat.assign(heat_cells(world), 0.0);
    EmpiricalCounter counter(world.num_state_bins());
    KnnEntropy knn(knn_k, knn_floor(world));
    RolloutOptions options;
    options.needs.state_points = true;
    options.needs.observation_points = true;
    double action_sum = 0.0;
    std::size_t action_count = 0;
    rollout_fixed_policy(world, filter, policy, options, seed, final_stream, 0, episodes,
                         [&](std::size_t, const Trajectory& t, DefaultRng&) {
                             counter.clear();
                             for (const std::size_t s : t.counted_states()) counter.add(s);
                             f.bins += counter.entropy();
                             const std::span<const double> points = t.counted_state_points();
                             const std::size_t d = t.state_point_dimension;
                             for (std::size_t i = 0; i + d <= points.size(); i += d)
                                 f.heat[heat_cell(world, points.subspan(i, d))] += 1.0;
                             f.knn += knn(points, d);
                             f.moe_knn += knn(t.counted_observation_points(), t.observation_point_dimension);
                             for (const double a : t.action_points) action_sum += std::abs(a);
                             action_count += t.action_points.size();
                         });
    const auto e = static_cast<double>(episodes);
    f.bins /= e;
    f.knn /= e;
    f.moe_knn /= e;
    f.mean_abs_action = action_count > 0 ? action_sum / static_cast<double>(action_count) : 0.0;
    return f;
}

template <class W>
Job run_world(const W& world, const Experiment& x, std::optional<Kind> kind, std::size_t iterations,
              std::uint64_t seed) {
    const auto filter = make_filter(world, x.particles, seed);
    const ActionBox box = world.action_box();
    Job out;
    out.run.seed = seed;
    if (!kind) {
        out.final = evaluate_final(world, filter, UniformBoxPolicy(box), seed, x.final_episodes);
        out.run.complete = true;
        return out;
    }
    TrainerConfig config;
    config.iterations = iterations;
    config.batch = batch;
    config.seed = seed;
    config.track_belief_entropy = true;
    programs::RunChoices choices{
        programs::AnyGaussianPolicy(box, filter.feature_dimension(), programs::MaybeObservationFeatures{},
                                    policy_options(world)),
        feedback_of(*kind, world), programs::AnyEstimator(BatchMeanBaseline{}), programs::AnyStep(Adam(alpha)),
        config};
    programs::RunControl control;
    control.after_iteration = [](const IterationMetrics&) { return !programs::stop_requested(); };
    programs::Algorithm1Run result = programs::run_algorithm1(world, filter, choices, control);
    const TrainResult& trained = result.trained;
    out.run.records.reserve(trained.history.size());
    for (const IterationMetrics& m : trained.history)
        out.run.records.push_back({m.true_entropy, m.feedback, m.belief_entropy_sum});
    out.run.complete = !trained.stopped_early && trained.history.size() == iterations;
    if (out.run.complete)
        out.final = evaluate_final(world, filter, std::get<programs::AnyGaussianPolicy>(*result.policy), seed,
                                   x.final_episodes);
    return out;
}

}  // namespace

const char* label_of(Kind k) {
    switch (k) {
        case Kind::mse: return "mse";
        case Kind::mse_knn: return "mse-knn";
        case Kind::moe_knn: return "moe-knn";
        case Kind::mbe: return "mbe";
        case Kind::reg_mbe: return "reg-mbe";
    }
    return "?";
}

const std::vector<Experiment>& experiments() {
    using enum Kind;
    static const std::vector<Experiment> list{
        {"pendulum", WorldKind::pendulum, 100, 200, 300, 8, 100, {mse_knn, moe_knn, mbe, reg_mbe}},
        {"pendulum-small", WorldKind::pendulum, 30, 30, 10, 2, 5, {mse_knn, moe_knn, mbe, reg_mbe}},
        {"rescue-velocity", WorldKind::rescue_velocity, 100, 300, 300, 8, 100, {mse, moe_knn, mbe, reg_mbe}},
        {"rescue-velocity-small", WorldKind::rescue_velocity, 30, 30, 10, 2, 5, {mse, moe_knn, mbe, reg_mbe}},
    };
    return list;
}

WorldFacts world_facts(const Experiment& x) {
    WorldFacts w;
    if (x.world == WorldKind::pendulum) {
        const PendulumWorld world = make_pendulum(x);
        const PendulumOptions& o = world.options();
        w.state_bins = world.num_state_bins();
        w.heat_width = pendulum_heat_angle;
        w.heat_height = pendulum_heat_speed;
        w.description = cat("partially observed pendulum (torque in [-2, 2], the tip read with noise sd ",
                            num(o.sensor_noise), ", velocity unobserved), T = ", std::to_string(o.horizon));
        w.json = cat("{\"name\": \"pendulum\", \"horizon\": ", std::to_string(o.horizon), ", \"max_torque\": ",
                     num(o.max_torque), ", \"max_speed\": ", num(o.max_speed), ", \"dt\": ", num(o.dt),
                     ", \"gravity\": ", num(o.gravity), ", \"mass\": ", num(o.mass), ", \"length\": ", num(o.length),
                     ", \"process_noise\": ", num(o.process_noise), ", \"sensor_noise\": ", num(o.sensor_noise),
                     ", \"start_angle\": ", num(o.start_angle), ", \"start_speed\": ", num(o.start_speed),
                     ", \"state_bins\": [", std::to_string(o.angle_bins), ", ", std::to_string(o.speed_bins), "]}");
        w.agent_json = cat("{\"model\": \"particle filter (log-density)\", \"particles\": ", std::to_string(x.particles),
                           ", \"belief_bins\": [", std::to_string(pendulum_belief_angle), ", ",
                           std::to_string(pendulum_belief_speed), "], \"features\": \"bilinear ",
                           std::to_string(pendulum_nodes), "x", std::to_string(pendulum_nodes),
                           " over (theta, omega)\", \"knn_min_distance\": \"scale rule\"}");
    } else {
        const RescueVelocityWorld world = make_rescue(x);
        const RescueWorldOptions& o = world.options().world.motion;
        w.state_bins = world.num_state_bins();
        w.heat_width = w.heat_height = rescue_heat;
        w.description = cat("rescue robot steered by a velocity in [-1, 1]^2 x ", num(o.step),
                            " per step, 4-beam range sensor (sd ", num(world.options().world.range_noise),
                            " m), T = ", std::to_string(o.horizon));
        w.json = cat("{\"name\": \"rescue-velocity\", \"rooms\": 4, \"horizon\": ", std::to_string(o.horizon),
                     ", \"top_speed\": ", num(o.step), ", \"noise\": ", num(o.noise), ", \"door\": ", num(o.door),
                     ", \"beams\": 4, \"range_noise\": ", num(world.options().world.range_noise),
                     ", \"state_bins\": ", std::to_string(w.state_bins), "}");
        w.agent_json = cat("{\"model\": \"particle filter (log-density)\", \"particles\": ", std::to_string(x.particles),
                           ", \"belief_bins\": ", std::to_string(rescue_belief_bins * rescue_belief_bins),
                           ", \"features\": \"bilinear ", std::to_string(rescue_nodes), "x",
                           std::to_string(rescue_nodes), " over (x, y)\", \"knn_min_distance\": ",
                           num(rescue_knn_floor), "}");
    }
    return w;
}

Job run_job(const Experiment& x, std::optional<Kind> kind, std::size_t iterations, std::uint64_t seed) {
    if (x.world == WorldKind::pendulum) return run_world(make_pendulum(x), x, kind, iterations, seed);
    return run_world(make_rescue(x), x, kind, iterations, seed);
}

}  // namespace maxent::control
