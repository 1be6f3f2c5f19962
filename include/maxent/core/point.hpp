// maxent/core/point.hpp — values that read as points of R^d: what kNN counting and the
// observation-feature policy read of an observation or a state.
//
// PointLike<T>: an arithmetic value (d = 1), a std::array of arithmetic values (d = N) or an
// Eigen column vector of arithmetic scalars (d = its size; fixed or dynamic). point_dimension
// gives d, write_point copies the coordinates as doubles into a caller-owned span of length d
// (no allocation). Any other type (a struct) says how through its model's members
// (model/concepts.hpp: observation_point, state_point).
#pragma once

#include <array>
#include <concepts>
#include <cstddef>
#include <span>
#include <type_traits>

#include <Eigen/Core>

namespace maxent {

namespace detail {
template <class T>
struct point_traits {
    static constexpr bool is_point = false;
};
template <class T>
    requires std::is_arithmetic_v<T>
struct point_traits<T> {
    static constexpr bool is_point = true;
    static std::size_t dimension(const T&) noexcept { return 1; }
    static void write(const T& x, std::span<double> out) noexcept { out[0] = static_cast<double>(x); }
};
template <class T, std::size_t N>
    requires std::is_arithmetic_v<T>
struct point_traits<std::array<T, N>> {
    static constexpr bool is_point = true;
    static std::size_t dimension(const std::array<T, N>&) noexcept { return N; }
    static void write(const std::array<T, N>& x, std::span<double> out) noexcept {
        for (std::size_t j = 0; j < N; ++j) out[j] = static_cast<double>(x[j]);
    }
};
template <class S, int R, int O, int MR>
    requires std::is_arithmetic_v<S>
struct point_traits<Eigen::Matrix<S, R, 1, O, MR, 1>> {
    using V = Eigen::Matrix<S, R, 1, O, MR, 1>;
    static constexpr bool is_point = true;
    static std::size_t dimension(const V& x) noexcept { return static_cast<std::size_t>(x.size()); }
    static void write(const V& x, std::span<double> out) noexcept {
        for (Eigen::Index j = 0; j < x.size(); ++j) out[static_cast<std::size_t>(j)] = static_cast<double>(x[j]);
    }
};
}  // namespace detail

template <class T>
concept PointLike = detail::point_traits<std::remove_cvref_t<T>>::is_point;

/// d of a PointLike value.
template <PointLike T>
[[nodiscard]] std::size_t point_dimension(const T& x) noexcept {
    return detail::point_traits<std::remove_cvref_t<T>>::dimension(x);
}

/// out[0..d) <- the coordinates of x (out.size() >= point_dimension(x), the caller's to check).
template <PointLike T>
void write_point(const T& x, std::span<double> out) noexcept {
    detail::point_traits<std::remove_cvref_t<T>>::write(x, out);
}

}  // namespace maxent
