// maxent/model/pomdp_file.hpp — reader of Cassandra's POMDP text format (pomdp-solve, SARSOP, ...).
//
// Builds the paper's finite POMDP M = (S, A, O, P, Obs, T, μ) of Section 2.1 as a
// `FinitePomdp<std::string, std::string, std::string>`, and keeps what the paper does not use
// (discount, rewards) beside it. The whole format is read:
//   * preamble, in any order, before the first T:/O:/R: entry: discount: x (optional, in
//     [0, 1]); values: reward|cost (optional); states: / actions: / observations: N | names
//     (a count N labels the elements "0".."N-1"; entries name an element or its 0-based
//     number; names cannot begin with a digit, a sign or '.', nor be uniform/identity/reset).
//   * start: p_1 ... p_S | uniform | <state>; start include: / exclude: <states...>
//     (optional, default uniform): the initial distribution μ.
//   * T: a : s : s' p | T: a : s <S numbers | uniform | reset> | T: a <S x S | identity | uniform>
//   * O: a : s' : o p | O: a : s' <O numbers | uniform> | O: a <S x O | uniform>   (O(o | s', a))
//   * R: a : s : s' : o r | R: a : s : s' <O numbers> | R: a : s <S x O matrix>
//   Any of a, s, s', o may be '*'. Later entries override earlier ones cell by cell; '#'
//   starts a comment to the end of the line.
// Choices: horizon T = S unless ReadOptions::horizon says otherwise; every row must sum to 1
// within ReadOptions::row_tolerance and is then renormalised exactly (a row that sums to 1 up to
// the rounding of its sum, 2nε for n entries, is kept as written: what makes written files read
// back exactly, model/pomdp_writer.hpp); a transition row with no
// positive entry is an error, or an absorbing state with EmptyRows::self_loop (listed in
// PomdpFile::absorbing_rows); one shared observation matrix when every action's comes out
// identical (then o_1 uses it too), else one per action; rewards kept as the file states them
// (RewardTable). Bounded on any input (ReadOptions::max_labels, max_cell_writes): never a
// crash, a hang or an unbounded allocation.
// Errors: every problem in the text is a maxent::parse_error whose message starts with
// "<name>:<line>:<column>: " and says what was expected; bad options are config_error.
#pragma once

#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <iterator>
#include <limits>
#include <optional>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "maxent/core/error.hpp"
#include "maxent/core/read_file.hpp"
#include "maxent/model/detail/pomdp_lexer.hpp"
#include "maxent/model/finite_pomdp.hpp"

namespace maxent {

/// What the reader does with a transition row that has no positive entry.
enum class EmptyRows {
    error,      ///< parse_error naming the action and the state (default)
    self_loop,  ///< the state becomes absorbing under that action (P(s | s, a) = 1)
};

/// Options of parse_pomdp / read_pomdp_file.
struct ReadOptions {
    /// Horizon T of the model; 0 means T = number of states.
    std::size_t horizon = 0;
    /// Largest accepted |row sum - 1| before exact renormalisation. Why 1e-3: files print
    /// probabilities with 4 to 6 decimals, and rounding n entries to d decimals moves a sum by
    /// up to n·0.5·10^-d (a 4-decimal row of 3 to 20 entries: 1e-4 to 1e-3), while a real
    /// mistake (a digit typo, a missing entry) moves it by 0.01 or more; renormalising
    /// changes no probability by more than 0.1 % of its value. A row off by more is a
    /// parse_error naming the action and the state.
    double row_tolerance = 1e-3;
    /// Policy for transition rows with no positive entry.
    EmptyRows empty_transition_rows = EmptyRows::error;
    /// Largest number of states, of actions and of observations.
    std::size_t max_labels = 1'000'000;
    /// Budget on the T and O cells the file writes (expansions of '*', uniform, identity
    /// and reset count one per cell); also bounds A·S. 2^24 writes of about 20 bytes each
    /// while reading keep the reader's peak memory below ~350 MB.
    std::size_t max_cell_writes = std::size_t{1} << 24;
};

/// Rewards R(a, s, s', o) as the file gives them: a list of rules whose fields may be
/// "any", where the last rule (in file order) matching a query wins, 0 when none does.
/// Stored compactly: one sorted table per wildcard pattern (16 patterns), each keeping only
/// the last rule per key; a query is at most 16 binary searches.
class RewardTable {
public:
    static constexpr std::int32_t any = -1;

    /// One R: entry cell; a field equal to `any` matches every value.
    struct Rule {
        std::int32_t action = any;
        std::int32_t state = any;
        std::int32_t next_state = any;
        std::int32_t observation = any;
        double value = 0.0;
    };

    RewardTable() = default;

    /// From rules in file order over A actions, S states and O observations.
    RewardTable(std::size_t num_actions, std::size_t num_states, std::size_t num_observations,
                std::span<const Rule> rules)
        : sizes_{num_actions, num_states, num_states, num_observations} {
        for (std::size_t k = 0; k < rules.size(); ++k) {
            const Rule& r = rules[k];
            const std::array<std::int32_t, 4> key{r.action, r.state, r.next_state, r.observation};
            for (std::size_t f = 0; f < 4; ++f)
                if (key[f] != any && (key[f] < 0 || static_cast<std::size_t>(key[f]) >= sizes_[f]))
                    throw config_error(detail::message("RewardTable: rule ", k, " has field ", f, " = ", key[f],
                                                       " outside [0, ", sizes_[f], ")"));
            tables_[pattern(key)].push_back(Entry{key, k, r.value});
        }
        for (auto& table : tables_) {
            std::stable_sort(table.begin(), table.end(),
                             [](const Entry& x, const Entry& y) { return x.key < y.key; });
            // keep the last rule (largest position) per key
            std::vector<Entry> kept;
            kept.reserve(table.size());
            for (std::size_t i = 0; i < table.size(); ++i)
                if (i + 1 == table.size() || table[i + 1].key != table[i].key) kept.push_back(table[i]);
            table = std::move(kept);
            table.shrink_to_fit();
            stored_ += table.size();
        }
    }

    /// R(a, s, s', o); throws config_error for an index out of range.
    [[nodiscard]] double operator()(std::size_t a, std::size_t s, std::size_t next, std::size_t o) const {
        const std::array<std::size_t, 4> q{a, s, next, o};
        for (std::size_t f = 0; f < 4; ++f)
            if (q[f] >= sizes_[f])
                throw config_error(detail::message("RewardTable: ", field_name(f), " index ", q[f],
                                                   " is outside [0, ", sizes_[f], ")"));
        const Entry* best = nullptr;
        for (std::size_t p = 0; p < tables_.size(); ++p) {
            const auto& table = tables_[p];
            if (table.empty()) continue;
            std::array<std::int32_t, 4> key{};
            for (std::size_t f = 0; f < 4; ++f)
                key[f] = ((p >> f) & 1U) != 0 ? any : static_cast<std::int32_t>(q[f]);
            const auto it = std::lower_bound(table.begin(), table.end(), key,
                                             [](const Entry& e, const std::array<std::int32_t, 4>& k) {
                                                 return e.key < k;
                                             });
            if (it != table.end() && it->key == key && (best == nullptr || it->position > best->position))
                best = &*it;
        }
        return best == nullptr ? 0.0 : best->value;
    }

    /// Number of rules kept (rules overridden by a later rule with the same fields dropped).
    [[nodiscard]] std::size_t num_rules() const noexcept { return stored_; }
    [[nodiscard]] bool empty() const noexcept { return stored_ == 0; }

private:
    struct Entry {
        std::array<std::int32_t, 4> key;
        std::size_t position;  // index of the rule in file order
        double value;
    };

    static std::size_t pattern(const std::array<std::int32_t, 4>& key) noexcept {
        std::size_t p = 0;
        for (std::size_t f = 0; f < 4; ++f)
            if (key[f] == any) p |= std::size_t{1} << f;
        return p;
    }
    static const char* field_name(std::size_t f) noexcept {
        constexpr const char* names[] = {"action", "state", "next state", "observation"};
        return names[f];
    }

    std::array<std::size_t, 4> sizes_{0, 0, 0, 0};
    std::array<std::vector<Entry>, 16> tables_{};
    std::size_t stored_ = 0;
};

/// A model read from a POMDP file: the finite POMDP plus what the paper does not use.
struct PomdpFile {
    using Model = FinitePomdp<std::string, std::string, std::string>;

    /// S, A, O with the file's names as labels ("0", "1", ... for numbered sets), P, Obs,
    /// μ = the file's start (uniform when absent), horizon from ReadOptions.
    Model model;
    /// The file's `discount:` (absent when the file has none).
    std::optional<double> discount;
    /// True for `values: cost`: the rewards below are then costs, as written.
    bool values_are_costs = false;
    /// R(a, s, s', o) as written in the file.
    RewardTable rewards;
    /// (action, state) transition rows made absorbing under EmptyRows::self_loop.
    std::vector<std::pair<std::size_t, std::size_t>> absorbing_rows;

    [[nodiscard]] double reward(std::size_t a, std::size_t s, std::size_t next, std::size_t o) const {
        return rewards(a, s, next, o);
    }

    /// Expected immediate reward r(s, a) = Σ_s' P(s' | s, a) Σ_o Obs(o | s', a) R(a, s, s', o),
    /// as an S x A matrix.
    [[nodiscard]] Eigen::MatrixXd expected_rewards() const {
        const std::size_t S = model.num_states(), A = model.num_actions();
        Eigen::MatrixXd r = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(S), static_cast<Eigen::Index>(A));
        if (rewards.empty()) return r;
        for (std::size_t a = 0; a < A; ++a)
            for (std::size_t s = 0; s < S; ++s) {
                const SparseDistribution next = model.transition(s, a);
                double total = 0.0;
                for (std::size_t k = 0; k < next.size(); ++k) {
                    const auto sp = static_cast<std::size_t>(next.index[k]);
                    const SparseDistribution obs = model.observation(a, sp);
                    double inner = 0.0;
                    for (std::size_t j = 0; j < obs.size(); ++j)
                        inner += obs.probability[j] * rewards(a, s, sp, static_cast<std::size_t>(obs.index[j]));
                    total += next.probability[k] * inner;
                }
                r(static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(a)) = total;
            }
        return r;
    }
};

namespace detail {

/// Whether a row of n nonzero probabilities whose left-to-right sum is `sum` is normalised
/// as far as double arithmetic can tell: |sum - 1| <= 2 n ε, more than the rounding of the
/// n - 1 additions plus that of a row divided by its own sum (about (2n - 1) ε / 2). The reader
/// keeps such a row as written (dividing would only move entries by rounding), so a row
/// written with round-trip digits reads back exactly; a row further off is divided by its sum.
[[nodiscard]] inline bool sums_to_one_up_to_rounding(double sum, std::size_t n) noexcept {
    return std::abs(sum - 1.0) <= 2.0 * static_cast<double>(n) * std::numeric_limits<double>::epsilon();
}

/// One parse of one text; see the header comment for the grammar and the decisions.
class PomdpFileParser {
public:
    PomdpFileParser(std::string_view text, std::string_view name, const ReadOptions& options)
        : text_(text), name_(name), options_(options), lex_(text) {}

    PomdpFile parse() {
        check_options();
        if (text_.size() >= static_cast<std::size_t>(never))
            fail(0, "the text is 4 GiB or larger, beyond what the reader accepts");
        for (;;) {
            const Token t = lex_.next();
            if (t.is_end()) break;
            if (!t.is_word())
                fail(t.offset, message("expected a section (", sections, ") but found ", pomdp_text::describe(t)));
            if (t.text == "start" && (lex_.peek(0).is_word("include") || lex_.peek(0).is_word("exclude")) &&
                lex_.peek(1).is_colon()) {
                const bool include = lex_.next().text == "include";
                lex_.next();  // ':'
                parse_start_list(t, include);
                continue;
            }
            if (!lex_.peek(0).is_colon()) unexpected(t);
            lex_.next();  // ':'
            if (t.text == "discount") parse_discount(t);
            else if (t.text == "values") parse_values(t);
            else if (t.text == "states") parse_labels(t, states_);
            else if (t.text == "actions") parse_labels(t, actions_);
            else if (t.text == "observations") parse_labels(t, observations_);
            else if (t.text == "start") parse_start(t);
            else if (t.text == "T") parse_probability_entry(t, true);
            else if (t.text == "O") parse_probability_entry(t, false);
            else if (t.text == "R") parse_reward(t);
            else
                fail(t.offset, message("unknown section ", pomdp_text::describe(t), ": expected one of ", sections));
        }
        if (!entries_started_) begin_entries(text_.size());
        return finish();
    }

private:
    using Token = pomdp_text::Token;
    static constexpr std::uint32_t never = std::numeric_limits<std::uint32_t>::max();
    static constexpr std::uint32_t clear_row = std::numeric_limits<std::uint32_t>::max();
    static constexpr std::int32_t all = -1;
    static constexpr const char* sections =
        "discount:, values:, states:, actions:, observations:, start:, T:, O: or R:";

    struct Labels {
        Labels(const char* w, const char* s) : what(w), section(s) {}
        const char* what;     // "state"
        const char* section;  // "states"
        bool given = false;
        std::size_t count = 0;
        std::vector<std::string_view> names;  // empty for a numbered set
        std::unordered_map<std::string_view, std::int32_t> index;
    };

    struct CellWrite {
        std::uint32_t row;  // a * S + s
        std::uint32_t col;  // s' or o, or clear_row
        double value;
    };

    struct MatrixLog {
        std::vector<CellWrite> writes;
        std::vector<std::uint32_t> last_offset;  // per row: offset of the last entry writing it
    };

    // --- errors ----------------------------------------------------------------------
    template <class... Parts>
    static std::string message(const Parts&... parts) {
        return detail::message(parts...);
    }

    [[noreturn]] void fail(std::size_t offset, const std::string& what) const {
        const auto p = pomdp_text::position_of(text_, offset);
        throw parse_error(message(name_, ":", p.line, ":", p.column, ": ", what));
    }

    [[noreturn]] void unexpected(const Token& t) const {
        if (t.is_word() && pomdp_text::looks_numeric(t.text))
            fail(t.offset, message("unexpected number ", pomdp_text::describe(t),
                                   ": a preceding row or matrix has more numbers than expected, or a section "
                                   "keyword is missing (expected ",
                                   sections, ")"));
        fail(t.offset, message("expected a section (", sections, ") but found ", pomdp_text::describe(t)));
    }

    void check_options() const {
        if (!std::isfinite(options_.row_tolerance) || options_.row_tolerance < 0.0 || options_.row_tolerance >= 1.0)
            throw config_error(message("ReadOptions::row_tolerance must be in [0, 1), got ", options_.row_tolerance));
        if (options_.max_labels == 0 ||
            options_.max_labels > static_cast<std::size_t>(std::numeric_limits<std::int32_t>::max() - 1))
            throw config_error(message("ReadOptions::max_labels must be in [1, ",
                                       std::numeric_limits<std::int32_t>::max() - 1, "], got ", options_.max_labels));
        if (options_.max_cell_writes == 0 || options_.max_cell_writes >= static_cast<std::size_t>(never))
            throw config_error(message("ReadOptions::max_cell_writes must be in [1, ", never - 1, "], got ",
                                       options_.max_cell_writes));
    }

    static std::string label_of(const Labels& L, std::size_t i) {
        if (L.names.empty()) return std::to_string(i);
        std::string out(1, '\'');  // appended, not "'" + ...: that form draws a false -Wrestrict
        out.append(L.names[i]);
        out.push_back('\'');
        return out;
    }

    // --- preamble ----------------------------------------------------------------------
    void before_entries(const Token& t) const {
        if (entries_started_)
            fail(t.offset, message("'", t.text, ":' must come before the first T:, O: or R: entry"));
    }

    /// True when the next tokens open a section: a word followed by ':', or start include:/exclude:.
    bool section_ahead() {
        const Token& t = lex_.peek(0);
        if (!t.is_word()) return false;
        if (lex_.peek(1).is_colon()) return true;
        return t.text == "start" && (lex_.peek(1).is_word("include") || lex_.peek(1).is_word("exclude")) &&
               lex_.peek(2).is_colon();
    }

    void parse_discount(const Token& kw) {
        before_entries(kw);
        if (discount_) fail(kw.offset, "duplicate 'discount:' section");
        const Token t = lex_.next();
        double v = 0.0;
        if (!t.is_word() || pomdp_text::parse_real(t.text, v) != pomdp_text::NumberStatus::ok)
            fail(t.offset, message("expected a number in [0, 1] after 'discount:' but found ", pomdp_text::describe(t)));
        if (v < 0.0 || v > 1.0) fail(t.offset, message("discount ", pomdp_text::describe(t), " is outside [0, 1]"));
        discount_ = v;
    }

    void parse_values(const Token& kw) {
        before_entries(kw);
        if (values_given_) fail(kw.offset, "duplicate 'values:' section");
        const Token t = lex_.next();
        // "rewards" and "costs" are the plural spellings other readers accept (used by the
        // classic ejs4 to ejs7 files); anything else is still an error.
        if (t.is_word("reward") || t.is_word("rewards")) costs_ = false;
        else if (t.is_word("cost") || t.is_word("costs")) costs_ = true;
        else
            fail(t.offset, message("expected 'reward' or 'cost' (or 'rewards', 'costs') after 'values:' but found ",
                                   pomdp_text::describe(t)));
        values_given_ = true;
    }

    void check_name(const Token& t, const Labels& L) const {
        const char c = t.text.front();
        if (pomdp_text::is_digit(c) || c == '+' || c == '-' || c == '.')
            fail(t.offset, message("expected a ", L.what, " name but found ", pomdp_text::describe(t), ": '",
                                   L.section, ":' takes one count or a list of names, and names must not begin "
                                   "with a digit, a sign or '.'"));
        if (t.text == "*" || t.text == "uniform" || t.text == "identity" || t.text == "reset")
            fail(t.offset, message(pomdp_text::describe(t), " is a keyword of the format and cannot name a ", L.what));
        for (const char b : t.text) {
            const auto u = static_cast<unsigned char>(b);
            if (u < 0x20 || u == 0x7f)
                fail(t.offset, message(L.what, " name ", pomdp_text::describe(t), " contains a control character"));
        }
    }

    void parse_labels(const Token& kw, Labels& L) {
        before_entries(kw);
        if (L.given) fail(kw.offset, message("duplicate '", L.section, ":' section"));
        const Token& first = lex_.peek(0);
        if (!first.is_word() || section_ahead())
            fail(first.offset, message("expected a count or a list of ", L.what, " names after '", L.section,
                                       ":' but found ", pomdp_text::describe(first)));
        if (pomdp_text::is_digit(first.text.front())) {
            const Token t = lex_.next();
            std::uint64_t n = 0;
            const auto status = pomdp_text::parse_whole(t.text, n);
            if (status == pomdp_text::NumberStatus::malformed)
                fail(t.offset, message("expected a whole number of ", L.section, " after '", L.section,
                                       ":' but found ", pomdp_text::describe(t)));
            if (status == pomdp_text::NumberStatus::out_of_range || n > options_.max_labels)
                fail(t.offset, message("'", L.section, ": ", t.text, "' exceeds the limit of ", options_.max_labels, " ",
                                       L.section, " (ReadOptions::max_labels)"));
            if (n == 0) fail(t.offset, message("'", L.section, ":' must be at least 1, got 0"));
            L.count = static_cast<std::size_t>(n);
        } else {
            while (lex_.peek(0).is_word() && !section_ahead()) {
                const Token t = lex_.next();
                check_name(t, L);
                if (L.names.size() >= options_.max_labels)
                    fail(t.offset, message("more than ", options_.max_labels, " ", L.section,
                                           " (ReadOptions::max_labels)"));
                const auto [it, inserted] = L.index.emplace(t.text, static_cast<std::int32_t>(L.names.size()));
                if (!inserted)
                    fail(t.offset, message("duplicate ", L.what, " name ", pomdp_text::describe(t), " (first at position ",
                                           it->second, " of the list)"));
                L.names.push_back(t.text);
            }
            L.count = L.names.size();
        }
        L.given = true;
    }

    /// Index of a state/action/observation reference, or `all` for '*' when allowed.
    std::int32_t resolve(const Labels& L, const Token& t, bool allow_all) const {
        if (!L.given) fail(t.offset, message("a ", L.what, " is referenced before the '", L.section, ":' section"));
        if (!t.is_word())
            fail(t.offset, message("expected a ", L.what, " (a name, a number", allow_all ? " or '*'" : "",
                                   ") but found ", pomdp_text::describe(t)));
        if (t.text == "*") {
            if (allow_all) return all;
            fail(t.offset, message("'*' is not allowed here: expected one ", L.what));
        }
        if (pomdp_text::is_digit(t.text.front())) {
            std::uint64_t v = 0;
            const auto status = pomdp_text::parse_whole(t.text, v);
            if (status == pomdp_text::NumberStatus::malformed)
                fail(t.offset, message("expected a ", L.what, " (a name, a number", allow_all ? " or '*'" : "",
                                       ") but found ", pomdp_text::describe(t)));
            if (status == pomdp_text::NumberStatus::out_of_range || v >= L.count)
                fail(t.offset, message(L.what, " number ", pomdp_text::describe(t), " is outside [0, ", L.count, ")"));
            return static_cast<std::int32_t>(v);
        }
        if (L.names.empty())
            fail(t.offset, message("unknown ", L.what, " ", pomdp_text::describe(t), ": the ", L.section,
                                   " are numbered 0 to ", L.count - 1));
        const auto it = L.index.find(t.text);
        if (it == L.index.end()) fail(t.offset, message("unknown ", L.what, " ", pomdp_text::describe(t)));
        return it->second;
    }

    double read_probability(const char* where, std::size_t index, std::size_t total) {
        const Token t = lex_.next();
        double v = 0.0;
        const auto status = t.is_word() ? pomdp_text::parse_real(t.text, v) : pomdp_text::NumberStatus::malformed;
        if (status == pomdp_text::NumberStatus::out_of_range)
            fail(t.offset, message("number ", pomdp_text::describe(t), " is out of the range of double"));
        if (status != pomdp_text::NumberStatus::ok) {
            if (total > 1)
                fail(t.offset, message("expected a probability (number ", index + 1, " of the ", total, " of the ",
                                       where, ") but found ", pomdp_text::describe(t)));
            fail(t.offset, message("expected a probability for the ", where, " but found ", pomdp_text::describe(t)));
        }
        if (!(v >= 0.0 && v <= 1.0))
            fail(t.offset, message("probability ", pomdp_text::describe(t), " in the ", where, " is outside [0, 1]"));
        return v;
    }

    double read_value(const char* where, std::size_t index, std::size_t total) {
        const Token t = lex_.next();
        double v = 0.0;
        const auto status = t.is_word() ? pomdp_text::parse_real(t.text, v) : pomdp_text::NumberStatus::malformed;
        if (status == pomdp_text::NumberStatus::out_of_range)
            fail(t.offset, message("number ", pomdp_text::describe(t), " is out of the range of double"));
        if (status != pomdp_text::NumberStatus::ok) {
            if (total > 1)
                fail(t.offset, message("expected a number (", index + 1, " of the ", total, " of the ", where,
                                       ") but found ", pomdp_text::describe(t)));
            fail(t.offset, message("expected a number for the ", where, " but found ", pomdp_text::describe(t)));
        }
        return v;
    }

    void normalise_start(std::size_t offset, const char* what) {
        double sum = 0.0;
        for (const double p : mu_) sum += p;
        if (!(std::abs(sum - 1.0) <= options_.row_tolerance) || !(sum > 0.0))
            fail(offset, message(what, " sums to ", sum, ", not 1 within the row tolerance ", options_.row_tolerance,
                                 " (ReadOptions::row_tolerance)"));
        std::size_t nonzero = 0;
        for (const double p : mu_) nonzero += p != 0.0 ? 1 : 0;
        if (!sums_to_one_up_to_rounding(sum, nonzero))
            for (double& p : mu_) p /= sum;
    }

    void start_header(const Token& kw) {
        before_entries(kw);
        if (start_given_) fail(kw.offset, "duplicate 'start:' section");
        if (!states_.given) fail(kw.offset, "'start:' needs the 'states:' section before it");
        mu_.assign(states_.count, 0.0);
        start_given_ = true;
    }

    void parse_start(const Token& kw) {
        start_header(kw);
        const std::size_t S = states_.count;
        const Token& p = lex_.peek(0);
        if (p.is_word("uniform")) {
            lex_.next();
            std::fill(mu_.begin(), mu_.end(), 1.0 / static_cast<double>(S));
            return;
        }
        if (p.is_word() && !pomdp_text::looks_numeric(p.text) && p.text != "*") {
            const Token t = lex_.next();
            mu_[static_cast<std::size_t>(resolve(states_, t, false))] = 1.0;
            return;
        }
        if (p.is_word() && pomdp_text::is_digit(p.text.front()) &&
            std::all_of(p.text.begin(), p.text.end(), pomdp_text::is_digit) &&
            !(lex_.peek(1).is_word() && pomdp_text::looks_numeric(lex_.peek(1).text))) {
            // one whole number alone: a state number (with one state, "1" is also the vector (1))
            const Token t = lex_.next();
            if (S == 1 && t.text == "1") {
                mu_[0] = 1.0;
                return;
            }
            mu_[static_cast<std::size_t>(resolve(states_, t, false))] = 1.0;
            return;
        }
        for (std::size_t i = 0; i < S; ++i) mu_[i] = read_probability("start vector", i, S);
        normalise_start(kw.offset, "the start vector");
    }

    void parse_start_list(const Token& kw, bool include) {
        start_header(kw);
        const std::size_t S = states_.count;
        std::vector<char> chosen(S, 0);
        std::size_t n = 0, listed = 0;
        while (lex_.peek(0).is_word() && !section_ahead()) {
            const Token t = lex_.next();
            const auto s = static_cast<std::size_t>(resolve(states_, t, false));
            ++listed;
            if (chosen[s] == 0) {
                chosen[s] = 1;
                ++n;
            }
        }
        if (listed == 0)
            fail(lex_.peek(0).offset, message("expected at least one state after 'start ", include ? "include" : "exclude",
                                              ":' but found ", pomdp_text::describe(lex_.peek(0))));
        const std::size_t m = include ? n : S - n;
        if (m == 0) fail(kw.offset, "'start exclude:' excludes every state");
        for (std::size_t s = 0; s < S; ++s)
            if ((chosen[s] != 0) == include) mu_[s] = 1.0 / static_cast<double>(m);
    }

    // --- entries ---------------------------------------------------------------------
    void begin_entries(std::size_t offset) {
        const bool at_end = offset >= text_.size();
        for (const Labels* L : {&states_, &actions_, &observations_})
            if (!L->given)
                fail(offset, message("missing '", L->section, ":' section: the preamble must declare states, actions "
                                     "and observations",
                                     at_end ? "" : " before the first T:, O: or R: entry"));
        const std::uint64_t rows = static_cast<std::uint64_t>(actions_.count) * states_.count;
        if (rows > options_.max_cell_writes)
            fail(offset, message("the model has ", actions_.count, " actions x ", states_.count, " states = ", rows,
                                 " transition rows, more than ReadOptions::max_cell_writes = ",
                                 options_.max_cell_writes));
        T_.last_offset.assign(static_cast<std::size_t>(rows), never);
        O_.last_offset.assign(static_cast<std::size_t>(rows), never);
        if (!start_given_) mu_.assign(states_.count, 1.0 / static_cast<double>(states_.count));
        entries_started_ = true;
    }

    void push(MatrixLog& log, std::uint32_t row, std::uint32_t col, double value) {
        if (cell_writes_ >= options_.max_cell_writes)
            fail(entry_offset_, message("the file writes more than ", options_.max_cell_writes,
                                        " T/O matrix cells (ReadOptions::max_cell_writes; every cell filled by '*', "
                                        "uniform, identity or reset counts)"));
        ++cell_writes_;
        log.writes.push_back(CellWrite{row, col, value});
    }

    static std::pair<std::size_t, std::size_t> span_of(std::int32_t ref, std::size_t count) noexcept {
        if (ref == all) return {0, count};
        return {static_cast<std::size_t>(ref), static_cast<std::size_t>(ref) + 1};
    }

    std::uint32_t row_id(std::size_t a, std::size_t s) const noexcept {
        return static_cast<std::uint32_t>(a * states_.count + s);
    }

    /// T: (is_transition) or O: entry, after the keyword and its ':'.
    void parse_probability_entry(const Token& kw, bool is_transition) {
        if (!entries_started_) begin_entries(kw.offset);
        entry_offset_ = static_cast<std::uint32_t>(kw.offset);
        MatrixLog& log = is_transition ? T_ : O_;
        const Labels& cols = is_transition ? states_ : observations_;
        const std::size_t S = states_.count, C = cols.count;
        const char* row_name = is_transition ? "T: row" : "O: row";
        const char* matrix_name = is_transition ? "T: matrix" : "O: matrix";

        const auto [a0, a1] = span_of(resolve(actions_, lex_.next(), true), actions_.count);
        if (lex_.peek(0).is_colon()) {
            lex_.next();
            const auto [s0, s1] = span_of(resolve(states_, lex_.next(), true), S);
            if (lex_.peek(0).is_colon()) {
                // element form
                lex_.next();
                const auto [c0, c1] = span_of(resolve(cols, lex_.next(), true), C);
                const double p = read_probability(is_transition ? "T: entry" : "O: entry", 0, 1);
                for (std::size_t a = a0; a < a1; ++a)
                    for (std::size_t s = s0; s < s1; ++s) {
                        const std::uint32_t r = row_id(a, s);
                        log.last_offset[r] = entry_offset_;
                        for (std::size_t c = c0; c < c1; ++c) push(log, r, static_cast<std::uint32_t>(c), p);
                    }
                return;
            }
            // row form
            row_.clear();
            const Token& k = lex_.peek(0);
            if (k.is_word("uniform")) {
                lex_.next();
                for (std::size_t c = 0; c < C; ++c)
                    row_.emplace_back(static_cast<std::uint32_t>(c), 1.0 / static_cast<double>(C));
            } else if (is_transition && k.is_word("reset")) {
                lex_.next();
                for (std::size_t c = 0; c < C; ++c)
                    if (mu_[c] != 0.0) row_.emplace_back(static_cast<std::uint32_t>(c), mu_[c]);
            } else {
                for (std::size_t c = 0; c < C; ++c) {
                    const double p = read_probability(row_name, c, C);
                    if (p != 0.0) row_.emplace_back(static_cast<std::uint32_t>(c), p);
                }
            }
            for (std::size_t a = a0; a < a1; ++a)
                for (std::size_t s = s0; s < s1; ++s) {
                    const std::uint32_t r = row_id(a, s);
                    log.last_offset[r] = entry_offset_;
                    push(log, r, clear_row, 0.0);
                    for (const auto& [c, p] : row_) push(log, r, c, p);
                }
            return;
        }
        // matrix form
        const Token& k = lex_.peek(0);
        if (is_transition && k.is_word("identity")) {
            lex_.next();
            for (std::size_t a = a0; a < a1; ++a)
                for (std::size_t s = 0; s < S; ++s) {
                    const std::uint32_t r = row_id(a, s);
                    log.last_offset[r] = entry_offset_;
                    push(log, r, clear_row, 0.0);
                    push(log, r, static_cast<std::uint32_t>(s), 1.0);
                }
            return;
        }
        if (k.is_word("uniform")) {
            lex_.next();
            const double p = 1.0 / static_cast<double>(C);
            for (std::size_t a = a0; a < a1; ++a)
                for (std::size_t s = 0; s < S; ++s) {
                    const std::uint32_t r = row_id(a, s);
                    log.last_offset[r] = entry_offset_;
                    push(log, r, clear_row, 0.0);
                    for (std::size_t c = 0; c < C; ++c) push(log, r, static_cast<std::uint32_t>(c), p);
                }
            return;
        }
        matrix_.clear();
        matrix_start_.assign(1, 0);
        const std::size_t total = S * C;  // S, C <= max_labels < 2^31: no overflow in 64 bits
        for (std::size_t s = 0; s < S; ++s) {
            for (std::size_t c = 0; c < C; ++c) {
                const double p = read_probability(matrix_name, s * C + c, total);
                if (p != 0.0) matrix_.push_back(CellWrite{static_cast<std::uint32_t>(s), static_cast<std::uint32_t>(c), p});
            }
            matrix_start_.push_back(matrix_.size());
        }
        for (std::size_t a = a0; a < a1; ++a)
            for (std::size_t s = 0; s < S; ++s) {
                const std::uint32_t r = row_id(a, s);
                log.last_offset[r] = entry_offset_;
                push(log, r, clear_row, 0.0);
                for (std::size_t j = matrix_start_[s]; j < matrix_start_[s + 1]; ++j)
                    push(log, r, matrix_[j].col, matrix_[j].value);
            }
    }

    void parse_reward(const Token& kw) {
        if (!entries_started_) begin_entries(kw.offset);
        const std::size_t S = states_.count, O = observations_.count;
        const std::int32_t a = resolve(actions_, lex_.next(), true);
        if (!lex_.peek(0).is_colon())
            fail(lex_.peek(0).offset, message("expected ':' and a start state after the action of an R: entry but found ",
                                              pomdp_text::describe(lex_.peek(0))));
        lex_.next();
        const std::int32_t s = resolve(states_, lex_.next(), true);
        if (lex_.peek(0).is_colon()) {
            lex_.next();
            const std::int32_t sp = resolve(states_, lex_.next(), true);
            if (lex_.peek(0).is_colon()) {
                lex_.next();
                const std::int32_t o = resolve(observations_, lex_.next(), true);
                rules_.push_back(RewardTable::Rule{a, s, sp, o, read_value("R: entry", 0, 1)});
                return;
            }
            for (std::size_t o = 0; o < O; ++o)
                rules_.push_back(RewardTable::Rule{a, s, sp, static_cast<std::int32_t>(o), read_value("R: row", o, O)});
            return;
        }
        for (std::size_t sp = 0; sp < S; ++sp)
            for (std::size_t o = 0; o < O; ++o)
                rules_.push_back(RewardTable::Rule{a, s, static_cast<std::int32_t>(sp), static_cast<std::int32_t>(o),
                                                   read_value("R: matrix", sp * O + o, S * O)});
    }

    // --- assembly ----------------------------------------------------------------------
    /// Replays the write log of T or O into one sparse matrix per action, applying
    /// overrides in file order, checking and renormalising every row.
    std::vector<SparseMatrix> build(const MatrixLog& log, bool is_transition) {
        const std::size_t S = states_.count, A = actions_.count;
        const std::size_t C = is_transition ? S : observations_.count;
        const std::size_t rows = A * S;
        const auto& writes = log.writes;
        // counting sort of the writes by row, stable (file order kept within a row)
        std::vector<std::uint32_t> start(rows + 1, 0);
        for (const CellWrite& w : writes) ++start[w.row + 1];
        for (std::size_t r = 0; r < rows; ++r) start[r + 1] += start[r];
        std::vector<std::uint32_t> order(writes.size());
        {
            std::vector<std::uint32_t> fill(start.begin(), start.end() - 1);
            for (std::size_t i = 0; i < writes.size(); ++i) order[fill[writes[i].row]++] = static_cast<std::uint32_t>(i);
        }
        std::vector<std::int32_t> where(C, -1);
        std::vector<std::pair<std::uint32_t, double>> row;
        std::vector<SparseMatrix> out;
        out.reserve(A);
        const double tolerance = options_.row_tolerance;
        for (std::size_t a = 0; a < A; ++a) {
            SparseMatrix m(static_cast<Eigen::Index>(S), static_cast<Eigen::Index>(C));
            m.reserve(static_cast<Eigen::Index>(start[(a + 1) * S] - start[a * S]) + static_cast<Eigen::Index>(S));
            for (std::size_t s = 0; s < S; ++s) {
                const std::size_t r = a * S + s;
                const std::size_t b = start[r], e = start[r + 1];
                std::size_t k = e;
                while (k > b && writes[order[k - 1]].col != clear_row) --k;
                row.clear();
                for (std::size_t j = k; j < e; ++j) {
                    const CellWrite& w = writes[order[j]];
                    std::int32_t& pos = where[w.col];
                    if (pos < 0) {
                        pos = static_cast<std::int32_t>(row.size());
                        row.emplace_back(w.col, w.value);
                    } else {
                        row[static_cast<std::size_t>(pos)].second = w.value;
                    }
                }
                for (const auto& entry : row) where[entry.first] = -1;
                row.erase(std::remove_if(row.begin(), row.end(), [](const auto& x) { return x.second == 0.0; }),
                          row.end());
                std::sort(row.begin(), row.end());
                double sum = 0.0;
                for (const auto& entry : row) sum += entry.second;
                const std::size_t offset = log.last_offset[r] == never ? text_.size() : log.last_offset[r];
                if (row.empty()) {
                    if (is_transition && options_.empty_transition_rows == EmptyRows::self_loop) {
                        row.emplace_back(static_cast<std::uint32_t>(s), 1.0);
                        sum = 1.0;
                        absorbing_.emplace_back(a, s);
                    } else if (is_transition) {
                        fail(offset, message("no transition probabilities T(s' | s = ", label_of(states_, s), ", a = ",
                                             label_of(actions_, a), "): every T: entry for this row is missing or zero "
                                             "(ReadOptions::empty_transition_rows = EmptyRows::self_loop makes such "
                                             "states absorbing)"));
                    } else {
                        fail(offset, message("no observation probabilities O(o | s' = ", label_of(states_, s), ", a = ",
                                             label_of(actions_, a), "): every O: entry for this row is missing or zero"));
                    }
                } else if (!(std::abs(sum - 1.0) <= tolerance)) {
                    fail(offset, message(is_transition ? "transition probabilities T(s' | s = " : "observation probabilities "
                                                                                                  "O(o | s' = ",
                                         label_of(states_, s), ", a = ", label_of(actions_, a), ") sum to ", sum,
                                         ", not 1 within the row tolerance ", tolerance, " (ReadOptions::row_tolerance)"));
                }
                if (sums_to_one_up_to_rounding(sum, row.size())) sum = 1.0;  // kept as written (exact round trip)
                m.startVec(static_cast<Eigen::Index>(s));
                for (const auto& [c, p] : row)
                    m.insertBack(static_cast<Eigen::Index>(s), static_cast<Eigen::Index>(c)) = p / sum;
            }
            m.finalize();
            m.makeCompressed();
            out.push_back(std::move(m));
        }
        return out;
    }

    static bool same(const SparseMatrix& x, const SparseMatrix& y) {
        if (x.rows() != y.rows() || x.cols() != y.cols() || x.nonZeros() != y.nonZeros()) return false;
        const auto n = static_cast<std::size_t>(x.nonZeros());
        return std::equal(x.outerIndexPtr(), x.outerIndexPtr() + x.outerSize() + 1, y.outerIndexPtr()) &&
               std::equal(x.innerIndexPtr(), x.innerIndexPtr() + n, y.innerIndexPtr()) &&
               std::equal(x.valuePtr(), x.valuePtr() + n, y.valuePtr());
    }

    static std::vector<std::string> labels_of(const Labels& L) {
        std::vector<std::string> out;
        out.reserve(L.count);
        if (L.names.empty())
            for (std::size_t i = 0; i < L.count; ++i) out.push_back(std::to_string(i));
        else
            for (const auto name : L.names) out.emplace_back(name);
        return out;
    }

    PomdpFile finish() {
        std::vector<SparseMatrix> transitions = build(T_, true);
        T_ = MatrixLog{};
        std::vector<SparseMatrix> observations = build(O_, false);
        O_ = MatrixLog{};
        bool shared = true;
        for (std::size_t a = 1; a < observations.size() && shared; ++a) shared = same(observations[0], observations[a]);
        if (shared) observations.resize(1);
        const std::size_t S = states_.count;
        Eigen::VectorXd mu(static_cast<Eigen::Index>(S));
        for (std::size_t s = 0; s < S; ++s) mu[static_cast<Eigen::Index>(s)] = mu_[s];
        const std::size_t horizon = options_.horizon == 0 ? S : options_.horizon;
        try {
            PomdpFile::Model model(labels_of(states_), labels_of(actions_), labels_of(observations_),
                                   std::move(transitions), std::move(observations), std::move(mu), horizon);
            RewardTable rewards(actions_.count, S, observations_.count, rules_);
            return PomdpFile{std::move(model), discount_, costs_, std::move(rewards), std::move(absorbing_)};
        } catch (const model_error& e) {  // not expected: the reader checks everything first
            fail(text_.size(), message("the model read from the file is invalid: ", e.what()));
        }
    }

    std::string_view text_;
    std::string_view name_;
    ReadOptions options_;
    pomdp_text::Lexer lex_;

    Labels states_{"state", "states"};
    Labels actions_{"action", "actions"};
    Labels observations_{"observation", "observations"};
    std::optional<double> discount_;
    bool values_given_ = false;
    bool costs_ = false;
    bool start_given_ = false;
    bool entries_started_ = false;
    std::vector<double> mu_;

    MatrixLog T_;
    MatrixLog O_;
    std::size_t cell_writes_ = 0;
    std::uint32_t entry_offset_ = 0;
    std::vector<std::pair<std::uint32_t, double>> row_;
    std::vector<CellWrite> matrix_;
    std::vector<std::size_t> matrix_start_;
    std::vector<RewardTable::Rule> rules_;
    std::vector<std::pair<std::size_t, std::size_t>> absorbing_;
};

}  // namespace detail

/// Parses a POMDP file held in memory. `name_for_messages` is the name error messages
/// start with ("<name>:<line>:<column>: ..."). Throws parse_error for any problem in the
/// text and config_error for invalid options.
[[nodiscard]] inline PomdpFile parse_pomdp(std::string_view text, std::string_view name_for_messages = "<text>",
                                           const ReadOptions& options = {}) {
    return detail::PomdpFileParser(text, name_for_messages, options).parse();
}

/// Reads and parses a POMDP file, read whole by read_regular_file (core/read_file.hpp): a
/// FIFO, a device or a directory is refused at once, never waited on, and so is a file above
/// `max_bytes`; a file that cannot be read is a parse_error "<path>:0:0: cannot read ...".
[[nodiscard]] inline PomdpFile read_pomdp_file(const std::filesystem::path& path, const ReadOptions& options = {},
                                               std::uintmax_t max_bytes = max_read_file_bytes) {
    const std::string name = path.string();
    std::string text;
    try {
        text = read_regular_file(path, max_bytes);
    } catch (const file_read_error& e) {
        throw parse_error(detail::message(name, ":0:0: ", e.what()));
    }
    return parse_pomdp(text, name, options);
}

}  // namespace maxent
