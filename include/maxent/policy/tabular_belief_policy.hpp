// maxent/policy/tabular_belief_policy.hpp — the belief-state policy class B: one softmax row
// per distinct belief, allocated lazily on first visit.
//
// Paper, Appendix D (Figure 5) and Section 4 (the class "Markovian over belief states"), with
// docs/reference.md "Policy classes": π(· | b) = softmax(θ[row(b)]), θ ∈ R^{rows x A}, where
// row(b) is the row of the first belief stored within `tolerance` (L∞) of b — the lookup of
// belief/belief_index.hpp (sound bucketing, exact verification, earliest representative
// wins; default tolerance 1e-9). Score: ∇_θ log π(a | b) = e_row(b) (e_a - π(· | b))ᵀ, one row.
//
// Lazy rows. `sample` / `sample_rows` (non-const: the acting policy) give a belief seen for
// the first time a fresh zero row (the uniform policy); `probabilities` and `log_gradient`
// (const) never add rows: an unseen belief has the uniform distribution, and log_gradient
// throws config_error for it (its row does not exist yet). Pre-seeding from an enumeration
// (belief/reachable_beliefs.hpp) gives every reachable belief its row up front, so that the
// exact objective (objective/exact.hpp) can be used.
//
// Storage and growth. parameters() is an Eigen matrix with capacity_rows() >= rows() rows:
// the rows beyond rows() are zero, reserved for future beliefs, and never receive gradient;
// the capacity doubles (amortised O(A) per new row). Rows are never removed or reordered.
// Memory: memory() reports the rows and the bytes of θ and of the belief index; an optional
// byte budget (θ capacity + index) is checked before anything grows: budget_error, never an
// out-of-memory kill.
//
// Satisfies DifferentiablePolicy and RowSparsePolicy (policy/row_score.hpp): the trainer
// then works on the rows a batch touched only, so an iteration does not cost O(rows).
// The dense `sample(v, g, score)` pads a too-short score matrix with zero rows when θ grew.
#pragma once

#include <algorithm>
#include <cstddef>
#include <limits>
#include <span>
#include <utility>

#include <Eigen/Core>

#include "maxent/belief/belief_index.hpp"
#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/parameter_table.hpp"
#include "maxent/policy/row_score.hpp"

namespace maxent {

/// What a TabularBeliefPolicy's table holds.
struct TableMemory {
    std::size_t rows = 0;             ///< distinct beliefs with a row
    std::size_t capacity_rows = 0;    ///< rows of parameters() (>= rows)
    std::size_t parameter_bytes = 0;  ///< θ: capacity_rows x A doubles
    std::size_t index_bytes = 0;      ///< the belief index (BeliefIndex::bytes())
    [[nodiscard]] std::size_t bytes() const noexcept { return parameter_bytes + index_bytes; }
};

class TabularBeliefPolicy {
public:
    static constexpr bool needs_belief = true;
    static constexpr std::size_t npos = std::numeric_limits<std::size_t>::max();

    /// An empty table (no rows yet) over `num_states` states and `num_actions` actions.
    TabularBeliefPolicy(std::size_t num_states, std::size_t num_actions, double tolerance = default_belief_tolerance,
                        std::size_t max_bytes = unlimited_bytes)
        : index_(num_states, tolerance), max_bytes_(max_bytes) {
        init(num_actions);
    }

    /// Pre-seeded: row i is belief i of `beliefs` (e.g. reachable_beliefs(...).beliefs), θ = 0.
    /// The tolerance is the index's.
    TabularBeliefPolicy(const BeliefIndex& beliefs, std::size_t num_actions, std::size_t max_bytes = unlimited_bytes)
        : index_(beliefs), max_bytes_(max_bytes) {
        init(num_actions);
        const std::size_t n = index_.size();
        check_budget(n, "pre-seeding");
        theta_ = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(n), theta_.cols());
    }

    [[nodiscard]] std::size_t num_actions() const noexcept { return static_cast<std::size_t>(theta_.cols()); }
    [[nodiscard]] std::size_t num_states() const noexcept { return index_.num_states(); }
    /// Number of distinct beliefs with a row.
    [[nodiscard]] std::size_t rows() const noexcept { return index_.size(); }
    [[nodiscard]] std::size_t capacity_rows() const noexcept { return static_cast<std::size_t>(theta_.rows()); }
    [[nodiscard]] double tolerance() const noexcept { return index_.tolerance(); }
    [[nodiscard]] const BeliefIndex& beliefs() const noexcept { return index_; }
    [[nodiscard]] std::size_t max_bytes() const noexcept { return max_bytes_; }
    [[nodiscard]] TableMemory memory() const noexcept {
        return {rows(), capacity_rows(), static_cast<std::size_t>(theta_.size()) * sizeof(double), index_.bytes()};
    }

    [[nodiscard]] Eigen::MatrixXd& parameters() noexcept { return theta_; }
    [[nodiscard]] const Eigen::MatrixXd& parameters() const noexcept { return theta_; }

    void check_dimensions(const AgentDimensions& d) const {
        if (d.belief != num_states() || d.actions != num_actions())
            throw config_error(detail::message("TabularBeliefPolicy: built for ", num_states(), " belief states and ",
                                               num_actions(), " actions but the belief model has ", d.belief,
                                               " states and the world ", d.actions, " actions"));
    }

    /// The row of b (within the tolerance), or npos; never adds a row.
    [[nodiscard]] std::size_t row_of(const Eigen::Ref<const Eigen::VectorXd>& b) const {
        const BeliefIndex::id_type r = index_.find(b);
        return r == BeliefIndex::npos ? npos : static_cast<std::size_t>(r);
    }

    /// The row of b, adding a zero row if b is new (budget_error if that exceeds max_bytes).
    std::size_t row_for(const Eigen::Ref<const Eigen::VectorXd>& b) {
        // Plan θ's growth as if b were new, then insert (one lookup); growth happens only
        // when b was new.
        const std::size_t n = rows();
        Eigen::Index capacity = theta_.rows();
        if (n == static_cast<std::size_t>(capacity)) {
            capacity = std::max<Eigen::Index>(16, 2 * capacity);
            if (bytes_for(static_cast<std::size_t>(capacity)) + index_.bytes() > max_bytes_)
                capacity = static_cast<Eigen::Index>(n + 1);  // near the budget: grow by one row
        }
        const std::size_t theta_bytes = bytes_for(static_cast<std::size_t>(capacity));
        if (theta_bytes > max_bytes_) {
            const BeliefIndex::id_type hit = index_.find(b);
            if (hit != BeliefIndex::npos) return hit;
            over_budget(n, theta_bytes);
        }
        index_.set_max_bytes(max_bytes_ - theta_bytes);
        std::pair<BeliefIndex::id_type, bool> r;
        try {
            r = index_.insert(b);  // throws budget_error only for a new belief
        } catch (const budget_error&) {
            over_budget(n, theta_bytes);
        }
        if (!r.second) return r.first;
        if (capacity != theta_.rows()) {
            const Eigen::Index old = theta_.rows();
            theta_.conservativeResize(capacity, Eigen::NoChange);
            theta_.bottomRows(capacity - old).setZero();
        }
        return n;
    }

    /// out <- softmax(θ[row(b)]), uniform when b has no row.
    void probabilities(const AgentView& v, Eigen::VectorXd& out) const {
        const std::size_t r = row_of(v.belief);
        const auto A = theta_.cols();
        if (r == npos) {
            out = Eigen::VectorXd::Constant(A, 1.0 / static_cast<double>(A));
            return;
        }
        if (out.size() != A) out.resize(A);
        out = theta_.row(static_cast<Eigen::Index>(r)).transpose();
        softmax_into(out, out);  // element-wise: aliasing is safe
    }

    /// Acts (adding a row for a new belief) and adds the score to the dense `score`, which
    /// is padded with zero rows up to θ's rows if θ grew.
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        const auto r = static_cast<Eigen::Index>(row_for(v.belief));
        if (score.cols() != theta_.cols() || score.rows() > theta_.rows())
            throw config_error(detail::message("TabularBeliefPolicy::sample: score buffer is ", score.rows(), " x ",
                                               score.cols(), ", parameters are ", theta_.rows(), " x ",
                                               theta_.cols()));
        if (score.rows() < theta_.rows()) {
            const Eigen::Index old = score.rows();
            score.conservativeResize(theta_.rows(), Eigen::NoChange);
            score.bottomRows(theta_.rows() - old).setZero();
        }
        const std::size_t a = act(r, g);
        for (Eigen::Index c = 0; c < theta_.cols(); ++c) score(r, c) -= probs_[c];
        score(r, static_cast<Eigen::Index>(a)) += 1.0;
        return a;
    }

    /// As sample, with the score added to a RowScore (RowSparsePolicy).
    template <std::uniform_random_bit_generator G>
    std::size_t sample_rows(const AgentView& v, G& g, RowScore& score) {
        const auto r = static_cast<Eigen::Index>(row_for(v.belief));
        if (score.cols() != num_actions())
            throw config_error(detail::message("TabularBeliefPolicy::sample_rows: row score has ", score.cols(),
                                               " columns, parameters ", num_actions()));
        const std::size_t a = act(r, g);
        const std::span<double> row = score.touch(r);
        for (std::size_t c = 0; c < row.size(); ++c) row[c] -= probs_[static_cast<Eigen::Index>(c)];
        row[a] += 1.0;
        return a;
    }

    /// grad += e_row(b) (e_a - π(· | b))ᵀ; config_error if b has no row or grad is not θ-shaped.
    void log_gradient(const AgentView& v, std::size_t a, Eigen::MatrixXd& grad) const {
        if (a >= num_actions())
            throw config_error(detail::message("TabularBeliefPolicy::log_gradient: action ", a, " is outside [0, ",
                                               num_actions(), ")"));
        if (grad.rows() != theta_.rows() || grad.cols() != theta_.cols())
            throw config_error(detail::message("TabularBeliefPolicy::log_gradient: gradient buffer is ", grad.rows(),
                                               " x ", grad.cols(), ", parameters are ", theta_.rows(), " x ",
                                               theta_.cols()));
        const std::size_t r = row_of(v.belief);
        if (r == npos)
            throw config_error(detail::message("TabularBeliefPolicy::log_gradient: the belief at step ", v.step,
                                               " has no row among the ", rows(),
                                               " (const use cannot add rows: pre-seed the table from "
                                               "reachable_beliefs or let the policy act on it first)"));
        Eigen::VectorXd p;
        probabilities(v, p);
        const auto ri = static_cast<Eigen::Index>(r);
        grad.row(ri) -= p.transpose();
        grad(ri, static_cast<Eigen::Index>(a)) += 1.0;
    }

private:
    void init(std::size_t num_actions) {
        if (num_actions == 0) throw config_error("TabularBeliefPolicy: needs at least one action, got 0");
        theta_.resize(0, static_cast<Eigen::Index>(num_actions));
        logits_.resize(static_cast<Eigen::Index>(num_actions));
        probs_.resize(static_cast<Eigen::Index>(num_actions));
    }
    [[nodiscard]] std::size_t bytes_for(std::size_t capacity_rows) const noexcept {
        return capacity_rows * num_actions() * sizeof(double);
    }
    void check_budget(std::size_t capacity_rows, const char* what) const {
        const std::size_t total = bytes_for(capacity_rows) + index_.bytes();
        if (total > max_bytes_)
            throw budget_error(detail::message("TabularBeliefPolicy: ", what, " needs ", total,
                                               " bytes, over the budget max_bytes = ", max_bytes_));
    }
    [[noreturn]] void over_budget(std::size_t n, std::size_t theta_bytes) const {
        throw budget_error(detail::message("TabularBeliefPolicy: a new row for belief #", n,
                                           " does not fit the budget max_bytes = ", max_bytes_, " (table: ", n,
                                           " rows, parameters ", theta_bytes, " bytes after growth, belief index ",
                                           index_.bytes(), " bytes)"));
    }
    template <class G>
    std::size_t act(Eigen::Index r, G& g) {
        logits_ = theta_.row(r).transpose();
        softmax_into(logits_, probs_);
        return sample_categorical(probs_, g);
    }

    BeliefIndex index_;
    std::size_t max_bytes_;
    Eigen::MatrixXd theta_;
    Eigen::VectorXd logits_;
    Eigen::VectorXd probs_;
};

}  // namespace maxent
