// maxent/model/rescue_velocity.hpp — the rescue robot (model/rescue_world.hpp: four rooms,
// doorways, the 4-beam range sensor) steered by a bounded velocity vector instead of the
// four index moves: RescueVelocityWorld.
//
// Action a = (a_x, a_y) in the box [-1, 1]² (`action_type = std::array<double, 2>`): the
// velocity as a fraction of the top speed `step` per axis, so a = (1, 0) is the index world's
// "right". One step moves the robot from s to
//   to = clamp(s + step · a + noise · (ε_x, ε_y), 0, 1)      (ε standard normal)
// unless the straight segment s -> to crosses an inner wall outside its doorways
// (RescueWorld::blocked), in which case it stays at s: a robot driven into a wall bumps and
// stays, whatever the velocity. The sensor is RescueRangeWorld's (ranges in metres to the
// nearest wall along 4 beams, Gaussian noise; log-density weights); the motion's draws are
// the index world's (the polar method's pairs, batched for the particle filter with the
// same bits as one state at a time). An action outside the box (or NaN) is a model_error
// naming it; nothing is clamped. True states are counted in an n x n grid (state_bin) or as
// the points (x, y) (state_point, kNN).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <span>

#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/rescue_world.hpp"

#include "maxent/core/actions.hpp"

namespace maxent {

struct RescueVelocityOptions {
    RescueRangeOptions world{};      ///< the map, top speed (motion.step), motion noise, start, sensor
    std::size_t bins_per_side = 10;  ///< the true-state grid (state_bin), in [1, 2^16]
};

class RescueVelocityWorld {
public:
    using state_type = RescueState;
    using action_type = std::array<double, 2>;
    using observation_type = RescueRangeWorld::observation_type;

    explicit RescueVelocityWorld(RescueVelocityOptions o = {}) : o_(o), sensor_(o.world) {
        if (o.bins_per_side == 0 || o.bins_per_side > 65536)
            throw config_error(detail::message("RescueVelocityWorld: bins_per_side ", o.bins_per_side,
                                               " must be in [1, 65536]"));
    }

    [[nodiscard]] std::size_t horizon() const noexcept { return sensor_.horizon(); }
    [[nodiscard]] const RescueVelocityOptions& options() const noexcept { return o_; }
    [[nodiscard]] const RescueRangeWorld& sensor() const noexcept { return sensor_; }
    [[nodiscard]] const RescueWorld& map() const noexcept { return sensor_.motion(); }
    [[nodiscard]] ActionBox action_box() const { return ActionBox{{-1.0, -1.0}, {1.0, 1.0}}; }

    template <class G>
    [[nodiscard]] RescueState sample_initial_state(G& g) const {
        return sensor_.sample_initial_state(g);
    }
    template <class G>
    [[nodiscard]] RescueState sample_next_state(const RescueState& s, const action_type& a, G& g) const {
        check_action(a);
        const auto [nx, ny] = detail::normal_pair(g);
        return move(s, a, nx, ny);
    }
    /// The particle filter's batched step: xs[i] <- sample_next_state(xs[i], a, g) for i = 0,
    /// 1, ..., the same draws in the same order and the same arithmetic (so the same bits),
    /// through the rescue worlds' detail::batched_polar_moves.
    template <class G>
    void sample_next_states(std::span<RescueState> xs, const action_type& a, G& g) const {
        check_action(a);
        detail::batched_polar_moves(xs, g,
                                    [&](const RescueState& s, double nx, double ny) { return move(s, a, nx, ny); });
    }
    template <class G>
    [[nodiscard]] observation_type sample_initial_observation(const RescueState& s, G& g) const {
        return sensor_.sample_initial_observation(s, g);
    }
    template <class G>
    [[nodiscard]] observation_type sample_observation(const action_type& /*a*/, const RescueState& s, G& g) const {
        return sensor_.sample_observation(0, s, g);
    }
    /// log Obs(o | s) up to a constant (RescueRangeWorld's; the action is not read).
    [[nodiscard]] double observation_log_likelihood(const action_type& /*a*/, const observation_type& o,
                                                    const RescueState& s) const noexcept {
        return sensor_.observation_log_likelihood(0, o, s);
    }
    /// out[i] = observation_log_likelihood(a, o, xs[i]) (the particle filter's batched weights).
    void observation_log_likelihoods(const action_type& /*a*/, const observation_type& o,
                                     std::span<const RescueState> xs, std::span<double> out) const noexcept {
        sensor_.observation_log_likelihoods(0, o, xs, out);
    }

    // --- counting the true states -----------------------------------------------------------
    [[nodiscard]] std::size_t num_state_bins() const noexcept { return o_.bins_per_side * o_.bins_per_side; }
    [[nodiscard]] std::size_t state_bin(const RescueState& s) const { return RescueGridBinning{o_.bins_per_side}(s); }
    [[nodiscard]] static constexpr std::size_t state_point_dimension() noexcept { return 2; }
    static void state_point(const RescueState& s, std::span<double> out) noexcept {
        out[0] = s.x;
        out[1] = s.y;
    }

    /// s moved by velocity a with standard normal noise (nx, ny), clamped to the arena, or s
    /// itself when the move crosses an inner wall outside a doorway.
    [[nodiscard]] RescueState move(const RescueState& s, const action_type& a, double nx, double ny) const noexcept {
        const RescueWorldOptions& m = o_.world.motion;
        // As RescueWorld's move: the displacement first, so that a = ±e_x, ±e_y gives its bits.
        const double dx = m.step * a[0] + m.noise * nx;
        const double dy = m.step * a[1] + m.noise * ny;
        const RescueState to{std::clamp(s.x + dx, 0.0, 1.0), std::clamp(s.y + dy, 0.0, 1.0)};
        return map().blocked(s, to) ? s : to;
    }

private:
    static void check_action(const action_type& a) {
        if (!(a[0] >= -1.0 && a[0] <= 1.0 && a[1] >= -1.0 && a[1] <= 1.0)) [[unlikely]]
            throw model_error(detail::message("RescueVelocityWorld: velocity (", a[0], ", ", a[1],
                                              ") is outside the action box [-1, 1] x [-1, 1]"));
    }

    RescueVelocityOptions o_;
    RescueRangeWorld sensor_;
};

}  // namespace maxent
