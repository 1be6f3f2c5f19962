// maxent/core/actions.hpp — continuous (typed) actions: the box of bounds a world declares,
// and the conversions between an action of the world's type and the doubles a policy writes.
//
// A world whose actions are not indices declares `using action_type = A;` with A a
// double, a std::array<double, d> or an Eigen column vector of doubles (ActionVector<A>)
// and `maxent::ActionBox action_box() const` (model/concepts.hpp). Policies of such worlds
// are world-type agnostic: they write the d coordinates of an action into a caller-owned
// std::span<double>; the rollout turns them into the world's A with read_action (in place,
// so an Eigen::VectorXd action is sized once, then never allocates).
#pragma once

#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <span>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/point.hpp"

namespace maxent {

/// The bounds of a continuous action: coordinate j lies in [lower[j], upper[j]], each finite,
/// lower[j] < upper[j]. dimension() = d.
struct ActionBox {
    std::vector<double> lower;
    std::vector<double> upper;

    ActionBox() = default;
    ActionBox(std::vector<double> lo, std::vector<double> hi) : lower(std::move(lo)), upper(std::move(hi)) {}
    /// The same interval [lo, hi] for each of d coordinates.
    static ActionBox uniform(std::size_t d, double lo, double hi) {
        return ActionBox(std::vector<double>(d, lo), std::vector<double>(d, hi));
    }

    [[nodiscard]] std::size_t dimension() const noexcept { return lower.size(); }
    /// config_error naming `who` and the offending coordinate unless the box is valid
    /// (d >= 1, as many upper as lower bounds, each finite, lower < upper).
    void check(const char* who) const {
        if (lower.empty())
            throw config_error(detail::message(who, ": the action box has dimension 0; an action needs at least 1 "
                                                    "coordinate"));
        if (upper.size() != lower.size())
            throw config_error(detail::message(who, ": the action box has ", lower.size(), " lower and ",
                                               upper.size(), " upper bounds; they must be as many"));
        for (std::size_t j = 0; j < lower.size(); ++j)
            if (!std::isfinite(lower[j]) || !std::isfinite(upper[j]) || !(lower[j] < upper[j]))
                throw config_error(detail::message(who, ": the action box's coordinate ", j, " is [", lower[j], ", ",
                                                   upper[j], "]; bounds must be finite with lower < upper"));
    }
    /// Whether x (d coordinates) lies in the box, bounds included.
    [[nodiscard]] bool contains(std::span<const double> x) const noexcept {
        for (std::size_t j = 0; j < lower.size(); ++j)
            if (!(x[j] >= lower[j] && x[j] <= upper[j])) return false;
        return true;
    }
    /// "[l_0, u_0] x [l_1, u_1] x ..." (17 significant digits), for messages.
    [[nodiscard]] std::string text() const {
        std::ostringstream out;
        out.precision(17);
        for (std::size_t j = 0; j < dimension(); ++j)
            out << (j == 0 ? "" : " x ") << '[' << lower[j] << ", " << upper[j] << ']';
        return out.str();
    }
    /// The same bounds, coordinate by coordinate.
    friend bool operator==(const ActionBox&, const ActionBox&) = default;
    /// For a policy built for this box: config_error naming `who` and both boxes unless the
    /// world's box (null: not known) is this one.
    void require_world_box(const ActionBox* world, const char* who) const {
        if (world != nullptr && *world != *this)
            throw config_error(detail::message(who, ": built for the action box ", text(),
                                               " but the world's action box is ", world->text()));
    }
    /// The box's volume Π (upper - lower).
    [[nodiscard]] double volume() const noexcept {
        double v = 1.0;
        for (std::size_t j = 0; j < lower.size(); ++j) v *= upper[j] - lower[j];
        return v;
    }
};

namespace detail {
template <class A>
struct action_traits {
    static constexpr bool is_action = false;
};
template <std::floating_point T>
struct action_traits<T> {
    static constexpr bool is_action = true;
    static constexpr std::size_t static_dimension = 1;
    static void read(std::span<const double> x, T& a) noexcept { a = static_cast<T>(x[0]); }
};
template <std::floating_point T, std::size_t N>
struct action_traits<std::array<T, N>> {
    static constexpr bool is_action = N > 0;
    static constexpr std::size_t static_dimension = N;
    static void read(std::span<const double> x, std::array<T, N>& a) noexcept {
        for (std::size_t j = 0; j < N; ++j) a[j] = static_cast<T>(x[j]);
    }
};
template <std::floating_point S, int R, int O, int MR>
struct action_traits<Eigen::Matrix<S, R, 1, O, MR, 1>> {
    using V = Eigen::Matrix<S, R, 1, O, MR, 1>;
    static constexpr bool is_action = R != 0;
    static constexpr std::size_t static_dimension = R == Eigen::Dynamic ? 0 : static_cast<std::size_t>(R);
    static void read(std::span<const double> x, V& a) {
        if constexpr (R == Eigen::Dynamic) {
            if (static_cast<std::size_t>(a.size()) != x.size()) a.resize(static_cast<Eigen::Index>(x.size()));
        }
        for (std::size_t j = 0; j < x.size(); ++j) a[static_cast<Eigen::Index>(j)] = static_cast<S>(x[j]);
    }
};
}  // namespace detail

/// A type a continuous action may have: a floating-point scalar, a std::array of them or an
/// Eigen column vector of them (fixed or dynamic size).
template <class A>
concept ActionVector = detail::action_traits<std::remove_cvref_t<A>>::is_action && PointLike<A>;

/// d when the type fixes it (1, N, the Eigen rows), 0 for a dynamic Eigen vector.
template <ActionVector A>
inline constexpr std::size_t action_static_dimension = detail::action_traits<A>::static_dimension;

/// a <- the action with coordinates x (x.size() = d; a dynamic vector is resized once).
template <ActionVector A>
void read_action(std::span<const double> x, A& a) {
    detail::action_traits<A>::read(x, a);
}

/// x <- the coordinates of a (x.size() >= d).
template <ActionVector A>
void write_action(const A& a, std::span<double> x) noexcept {
    write_point(a, x);
}

namespace detail {
/// A value as a message shows it: streamed when it can be (indices, scalars), its
/// coordinates in parentheses when it is a point, else a placeholder.
template <class X>
std::string value_text(const X& x) {
    if constexpr (std::is_arithmetic_v<X>) {
        std::ostringstream os;
        os << x;
        return os.str();
    } else if constexpr (PointLike<X>) {
        std::ostringstream os;
        std::vector<double> c(point_dimension(x));
        write_point(x, std::span<double>(c));
        os << '(';
        for (std::size_t j = 0; j < c.size(); ++j) os << (j ? ", " : "") << c[j];
        os << ')';
        return os.str();
    } else if constexpr (requires(std::ostream& os) { os << x; }) {
        std::ostringstream os;
        os << x;
        return os.str();
    } else {
        return "(a value)";
    }
}
/// An action as a message shows it: an index as itself, a continuous action's coordinates.
template <class A>
auto action_text(const A& a) {
    if constexpr (std::is_integral_v<A>)
        return a;
    else
        return value_text(a);
}
}  // namespace detail

}  // namespace maxent
