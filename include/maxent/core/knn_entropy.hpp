// maxent/core/knn_entropy.hpp — differential entropy of points in R^d by k nearest neighbours.
//
// The Kozachenko–Leonenko estimator (as in MEPOL): for n points x_i in R^d and ε_i the
// Euclidean distance from x_i to its k-th nearest other point,
//     Ĥ = ψ(n) − ψ(k) + log V_d + (d/n) Σ_i log ε_i        (nats),
// ψ the digamma function, V_d = π^{d/2} / Γ(d/2 + 1). It counts true states (through a user
// map to vectors) or observations without bins. Asymptotically unbiased (n → ∞, k fixed);
// at finite n biased up for densities with edges, little for smooth ones (docs/performance.md).
//
// Neighbours are exact: a k-d tree whose pruning never exceeds a brute-force distance, so
// every ε_i has a brute-force search's bits, summed in input order. Each point keeps its k
// best candidates in a bounded max-heap: O(log k) per candidate visited, for any k.
//
// Ties (a robot pinned to a wall) would give log 0. Each ε_i is floored at a resolution δ
// set by `min_distance`: unset (default), the scale rule δ = 10^-12 × the points' bounding-box
// diagonal (10^-12 units if all coincide), kept within [2^-511, 2^511] so squares stay normal
// — data whose ε_i all exceed δ keep the plain estimator's bits; > 0: that δ (within
// [2^-511, 2^512), else config_error naming min_distance); 0: no floor, a zero ε_i is a
// numeric_error naming both points. resolution() and floored() report the last call's δ and
// how many ε_i lay below it. An optional poll callback runs about every 2^16 distances and may
// throw to abandon the call (Python's Ctrl-C).
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <functional>
#include <numbers>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "maxent/core/error.hpp"

namespace maxent {

namespace detail {

/// ψ(m) for an integer m >= 1: the harmonic sum −γ + Σ_{j<m} 1/j below 16, the asymptotic
/// series log m − 1/(2m) − Σ B_{2j}/(2j m^{2j}) from 16 on (error below 1e-16 there).
[[nodiscard]] inline double digamma_integer(std::size_t m) noexcept {
    constexpr double euler_gamma = 0.57721566490153286061;
    if (m < 16) {
        double h = -euler_gamma;
        for (std::size_t j = 1; j < m; ++j) h += 1.0 / static_cast<double>(j);
        return h;
    }
    const double x = static_cast<double>(m);
    const double r2 = 1.0 / (x * x);
    // Bernoulli terms B_2/2, B_4/4, B_6/6, B_8/8, B_10/10 in powers of 1/x^2.
    const double series =
        r2 * (1.0 / 12.0 - r2 * (1.0 / 120.0 - r2 * (1.0 / 252.0 - r2 * (1.0 / 240.0 - r2 * (1.0 / 132.0)))));
    return std::log(x) - 0.5 / x - series;
}

/// log V_d, the log-volume of the unit ball in R^d: (d/2) log π − log Γ(d/2 + 1), with
/// log Γ(d/2 + 1) summed exactly for integer and half-integer arguments.
[[nodiscard]] inline double log_unit_ball_volume(std::size_t d) noexcept {
    double log_gamma = 0.0;
    if (d % 2 == 0) {
        for (std::size_t j = 2; j <= d / 2; ++j) log_gamma += std::log(static_cast<double>(j));
    } else {
        // Γ(m + 3/2) = Γ(1/2) Π_{j=0}^{m} (j + 1/2) with d = 2m + 1.
        log_gamma = 0.5 * std::log(std::numbers::pi);
        for (std::size_t j = 0; j <= d / 2; ++j) log_gamma += std::log(static_cast<double>(j) + 0.5);
    }
    return 0.5 * static_cast<double>(d) * std::log(std::numbers::pi) - log_gamma;
}

/// The shortest text that reads back as x (a setting as the user typed it: 1e-200, not 17 digits).
[[nodiscard]] inline std::string knn_number(double x) {
    char text[32];
    const auto printed = std::to_chars(text, text + sizeof text, x);
    return std::string(text, printed.ptr);
}

}  // namespace detail

/// The scale rule's resolution, as a fraction of the bounding-box diagonal (see the header).
inline constexpr double knn_scale_resolution = 1e-12;
/// The range of an explicit resolution: [2^-511, 2^512), where its square is a normal double.
inline constexpr double knn_min_resolution = 0x1p-511;
inline constexpr double knn_max_resolution = 0x1p512;

/// Kozachenko–Leonenko differential entropy (nats) of n points in R^dim, k-th neighbour.
/// Holds a workspace (the tree, the distances): after a call has seen n points of dimension
/// dim, calls with at most as many points and coordinates allocate nothing. Not thread-safe:
/// use one object per thread.
class KnnEntropy {
public:
    /// k >= 1. min_distance: unset = the scale rule, 0 = refuse ties, > 0 = that resolution
    /// (see the header's preamble); config_error for a negative or non-finite value or one
    /// outside [2^-511, 2^512).
    explicit KnnEntropy(std::size_t k, std::optional<double> min_distance = std::nullopt)
        : k_(k), min_distance_(min_distance) {
        if (k == 0) throw config_error("KnnEntropy: k = 0 (the neighbour rank k must be >= 1)");
        if (!min_distance) return;
        const double m = *min_distance;
        if (!std::isfinite(m) || m < 0.0)
            throw config_error(
                detail::message("KnnEntropy: min_distance = ", detail::knn_number(m), " (must be finite and >= 0)"));
        if (m > 0.0 && (m < knn_min_resolution || m >= knn_max_resolution))
            throw config_error(detail::message(
                "KnnEntropy: min_distance = ", detail::knn_number(m), " is outside [2^-511, 2^512) = [",
                detail::knn_number(knn_min_resolution), ", ", detail::knn_number(knn_max_resolution),
                "), where its square is a normal double (it would ",
                m < knn_min_resolution ? "underflow" : "overflow",
                "); rescale the points, pass 0 to refuse ties or leave it unset for the scale rule"));
    }

    /// Ĥ of the points: n rows of `dim` coordinates, row-major and contiguous (size n·dim).
    /// Throws config_error for dim = 0, a size that is not a multiple of dim, or k >= n;
    /// numeric_error for a non-finite coordinate (naming the point and the coordinate), for
    /// a zero k-th neighbour distance when min_distance = 0 (naming both points), and for
    /// distances that overflow (coordinates beyond about 1e153).
    double operator()(std::span<const double> points, std::size_t dim) {
        const std::size_t n = check(points, dim);
        search(points, dim, n);
        return estimate(n, dim);
    }

    /// The same, calling poll() about every 2^16 distance computations; an exception from
    /// poll abandons the call (the object stays usable).
    double operator()(std::span<const double> points, std::size_t dim, const std::function<void()>& poll) {
        struct Reset {
            const std::function<void()>*& p;
            ~Reset() { p = nullptr; }
        } reset{poll_};
        poll_ = poll ? &poll : nullptr;
        return (*this)(points, dim);
    }

    [[nodiscard]] std::size_t k() const noexcept { return k_; }
    /// The setting: unset (scale rule), 0 (refuse ties) or the resolution.
    [[nodiscard]] std::optional<double> min_distance() const noexcept { return min_distance_; }
    /// The rule's name: "scale", "min_distance" or "refuse".
    [[nodiscard]] std::string_view rule() const noexcept {
        return !min_distance_ ? "scale" : (*min_distance_ > 0.0 ? "min_distance" : "refuse");
    }
    /// δ of the last call: the distance floor (0 under "refuse"; 0 before any call).
    [[nodiscard]] double resolution() const noexcept { return resolution_; }
    /// How many ε_i of the last call lay below δ (and were counted at δ).
    [[nodiscard]] std::size_t floored() const noexcept { return floored_; }

    /// ε_i² of the last call, in input order: the squared Euclidean distance from point i to
    /// its k-th nearest other point (before the floor). Empty before any call.
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
        if (dim == 0) throw config_error("knn_entropy: dim = 0 (points need at least one coordinate)");
        if (points.size() % dim != 0)
            throw config_error(detail::message("knn_entropy: ", points.size(), " coordinates are not a multiple of dim = ",
                                               dim));
        const std::size_t n = points.size() / dim;
        if (k_ >= n)
            throw config_error(detail::message("knn_entropy: k = ", k_, " needs at least k + 1 = ", k_ + 1,
                                               " points, got n = ", n));
        if (n > std::numeric_limits<std::uint32_t>::max())
            throw config_error(detail::message("knn_entropy: n = ", n, " points (at most 2^32 - 1)"));
        for (std::size_t i = 0; i < points.size(); ++i)
            if (!std::isfinite(points[i]))
                throw numeric_error(detail::message("knn_entropy: point ", i / dim, ", coordinate ", i % dim, " is ",
                                                    points[i]));
        return n;
    }

    // Squared distance, coordinates summed in order 0..dim-1 (the brute-force formula). D > 0
    // fixes the dimension at compile time (dim == D); D = 0 reads it from dim.
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

    // Squared distance from q to the box of node `node`, summed like squared_distance: each
    // term is at most the same term for any point in the box (max(lo − q, q − hi, 0) is exact
    // and rounding is monotone), so the bound never exceeds a computed distance and pruning
    // keeps the exact k-th distance.
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

    // Nodes of the tree over n rows: median splits down to leaves of at most leaf_size rows.
    static std::size_t node_count(std::size_t n) noexcept {
        return n <= leaf_size ? 1 : 1 + node_count(n / 2) + node_count(n - n / 2);
    }

    // The subtree over rows [begin, end) of keys_, whose box lo_/hi_ the caller has set to
    // one holding its points: a median split along the box's widest axis; each child gets
    // the box cut at the split value. tighten() shrinks the boxes afterwards.
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

    // Bounding boxes made tight: a leaf's from its rows, a parent's as the union of its
    // children's (nodes are in preorder, so children come after their parent).
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

    // Fills squared_[i] with ε_i² for every point, in input order.
    void search(std::span<const double> points, std::size_t dim, std::size_t n) {
        switch (dim) {
            case 1: return search<1>(points, dim, n);
            case 2: return search<2>(points, dim, n);
            case 3: return search<3>(points, dim, n);
            case 4: return search<4>(points, dim, n);
            case 5: return search<5>(points, dim, n);
            case 6: return search<6>(points, dim, n);
            case 7: return search<7>(points, dim, n);
            case 8: return search<8>(points, dim, n);
            default: return search<0>(points, dim, n);
        }
    }

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
        work_ = 0;
        for (std::size_t leaf = 0; leaf < nodes_.size(); ++leaf)
            if (nodes_[leaf].right == no_child) search_leaf<D>(leaf, dim);
    }

    // Query a's k-th smallest squared distance so far: the top of its heap (inf until k seen),
    // kept beside the heaps where the pruning reads it.
    [[nodiscard]] double kth(std::size_t a) const noexcept { return kth_[a]; }

    // Puts s among query a's k smallest squared distances, if below the largest of them.
    // best_ row a is a max-heap of k values (inf where fewer than k were seen): s replaces
    // the top and sinks to its place, O(log k). The heap holds the same multiset as a sorted
    // list would, so its top (the k-th) and hence every pruning decision are the same.
    void insert(std::size_t a, double s) noexcept {
        if (!(s < kth_[a])) return;
        double* heap = &best_[a * k_];
        std::size_t i = 0;
        for (;;) {
            const std::size_t left = 2 * i + 1;
            if (left >= k_) break;
            const std::size_t right = left + 1;
            const std::size_t child = right < k_ && heap[right] > heap[left] ? right : left;
            if (!(heap[child] > s)) break;
            heap[i] = heap[child];
            i = child;
        }
        heap[i] = s;
        kth_[a] = heap[0];
    }

    // Counts `distances` computed and calls the poll callback once 2^16 have accumulated.
    void progress(std::size_t distances) {
        work_ += distances;
        if (work_ < poll_interval || poll_ == nullptr) return;
        work_ = 0;
        (*poll_)();
    }

    // The k-th distances of the points of one leaf: first from the pairs inside the leaf
    // (each distance computed once), then, point by point, from the subtrees hanging off
    // the leaf's path to the root, nearest first, each searched down from its top, the
    // child on the point's side first. A subtree is skipped when its box, or the split plane
    // between it and the point, is at least the point's current k-th distance away: every
    // point skipped is at least as far as that, so the result is exact.
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
        // The leaf's ancestors, root first (depth <= 33 for n < 2^32).
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
        std::size_t visited = m * (m - 1) / 2;  // distances computed, for the poll
        for (std::size_t a = 0; a < m; ++a) {
            const double* q = &rows_[(first + a) * dd];
            for (std::size_t level = depth; level-- > 0;) {
                const Node& parent = nodes_[path[level]];
                const std::uint32_t child = level + 1 < depth ? path[level + 1] : static_cast<std::uint32_t>(leaf);
                const std::uint32_t sibling = child == path[level] + 1 ? parent.right : path[level] + 1;
                // The sibling lies beyond the split plane: (q − split)² on the axis bounds it
                // as its box does (monotone rounding), for one product.
                const double gap = q[parent.axis] - parent.split;
                if (!(gap * gap < kth(a))) continue;
                const double bound = box_distance<D>(q, sibling, dim);
                if (!(bound < kth(a))) continue;
                std::size_t top = 0;
                stack[top++] = {sibling, bound};
                while (top > 0) {
                    const Pending p = stack[--top];
                    if (p.bound >= kth(a)) continue;
                    const Node& nd = nodes_[p.node];
                    if (nd.right == no_child) {
                        for (std::size_t j = nd.begin; j < nd.end; ++j)
                            insert(a, squared_distance<D>(q, &rows_[j * dd], dim));
                        visited += nd.end - nd.begin;
                        continue;
                    }
                    // The child on q's side first, under the parent's bound (a lower bound
                    // for it too); the other one under the plane's, then its box's.
                    const double g = q[nd.axis] - nd.split;
                    const std::uint32_t near = g < 0.0 ? p.node + 1 : nd.right;
                    const std::uint32_t far = g < 0.0 ? nd.right : p.node + 1;
                    if (g * g < kth(a)) {
                        const double bf = box_distance<D>(q, far, dim);
                        if (bf < kth(a)) stack[top++] = {far, bf};
                    }
                    stack[top++] = {near, p.bound};
                }
            }
            squared_[order_[first + a]] = kth(a);
            progress(visited);
            visited = 0;
        }
    }

    // δ of the scale rule: knn_scale_resolution × the root box's diagonal (computed from half
    // extents, scaled by the largest, so that neither the extents nor their squares overflow),
    // 1 unit when the box is a point, within [2^-511, 2^511].
    double scale_resolution(std::size_t dim) const noexcept {
        double largest = 0.0;
        for (std::size_t c = 0; c < dim; ++c) largest = std::max(largest, 0.5 * hi_[c] - 0.5 * lo_[c]);
        if (largest == 0.0) return knn_scale_resolution;
        double sum = 0.0;
        for (std::size_t c = 0; c < dim; ++c) {
            const double r = (0.5 * hi_[c] - 0.5 * lo_[c]) / largest;
            sum += r * r;
        }
        return std::clamp(2.0 * knn_scale_resolution * largest * std::sqrt(sum), knn_min_resolution, 0x1p511);
    }

    double estimate(std::size_t n, std::size_t dim) {
        resolution_ = !min_distance_ ? scale_resolution(dim) : *min_distance_;
        floored_ = 0;
        const double floor_squared = resolution_ * resolution_;
        double sum_log = 0.0;  // Σ log ε_i², in input order
        for (std::size_t i = 0; i < n; ++i) {
            double s = squared_[i];
            if (s < floor_squared) {
                s = floor_squared;
                ++floored_;
            }
            if (s == 0.0) throw numeric_error(tie_message(i, dim));
            if (!std::isfinite(s))
                throw numeric_error(detail::message("knn_entropy: the distance from point ", i,
                                                    " to its k-th neighbour overflows (", s,
                                                    " squared); rescale the coordinates"));
            sum_log += std::log(s);
        }
        const double nd = static_cast<double>(n);
        const double d = static_cast<double>(dim);
        return detail::digamma_integer(n) - detail::digamma_integer(k_) + detail::log_unit_ball_volume(dim) +
               0.5 * d * sum_log / nd;
    }

    // Names point i and one point at distance 0 from it (error path only).
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
        return detail::message("knn_entropy: point ", i, " has its k = ", k_, " nearest neighbours at distance 0 (e.g. point ",
                               other,
                               "; duplicates, or points closer than about 1e-162) and min_distance = 0 refuses ties; "
                               "pass min_distance > 0 to count them at that resolution, or leave it unset for the "
                               "scale rule (10^-12 of the points' extent)");
    }

    static constexpr std::size_t poll_interval = std::size_t{1} << 16;

    std::size_t k_;
    std::optional<double> min_distance_;
    std::size_t last_n_ = 0;
    double resolution_ = 0.0;
    std::size_t floored_ = 0;
    std::size_t work_ = 0;                          // distances since the last poll
    const std::function<void()>* poll_ = nullptr;  // during a call with a poll only
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
    std::vector<double> best_;        // per point of a leaf: a max-heap of its k smallest squared distances
    std::vector<double> kth_;         // per point of a leaf: the top of its heap
};

/// One-shot convenience: KnnEntropy(k, min_distance)(points, dim).
[[nodiscard]] inline double knn_entropy(std::span<const double> points, std::size_t dim, std::size_t k,
                                        std::optional<double> min_distance = std::nullopt) {
    KnnEntropy estimator(k, min_distance);
    return estimator(points, dim);
}

/// The same for vectors of one dimension; mixed dimensions are refused (config_error naming
/// the first point whose size differs from point 0's), as are empty vectors.
[[nodiscard]] inline double knn_entropy(const std::vector<std::vector<double>>& points, std::size_t k,
                                        std::optional<double> min_distance = std::nullopt) {
    KnnEntropy estimator(k, min_distance);
    const std::size_t dim = points.empty() ? 0 : points.front().size();
    for (std::size_t i = 1; i < points.size(); ++i)
        if (points[i].size() != dim)
            throw config_error(detail::message("knn_entropy: point ", i, " has dimension ", points[i].size(),
                                               ", point 0 has ", dim, " (mixed dimensions)"));
    if (points.size() <= k)
        throw config_error(detail::message("knn_entropy: k = ", k, " needs at least k + 1 = ", k + 1,
                                           " points, got n = ", points.size()));
    std::vector<double> flat;
    flat.reserve(points.size() * dim);
    for (const std::vector<double>& p : points) flat.insert(flat.end(), p.begin(), p.end());
    return estimator(flat, dim);
}

}  // namespace maxent
