// maxent/belief/state_features.hpp — feature maps of states, φ(s), for beliefs that are sets
// of weighted particles (belief/particle_filter.hpp): a belief's features are the weighted
// mean Σ_i w_i φ(x_i) of its particles' features, which the belief-averaged policy reads
// (AgentView::features(); paper Section 4's BA policy with b replaced by φ(b)). With the
// one-hot map of a finite model, φ(b) is the belief itself, so the policy is the paper's BA.
//
// StateFeatureMap — required expressions, for `const F f`, a state `s`, `double w` and an
// `Eigen::VectorXd& acc` of length f.dimension():
//   f.dimension()            -> std::size_t, > 0: the length of φ(s)
//   f.accumulate(s, w, acc)  acc += w · φ(s)   (no allocation; sparse maps touch few entries)
// Satisfied by the maps below:
//   OneHotFeatures(n)                       φ(s) = e_s for a finite state s < n
//   BilinearGridFeatures(nx, ny, box, pos)  the bilinear interpolation weights of pos(s) at
//                                           the nx x ny nodes of a grid over a box (4
//                                           non-zeros summing to 1)
//   TileCodingFeatures(k, m, box, pos)      k offset tilings of m x m tiles over a box, 1/k
//                                           for the tile holding pos(s) in each tiling
//   feature_map(d, fn)                      any fn(s) -> Eigen vector of length d, checked:
//                                           a vector of the wrong length is a config_error
//                                           naming both lengths, a NaN or infinite entry a
//                                           numeric_error naming it
// A position outside the box (or not finite) is a config_error naming it; a one-hot state
// out of range too; sizes whose feature count exceeds the largest Eigen index too. Nothing
// is clamped.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include <Eigen/Core>

#include "maxent/core/error.hpp"

namespace maxent {

template <class F, class S>
concept StateFeatureMap = requires(const F& f, const S& s, double w, Eigen::VectorXd& acc) {
    { f.dimension() } -> std::convertible_to<std::size_t>;
    f.accumulate(s, w, acc);
};

template <class F, class S>
consteval bool require_state_feature_map() {
    static_assert(requires(const F& f) { { f.dimension() } -> std::convertible_to<std::size_t>; },
                  "maxent::StateFeatureMap: missing `std::size_t dimension() const`");
    static_assert(requires(const F& f, const S& s, double w, Eigen::VectorXd& acc) { f.accumulate(s, w, acc); },
                  "maxent::StateFeatureMap: missing `void accumulate(const State& s, double w, Eigen::VectorXd& acc) "
                  "const` (acc += w * phi(s))");
    return true;
}

/// φ(s) = e_s over the states 0..n-1 of a finite model.
class OneHotFeatures {
public:
    explicit OneHotFeatures(std::size_t n) : n_(n) {
        if (n == 0) throw config_error("OneHotFeatures: 0 states");
    }
    [[nodiscard]] std::size_t dimension() const noexcept { return n_; }
    void accumulate(std::size_t s, double w, Eigen::VectorXd& acc) const {
        if (s >= n_)
            throw config_error(detail::message("OneHotFeatures: state ", s, " out of range (", n_, " states)"));
        acc[static_cast<Eigen::Index>(s)] += w;
    }

private:
    std::size_t n_;
};

/// An axis-aligned box [x0, x1] x [y0, y1] (x0 < x1, y0 < y1).
struct Box {
    double x0 = 0.0, x1 = 1.0, y0 = 0.0, y1 = 1.0;
};

namespace detail {
inline void check_box(const Box& b, const char* who) {
    if (!(std::isfinite(b.x0) && std::isfinite(b.x1) && std::isfinite(b.y0) && std::isfinite(b.y1) && b.x0 < b.x1 &&
          b.y0 < b.y1))
        throw config_error(message(who, ": the box [", b.x0, ", ", b.x1, "] x [", b.y0, ", ", b.y1,
                                   "] must be finite with x0 < x1 and y0 < y1"));
}
/// a · b as a feature count, or config_error naming `what` when the product exceeds the
/// largest Eigen index (the length of the vector it sizes).
inline std::size_t checked_feature_count(std::size_t a, std::size_t b, const char* who, const char* what) {
    constexpr auto limit = static_cast<std::size_t>(std::numeric_limits<Eigen::Index>::max());
    if (a > limit || b > limit || (b != 0 && a > limit / b))
        throw config_error(message(who, ": ", what, " needs ", a, " x ", b, " features, more than ", limit));
    return a * b;
}
[[noreturn, gnu::cold, gnu::noinline]] inline void outside_box(const Box& b, const std::array<double, 2>& p,
                                                                const char* who) {
    throw config_error(message(who, ": position (", p[0], ", ", p[1], ") outside the box [", b.x0, ", ", b.x1, "] x [",
                               b.y0, ", ", b.y1, "]"));
}
/// pos's coordinates relative to the box, in [0, 1]^2; config_error naming pos outside it.
inline std::array<double, 2> unit_coordinates(const Box& b, const std::array<double, 2>& p, const char* who) {
    if (!(p[0] >= b.x0 && p[0] <= b.x1 && p[1] >= b.y0 && p[1] <= b.y1)) [[unlikely]]
        outside_box(b, p, who);  // out of line, so that feature maps inline into filters' loops
    return {(p[0] - b.x0) / (b.x1 - b.x0), (p[1] - b.y0) / (b.y1 - b.y0)};
}
}  // namespace detail

/// Bilinear interpolation over an nx x ny grid of nodes spanning a box (nx, ny >= 2): node
/// (i, j) is feature i + nx·j; a position's four surrounding nodes get its bilinear weights.
/// `Position` maps a state to std::array<double, 2>.
template <class Position>
class BilinearGridFeatures {
public:
    BilinearGridFeatures(std::size_t nx, std::size_t ny, Box box, Position position)
        : nx_(nx), ny_(ny), box_(box), position_(std::move(position)) {
        if (nx < 2 || ny < 2)
            throw config_error(detail::message("BilinearGridFeatures: ", nx, " x ", ny, " nodes; at least 2 x 2"));
        (void)detail::checked_feature_count(nx, ny, "BilinearGridFeatures",
                                            detail::message(nx, " x ", ny, " nodes").c_str());
        detail::check_box(box, "BilinearGridFeatures");
    }
    [[nodiscard]] std::size_t dimension() const noexcept { return nx_ * ny_; }
    template <class S>
    void accumulate(const S& s, double w, Eigen::VectorXd& acc) const {
        const auto u = detail::unit_coordinates(box_, std::array<double, 2>(position_(s)), "BilinearGridFeatures");
        const double fx = u[0] * static_cast<double>(nx_ - 1), fy = u[1] * static_cast<double>(ny_ - 1);
        const std::size_t i = std::min(nx_ - 2, static_cast<std::size_t>(fx));
        const std::size_t j = std::min(ny_ - 2, static_cast<std::size_t>(fy));
        const double tx = fx - static_cast<double>(i), ty = fy - static_cast<double>(j);
        const auto k = static_cast<Eigen::Index>(i + nx_ * j), row = static_cast<Eigen::Index>(nx_);
        acc[k] += w * (1.0 - tx) * (1.0 - ty);
        acc[k + 1] += w * tx * (1.0 - ty);
        acc[k + row] += w * (1.0 - tx) * ty;
        acc[k + row + 1] += w * tx * ty;
    }
    /// accumulate(xs[i], w[i], acc) for i = 0, 1, ...: the same additions in the same order
    /// (the same bits), inlined for particle filters; a unit box skips the divisions by its
    /// width (exact).
    template <class S>
    void accumulate_all(std::span<const S> xs, std::span<const double> w, Eigen::VectorXd& acc) const {
        if (box_.x0 == 0.0 && box_.x1 == 1.0 && box_.y0 == 0.0 && box_.y1 == 1.0)
            accumulate_span<true>(xs, w, acc);
        else
            accumulate_span<false>(xs, w, acc);
    }

private:
    template <bool UnitBox, class S>
    void accumulate_span(std::span<const S> xs, std::span<const double> w, Eigen::VectorXd& acc) const {
        const double sx = static_cast<double>(nx_ - 1), sy = static_cast<double>(ny_ - 1);
        const auto row = static_cast<Eigen::Index>(nx_);
        double* a = acc.data();
        for (std::size_t n = 0; n < xs.size(); ++n) {
            const std::array<double, 2> p(position_(xs[n]));
            if (!(p[0] >= box_.x0 && p[0] <= box_.x1 && p[1] >= box_.y0 && p[1] <= box_.y1)) [[unlikely]]
                detail::outside_box(box_, p, "BilinearGridFeatures");
            const double u0 = UnitBox ? p[0] : (p[0] - box_.x0) / (box_.x1 - box_.x0);
            const double u1 = UnitBox ? p[1] : (p[1] - box_.y0) / (box_.y1 - box_.y0);
            const double fx = u0 * sx, fy = u1 * sy;
            const std::size_t i = std::min(nx_ - 2, static_cast<std::size_t>(fx));
            const std::size_t j = std::min(ny_ - 2, static_cast<std::size_t>(fy));
            const double tx = fx - static_cast<double>(i), ty = fy - static_cast<double>(j);
            const auto k = static_cast<Eigen::Index>(i + nx_ * j);
            a[k] += w[n] * (1.0 - tx) * (1.0 - ty);
            a[k + 1] += w[n] * tx * (1.0 - ty);
            a[k + row] += w[n] * (1.0 - tx) * ty;
            a[k + row + 1] += w[n] * tx * ty;
        }
    }

    std::size_t nx_, ny_;
    Box box_;
    Position position_;
};

/// Tile coding: k tilings of m x m tiles over a box, tiling t shifted by (1, 3)·t/k of a
/// tile (asymmetric offsets); each tiling has (m + 1)^2 tiles so the shifted tiles cover
/// the box. φ(s) has one entry 1/k per tiling (so it sums to 1): dimension k·(m + 1)^2.
template <class Position>
class TileCodingFeatures {
public:
    TileCodingFeatures(std::size_t tilings, std::size_t tiles, Box box, Position position)
        : k_(tilings), m_(tiles), box_(box), position_(std::move(position)) {
        if (tilings == 0 || tiles == 0)
            throw config_error(detail::message("TileCodingFeatures: ", tilings, " tilings of ", tiles, " x ", tiles,
                                               " tiles; at least 1 of each"));
        const std::string what = detail::message(tilings, " tilings of ", tiles, " x ", tiles, " tiles");
        if (tiles == std::numeric_limits<std::size_t>::max())
            throw config_error(detail::message("TileCodingFeatures: ", what, ": ", tiles, " + 1 tiles per side overflow"));
        const std::size_t side = tiles + 1;
        (void)detail::checked_feature_count(
            tilings, detail::checked_feature_count(side, side, "TileCodingFeatures", what.c_str()),
            "TileCodingFeatures", what.c_str());
        detail::check_box(box, "TileCodingFeatures");
    }
    [[nodiscard]] std::size_t dimension() const noexcept { return k_ * (m_ + 1) * (m_ + 1); }
    template <class S>
    void accumulate(const S& s, double w, Eigen::VectorXd& acc) const {
        const auto u = detail::unit_coordinates(box_, std::array<double, 2>(position_(s)), "TileCodingFeatures");
        const auto m = static_cast<double>(m_), k = static_cast<double>(k_);
        const std::size_t side = m_ + 1;
        const double share = w / k;
        for (std::size_t t = 0; t < k_; ++t) {
            const double shift = static_cast<double>(t) / k;  // of a tile
            const auto ix = std::min(m_, static_cast<std::size_t>(u[0] * m + shift));
            const auto iy = std::min(m_, static_cast<std::size_t>(u[1] * m + std::fmod(3.0 * shift, 1.0)));
            acc[static_cast<Eigen::Index>(t * side * side + ix + side * iy)] += share;
        }
    }

private:
    std::size_t k_, m_;
    Box box_;
    Position position_;
};

/// A feature map from any fn(s) returning an Eigen vector of length `dimension`, checked on
/// every call (allocates if fn does; the built-in maps above do not).
template <class Fn>
class FunctionFeatures {
public:
    FunctionFeatures(std::size_t dimension, Fn fn) : d_(dimension), fn_(std::move(fn)) {
        if (dimension == 0) throw config_error("feature_map: dimension 0");
    }
    [[nodiscard]] std::size_t dimension() const noexcept { return d_; }
    template <class S>
    void accumulate(const S& s, double w, Eigen::VectorXd& acc) const {
        const auto& phi = fn_(s);
        if (static_cast<std::size_t>(phi.size()) != d_)
            throw config_error(detail::message("feature_map: the feature function returned ", phi.size(),
                                               " entries for a state; the map's dimension is ", d_));
        for (Eigen::Index i = 0; i < phi.size(); ++i) {
            const double x = phi[i];
            if (!std::isfinite(x))
                throw numeric_error(detail::message("feature_map: feature ", i, " of a state is ", x));
            acc[i] += w * x;
        }
    }

private:
    std::size_t d_;
    Fn fn_;
};

template <class Fn>
[[nodiscard]] FunctionFeatures<Fn> feature_map(std::size_t dimension, Fn fn) {
    return FunctionFeatures<Fn>(dimension, std::move(fn));
}

}  // namespace maxent
