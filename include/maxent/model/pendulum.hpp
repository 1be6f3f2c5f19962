// maxent/model/pendulum.hpp — a partially observed pendulum with a continuous torque: the
// classic swing-up pendulum (Gym's Pendulum: g = 10, m = l = 1, dt = 0.05, speed clipped to
// ±8 rad/s, torque u in [-2, 2]), as the continuous-control worlds of state-entropy work use it,
// with the velocity never observed and the angle seen only through a noisy reading of the tip.
//
// State (θ, ω): θ in [-π, π) measured from upright (θ = ±π hangs down), ω = θ' in [-8, 8].
// One step (Gym's semi-implicit Euler, plus process noise so that a particle filter's
// particles stay distinct):
//   ω' = clip(ω + (3g/(2l) sin θ + 3/(m l²) u) dt + σ_p ε, -8, 8),   θ' = wrap(θ + ω' dt)
// with ε standard normal. u = 2 cannot lift the pendulum (3u = 6 < 3g/2 = 15): it must pump
// energy, swinging back and forth, to reach the top, so spreading the visited states over the
// phase plane takes a policy that reads the phase. s_1: hanging, θ uniform in π ± start_angle,
// ω uniform in ± start_speed.
// Sensor: the tip's position relative to the pivot, (cos θ, sin θ), plus independent Gaussian
// noise of sd σ_o on each coordinate; observations std::array<double, 2>, weighed by their
// log-density (observation_log_likelihood, up to a constant). ω is never read.
// Defaults: T = 100 (5 s: a pumping policy swings over the top within it, the uniform policy
// stays near the bottom), σ_p = 0.05 rad/s per step, σ_o = 0.2.
// True states are counted by bins (θ in angle_bins x ω in speed_bins equal cells:
// num_state_bins / state_bin) or by kNN over the points (cos θ, sin θ, ω) (state_point).
// Actions: `action_type = double`, the torque, in the closed box [-max_torque, max_torque]; a
// torque outside it (or NaN) is a model_error naming it (nothing is clamped).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <numbers>
#include <span>
#include <vector>

#include "maxent/core/actions.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

struct PendulumState {
    double theta = std::numbers::pi;  ///< angle from upright, in [-π, π)
    double omega = 0.0;               ///< angular velocity, in [-max_speed, max_speed]
};

struct PendulumOptions {
    std::size_t horizon = 100;
    double max_torque = 2.0;     ///< the torque box [-max_torque, max_torque], > 0
    double max_speed = 8.0;      ///< ω is clipped to ±max_speed, > 0
    double dt = 0.05;            ///< seconds per step, > 0
    double gravity = 10.0, mass = 1.0, length = 1.0;
    double process_noise = 0.05; ///< σ_p: sd of the velocity's noise per step (rad/s), >= 0
    double sensor_noise = 0.2;   ///< σ_o: sd of each coordinate of the tip's reading, > 0
    double start_angle = 0.1;    ///< θ_1 uniform in π ± start_angle (wrapped), in [0, π]
    double start_speed = 0.1;    ///< ω_1 uniform in ± start_speed, in [0, max_speed]
    std::size_t angle_bins = 12, speed_bins = 8;  ///< the true-state bins, each >= 1
};

/// The cell of (θ, ω) in an angle_bins x speed_bins grid of [-π, π) x [-max_speed, max_speed]:
/// ia + angle_bins · iω (for the world's state_bin and a particle filter's belief bins). A
/// state outside the grid (or NaN) is a model_error naming it.
struct PendulumGridBinning {
    std::size_t angle_bins = 12, speed_bins = 8;
    double max_speed = 8.0;
    [[nodiscard]] std::size_t operator()(const PendulumState& s) const {
        constexpr double pi = std::numbers::pi;
        if (!(s.theta >= -pi && s.theta <= pi && std::abs(s.omega) <= max_speed)) [[unlikely]]
            throw model_error(detail::message("PendulumGridBinning: state (", s.theta, ", ", s.omega,
                                              ") is outside [-pi, pi] x [", -max_speed, ", ", max_speed, "]"));
        const auto a = static_cast<double>(angle_bins), v = static_cast<double>(speed_bins);
        const auto ia = std::min(angle_bins - 1, static_cast<std::size_t>((s.theta + pi) / (2.0 * pi) * a));
        const auto iv = std::min(speed_bins - 1, static_cast<std::size_t>((s.omega + max_speed) / (2.0 * max_speed) * v));
        return ia + angle_bins * iv;
    }
};

/// A state's phase (θ, ω), for the grid feature maps (belief/state_features.hpp) over the box
/// [-π, π] x [-max_speed, max_speed].
struct PendulumPhase {
    [[nodiscard]] std::array<double, 2> operator()(const PendulumState& s) const noexcept { return {s.theta, s.omega}; }
};

class PendulumWorld {
public:
    using state_type = PendulumState;
    using action_type = double;
    using observation_type = std::array<double, 2>;

    explicit PendulumWorld(PendulumOptions o = {}) : o_(o) {
        const auto positive = [](double v, const char* name) {
            if (!(v > 0.0) || !std::isfinite(v))
                throw config_error(detail::message("PendulumWorld: ", name, " ", v, " must be finite and > 0"));
        };
        if (o.horizon == 0) throw config_error("PendulumWorld: horizon 0");
        positive(o.max_torque, "max_torque");
        positive(o.max_speed, "max_speed");
        positive(o.dt, "dt");
        positive(o.gravity, "gravity");
        positive(o.mass, "mass");
        positive(o.length, "length");
        positive(o.sensor_noise, "sensor_noise");
        if (!(o.process_noise >= 0.0) || !std::isfinite(o.process_noise))
            throw config_error(detail::message("PendulumWorld: process_noise ", o.process_noise, " must be finite and >= 0"));
        if (!(o.start_angle >= 0.0 && o.start_angle <= std::numbers::pi))
            throw config_error(detail::message("PendulumWorld: start_angle ", o.start_angle, " must be in [0, pi]"));
        if (!(o.start_speed >= 0.0 && o.start_speed <= o.max_speed))
            throw config_error(detail::message("PendulumWorld: start_speed ", o.start_speed, " must be in [0, max_speed ",
                                               o.max_speed, "]"));
        if (o.angle_bins == 0 || o.speed_bins == 0 || o.angle_bins > 100000 || o.speed_bins > 100000)
            throw config_error(detail::message("PendulumWorld: ", o.angle_bins, " x ", o.speed_bins,
                                               " state bins; each count must be in [1, 100000]"));
        gravity_term_ = 3.0 * o.gravity / (2.0 * o.length);
        torque_term_ = 3.0 / (o.mass * o.length * o.length);
        inverse_variance_ = 1.0 / (o.sensor_noise * o.sensor_noise);
    }

    [[nodiscard]] std::size_t horizon() const noexcept { return o_.horizon; }
    [[nodiscard]] const PendulumOptions& options() const noexcept { return o_; }
    [[nodiscard]] ActionBox action_box() const { return ActionBox{{-o_.max_torque}, {o_.max_torque}}; }

    template <class G>
    [[nodiscard]] PendulumState sample_initial_state(G& g) const {
        const double theta = std::numbers::pi + o_.start_angle * (2.0 * uniform01(g) - 1.0);
        const double omega = o_.start_speed * (2.0 * uniform01(g) - 1.0);
        return {wrap(theta), omega};
    }
    template <class G>
    [[nodiscard]] observation_type sample_initial_observation(const PendulumState& s, G& g) const {
        return sense(s, g);
    }
    template <class G>
    [[nodiscard]] PendulumState sample_next_state(const PendulumState& s, double u, G& g) const {
        check_torque(u);
        const double e = o_.process_noise > 0.0 ? standard_normal(g) : 0.0;
        return step(s, u, e);
    }
    template <class G>
    [[nodiscard]] observation_type sample_observation(double /*u*/, const PendulumState& s, G& g) const {
        return sense(s, g);
    }
    /// log Obs(o | s) up to a constant: -|o - (cos θ, sin θ)|² / (2 σ_o²).
    [[nodiscard]] double observation_log_likelihood(double /*u*/, const observation_type& o,
                                                    const PendulumState& s) const noexcept {
        const double ex = o[0] - std::cos(s.theta), ey = o[1] - std::sin(s.theta);
        return -0.5 * inverse_variance_ * (ex * ex + ey * ey);
    }

    /// The noiseless step: (θ, ω) under torque u with the velocity noise σ_p · e (e standard normal).
    [[nodiscard]] PendulumState step(const PendulumState& s, double u, double e) const noexcept {
        double omega = s.omega + (gravity_term_ * std::sin(s.theta) + torque_term_ * u) * o_.dt + o_.process_noise * e;
        omega = std::min(o_.max_speed, std::max(-o_.max_speed, omega));
        return {wrap(s.theta + omega * o_.dt), omega};
    }
    /// θ wrapped into [-π, π).
    [[nodiscard]] static double wrap(double theta) noexcept {
        constexpr double pi = std::numbers::pi;
        double t = std::fmod(theta + pi, 2.0 * pi);
        if (t < 0.0) t += 2.0 * pi;
        const double w = t - pi;
        return w >= pi ? -pi : w;
    }

    // --- counting the true states -----------------------------------------------------------
    [[nodiscard]] std::size_t num_state_bins() const noexcept { return o_.angle_bins * o_.speed_bins; }
    [[nodiscard]] std::size_t state_bin(const PendulumState& s) const { return binning()(s); }
    [[nodiscard]] PendulumGridBinning binning() const noexcept {
        return {o_.angle_bins, o_.speed_bins, o_.max_speed};
    }
    /// The true state as the point (cos θ, sin θ, ω) of R^3 (kNN MSE).
    [[nodiscard]] static constexpr std::size_t state_point_dimension() noexcept { return 3; }
    static void state_point(const PendulumState& s, std::span<double> out) noexcept {
        out[0] = std::cos(s.theta);
        out[1] = std::sin(s.theta);
        out[2] = s.omega;
    }

private:
    void check_torque(double u) const {
        if (!(u >= -o_.max_torque && u <= o_.max_torque)) [[unlikely]]
            throw model_error(detail::message("PendulumWorld: torque ", u, " is outside the action box [",
                                              -o_.max_torque, ", ", o_.max_torque, "]"));
    }
    template <class G>
    [[nodiscard]] observation_type sense(const PendulumState& s, G& g) const {
        const double nx = standard_normal(g), ny = standard_normal(g);
        return {std::cos(s.theta) + o_.sensor_noise * nx, std::sin(s.theta) + o_.sensor_noise * ny};
    }

    PendulumOptions o_;
    double gravity_term_ = 15.0, torque_term_ = 3.0, inverse_variance_ = 25.0;
};

}  // namespace maxent
