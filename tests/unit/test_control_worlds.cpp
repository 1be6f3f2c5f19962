// tests/unit/test_control_worlds.cpp — the two bundled continuous-action worlds, alone (no
// trainer): the pendulum's step against hand-computed Gym values, its clipping, wrapping, bins,
// points and sensor density; the velocity-steered rescue robot against the index-action rescue
// world (unit velocities give its bits), its batched step against one state at a time, walls
// and borders; actions outside the box refused with a message naming them.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <numbers>
#include <string>
#include <type_traits>
#include <vector>

#include "maxent/belief/particle_steps.hpp"
#include "maxent/core/actions.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/concepts.hpp"
#include "maxent/model/pendulum.hpp"
#include "maxent/model/rescue_velocity.hpp"
#include "maxent/model/rescue_world.hpp"

namespace test_control_worlds {

using Catch::Matchers::Contains;

// Both are simulators with continuous actions that a particle filter can weigh and the
// trainer can count (bins and points).
static_assert(maxent::ObservationLikelihood<maxent::PendulumWorld> && maxent::Environment<maxent::PendulumWorld>);
static_assert(maxent::ObservationLikelihood<maxent::RescueVelocityWorld> &&
              maxent::Environment<maxent::RescueVelocityWorld>);
static_assert(maxent::has_state_points<maxent::PendulumWorld> && maxent::has_state_points<maxent::RescueVelocityWorld>);
static_assert(std::is_same_v<maxent::world_action_t<maxent::PendulumWorld>, double>);
static_assert(std::is_same_v<maxent::world_action_t<maxent::RescueVelocityWorld>, std::array<double, 2>>);
// The velocity robot moves and weighs whole particle sets (the filter's fast path) with its typed action.
static_assert(maxent::BatchedParticleModel<maxent::RescueVelocityWorld>);

TEST_CASE("the action boxes: [-2, 2] and [-1, 1]^2", "[pendulum][rescue-velocity]") {
    const maxent::ActionBox p = maxent::PendulumWorld().action_box();
    CHECK((p.lower == std::vector<double>{-2.0} && p.upper == std::vector<double>{2.0}));
    const maxent::ActionBox r = maxent::RescueVelocityWorld().action_box();
    CHECK((r.lower == std::vector<double>{-1.0, -1.0} && r.upper == std::vector<double>{1.0, 1.0}));
}

TEST_CASE("pendulum: one step is Gym's semi-implicit Euler step (hand-computed values)", "[pendulum]") {
    const maxent::PendulumWorld world;
    // ω' = 1 + (15 sin 0.5 + 3 · 1) · 0.05, θ' = 0.5 + 0.05 ω' (computed independently in Python).
    const maxent::PendulumState s = world.step({0.5, 1.0}, 1.0, 0.0);
    CHECK(s.omega == Approx(1.5095691539531524).epsilon(1e-14));
    CHECK(s.theta == Approx(0.5754784576976576).epsilon(1e-14));
    // The velocity noise enters as σ_p · e before the clip.
    const maxent::PendulumState n = world.step({0.5, 1.0}, 1.0, 2.0);
    CHECK(n.omega == Approx(1.5095691539531524 + 0.05 * 2.0).epsilon(1e-14));
    // -7.9 + (15 sin 3 - 6) · 0.05 = -8.094... is clipped to -8; θ = 3 - 0.4 = 2.6.
    const maxent::PendulumState c = world.step({3.0, -7.9}, -2.0, 0.0);
    CHECK(c.omega == -8.0);
    CHECK(c.theta == Approx(2.6).epsilon(1e-14));
    // Over the bottom: θ = π - 0.01 with ω = 1 wraps to -π + 0.04 (up to rounding).
    const maxent::PendulumState w = world.step({std::numbers::pi - 0.01, 1.0}, 0.0, 0.0);
    const double expected_omega = 1.0 + 15.0 * std::sin(std::numbers::pi - 0.01) * 0.05;
    CHECK(w.theta == Approx(-std::numbers::pi - 0.01 + 0.05 * expected_omega).margin(1e-12));
    CHECK(maxent::PendulumWorld::wrap(std::numbers::pi) == -std::numbers::pi);
    CHECK(maxent::PendulumWorld::wrap(-3.0 * std::numbers::pi + 0.5) == Approx(-std::numbers::pi + 0.5).margin(1e-12));
}

TEST_CASE("pendulum: the start hangs down, states stay in their box, draws follow the seed", "[pendulum]") {
    const maxent::PendulumWorld world;
    maxent::DefaultRng g = maxent::stream(3);
    for (int e = 0; e < 50; ++e) {
        maxent::DefaultRng h = g;
        maxent::PendulumState s = world.sample_initial_state(g);
        CHECK(std::abs(std::abs(s.theta) - std::numbers::pi) <= 0.1 + 1e-12);
        CHECK(std::abs(s.omega) <= 0.1);
        maxent::PendulumState t = world.sample_initial_state(h);
        CHECK((s.theta == t.theta && s.omega == t.omega));
        for (int k = 0; k < 100; ++k) {
            const double u = k % 2 == 0 ? 2.0 : -2.0;
            s = world.sample_next_state(s, u, g);
            t = world.sample_next_state(t, u, h);
            REQUIRE((s.theta == t.theta && s.omega == t.omega));
            REQUIRE(s.theta >= -std::numbers::pi);
            REQUIRE(s.theta < std::numbers::pi);
            REQUIRE(std::abs(s.omega) <= 8.0);
            REQUIRE(world.state_bin(s) < world.num_state_bins());
        }
    }
}

TEST_CASE("pendulum: bins, points and the sensor's log-density", "[pendulum]") {
    const maxent::PendulumWorld world;  // 12 angle bins x 8 speed bins
    CHECK(world.num_state_bins() == 96);
    CHECK(world.state_bin({-std::numbers::pi, -8.0}) == 0);
    CHECK(world.state_bin({std::numbers::pi - 1e-9, 8.0}) == 95);
    // θ = 0.1 is in angle bin floor((0.1 + π) / (2π) · 12) = 6; ω = -1 in floor(7 / 16 · 8) = 3.
    CHECK(world.state_bin({0.1, -1.0}) == 6 + 12 * 3);
    CHECK_THROWS_WITH(world.state_bin({0.0, 9.0}), Contains("(0, 9)"));
    std::array<double, 3> p{};
    maxent::PendulumWorld::state_point({std::numbers::pi / 2.0, -3.0}, p);
    CHECK(p[0] == Approx(0.0).margin(1e-15));
    CHECK(p[1] == 1.0);
    CHECK(p[2] == -3.0);
    // -|o - (cos θ, sin θ)|² / (2 · 0.2²) at θ = 0, o = (0.8, 0.3): -(0.04 + 0.09) / 0.08.
    CHECK(world.observation_log_likelihood(0.0, {0.8, 0.3}, {0.0, 5.0}) == Approx(-1.625).epsilon(1e-12));
    // The readings' mean and spread agree with the density (fixed seed, 20000 draws: the mean's
    // sd is 0.2 / sqrt(20000) = 0.0014, so 0.01 is 7 sd).
    maxent::DefaultRng g = maxent::stream(11);
    const maxent::PendulumState s{1.0, 0.0};
    double mx = 0.0, my = 0.0, vx = 0.0;
    const int n = 20000;
    for (int i = 0; i < n; ++i) {
        const auto o = world.sample_observation(0.0, s, g);
        mx += o[0];
        my += o[1];
        vx += (o[0] - std::cos(1.0)) * (o[0] - std::cos(1.0));
    }
    CHECK(mx / n == Approx(std::cos(1.0)).margin(0.01));
    CHECK(my / n == Approx(std::sin(1.0)).margin(0.01));
    CHECK(std::sqrt(vx / n) == Approx(0.2).margin(0.01));
}

TEST_CASE("pendulum: torques outside [-2, 2] and bad options are refused, naming the value", "[pendulum]") {
    const maxent::PendulumWorld world;
    maxent::DefaultRng g = maxent::stream(0);
    const maxent::PendulumState s{};
    CHECK_NOTHROW(world.sample_next_state(s, 2.0, g));
    CHECK_NOTHROW(world.sample_next_state(s, -2.0, g));
    CHECK_THROWS_AS(world.sample_next_state(s, 2.5, g), maxent::model_error);
    CHECK_THROWS_WITH(world.sample_next_state(s, 2.5, g), Contains("torque 2.5"));
    CHECK_THROWS_WITH(world.sample_next_state(s, std::numeric_limits<double>::quiet_NaN(), g), Contains("nan"));
    maxent::PendulumOptions o;
    o.sensor_noise = 0.0;
    CHECK_THROWS_WITH(maxent::PendulumWorld(o), Contains("sensor_noise 0"));
    o = {};
    o.start_speed = 9.0;
    CHECK_THROWS_WITH(maxent::PendulumWorld(o), Contains("start_speed 9"));
}

TEST_CASE("rescue velocity: unit velocities give the index world's moves, bit for bit", "[rescue-velocity]") {
    const maxent::RescueWorld index_world;  // the same map, step and noise as the velocity world's defaults
    const maxent::RescueVelocityWorld world;
    const std::array<std::array<double, 2>, 4> velocity{{{0.0, 1.0}, {0.0, -1.0}, {-1.0, 0.0}, {1.0, 0.0}}};
    maxent::DefaultRng g = maxent::stream(5), h = maxent::stream(5), pick = maxent::stream(6);
    maxent::RescueState s = index_world.sample_initial_state(g), t = world.sample_initial_state(h);
    REQUIRE((s.x == t.x && s.y == t.y));
    for (int k = 0; k < 2000; ++k) {
        const auto a = static_cast<std::size_t>(maxent::uniform_index(pick, 4));
        s = index_world.sample_next_state(s, a, g);
        t = world.sample_next_state(t, velocity[a], h);
        REQUIRE((s.x == t.x && s.y == t.y));
    }
}

TEST_CASE("rescue velocity: the batched step gives the bits of one state at a time", "[rescue-velocity]") {
    const maxent::RescueVelocityWorld world;
    maxent::DefaultRng g = maxent::stream(9);
    std::vector<maxent::RescueState> xs(700);  // more than two chunks of 256
    for (auto& x : xs) x = {maxent::uniform01(g), maxent::uniform01(g)};
    std::vector<maxent::RescueState> ys = xs;
    const std::array<double, 2> a{0.37, -0.81};
    maxent::DefaultRng g1 = maxent::stream(10), g2 = maxent::stream(10);
    world.sample_next_states(xs, a, g1);
    for (auto& y : ys) y = world.sample_next_state(y, a, g2);
    for (std::size_t i = 0; i < xs.size(); ++i) REQUIRE((xs[i].x == ys[i].x && xs[i].y == ys[i].y));
    CHECK(g1() == g2());  // the same number of draws
}

TEST_CASE("rescue velocity: walls stop the robot, borders clamp it, bad velocities are refused", "[rescue-velocity]") {
    maxent::RescueVelocityOptions o;
    o.world.motion.noise = 0.0;
    const maxent::RescueVelocityWorld world(o);
    maxent::DefaultRng g = maxent::stream(1);
    // (0.47, 0.1) + 0.06 · (1, 0.5) crosses x = 1/2 at y = 0.115, outside the doorways
    // (|y - 1/4| <= 0.06): blocked, the robot stays.
    const maxent::RescueState bumped = world.sample_next_state({0.47, 0.1}, {1.0, 0.5}, g);
    CHECK((bumped.x == 0.47 && bumped.y == 0.1));
    // Through the doorway at y = 1/4: it passes.
    const maxent::RescueState passed = world.sample_next_state({0.47, 0.25}, {1.0, 0.0}, g);
    CHECK(passed.x == Approx(0.53).epsilon(1e-14));
    // The outer wall: clamped at 0, and again and again (a robot pinned there crashes nothing).
    maxent::RescueState s{0.01, 0.3};
    for (int k = 0; k < 10; ++k) s = world.sample_next_state(s, {-1.0, 0.0}, g);
    CHECK((s.x == 0.0 && s.y == 0.3));
    CHECK(world.state_bin(s) == 0 + 10 * 3);
    CHECK_THROWS_AS(world.sample_next_state(s, {1.5, 0.0}, g), maxent::model_error);
    CHECK_THROWS_WITH(world.sample_next_state(s, {0.0, -1.01}, g), Contains("(0, -1.01)"));
    std::vector<maxent::RescueState> xs(3, s);
    CHECK_THROWS_WITH(world.sample_next_states(xs, {std::numeric_limits<double>::quiet_NaN(), 0.0}, g),
                      Contains("nan"));
    // The sensor is the range world's: the same log-density.
    const maxent::RescueRangeWorld range(o.world);
    const std::array<double, 4> reading{0.4, 0.2, 0.1, 0.3};
    CHECK(world.observation_log_likelihood({0.0, 0.0}, reading, {0.2, 0.7}) ==
          range.observation_log_likelihood(0, reading, {0.2, 0.7}));
}

}  // namespace test_control_worlds
