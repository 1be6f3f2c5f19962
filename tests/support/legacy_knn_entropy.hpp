// The k-nearest-neighbour estimator as it was before its candidate lists became bounded heaps
// (core/knn_entropy.hpp): each point kept its k best in a sorted array, by insertion (O(k) per
// candidate). Kept verbatim but for the comments and the dimension dispatch (every dimension
// runs the generic loop, which sums the coordinates in the same order) as the reference the
// heap version must equal bit for bit.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "maxent/core/error.hpp"
#include "maxent/core/knn_entropy.hpp"

namespace test_support {

class LegacyKnnEntropy {
public:
    explicit LegacyKnnEntropy(std::size_t k, double min_distance = 0.0) : k_(k), min_distance_(min_distance) {
        if (k == 0) throw maxent::config_error("KnnEntropy: k = 0 (the neighbour rank k must be >= 1)");
        if (!std::isfinite(min_distance) || min_distance < 0.0)
            throw maxent::config_error(maxent::detail::message("KnnEntropy: min_distance = ", min_distance,
                                               " (must be finite and >= 0)"));
    }

    double operator()(std::span<const double> points, std::size_t dim) {
        const std::size_t n = check(points, dim);
        search(points, dim, n);
        return estimate(n, dim);
    }

    [[nodiscard]] std::size_t k() const noexcept { return k_; }
    [[nodiscard]] double min_distance() const noexcept { return min_distance_; }

    [[nodiscard]] std::span<const double> kth_squared_distances() const noexcept {
        return {squared_.data(), last_n_};
    }

private:
    static constexpr std::size_t leaf_size = 8;
    static constexpr std::size_t no_child = 0;  // the root is never a right child

    struct Node {
        std::uint32_t begin;  // rows [begin, end) of the tree-ordered points
        std::uint32_t end;
        std::uint32_t right;  // right child (the left one is the next node), or no_child
        std::uint32_t axis;   // split axis and value of an inner node
        double split;
    };

    std::size_t check(std::span<const double> points, std::size_t dim) const {
        if (dim == 0) throw maxent::config_error("knn_entropy: dim = 0 (points need at least one coordinate)");
        if (points.size() % dim != 0)
            throw maxent::config_error(maxent::detail::message("knn_entropy: ", points.size(), " coordinates are not a multiple of dim = ",
                                               dim));
        const std::size_t n = points.size() / dim;
        if (k_ >= n)
            throw maxent::config_error(maxent::detail::message("knn_entropy: k = ", k_, " needs at least k + 1 = ", k_ + 1,
                                               " points, got n = ", n));
        if (n > std::numeric_limits<std::uint32_t>::max())
            throw maxent::config_error(maxent::detail::message("knn_entropy: n = ", n, " points (at most 2^32 - 1)"));
        for (std::size_t i = 0; i < points.size(); ++i)
            if (!std::isfinite(points[i]))
                throw maxent::numeric_error(maxent::detail::message("knn_entropy: point ", i / dim, ", coordinate ", i % dim, " is ",
                                                    points[i]));
        return n;
    }

    template <std::size_t D>
    static double squared_distance(const double* a, const double* b, std::size_t dim) noexcept {
        const std::size_t dd = D > 0 ? D : dim;
        double s = 0.0;
        for (std::size_t c = 0; c < dd; ++c) {
            const double t = a[c] - b[c];
            s += t * t;
        }
        return s;
    }

    template <std::size_t D>
    double box_distance(const double* q, std::size_t node, std::size_t dim) const noexcept {
        const std::size_t dd = D > 0 ? D : dim;
        const double* lo = &lo_[node * dd];
        const double* hi = &hi_[node * dd];
        double s = 0.0;
        for (std::size_t c = 0; c < dd; ++c) {
            const double t = std::max(std::max(lo[c] - q[c], q[c] - hi[c]), 0.0);
            s += t * t;
        }
        return s;
    }

    static std::size_t node_count(std::size_t n) noexcept {
        return n <= leaf_size ? 1 : 1 + node_count(n / 2) + node_count(n - n / 2);
    }

    template <std::size_t D>
    void build(std::size_t dim, std::size_t begin, std::size_t end) {
        const std::size_t dd = D > 0 ? D : dim;
        const std::size_t node = nodes_.size();
        nodes_.push_back({static_cast<std::uint32_t>(begin), static_cast<std::uint32_t>(end), no_child, 0, 0.0});
        if (end - begin <= leaf_size) return;
        const double* lo = &lo_[node * dd];
        const double* hi = &hi_[node * dd];
        std::size_t axis = 0;
        for (std::size_t c = 1; c < dd; ++c)
            if (hi[c] - lo[c] > hi[axis] - lo[axis]) axis = c;
        const std::size_t mid = begin + (end - begin) / 2;
        for (std::size_t r = begin; r < end; ++r)
            keys_[r].value = points_[static_cast<std::size_t>(keys_[r].index) * dd + axis];
        const auto at = [&](std::size_t r) { return keys_.begin() + static_cast<std::ptrdiff_t>(r); };
        std::nth_element(at(begin), at(mid), at(end), [](const Key& a, const Key& b) { return a.value < b.value; });
        const double split = keys_[mid].value;  // left rows <= split <= right rows on axis
        nodes_[node].axis = static_cast<std::uint32_t>(axis);
        nodes_[node].split = split;
        const std::size_t left = node + 1;
        std::copy_n(lo, dd, &lo_[left * dd]);
        std::copy_n(hi, dd, &hi_[left * dd]);
        hi_[left * dd + axis] = split;
        build<D>(dim, begin, mid);
        const std::size_t right = nodes_.size();
        nodes_[node].right = static_cast<std::uint32_t>(right);
        std::copy_n(&lo_[node * dd], dd, &lo_[right * dd]);
        std::copy_n(&hi_[node * dd], dd, &hi_[right * dd]);
        lo_[right * dd + axis] = split;
        build<D>(dim, mid, end);
    }

    template <std::size_t D>
    void tighten(std::size_t dim) {
        const std::size_t dd = D > 0 ? D : dim;
        for (std::size_t node = nodes_.size(); node-- > 0;) {
            double* lo = &lo_[node * dd];
            double* hi = &hi_[node * dd];
            const Node& nd = nodes_[node];
            if (nd.right == no_child) {
                for (std::size_t c = 0; c < dd; ++c) lo[c] = hi[c] = rows_[nd.begin * dd + c];
                for (std::size_t r = nd.begin + 1; r < nd.end; ++r)
                    for (std::size_t c = 0; c < dd; ++c) {
                        lo[c] = std::min(lo[c], rows_[r * dd + c]);
                        hi[c] = std::max(hi[c], rows_[r * dd + c]);
                    }
            } else {
                const std::size_t a = node + 1;
                const std::size_t b = nd.right;
                for (std::size_t c = 0; c < dd; ++c) {
                    lo[c] = std::min(lo_[a * dd + c], lo_[b * dd + c]);
                    hi[c] = std::max(hi_[a * dd + c], hi_[b * dd + c]);
                }
            }
        }
    }

    void search(std::span<const double> points, std::size_t dim, std::size_t n) { search<0>(points, dim, n); }

    template <std::size_t D>
    void search(std::span<const double> points, std::size_t dim, std::size_t n) {
        const std::size_t dd = D > 0 ? D : dim;
        points_ = points.data();
        order_.resize(n);
        keys_.resize(n);
        for (std::size_t i = 0; i < n; ++i) keys_[i].index = static_cast<std::uint32_t>(i);
        const std::size_t count = node_count(n);
        nodes_.clear();
        nodes_.reserve(count);
        lo_.resize(count * dd);
        hi_.resize(count * dd);
        for (std::size_t c = 0; c < dd; ++c) lo_[c] = hi_[c] = points[c];  // the root's box
        for (std::size_t i = 1; i < n; ++i)
            for (std::size_t c = 0; c < dd; ++c) {
                lo_[c] = std::min(lo_[c], points[i * dd + c]);
                hi_[c] = std::max(hi_[c], points[i * dd + c]);
            }
        build<D>(dim, 0, n);
        points_ = nullptr;
        rows_.resize(n * dd);
        for (std::size_t r = 0; r < n; ++r) {
            order_[r] = keys_[r].index;
            for (std::size_t c = 0; c < dd; ++c) rows_[r * dd + c] = points[order_[r] * dd + c];
        }
        tighten<D>(dim);
        squared_.resize(n);
        best_.resize(leaf_size * k_);
        kth_.resize(leaf_size);
        last_n_ = n;
        for (std::size_t leaf = 0; leaf < nodes_.size(); ++leaf)
            if (nodes_[leaf].right == no_child) search_leaf<D>(leaf, dim);
    }

    void insert(std::size_t a, double s) noexcept {
        if (!(s < kth_[a])) return;
        double* best = &best_[a * k_];
        std::size_t pos = k_ - 1;
        while (pos > 0 && best[pos - 1] > s) {
            best[pos] = best[pos - 1];
            --pos;
        }
        best[pos] = s;
        kth_[a] = best[k_ - 1];
    }

    template <std::size_t D>
    void search_leaf(std::size_t leaf, std::size_t dim) {
        const std::size_t dd = D > 0 ? D : dim;
        const double inf = std::numeric_limits<double>::infinity();
        const std::size_t first = nodes_[leaf].begin;
        const std::size_t m = nodes_[leaf].end - first;
        std::fill_n(best_.begin(), m * k_, inf);
        std::fill_n(kth_.begin(), m, inf);
        for (std::size_t a = 0; a < m; ++a)
            for (std::size_t b = a + 1; b < m; ++b) {
                const double s = squared_distance<D>(&rows_[(first + a) * dd], &rows_[(first + b) * dd], dim);
                insert(a, s);
                insert(b, s);
            }
        std::array<std::uint32_t, 64> path;
        std::size_t depth = 0;
        for (std::uint32_t node = 0; node != leaf;) {
            path[depth++] = node;
            const std::uint32_t left = node + 1;
            node = first < nodes_[left].end ? left : nodes_[node].right;
        }
        struct Pending {
            std::uint32_t node;
            double bound;
        };
        std::array<Pending, 2 * 64> stack;
        for (std::size_t a = 0; a < m; ++a) {
            const double* q = &rows_[(first + a) * dd];
            for (std::size_t level = depth; level-- > 0;) {
                const Node& parent = nodes_[path[level]];
                const std::uint32_t child = level + 1 < depth ? path[level + 1] : static_cast<std::uint32_t>(leaf);
                const std::uint32_t sibling = child == path[level] + 1 ? parent.right : path[level] + 1;
                const double gap = q[parent.axis] - parent.split;
                if (!(gap * gap < kth_[a])) continue;
                const double bound = box_distance<D>(q, sibling, dim);
                if (!(bound < kth_[a])) continue;
                std::size_t top = 0;
                stack[top++] = {sibling, bound};
                while (top > 0) {
                    const Pending p = stack[--top];
                    if (p.bound >= kth_[a]) continue;
                    const Node& nd = nodes_[p.node];
                    if (nd.right == no_child) {
                        for (std::size_t j = nd.begin; j < nd.end; ++j)
                            insert(a, squared_distance<D>(q, &rows_[j * dd], dim));
                        continue;
                    }
                    const double g = q[nd.axis] - nd.split;
                    const std::uint32_t near = g < 0.0 ? p.node + 1 : nd.right;
                    const std::uint32_t far = g < 0.0 ? nd.right : p.node + 1;
                    if (g * g < kth_[a]) {
                        const double bf = box_distance<D>(q, far, dim);
                        if (bf < kth_[a]) stack[top++] = {far, bf};
                    }
                    stack[top++] = {near, p.bound};
                }
            }
            squared_[order_[first + a]] = kth_[a];
        }
    }

    double estimate(std::size_t n, std::size_t dim) const {
        const double floor_squared = min_distance_ * min_distance_;
        double sum_log = 0.0;  // Σ log ε_i², in input order
        for (std::size_t i = 0; i < n; ++i) {
            const double s = std::max(squared_[i], floor_squared);
            if (s == 0.0) throw maxent::numeric_error(tie_message(i, dim));
            if (!std::isfinite(s))
                throw maxent::numeric_error(maxent::detail::message("knn_entropy: the distance from point ", i,
                                                    " to its k-th neighbour overflows (", s,
                                                    " squared); rescale the coordinates"));
            sum_log += std::log(s);
        }
        const double nd = static_cast<double>(n);
        const double d = static_cast<double>(dim);
        return maxent::detail::digamma_integer(n) - maxent::detail::digamma_integer(k_) + maxent::detail::log_unit_ball_volume(dim) +
               0.5 * d * sum_log / nd;
    }

    std::string tie_message(std::size_t i, std::size_t dim) const {
        std::size_t other = i;
        const double* q = nullptr;
        for (std::size_t r = 0; r < last_n_; ++r)
            if (order_[r] == i) q = &rows_[r * dim];
        for (std::size_t r = 0; r < last_n_ && q != nullptr; ++r)
            if (order_[r] != i && squared_distance<0>(q, &rows_[r * dim], dim) == 0.0) {
                other = order_[r];
                break;
            }
        return maxent::detail::message("knn_entropy: point ", i, " has its k = ", k_, " nearest neighbours at distance 0 (e.g. point ",
                               other,
                               "; duplicates, or points closer than about 1e-154); pass min_distance > 0 "
                               "to KnnEntropy to count such ties at that resolution");
    }

    std::size_t k_;
    double min_distance_;
    std::size_t last_n_ = 0;
    struct Key {
        double value;
        std::uint32_t index;
    };
    const double* points_ = nullptr;    // the input, during build only

    std::vector<std::uint32_t> order_;  // tree row -> input index
    std::vector<Key> keys_;             // input index and split coordinate, during build
    std::vector<Node> nodes_;
    std::vector<double> lo_, hi_;     // bounding box of each node, dim per node
    std::vector<double> rows_;        // the points in tree order
    std::vector<double> squared_;     // ε_i² in input order
    std::vector<double> best_;        // the k smallest squared distances of each point of a leaf
    std::vector<double> kth_;         // the k-th of them
};


}  // namespace test_support
