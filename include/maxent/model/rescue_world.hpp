// maxent/model/rescue_world.hpp — the continuous rescue world: the paper's motivating robot
// (Section 1: cover every inch of ground, sensing only through noisy sensors) as a
// simulator with continuous states, for particle beliefs (belief/particle_filter.hpp).
//
// The arena is the unit square split into four rooms by a wall at x = 1/2 and one at
// y = 1/2, each with two doorways of width `door` centred at 1/4 and 3/4. The robot starts
// uniformly in [start_lo, start_hi]^2 (the bottom-left room's corner). Actions 0 up, 1 down,
// 2 left, 3 right move it by `step` along that axis plus Gaussian noise of standard
// deviation `noise` on each axis; a move whose segment crosses a wall outside a doorway is
// blocked (the robot stays where it was), and the outer walls stop it at the border. Its
// sensor is coarse and noisy: it reports the cell of a k x k grid (k = sensor_cells) the
// robot is in with probability `accuracy`, otherwise a cell drawn uniformly from all k²
// (the right one included), so
//   Obs(o | s) = accuracy · [o = cell(s)] + (1 - accuracy) / k²     (any action)
// which observation_likelihood returns: the world satisfies GenerativePomdp and
// ObservationLikelihood (model/concepts.hpp). True states are counted through a binning,
// e.g. with_state_binning(world, n², RescueGridBinning{n}). A position outside the arena
// [0, 1]² (or NaN) given to cell() or a binning is a model_error naming it; the edges x = 1
// and y = 1 belong to the last cell.
// RescueRangeWorld: the same robot (arena 1 m x 1 m) with 4 beams reading the range in metres
// to the nearest wall, noise sd `range_noise`: observations std::array<double, 4>, weighed by
// their log-density, binned per beam (observation_bin), states as points (x, y) (state_point).
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <limits>
#include <span>

#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace maxent {

struct RescueState {
    double x = 0.0;
    double y = 0.0;
};

namespace detail {
/// Two independent standard normals by the polar method: (u, v) uniform in the unit disc
/// (rejection from the square, about 1.27 tries), then (u, v) · sqrt(-2 ln r² / r²).
template <class G>
[[nodiscard]] std::array<double, 2> normal_pair(G& g) {
    for (;;) {
        const double u = 2.0 * uniform01(g) - 1.0;
        const double v = 2.0 * uniform01(g) - 1.0;
        const double r2 = u * u + v * v;
        if (r2 >= 1.0 || r2 == 0.0) continue;
        const double f = std::sqrt(-2.0 * std::log(r2) / r2);
        return {u * f, v * f};
    }
}
[[noreturn, gnu::cold, gnu::noinline]] inline void outside_arena(const RescueState& s, const char* who) {
    throw model_error(message(who, ": position (", s.x, ", ", s.y, ") is outside the arena [0, 1] x [0, 1]"));
}
/// model_error naming a position outside the arena [0, 1]² (NaN included). The throw is out
/// of line so that the check inlines into the particle filter's loops.
inline void check_in_arena(const RescueState& s, const char* who) {
    if (!(s.x >= 0.0 && s.x <= 1.0 && s.y >= 0.0 && s.y <= 1.0)) [[unlikely]]
        outside_arena(s, who);
}
[[noreturn, gnu::cold, gnu::noinline]] inline void bad_per_side(std::size_t per_side) {
    throw config_error(message("RescueGridBinning: per_side ", per_side, " must be in [1, 2^32)"));
}
/// The batched step of the rescue worlds' particle filters: x <- move(x, n_x, n_y) for each
/// particle, with the standard normal pair (n_x, n_y) the polar method draws for it, in the
/// order sample_next_state draws them and with its arithmetic, so the same bits. Per chunk of
/// particles, the accepted pairs are drawn first (the rejections compacted without a branch),
/// then the logarithms, roots and moves run over the chunk with no draw in between.
template <class G, class Move>
void batched_polar_moves(std::span<RescueState> xs, G& g, Move&& move) {
    constexpr std::size_t chunk = 256;
    double u[chunk], v[chunk], r2[chunk], f[chunk];
    for (std::size_t start = 0; start < xs.size(); start += chunk) {
        const std::size_t m = std::min(chunk, xs.size() - start);
        for (std::size_t k = 0; k < m;) {
            const double uk = 2.0 * uniform01(g) - 1.0;
            const double vk = 2.0 * uniform01(g) - 1.0;
            const double rk = uk * uk + vk * vk;
            u[k] = uk;
            v[k] = vk;
            r2[k] = rk;
            k += static_cast<std::size_t>(rk < 1.0) & static_cast<std::size_t>(rk != 0.0);
        }
        // f = sqrt(-2 ln r² / r²) for the chunk: the logarithms back to back, then the
        // roots (correctly rounded, so the same bits however many lanes compute them).
        for (std::size_t k = 0; k < m; ++k) f[k] = std::log(r2[k]);
        std::size_t k = 0;
#if defined(__SSE2__)
        const __m128d minus_two = _mm_set1_pd(-2.0);
        for (; k + 2 <= m; k += 2)
            _mm_storeu_pd(f + k, _mm_sqrt_pd(_mm_div_pd(_mm_mul_pd(minus_two, _mm_loadu_pd(f + k)),
                                                        _mm_loadu_pd(r2 + k))));
#endif
        for (; k < m; ++k) f[k] = std::sqrt(-2.0 * f[k] / r2[k]);
        RescueState* x = xs.data() + start;
        for (k = 0; k < m; ++k) x[k] = move(x[k], u[k] * f[k], v[k] * f[k]);
    }
}
}  // namespace detail

struct RescueWorldOptions {
    std::size_t horizon = 100;
    double step = 0.06;             ///< move length per action, in (0, 1/2]
    double noise = 0.02;            ///< standard deviation of the motion noise per axis, >= 0
    double door = 0.12;             ///< width of each doorway, in (0, 1/4]
    std::size_t sensor_cells = 4;   ///< k: the sensor reads a cell of a k x k grid, k >= 1
    double accuracy = 0.7;          ///< probability that the reading is the true cell, in [0, 1]
    double start_lo = 0.02, start_hi = 0.12;  ///< s_1 uniform in [start_lo, start_hi]^2
};

class RescueWorld {
public:
    using state_type = RescueState;

    explicit RescueWorld(RescueWorldOptions o = {}) : o_(o), k_(static_cast<double>(o.sensor_cells)) {
        if (o.horizon == 0) throw config_error("RescueWorld: horizon 0");
        if (!(o.step > 0.0 && o.step <= 0.5))
            throw config_error(detail::message("RescueWorld: step ", o.step, " must be in (0, 0.5]"));
        if (!(o.noise >= 0.0) || !std::isfinite(o.noise))
            throw config_error(detail::message("RescueWorld: noise ", o.noise, " must be finite and >= 0"));
        if (!(o.door > 0.0 && o.door <= 0.25))
            throw config_error(detail::message("RescueWorld: door width ", o.door, " must be in (0, 0.25]"));
        if (o.sensor_cells == 0 || o.sensor_cells > 1000)
            throw config_error(detail::message("RescueWorld: sensor_cells ", o.sensor_cells, " must be in [1, 1000]"));
        if (!(o.accuracy >= 0.0 && o.accuracy <= 1.0))
            throw config_error(detail::message("RescueWorld: accuracy ", o.accuracy, " must be in [0, 1]"));
        if (!(o.start_lo >= 0.0 && o.start_lo <= o.start_hi && o.start_hi <= 1.0))
            throw config_error(detail::message("RescueWorld: the start square [", o.start_lo, ", ", o.start_hi,
                                               "] must lie in [0, 1]"));
        floor_ = (1.0 - o.accuracy) / (k_ * k_);
    }

    [[nodiscard]] std::size_t num_actions() const noexcept { return 4; }
    [[nodiscard]] std::size_t num_observations() const noexcept { return o_.sensor_cells * o_.sensor_cells; }
    [[nodiscard]] std::size_t horizon() const noexcept { return o_.horizon; }
    [[nodiscard]] const RescueWorldOptions& options() const noexcept { return o_; }

    template <class G>
    [[nodiscard]] RescueState sample_initial_state(G& g) const {
        const double width = o_.start_hi - o_.start_lo;
        const double x = o_.start_lo + width * uniform01(g);
        return {x, o_.start_lo + width * uniform01(g)};
    }
    template <class G>
    [[nodiscard]] std::size_t sample_initial_observation(const RescueState& s, G& g) const {
        return sense(s, g);
    }
    /// The noise of both axes is one pair of independent standard normals (Marsaglia's polar
    /// method: no trigonometry, one logarithm per pair; the particle filter draws it for
    /// every particle at every step).
    template <class G>
    [[nodiscard]] RescueState sample_next_state(const RescueState& s, std::size_t a, G& g) const {
        const auto [nx, ny] = detail::normal_pair(g);
        return move(s, a, nx, ny);
    }
    /// The particle filter's batched step (BatchedParticleModel, belief/particle_filter.hpp):
    /// xs[i] <- sample_next_state(xs[i], a, g) for i = 0, 1, ..., the same draws in the same
    /// order and the same arithmetic, so the same bits (detail::batched_polar_moves).
    template <class G>
    void sample_next_states(std::span<RescueState> xs, std::size_t a, G& g) const {
        detail::batched_polar_moves(xs, g,
                                    [&](const RescueState& s, double nx, double ny) { return move(s, a, nx, ny); });
    }
    template <class G>
    [[nodiscard]] std::size_t sample_observation(std::size_t /*a*/, const RescueState& s, G& g) const {
        return sense(s, g);
    }
    /// Obs(o | s, a) (the same for every action).
    [[nodiscard]] double observation_likelihood(std::size_t /*a*/, std::size_t o, const RescueState& s) const {
        return (o == cell(s) ? o_.accuracy : 0.0) + floor_;
    }
    /// out[i] = observation_likelihood(a, o, xs[i]) (the particle filter's batched weights).
    void observation_likelihoods(std::size_t a, std::size_t o, std::span<const RescueState> xs,
                                 std::span<double> out) const {
        for (std::size_t i = 0; i < xs.size(); ++i) out[i] = observation_likelihood(a, o, xs[i]);
    }

    /// The sensor cell of a position: ix + k·iy on the k x k grid.
    [[nodiscard]] std::size_t cell(const RescueState& s) const {
        detail::check_in_arena(s, "RescueWorld::cell");
        const std::size_t k = o_.sensor_cells;
        const auto ix = std::min(k - 1, static_cast<std::size_t>(s.x * k_));
        const auto iy = std::min(k - 1, static_cast<std::size_t>(s.y * k_));
        return ix + k * iy;
    }
    /// Whether the straight move from -> to crosses an inner wall outside its doorways.
    [[nodiscard]] bool blocked(const RescueState& from, const RescueState& to) const noexcept {
        return crosses(from.x, to.x, from.y, to.y) || crosses(from.y, to.y, from.x, to.x);
    }
    /// Whether a coordinate along a wall at 1/2 lies in one of its doorways.
    [[nodiscard]] bool in_doorway(double along) const noexcept {
        const double h = 0.5 * o_.door;
        return std::abs(along - 0.25) <= h || std::abs(along - 0.75) <= h;
    }

private:
    /// s moved by action a with standard normal noise (nx, ny), clamped to the arena, or s
    /// itself when the move crosses a wall outside a doorway.
    [[nodiscard]] RescueState move(const RescueState& s, std::size_t a, double nx, double ny) const noexcept {
        const double dx = (a == 3 ? o_.step : a == 2 ? -o_.step : 0.0) + o_.noise * nx;
        const double dy = (a == 0 ? o_.step : a == 1 ? -o_.step : 0.0) + o_.noise * ny;
        const RescueState to{std::clamp(s.x + dx, 0.0, 1.0), std::clamp(s.y + dy, 0.0, 1.0)};
        return blocked(s, to) ? s : to;
    }

    /// Crossing of the wall {u = 1/2} by the segment (u0, v0) -> (u1, v1) outside a doorway.
    [[nodiscard]] bool crosses(double u0, double u1, double v0, double v1) const noexcept {
        if ((u0 < 0.5) == (u1 < 0.5)) return false;
        const double t = (0.5 - u0) / (u1 - u0);
        return !in_doorway(v0 + t * (v1 - v0));
    }

    template <class G>
    [[nodiscard]] std::size_t sense(const RescueState& s, G& g) const {
        if (uniform01(g) < o_.accuracy) return cell(s);
        return static_cast<std::size_t>(uniform_index(g, num_observations()));
    }

    RescueWorldOptions o_;
    double k_;
    double floor_ = 0.0;
};

/// The bin of a position in an n x n grid of the square (ix + n·iy): for with_state_binning
/// and for a particle filter's belief bins. per_side in [1, 2^32) (so n² bins fit a size_t).
struct RescueGridBinning {
    std::size_t per_side;
    [[nodiscard]] std::size_t operator()(const RescueState& s) const {
        if (per_side == 0 || per_side > 0xffffffffU) [[unlikely]]
            detail::bad_per_side(per_side);
        detail::check_in_arena(s, "RescueGridBinning");
        const auto n = static_cast<double>(per_side);
        const auto ix = std::min(per_side - 1, static_cast<std::size_t>(s.x * n));
        const auto iy = std::min(per_side - 1, static_cast<std::size_t>(s.y * n));
        return ix + per_side * iy;
    }
};

/// A state's position, for the grid feature maps (belief/state_features.hpp).
struct RescuePosition {
    [[nodiscard]] std::array<double, 2> operator()(const RescueState& s) const noexcept { return {s.x, s.y}; }
};

struct RescueRangeOptions {
    RescueWorldOptions motion{};  ///< horizon, step, motion noise, doors, start (the sensor fields are unused)
    double range_noise = 0.05;    ///< sd of each beam's reading, in metres, > 0
    double reading_bin = 0.25;    ///< width of a reading's bin for binned MOE, in metres, > 0
};

class RescueRangeWorld {
public:
    static constexpr std::size_t beams = 4;
    using state_type = RescueState;
    using observation_type = std::array<double, beams>;

    explicit RescueRangeWorld(RescueRangeOptions o = {}) : o_(o), motion_(o.motion) {
        if (!(o.range_noise > 0.0) || !std::isfinite(o.range_noise))
            throw config_error(detail::message("RescueRangeWorld: range_noise ", o.range_noise,
                                               " must be finite and > 0"));
        if (!(o.reading_bin > 0.0) || !std::isfinite(o.reading_bin))
            throw config_error(detail::message("RescueRangeWorld: reading_bin ", o.reading_bin,
                                               " must be finite and > 0"));
        // A reading beyond sqrt(2) m (plus 4 sd) falls in the last bin; below 0 in the first.
        per_beam_ = static_cast<std::size_t>(std::ceil((std::sqrt(2.0) + 4.0 * o.range_noise) / o.reading_bin)) + 1;
        if (per_beam_ > 64)
            throw config_error(detail::message("RescueRangeWorld: reading_bin ", o.reading_bin,
                                               " m gives more than 64 bins per beam (64^4 observation bins)"));
        inverse_variance_ = 1.0 / (o.range_noise * o.range_noise);
    }

    [[nodiscard]] std::size_t num_actions() const noexcept { return 4; }
    [[nodiscard]] std::size_t horizon() const noexcept { return motion_.horizon(); }
    [[nodiscard]] const RescueRangeOptions& options() const noexcept { return o_; }
    [[nodiscard]] const RescueWorld& motion() const noexcept { return motion_; }

    template <class G>
    [[nodiscard]] RescueState sample_initial_state(G& g) const {
        return motion_.sample_initial_state(g);
    }
    template <class G>
    [[nodiscard]] RescueState sample_next_state(const RescueState& s, std::size_t a, G& g) const {
        return motion_.sample_next_state(s, a, g);
    }
    /// The particle filter's batched step: RescueWorld::sample_next_states (the same bits as
    /// sample_next_state particle by particle).
    template <class G>
    void sample_next_states(std::span<RescueState> xs, std::size_t a, G& g) const {
        motion_.sample_next_states(xs, a, g);
    }
    template <class G>
    [[nodiscard]] observation_type sample_initial_observation(const RescueState& s, G& g) const {
        return sample_observation(0, s, g);
    }
    template <class G>
    [[nodiscard]] observation_type sample_observation(std::size_t /*a*/, const RescueState& s, G& g) const {
        const observation_type r = ranges(s);
        observation_type o;
        for (std::size_t j = 0; j < beams; j += 2) {
            const std::array<double, 2> n = detail::normal_pair(g);
            o[j] = r[j] + o_.range_noise * n[0];
            o[j + 1] = r[j + 1] + o_.range_noise * n[1];
        }
        return o;
    }
    /// log Obs(o | s) up to a constant: -Σ_j (o_j - r_j(s))² / (2 σ²).
    [[nodiscard]] double observation_log_likelihood(std::size_t /*a*/, const observation_type& o,
                                                    const RescueState& s) const noexcept {
        const observation_type r = ranges(s);
        double q = 0.0;
        for (std::size_t j = 0; j < beams; ++j) {
            const double e = o[j] - r[j];
            q += e * e;
        }
        return -0.5 * inverse_variance_ * q;
    }
    /// out[i] = observation_log_likelihood(a, o, xs[i]) (the particle filter's batched weights).
    void observation_log_likelihoods(std::size_t a, const observation_type& o, std::span<const RescueState> xs,
                                     std::span<double> out) const noexcept {
        for (std::size_t i = 0; i < xs.size(); ++i) out[i] = observation_log_likelihood(a, o, xs[i]);
    }

    /// Binned readings (binned MOE): each beam in reading_bin m bins, the first holding
    /// negative readings and the last everything beyond; the bin is Σ_j bin_j · B^j.
    [[nodiscard]] std::size_t num_observations() const noexcept {
        return per_beam_ * per_beam_ * per_beam_ * per_beam_;
    }
    [[nodiscard]] std::size_t observation_bin(const observation_type& o) const noexcept {
        std::size_t bin = 0;
        for (std::size_t j = beams; j-- > 0;) {
            const double u = o[j] / o_.reading_bin;
            const std::size_t b = u > 0.0 ? std::min(per_beam_ - 1, static_cast<std::size_t>(u) + 1) : 0;
            bin = bin * per_beam_ + b;
        }
        return bin;
    }

    /// The true state as a point of R^2 (kNN MSE).
    [[nodiscard]] static constexpr std::size_t state_point_dimension() noexcept { return 2; }
    static void state_point(const RescueState& s, std::span<double> out) noexcept {
        out[0] = s.x;
        out[1] = s.y;
    }

    /// The noiseless ranges from s along the beams (right, up, left, down) to the nearest wall.
    [[nodiscard]] observation_type ranges(const RescueState& s) const noexcept {
        // Outer walls, then the inner wall across the beam's axis when the beam crosses it
        // outside a doorway (the walls along the beam's axis never stop it).
        observation_type r{1.0 - s.x, 1.0 - s.y, s.x, s.y};
        if (s.x < 0.5 && !motion_.in_doorway(s.y)) r[0] = 0.5 - s.x;
        if (s.x > 0.5 && !motion_.in_doorway(s.y)) r[2] = s.x - 0.5;
        if (s.y < 0.5 && !motion_.in_doorway(s.x)) r[1] = 0.5 - s.y;
        if (s.y > 0.5 && !motion_.in_doorway(s.x)) r[3] = s.y - 0.5;
        return r;
    }

private:

    RescueRangeOptions o_;
    RescueWorld motion_;
    std::size_t per_beam_ = 1;
    double inverse_variance_ = 1.0;
};

}  // namespace maxent
