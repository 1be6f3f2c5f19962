// A user's program: a robot in a 5 m x 5 m room that bumps into the walls (a move into a wall
// leaves it where it is), read through noisy (x, y) fixes, filtered by particles, and its
// uniform policy evaluated with evaluate_uniform's defaults. Its true positions repeat
// whenever it bumps, and evaluate counts them as points by kNN; the program checks that the
// call completes with finite numbers and that the result names how ties were counted.
// (tests/CMakeLists.txt runs it as journey.evaluate_bumping_robot_cpp.)
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <iostream>
#include <span>

#include "maxent/belief/particle_filter.hpp"
#include "maxent/core/random.hpp"
#include "maxent/optim/evaluate.hpp"

struct Room {
    using state_type = std::array<double, 2>;
    using observation_type = std::array<double, 2>;
    static constexpr double size = 4.0;  // positions 0, 1, .., 4 on each axis
    static constexpr double noise = 0.2;

    std::size_t num_actions() const { return 4; }  // up, down, left, right
    std::size_t horizon() const { return 30; }
    template <class G>
    state_type sample_initial_state(G&) const {
        return {0.0, 0.0};  // the robot starts in a corner
    }
    template <class G>
    observation_type sample_initial_observation(const state_type& s, G& g) const {
        return sample_observation(0, s, g);
    }
    template <class G>
    state_type sample_next_state(const state_type& s, std::size_t a, G&) const {
        const double dx = a == 3 ? 1.0 : (a == 2 ? -1.0 : 0.0);
        const double dy = a == 0 ? 1.0 : (a == 1 ? -1.0 : 0.0);
        return {std::clamp(s[0] + dx, 0.0, size), std::clamp(s[1] + dy, 0.0, size)};  // walls stop it
    }
    template <class G>
    observation_type sample_observation(std::size_t, const state_type& s, G& g) const {
        return {s[0] + noise * maxent::standard_normal(g), s[1] + noise * maxent::standard_normal(g)};
    }
    double observation_likelihood(std::size_t, const observation_type& o, const state_type& s) const {
        const double rx = (o[0] - s[0]) / noise, ry = (o[1] - s[1]) / noise;
        return std::exp(-0.5 * (rx * rx + ry * ry));
    }
    std::size_t num_state_bins() const { return 25; }
    std::size_t state_bin(const state_type& s) const {
        return static_cast<std::size_t>(s[0]) + 5 * static_cast<std::size_t>(s[1]);
    }
    std::size_t state_point_dimension() const { return 2; }
    void state_point(const state_type& s, std::span<double> out) const {
        out[0] = s[0];
        out[1] = s[1];
    }
};

int main() {
    const Room room;
    maxent::DefaultRng g = maxent::stream(1);
    const maxent::ParticleFilter filter(room, 25, [&](const Room::state_type& s) { return room.state_bin(s); },
                                        maxent::ParticleFilterOptions{.particles = 100}, g);
    const maxent::Evaluation e = maxent::evaluate_uniform(room, filter, {.episodes = 50, .seed = 7});

    std::cout << "true-state entropy (bins):  " << e.true_entropy.mean << " [" << e.true_entropy.low << ", "
              << e.true_entropy.high << "]\n"
              << "true-state entropy (kNN):   " << e.true_entropy_knn.mean << " [" << e.true_entropy_knn.low << ", "
              << e.true_entropy_knn.high << "] nats, k = " << e.knn_k << "\n"
              << "observation entropy (" << e.observation_entropy_estimator << "): " << e.observation_entropy.mean
              << "\n"
              << "ties: rule " << e.knn_rule << ", resolution " << e.knn_resolution_low << " .. "
              << e.knn_resolution_high << ", " << e.knn_floored << " points at it\n";

    const bool finite = std::isfinite(e.true_entropy.mean) && std::isfinite(e.true_entropy_knn.mean) &&
                        std::isfinite(e.true_entropy_knn.low) && std::isfinite(e.true_entropy_knn.high) &&
                        std::isfinite(e.observation_entropy.mean);
    if (!finite || e.knn_rule != "scale" || e.knn_floored == 0 || !(e.knn_resolution_low > 0.0)) {
        std::cerr << "unexpected evaluation\n";
        return 1;
    }
    return 0;
}
