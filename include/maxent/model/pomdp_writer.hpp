// maxent/model/pomdp_writer.hpp — writer of Cassandra's POMDP text format, the inverse of
// read_pomdp_file (model/pomdp_file.hpp) for any FinitePomdp.
//
// Writes the sizes as counts (states: S, actions: A, observations: O: the reader labels them
// "0".."N-1", the model's own labels go into a comment), the start vector μ, and T and O as
// full matrices (`T: a` then S rows of S numbers; `O: *` then S rows of O numbers when every
// action's observation matrix is the same, else `O: a` per action), each number in the
// shortest form that reads back as the same double (std::to_chars; the reader parses with
// std::from_chars, exactly). Reading the text back gives the model's numbers back exactly
// (==) for every row (and μ) that sums to 1 up to the rounding of its sum, |Σ - 1| <= 2nε for
// n nonzero entries added left to right: the reader keeps such rows as written. That is every
// row maxent makes by dividing by a sum (learned models, worlds, files read back). A row
// further off (FinitePomdp accepts up to its tolerance, 1e-9 by default) reads back divided
// by its sum, as the reader renormalises any row.
// The title and the labels go into '#' comments with every line break replaced by a space,
// so no text of theirs can become a section of the file.
// The format has no matrix for the first observation o_1: a model whose o_1 matrix is not
// action 0's observation matrix (per-action learned emissions) is refused (config_error).
// Errors: config_error for a model the format cannot hold (that o_1 matrix) or a bad
// discount; error for a stream that fails while writing.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <optional>
#include <vector>
#include <ostream>
#include <sstream>
#include <string>
#include <system_error>

#include <Eigen/SparseCore>

#include "maxent/core/error.hpp"
#include "maxent/model/finite_pomdp.hpp"

namespace maxent {

/// Options of write_pomdp_file.
struct WriteOptions {
    /// The file's `discount:` line; absent: no line (the reader then reports none).
    std::optional<double> discount;
    /// First line of the file (a '#' comment), e.g. what the model is; empty: none. Line
    /// breaks in it are written as spaces.
    std::string title;
};

namespace detail {

/// The shortest text that reads back as `x` (from_chars / strtod).
inline std::string shortest_double(double x) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ptr);
}

/// Row r of a sparse row-major matrix as a dense vector of `cols` entries.
template <class Sparse>
std::vector<double> dense_row(const Sparse& m, Eigen::Index r, std::size_t cols) {
    std::vector<double> row(cols, 0.0);
    for (typename Sparse::InnerIterator it(m, r); it; ++it) row[static_cast<std::size_t>(it.col())] = it.value();
    return row;
}

template <class Sparse>
bool same_matrix(const Sparse& x, const Sparse& y) {
    if (x.rows() != y.rows() || x.cols() != y.cols()) return false;
    for (Eigen::Index r = 0; r < x.rows(); ++r)
        if (dense_row(x, r, static_cast<std::size_t>(x.cols())) != dense_row(y, r, static_cast<std::size_t>(y.cols())))
            return false;
    return true;
}

}  // namespace detail

/// Writes `m` as a POMDP file to `out` (see the header comment). Throws config_error when the
/// model has a separate o_1 matrix or the discount is outside [0, 1]; error when the stream
/// fails.
template <class State, class Action, class Observation>
void write_pomdp_file(const FinitePomdp<State, Action, Observation>& m, std::ostream& out,
                      const WriteOptions& options = {}) {
    const std::size_t S = m.num_states(), A = m.num_actions(), O = m.num_observations();
    if (options.discount && !(*options.discount >= 0.0 && *options.discount <= 1.0))
        throw config_error(detail::message("write_pomdp_file: discount ", *options.discount, " is not in [0, 1]"));
    if (!detail::same_matrix(m.initial_observation_matrix(), m.observation_matrix(0)))
        throw config_error("write_pomdp_file: the model's matrix of the first observation Obs(o_1 | s_1) differs from "
                           "action 0's observation matrix, and the POMDP format has no place for it");
    bool shared = true;
    for (std::size_t a = 1; a < A && shared; ++a) shared = detail::same_matrix(m.observation_matrix(0), m.observation_matrix(a));
    std::ostringstream text;
    auto one_line = [](std::string t) {  // a comment stays one line: no text can start a section
        std::replace(t.begin(), t.end(), '\n', ' ');
        std::replace(t.begin(), t.end(), '\r', ' ');
        return t;
    };
    if (!options.title.empty()) text << "# " << one_line(options.title) << '\n';
    text << "# states, actions and observations are numbered 0..N-1 in the model's order:\n";
    auto list = [&](const char* name, const auto& labels, std::size_t n) {
        text << "#   " << name << ':';
        for (std::size_t i = 0; i < n; ++i) {
            text << ' ' << one_line(labels.describe(i));
        }
        text << '\n';
    };
    list("states", m.states(), S);
    list("actions", m.actions(), A);
    list("observations", m.observations(), O);
    if (options.discount) text << "discount: " << detail::shortest_double(*options.discount) << '\n';
    text << "values: reward\nstates: " << S << "\nactions: " << A << "\nobservations: " << O << "\n\nstart:";
    std::vector<double> mu(S);
    for (std::size_t s = 0; s < S; ++s) mu[s] = m.initial_distribution()[static_cast<Eigen::Index>(s)];
    for (const double p : mu) text << ' ' << detail::shortest_double(p);
    text << '\n';
    auto matrix = [&](const char* kind, const auto& mat, const std::string& action, std::size_t cols) {
        text << '\n' << kind << ": " << action << '\n';
        for (std::size_t s = 0; s < S; ++s) {
            const std::vector<double> row = detail::dense_row(mat, static_cast<Eigen::Index>(s), cols);
            for (std::size_t c = 0; c < cols; ++c) text << (c == 0 ? "" : " ") << detail::shortest_double(row[c]);
            text << '\n';
        }
    };
    for (std::size_t a = 0; a < A; ++a) matrix("T", m.transition_matrix(a), std::to_string(a), S);
    if (shared)
        matrix("O", m.observation_matrix(0), "*", O);
    else
        for (std::size_t a = 0; a < A; ++a) matrix("O", m.observation_matrix(a), std::to_string(a), O);
    const std::string s = text.str();
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
    out.flush();
    if (!out) throw error("write_pomdp_file: writing to the stream failed");
}

}  // namespace maxent
