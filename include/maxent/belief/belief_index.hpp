// maxent/belief/belief_index.hpp — a set of beliefs with "the same belief within a
// tolerance" lookup, stored compactly (sparse, in one flat arena) under a byte budget.
//
// Paper, Appendix "Belief Set Computation" (Algorithm 2): the test b' ∉ B of the reachable
// belief set, and the belief-state policy class B (one parameter row per belief).
//
// "The same belief": ||b - b'||_∞ < tolerance, in [1e-14, 1] (default 1e-9: far above the
// Bayes filter's rounding noise, a few ulps per update, and far below any difference that
// matters to a policy). The relation is NOT transitive: `find` returns the EARLIEST inserted
// belief within the tolerance (the smallest id); a stored belief is the first representative
// seen, never an average.
//
// Lookup, sound (no false "new belief"): each belief gets two keys, both Lipschitz in L∞,
// p(b) = Σ_s w_s b(s) (w_s ∈ [1, 2) fixed pseudo-random weights) and m(b) = max_s b(s). Close
// beliefs have computed keys within the half-windows h_p = (tol + 2 (S + 1) ε) Σ_s w_s and
// h_m = tol; buckets are the cells of a 2-D grid of widths 2 h (1 + δ), δ = 16 ε / tol, so
// `find` probes at most 2 x 2 cells, skips candidates whose stored keys are outside the
// half-windows and verifies the others EXACTLY in L∞. Two keys because p alone cannot tell
// apart beliefs near a vertex of the simplex whose small entries differ by a few tol, and m
// alone fails on beliefs uniform over same-size subsets. Cost: O(S) plus at most 4 probes.
//
// Budget: every growth is checked against `max_bytes` BEFORE any buffer grows, so exceeding it
// is a budget_error naming it, never an out-of-memory kill. Ids are std::uint32_t. Entries
// must be finite and in [0, 1 + belief_rounding_slack] (a sum of normalised weights may
// exceed 1 by a few ε per term); beliefs need not sum to 1.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"

namespace maxent {

/// The default "same belief" tolerance (L∞). Two algebraically equal beliefs reached through
/// different action / observation orders differ by ~1e-16 per update; distinct beliefs of the
/// paper's grids differ by >= 1e-6.
inline constexpr double default_belief_tolerance = 1e-9;

/// How far above 1 a belief entry may be from rounding: a particle filter's histogram with
/// every particle in one bin sums 1000 × 0.001 to 1.0000000000000007. The keys' rounding
/// bounds allow for it (key_of's message says "1e-9").
inline constexpr double belief_rounding_slack = 1e-9;

/// Unbounded byte budget.
inline constexpr std::size_t unlimited_bytes = std::numeric_limits<std::size_t>::max();

/// Storage: belief i is the sorted list of its entries > 0 (state indices as int32, values as
/// double) in two flat arenas, addressed by offset[i]..offset[i+1]; a bucket is an
/// open-addressing hash slot (bucket key, newest id), and the ids of a bucket are chained
/// through links[i] = (p(b_i), m(b_i), next id). Per belief: 12 bytes per positive entry + 32
/// bytes, plus the hash table (<= 2 slots of 24 bytes per belief). `bytes()` is the capacity
/// of every buffer; capacities grow by doubling, capped by what the budget still allows. The
/// budget counts the buffers' steady-state capacity; while one buffer is reallocated its old
/// copy is alive too (transiently up to the size of the largest buffer more).
class BeliefIndex {
public:
    using id_type = std::uint32_t;
    static constexpr id_type npos = std::numeric_limits<id_type>::max();

    /// An empty set of beliefs over `num_states` states. Throws config_error when
    /// num_states is 0 or above 2^31 - 1, or the tolerance is not in (0, 1].
    explicit BeliefIndex(std::size_t num_states, double tolerance = default_belief_tolerance,
                         std::size_t max_bytes = unlimited_bytes)
        : num_states_(num_states), tolerance_(tolerance), max_bytes_(max_bytes) {
        if (num_states == 0 || num_states > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max()))
            throw config_error(detail::message("BeliefIndex: num_states must be in [1, 2^31 - 1], got ", num_states));
        if (!(tolerance >= 1e-14 && tolerance <= 1.0))
            throw config_error(detail::message("BeliefIndex: tolerance must be in [1e-14, 1], got ", tolerance));
        weights_.resize(num_states);
        double total = 0.0;
        for (std::size_t s = 0; s < num_states; ++s) {
            weights_[s] = weight_of(s);
            total += weights_[s];
        }
        const double eps = std::numeric_limits<double>::epsilon();
        // Half-windows: |p̂(b) - p̂(b')| < half_[0] and |m(b) - m(b')| < half_[1] when
        // ||b - b'||_∞ < tol (p̂ rounds: 2 (S + 1) ε Σ w · max entry, the entries at most
        // 1 + slack; the maximum m is exact).
        half_[0] = (tolerance + 2.0 * (static_cast<double>(num_states) + 1.0) * eps * (1.0 + belief_rounding_slack)) *
                   total;
        half_[1] = tolerance;
        for (int j = 0; j < 2; ++j) {
            // δ: slack for the rounding of the quotients (<= 1 / (2 tol)) when bucketing.
            const double delta = std::min(1.0, 16.0 * eps / tolerance + 1e-12);
            width_[j] = 2.0 * half_[j] * (1.0 + delta);
            reach_[j] = half_[j] * (1.0 + delta / 2.0);
        }
        offset_.push_back(0);
    }

    [[nodiscard]] std::size_t num_states() const noexcept { return num_states_; }
    [[nodiscard]] double tolerance() const noexcept { return tolerance_; }
    /// Number of distinct beliefs stored.
    [[nodiscard]] std::size_t size() const noexcept { return links_.size(); }
    [[nodiscard]] bool empty() const noexcept { return links_.empty(); }
    /// Number of stored (positive) entries, over all beliefs.
    [[nodiscard]] std::size_t entries() const noexcept { return values_.size(); }
    /// Bytes held by every buffer (capacities), excluding the object itself and the weights.
    [[nodiscard]] std::size_t bytes() const noexcept {
        return bytes_of(states_) + bytes_of(values_) + bytes_of(offset_) + bytes_of(links_) + bytes_of(slots_);
    }
    [[nodiscard]] std::size_t max_bytes() const noexcept { return max_bytes_; }
    /// Changes the byte budget (it applies to future growth only).
    void set_max_bytes(std::size_t max_bytes) noexcept { max_bytes_ = max_bytes; }

    /// The id of the earliest inserted belief within the tolerance of b (L∞), or npos.
    /// Throws config_error if b has the wrong size or an entry outside [0, 1 + slack].
    [[nodiscard]] id_type find(const Eigen::Ref<const Eigen::VectorXd>& b) const {
        const Key key = key_of(b, "find");
        return find_with_key(b, key);
    }

    /// Inserts b unless a belief within the tolerance is stored; returns (id, inserted).
    /// Throws budget_error (and stores nothing) when storing it would exceed max_bytes or
    /// the id range; config_error as find.
    std::pair<id_type, bool> insert(const Eigen::Ref<const Eigen::VectorXd>& b) {
        const Key key = key_of(b, "insert");
        const id_type hit = find_with_key(b, key);
        if (hit != npos) return {hit, false};
        return {append(b, key), true};
    }

    /// The stored entries of belief i (sorted state indices, positive values).
    [[nodiscard]] SparseDistribution belief(std::size_t i) const {
        check_id(i, "belief");
        const auto begin = static_cast<std::size_t>(offset_[i]);
        const auto end = static_cast<std::size_t>(offset_[i + 1]);
        return SparseDistribution{std::span<const int>(states_.data() + begin, end - begin),
                                  std::span<const double>(values_.data() + begin, end - begin)};
    }

    /// out <- belief i as a dense vector (resized if needed).
    void dense(std::size_t i, Eigen::VectorXd& out) const {
        const SparseDistribution d = belief(i);
        const auto S = static_cast<Eigen::Index>(num_states_);
        if (out.size() != S) out.resize(S);
        out.setZero();
        for (std::size_t k = 0; k < d.size(); ++k) out[d.index[k]] = d.probability[k];
    }

    /// L∞ distance between b and stored belief i.
    [[nodiscard]] double distance(const Eigen::Ref<const Eigen::VectorXd>& b, std::size_t i) const {
        check_id(i, "distance");
        if (static_cast<std::size_t>(b.size()) != num_states_)
            throw config_error(detail::message("BeliefIndex::distance: the belief has ", b.size(), " entries for ",
                                               num_states_, " states"));
        return linf(b, static_cast<id_type>(i), std::numeric_limits<double>::infinity());
    }

    /// The bucket (floor(p(b) / W_p), floor(m(b) / W_m)) of the header comment (for tests
    /// and diagnostics: beliefs within the tolerance have buckets at most 1 apart in each).
    [[nodiscard]] std::pair<std::int64_t, std::int64_t> bucket(const Eigen::Ref<const Eigen::VectorXd>& b) const {
        const Key key = key_of(b, "bucket");
        return {bucket_of(key.v[0], 0), bucket_of(key.v[1], 1)};
    }

    /// Removes every belief (keeps the capacity).
    void clear() noexcept {
        states_.clear();
        values_.clear();
        offset_.assign(1, 0);
        links_.clear();
        for (Slot& slot : slots_) slot.head = npos;
        used_slots_ = 0;
    }

private:
    static std::uint64_t mix(std::uint64_t x) noexcept {  // splitmix64 finaliser
        x += 0x9E3779B97F4A7C15ull;
        x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
        x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
        return x ^ (x >> 31);
    }
    static double weight_of(std::size_t s) noexcept {
        return 1.0 + static_cast<double>(mix(static_cast<std::uint64_t>(s)) >> 11) * 0x1.0p-53;
    }
    template <class V>
    static std::size_t bytes_of(const std::vector<V>& v) noexcept {
        return v.capacity() * sizeof(V);
    }

    void check_id(std::size_t i, const char* where) const {
        if (i >= size())
            throw config_error(detail::message("BeliefIndex::", where, ": id ", i, " is outside [0, ", size(), ")"));
    }

    struct Key {
        double v[2];  // p(b), m(b)
    };

    /// Validates b and returns its keys (p(b), m(b)).
    Key key_of(const Eigen::Ref<const Eigen::VectorXd>& b, const char* where) const {
        if (static_cast<std::size_t>(b.size()) != num_states_)
            throw config_error(detail::message("BeliefIndex::", where, ": the belief has ", b.size(),
                                               " entries for ", num_states_, " states"));
        double p = 0.0, m = 0.0;
        for (Eigen::Index s = 0; s < b.size(); ++s) {
            const double x = b[s];
            if (!(x >= 0.0 && x <= 1.0 + belief_rounding_slack))
                throw config_error(detail::message("BeliefIndex::", where, ": belief entry ", s, " is ", x,
                                                   ", not a probability in [0, 1] (up to 1e-9 of rounding)"));
            p += weights_[static_cast<std::size_t>(s)] * x;
            m = std::max(m, x);
        }
        return Key{{p, m}};
    }
    [[nodiscard]] std::int64_t bucket_of(double x, int j) const noexcept {
        return static_cast<std::int64_t>(std::floor(x / width_[j]));
    }

    /// Max |b(s) - stored_i(s)|, stopping early once it reaches `stop`.
    double linf(const Eigen::Ref<const Eigen::VectorXd>& b, id_type i, double stop) const {
        const auto begin = static_cast<std::size_t>(offset_[i]);
        const auto end = static_cast<std::size_t>(offset_[i + 1]);
        double d = 0.0;
        std::size_t k = begin;
        for (Eigen::Index s = 0; s < b.size(); ++s) {
            double stored = 0.0;
            if (k < end && states_[k] == s) stored = values_[k++];
            d = std::max(d, std::abs(b[s] - stored));
            if (d >= stop) return d;
        }
        return d;
    }

    [[nodiscard]] id_type find_with_key(const Eigen::Ref<const Eigen::VectorXd>& b, const Key& key) const {
        if (slots_.empty()) return npos;
        // The windows (x - reach, x + reach) of both keys: at most two buckets each.
        const std::int64_t lo0 = bucket_of(key.v[0] - reach_[0], 0), hi0 = bucket_of(key.v[0] + reach_[0], 0);
        const std::int64_t lo1 = bucket_of(key.v[1] - reach_[1], 1), hi1 = bucket_of(key.v[1] + reach_[1], 1);
        id_type best = npos;
        for (std::int64_t k0 = lo0; k0 <= hi0; ++k0)
            for (std::int64_t k1 = lo1; k1 <= hi1; ++k1) {
                const Slot& slot = slots_[find_slot(k0, k1)];
                for (id_type i = slot.head; i != npos; i = links_[i].next) {  // newest first
                    const Link& l = links_[i];
                    if (i < best && std::abs(l.key[0] - key.v[0]) < half_[0] &&
                        std::abs(l.key[1] - key.v[1]) < half_[1] && linf(b, i, tolerance_) < tolerance_)
                        best = i;
                }
            }
        return best;
    }

    /// The slot holding bucket (k0, k1), or the empty slot where it would go.
    [[nodiscard]] std::size_t find_slot(std::int64_t k0, std::int64_t k1) const noexcept {
        const std::size_t mask = slots_.size() - 1;
        std::size_t slot = static_cast<std::size_t>(mix(static_cast<std::uint64_t>(k0) ^
                                                        mix(static_cast<std::uint64_t>(k1)))) &
                           mask;
        while (slots_[slot].head != npos && (slots_[slot].k0 != k0 || slots_[slot].k1 != k1))
            slot = (slot + 1) & mask;
        return slot;
    }

    /// Capacity a vector grows to so that it holds `needed` elements: doubling, at least
    /// `minimum` (append() falls back to exact growth when that exceeds the budget).
    template <class V>
    static std::size_t planned_capacity(const std::vector<V>& v, std::size_t needed, std::size_t minimum) noexcept {
        if (needed <= v.capacity()) return v.capacity();
        return std::max({needed, minimum, 2 * v.capacity()});
    }

    id_type append(const Eigen::Ref<const Eigen::VectorXd>& b, const Key& key) {
        const std::int64_t k0 = bucket_of(key.v[0], 0), k1 = bucket_of(key.v[1], 1);
        const std::size_t n = size();
        if (n >= static_cast<std::size_t>(npos) - 1)
            throw budget_error(detail::message("BeliefIndex: cannot store more than ", npos - 1, " beliefs"));
        std::size_t nnz = 0;
        for (Eigen::Index s = 0; s < b.size(); ++s) nnz += b[s] > 0.0 ? 1 : 0;

        // Plan every growth, check the budget, then grow (nothing changes if it throws).
        const std::size_t old_bytes = bytes();
        std::size_t cap_states = planned_capacity(states_, states_.size() + nnz, 1024);
        std::size_t cap_values = planned_capacity(values_, values_.size() + nnz, 1024);
        std::size_t cap_offset = planned_capacity(offset_, offset_.size() + 1, 256);
        std::size_t cap_next = planned_capacity(links_, n + 1, 256);
        const bool slot_is_new = slots_.empty() || slots_[find_slot(k0, k1)].head == npos;
        std::size_t slots = slots_.size();
        if (slots == 0) slots = 512;
        else if (slot_is_new && 2 * (used_slots_ + 1) > slots) slots *= 2;
        auto total = [&] {
            return cap_states * sizeof(sparse_index) + cap_values * sizeof(double) + cap_offset * sizeof(std::uint64_t) +
                   cap_next * sizeof(Link) + slots * sizeof(Slot);
        };
        if (total() > max_bytes_) {
            // Doubling does not fit: grow what must grow by what is needed plus the same
            // fraction f of its doubling for every buffer, f as large as the budget allows
            // (so the number of reallocations near the budget stays logarithmic).
            auto doubled = [](const auto& v, std::size_t needed) {
                return needed <= v.capacity() ? v.capacity() : std::max(needed, 2 * v.capacity());
            };
            const std::size_t want_states = doubled(states_, states_.size() + nnz),
                              want_values = doubled(values_, values_.size() + nnz),
                              want_offset = doubled(offset_, offset_.size() + 1), want_next = doubled(links_, n + 1);
            auto exact = [](const auto& v, std::size_t needed) { return std::max(v.capacity(), needed); };
            cap_states = exact(states_, states_.size() + nnz);
            cap_values = exact(values_, values_.size() + nnz);
            cap_offset = exact(offset_, offset_.size() + 1);
            cap_next = exact(links_, n + 1);
            if (slots_.empty()) slots = 8;
            const std::size_t fixed = total();
            if (fixed > max_bytes_)
                throw budget_error(detail::message("BeliefIndex: storing belief #", n, " (", nnz,
                                                   " positive entries) needs ", fixed,
                                                   " bytes, over the budget max_bytes = ", max_bytes_, " (", n,
                                                   " beliefs with ", entries(), " entries hold ", old_bytes,
                                                   " bytes)"));
            const double extra = static_cast<double>((want_states - cap_states) * sizeof(sparse_index) +
                                                     (want_values - cap_values) * sizeof(double) +
                                                     (want_offset - cap_offset) * sizeof(std::uint64_t) +
                                                     (want_next - cap_next) * sizeof(Link));
            // Keep room for the next doubling of the hash table (net + slots entries).
            const std::size_t table_reserve = slots * sizeof(Slot);
            const std::size_t room = max_bytes_ - fixed > table_reserve ? max_bytes_ - fixed - table_reserve : 0;
            const double f = extra > 0.0 ? std::min(1.0, static_cast<double>(room) / extra) : 0.0;
            auto part = [f](std::size_t exact_cap, std::size_t want) {
                return exact_cap + static_cast<std::size_t>(f * static_cast<double>(want - exact_cap) * 0.999);
            };
            cap_states = part(cap_states, want_states);
            cap_values = part(cap_values, want_values);
            cap_offset = part(cap_offset, want_offset);
            cap_next = part(cap_next, want_next);
        }
        states_.reserve(cap_states);
        values_.reserve(cap_values);
        offset_.reserve(cap_offset);
        links_.reserve(cap_next);
        if (slots != slots_.size()) rehash(slots);

        for (Eigen::Index s = 0; s < b.size(); ++s)
            if (b[s] > 0.0) {
                states_.push_back(static_cast<sparse_index>(s));
                values_.push_back(b[s]);
            }
        offset_.push_back(static_cast<std::uint64_t>(values_.size()));
        Slot& slot = slots_[find_slot(k0, k1)];
        if (slot.head == npos) {
            slot.k0 = k0;
            slot.k1 = k1;
            ++used_slots_;
        }
        links_.push_back(Link{{key.v[0], key.v[1]}, slot.head});
        slot.head = static_cast<id_type>(n);
        return static_cast<id_type>(n);
    }

    void rehash(std::size_t slots) {
        std::vector<Slot> old(slots, Slot{0, 0, npos});
        old.swap(slots_);
        for (const Slot& o : old)
            if (o.head != npos) slots_[find_slot(o.k0, o.k1)] = o;
    }

    std::size_t num_states_;
    double tolerance_;
    std::size_t max_bytes_;
    double half_[2] = {1.0, 1.0};   // half-windows of the keys p and m
    double width_[2] = {1.0, 1.0};  // bucket widths 2 half (1 + δ)
    double reach_[2] = {1.0, 1.0};  // probed half-windows half (1 + δ/2): at most 2 buckets
    std::vector<double> weights_;
    std::vector<sparse_index> states_;   // arena: state indices of the positive entries
    std::vector<double> values_;         // arena: their values
    std::vector<std::uint64_t> offset_;  // belief i = arena[offset_[i], offset_[i+1])
    struct Link {
        double key[2];  // p(b), m(b) (pre-filter: |key - key(q)| < half_ is necessary)
        id_type next;   // next (older) id in the same bucket, or npos
    };
    struct Slot {
        std::int64_t k0, k1;  // bucket of the two keys
        id_type head;         // newest id of the bucket (npos = empty slot)
    };
    std::vector<Link> links_;
    std::vector<Slot> slots_;            // open-addressing table of the buckets
    std::size_t used_slots_ = 0;
};

}  // namespace maxent
