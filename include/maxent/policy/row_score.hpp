// maxent/policy/row_score.hpp — row-sparse scores: the optional extension of
// DifferentiablePolicy for policies with a tall parameter table of which one trajectory
// touches only a few rows (the belief-state class B, paper Appendix D; the belief policies
// over a large map, whose score lives on the belief's support), so that training costs
// O(rows touched), not O(rows), per trajectory. A `RowScore` holds one trajectory's score
// g_n = Σ_t ∇_θ log π(a_t | i_t) on the rows it touched; the trainer's row path
// (optim/row_sparse_path.hpp) combines the N row scores of a batch.
//
// RowSparsePolicy concept — a DifferentiablePolicy with, for `P p`, `const AgentView v`,
// a generator `g` (archetype DefaultRng) and `RowScore rs`:
//   p.sample_rows(v, g, rs)  -> std::size_t   exactly what p.sample(v, g, score) does (same
//                            draws from g, same action), except that the score is ADDED
//                            to rs (rs.cols() == parameters().cols()) instead of to a
//                            dense matrix.
// and the growth rule: parameters() may GROW during sample / sample_rows (rows appended,
// new rows zero; columns fixed), rows are never removed or reordered; callers holding
// parameter-shaped state pad it with zeros. Satisfied by TabularBeliefPolicy (which grows
// θ), and by BeliefAveragedPolicy, BeliefMixturePolicy and BelievedStatePolicy, whose θ
// never changes shape (`fixed_parameters`, core/optional_members.hpp).
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/policy/concepts.hpp"

namespace maxent {

/// The score of one trajectory restricted to the parameter rows it touched: rows()[i] is a
/// row of θ, row(i) its cols() values. Keeps its capacity across reset() (no allocation
/// once warm). Looking a row up is linear while a trajectory has touched few rows and
/// O(1) beyond (a row -> slot map, sized by the largest row seen and cleared in O(touched)),
/// so a trajectory of thousands of steps on a map of 10^6 states costs O(touched rows).
///
/// Base term (optional). A belief policy's first step acts on the prior b_1, which is the
/// same vector in every episode; with a prior spread over the whole map (the paper's
/// uniform b_1) its score b_1 (e_a - π)ᵀ touches every row. The owner of the score may
/// declare that vector as the BASE (set_base: it must outlive the score, and every episode
/// this score records must start from exactly that belief); a policy's first call may then
/// record its first-step score as the rank-one term base ⊗ c (lead(c)) instead of touching
/// rows. Row r of the score is then c * base[r] at every row never touched, and the touched
/// rows start from 0.0 + c * base[r] before their own terms are added: the dense score's
/// entries, with the same operations in the same order.
class RowScore {
public:
    RowScore() = default;
    explicit RowScore(std::size_t cols) : cols_(cols) {}

    /// Forgets every row and the lead term (not the base); the next trajectory's rows will
    /// have `cols` columns.
    void reset(std::size_t cols) noexcept {
        for (const Eigen::Index r : rows_)
            if (static_cast<std::size_t>(r) < slot_.size()) slot_[static_cast<std::size_t>(r)] = no_entry;
        cols_ = cols;
        rows_.clear();
        values_.clear();
        lead_.clear();
        has_lead_ = false;
    }
    [[nodiscard]] std::size_t cols() const noexcept { return cols_; }
    [[nodiscard]] std::size_t size() const noexcept { return rows_.size(); }
    [[nodiscard]] bool empty() const noexcept { return rows_.empty() && !has_lead_; }
    [[nodiscard]] std::span<const Eigen::Index> rows() const noexcept { return rows_; }
    [[nodiscard]] std::span<const double> row(std::size_t i) const noexcept {
        return std::span<const double>(values_).subspan(i * cols_, cols_);
    }

    /// Declares (or, with nullptr, removes) the base vector; see the class comment.
    void set_base(const Eigen::VectorXd* base) noexcept { base_ = base; }
    [[nodiscard]] const Eigen::VectorXd* base() const noexcept { return base_; }
    /// Whether lead() may be called now: a base is set and nothing has been recorded yet.
    [[nodiscard]] bool can_lead() const noexcept { return base_ != nullptr && rows_.empty() && !has_lead_; }
    /// Records the first term of the score as base ⊗ coefficients (cols() coefficients).
    void lead(std::span<const double> coefficients) {
        if (base_ == nullptr) throw config_error("RowScore::lead: no base is set (set_base)");
        if (!can_lead())
            throw config_error(detail::message("RowScore::lead: the score already holds ", rows_.size(),
                                               " rows", has_lead_ ? " and a lead term" : "",
                                               " (the lead term must be the first)"));
        if (coefficients.size() != cols_)
            throw config_error(detail::message("RowScore::lead: ", coefficients.size(), " coefficients for ", cols_,
                                               " columns"));
        lead_.assign(coefficients.begin(), coefficients.end());
        has_lead_ = true;
    }
    /// Whether the score has a lead term, and its coefficients.
    [[nodiscard]] bool has_lead() const noexcept { return has_lead_; }
    [[nodiscard]] std::span<const double> lead_coefficients() const noexcept { return lead_; }
    /// The score's entry (r, c) at a row r it never touched: 0.0 + c_c * base[r] with a
    /// lead term, else 0.
    [[nodiscard]] double untouched_value(Eigen::Index r, std::size_t c) const noexcept {
        return has_lead_ ? 0.0 + lead_[c] * (*base_)[r] : 0.0;
    }

    /// The values of parameter row r, appended on first touch as untouched_value(r, ·).
    [[nodiscard]] std::span<double> touch(Eigen::Index r) {
        if (r < 0) throw config_error(detail::message("RowScore::touch: row ", r, " is negative"));
        std::size_t i = find(r);
        if (i == no_slot) {
            if (has_lead_ && r >= base_->size())
                throw config_error(detail::message("RowScore::touch: row ", r, " is outside the base's ",
                                                   base_->size(), " entries"));
            i = rows_.size();
            rows_.push_back(r);
            values_.resize(values_.size() + cols_, 0.0);
            if (has_lead_)
                for (std::size_t c = 0; c < cols_; ++c) values_[i * cols_ + c] = untouched_value(r, c);
            if (!slot_.empty() || rows_.size() > linear_limit) remember(i);
        }
        return std::span<double>(values_).subspan(i * cols_, cols_);
    }

    /// Adds this score into the dense matrix (whose rows must cover every touched row and,
    /// with a lead term, the base).
    void add_to(Eigen::MatrixXd& dense) const {
        if (static_cast<std::size_t>(dense.cols()) != cols_)
            throw config_error(detail::message("RowScore::add_to: matrix has ", dense.cols(), " columns, score ",
                                               cols_));
        for (std::size_t i = 0; i < rows_.size(); ++i)
            if (rows_[i] >= dense.rows())
                throw config_error(detail::message("RowScore::add_to: row ", rows_[i], " is outside the matrix's ",
                                                   dense.rows(), " rows"));
        if (has_lead_) {
            if (base_->size() != dense.rows())
                throw config_error(detail::message("RowScore::add_to: the base has ", base_->size(),
                                                   " entries, the matrix ", dense.rows(), " rows"));
            for (Eigen::Index r = 0; r < dense.rows(); ++r) {
                if (find(r) != no_slot) continue;
                for (std::size_t c = 0; c < cols_; ++c)
                    dense(r, static_cast<Eigen::Index>(c)) += untouched_value(r, c);
            }
        }
        for (std::size_t i = 0; i < rows_.size(); ++i)
            for (std::size_t c = 0; c < cols_; ++c)
                dense(rows_[i], static_cast<Eigen::Index>(c)) += values_[i * cols_ + c];
    }

private:
    using slot_type = std::uint32_t;
    static constexpr std::size_t no_slot = static_cast<std::size_t>(-1);
    static constexpr slot_type no_entry = std::numeric_limits<slot_type>::max();
    static constexpr std::size_t linear_limit = 16;  // touched rows looked up by a linear scan

    [[nodiscard]] std::size_t find(Eigen::Index r) const noexcept {
        if (slot_.empty()) {
            for (std::size_t i = 0; i < rows_.size(); ++i)
                if (rows_[i] == r) return i;
            return no_slot;
        }
        const auto ri = static_cast<std::size_t>(r);
        return ri < slot_.size() && slot_[ri] != no_entry ? slot_[ri] : no_slot;
    }
    /// Enters row rows_[i] in the slot map (building the map from the rows so far when it is
    /// first needed); the map grows to the largest row seen, at least doubling.
    void remember(std::size_t i) {
        const bool fresh = slot_.empty();
        std::size_t need = static_cast<std::size_t>(rows_[i]) + 1;
        if (fresh)
            for (const Eigen::Index r : rows_) need = std::max(need, static_cast<std::size_t>(r) + 1);
        if (rows_.size() >= no_entry)
            throw budget_error(detail::message("RowScore: more than ", no_entry - 1, " touched rows"));
        if (slot_.size() < need) slot_.resize(std::max(need, 2 * slot_.size()), no_entry);
        if (fresh)
            for (std::size_t j = 0; j < rows_.size(); ++j)
                slot_[static_cast<std::size_t>(rows_[j])] = static_cast<slot_type>(j);
        else
            slot_[static_cast<std::size_t>(rows_[i])] = static_cast<slot_type>(i);
    }

    std::size_t cols_ = 0;
    std::vector<Eigen::Index> rows_;
    std::vector<double> values_;  // row-major, size() x cols_
    std::vector<slot_type> slot_;  // row -> index in rows_ (no_entry), once more than linear_limit rows
    const Eigen::VectorXd* base_ = nullptr;
    std::vector<double> lead_;
    bool has_lead_ = false;
};

namespace concept_checks {
template <class P>
concept has_sample_rows = requires(P& p, const AgentView& v, DefaultRng& g, RowScore& rs) {
    { p.sample_rows(v, g, rs) } -> std::convertible_to<std::size_t>;
};
}  // namespace concept_checks

template <class P>
concept RowSparsePolicy = DifferentiablePolicy<P> && concept_checks::has_sample_rows<P>;

template <class P>
consteval bool require_row_sparse_policy() {
    static_assert(require_differentiable_policy<P>());
    static_assert(concept_checks::has_sample_rows<P>,
                  "maxent::RowSparsePolicy: missing `std::size_t sample_rows(const AgentView&, G& g, RowScore& "
                  "score)` (templated on the generator)");
    return true;
}

/// A view of a RowSparsePolicy whose sample() routes the score into a RowScore (reset on
/// construction); the dense score matrix the Sampler passes is left untouched (give it a
/// 0 x 0 matrix). Lets the Sampler run a row-sparse policy unchanged.
template <class P>
class RowScoringView : public PolicyView<P> {
    static_assert(require_row_sparse_policy<P>());

public:
    RowScoringView(P& policy, RowScore& score) : PolicyView<P>(policy), score_(&score) {
        static_assert(keeps_policy_speed_hooks<RowScoringView, P>);
        score.reset(static_cast<std::size_t>(policy.parameters().cols()));
    }
    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& /*dense score: unused*/) {
        return this->policy().sample_rows(v, g, *score_);
    }

private:
    RowScore* score_;
};

}  // namespace maxent
