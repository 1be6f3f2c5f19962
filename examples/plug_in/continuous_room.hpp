// examples/plug_in/continuous_room.hpp — a user's own simulator and a user's own belief
// model, plugged into maxent with no change to the library (docs/architecture.md, "Plug in
// your simulator" and "Plug in your own belief model").
//
// The world: a point robot in the unit square [0, 1]^2. Each of the four actions (up, down,
// left, right) moves it by `step` in that direction plus Gaussian noise of standard
// deviation `noise` on each axis; the walls clip it back into the square. It starts near the
// bottom-left corner. A noisy four-way sensor reports the quadrant it is in (0: x < 1/2,
// y < 1/2; 1: x >= 1/2, y < 1/2; 2: x < 1/2, y >= 1/2; 3: x >= 1/2, y >= 1/2), right with
// probability `accuracy`, otherwise one of the three other quadrants uniformly. The state is
// a struct of two doubles: nothing is enumerated, no probability is given to the library.
// True states are counted in a `bins` x `bins` grid of the square (square_binning).
//
// The agent: a histogram filter over a coarse `cells` x `cells` grid of the square, the
// agent's own approximate model of the world (it never sees the true point): a move reaches
// the neighbouring cell with probability step / cell width (or stays, at a wall or
// otherwise), and the sensor's likelihood is evaluated at the cell centre. Its belief has
// cells^2 entries, whatever the world's state space is.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <random>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"

namespace plug_in {

struct Point {
    double x = 0.0;
    double y = 0.0;
};

/// Quadrant of a point: 0 bottom-left, 1 bottom-right, 2 top-left, 3 top-right.
[[nodiscard]] inline std::size_t quadrant(double x, double y) {
    return (x >= 0.5 ? 1U : 0U) + (y >= 0.5 ? 2U : 0U);
}

class ContinuousRoom {
public:
    using state_type = Point;

    ContinuousRoom(std::size_t horizon, double step = 0.1, double noise = 0.02, double accuracy = 0.85)
        : horizon_(horizon), step_(step), noise_(noise), accuracy_(accuracy) {
        if (horizon == 0) throw maxent::config_error("ContinuousRoom: horizon 0");
        if (!(step >= 0.0 && step <= 1.0) || !(noise >= 0.0) || !std::isfinite(noise) ||
            !(accuracy >= 0.0 && accuracy <= 1.0))
            throw maxent::config_error(maxent::detail::message("ContinuousRoom: step ", step, " must be in [0, 1], noise ",
                                                               noise, " finite and >= 0, accuracy ", accuracy,
                                                               " in [0, 1]"));
    }

    [[nodiscard]] std::size_t num_actions() const { return 4; }
    [[nodiscard]] std::size_t num_observations() const { return 4; }
    [[nodiscard]] std::size_t horizon() const { return horizon_; }
    [[nodiscard]] double step() const { return step_; }
    [[nodiscard]] double accuracy() const { return accuracy_; }

    /// s_1: uniform in the corner square [0, 0.1]^2.
    template <class G>
    [[nodiscard]] Point sample_initial_state(G& g) const {
        const double x = 0.1 * maxent::uniform01(g);
        return {x, 0.1 * maxent::uniform01(g)};
    }
    template <class G>
    [[nodiscard]] std::size_t sample_initial_observation(const Point& s, G& g) const {
        return sense(s, g);
    }
    /// Actions 0 up, 1 down, 2 left, 3 right; walls clip.
    template <class G>
    [[nodiscard]] Point sample_next_state(const Point& s, std::size_t a, G& g) const {
        const double dx = (a == 3 ? step_ : a == 2 ? -step_ : 0.0) + noise_ * maxent::standard_normal(g);
        const double dy = (a == 0 ? step_ : a == 1 ? -step_ : 0.0) + noise_ * maxent::standard_normal(g);
        return {std::clamp(s.x + dx, 0.0, 1.0), std::clamp(s.y + dy, 0.0, 1.0)};
    }
    template <class G>
    [[nodiscard]] std::size_t sample_observation(std::size_t /*a*/, const Point& s, G& g) const {
        return sense(s, g);
    }

private:
    template <class G>
    [[nodiscard]] std::size_t sense(const Point& s, G& g) const {
        const std::size_t q = quadrant(s.x, s.y);
        if (maxent::uniform01(g) < accuracy_) return q;
        const auto other = static_cast<std::size_t>(maxent::uniform_index(g, 3));  // one of the three others
        return other >= q ? other + 1 : other;
    }

    std::size_t horizon_;
    double step_, noise_, accuracy_;
};

/// The bin of a point in a bins x bins grid of the square (row-major from the bottom-left).
struct SquareBinning {
    std::size_t bins_per_side;
    [[nodiscard]] std::size_t operator()(const Point& p) const {
        const auto n = static_cast<double>(bins_per_side);
        const auto ix = std::min(bins_per_side - 1, static_cast<std::size_t>(p.x * n));
        const auto iy = std::min(bins_per_side - 1, static_cast<std::size_t>(p.y * n));
        return ix + bins_per_side * iy;
    }
};

/// The agent's histogram filter over a cells x cells grid (a maxent::BeliefUpdater).
class HistogramFilter {
public:
    HistogramFilter(std::size_t cells, double step, double accuracy)
        : cells_(cells),
          move_(std::min(1.0, step * static_cast<double>(cells))),
          accuracy_(accuracy),
          predicted_(static_cast<Eigen::Index>(cells * cells)) {
        if (cells == 0) throw maxent::config_error("HistogramFilter: 0 cells per side");
    }

    /// The length of the belief: one entry per coarse cell.
    [[nodiscard]] std::size_t dimension() const { return cells_ * cells_; }
    /// The paper's b_1: uniform over the agent's own cells.
    void initial(Eigen::VectorXd& b) const {
        b = Eigen::VectorXd::Constant(static_cast<Eigen::Index>(dimension()), 1.0 / static_cast<double>(dimension()));
    }
    /// Predict with the coarse motion model, weigh by the sensor at the cell centres, normalise.
    template <std::uniform_random_bit_generator G>
    void update(Eigen::VectorXd& b, std::size_t a, std::size_t o, G& /*never draws*/) {
        if (a >= 4 || o >= 4)
            throw maxent::config_error(maxent::detail::message("HistogramFilter: action ", a, " or observation ", o,
                                                               " out of range (4 each)"));
        predicted_.setZero();
        const std::size_t n = cells_;
        for (std::size_t iy = 0; iy < n; ++iy) {
            for (std::size_t ix = 0; ix < n; ++ix) {
                const double mass = b[index(ix, iy)];
                if (mass == 0.0) continue;
                std::size_t jx = ix, jy = iy;
                if (a == 0 && iy + 1 < n) jy = iy + 1;
                if (a == 1 && iy > 0) jy = iy - 1;
                if (a == 2 && ix > 0) jx = ix - 1;
                if (a == 3 && ix + 1 < n) jx = ix + 1;
                const double moved = (jx != ix || jy != iy) ? move_ : 0.0;
                predicted_[index(jx, jy)] += moved * mass;
                predicted_[index(ix, iy)] += (1.0 - moved) * mass;
            }
        }
        double total = 0.0;
        for (std::size_t iy = 0; iy < n; ++iy) {
            for (std::size_t ix = 0; ix < n; ++ix) {
                const double cx = (static_cast<double>(ix) + 0.5) / static_cast<double>(n);
                const double cy = (static_cast<double>(iy) + 0.5) / static_cast<double>(n);
                const double likelihood = quadrant(cx, cy) == o ? accuracy_ : (1.0 - accuracy_) / 3.0;
                const double w = predicted_[index(ix, iy)] * likelihood;
                b[index(ix, iy)] = w;
                total += w;
            }
        }
        if (!(total > 0.0))  // possible only with accuracy 1: o impossible under the prediction
            throw maxent::zero_likelihood_error(a, o, 0, maxent::detail::message(
                "HistogramFilter: observation ", o, " has zero likelihood after action ", a));
        b /= total;
    }

private:
    [[nodiscard]] Eigen::Index index(std::size_t ix, std::size_t iy) const {
        return static_cast<Eigen::Index>(ix + cells_ * iy);
    }

    std::size_t cells_;
    double move_, accuracy_;
    Eigen::VectorXd predicted_;
};

}  // namespace plug_in
