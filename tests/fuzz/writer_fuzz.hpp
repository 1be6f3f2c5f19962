// tests/fuzz/writer_fuzz.hpp — the body of the libFuzzer target of the POMDP writer's round trip
// (fuzz_pomdp_writer.cpp), shared with the unit test that replays its regressions
// (tests/unit/test_pomdp_file.cpp): any bytes make a model (pomdp_writer_model), which
// write_pomdp_file writes and parse_pomdp reads back with exactly (==) its numbers, its
// discount and nothing the title or the labels could inject.
//
// Bytes: S = 1 + b0 % 5, A = 1 + b1 % 3, O = 1 + b2 % 4; b3: bit 0 a discount (b4 / 255),
// bit 1 one observation matrix per action; then 8 bytes per entry of μ, every P_a row and every
// observation row (an entry: the bytes as a double's bits, sign cleared, inf/NaN as 0), each
// row divided by its sum (a row of zeros or with an infinite sum: one-hot); the bytes left are
// the title, and the tail of every label ("3|" + title).
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/pomdp_file.hpp"
#include "maxent/model/pomdp_writer.hpp"

namespace maxent::fuzz {

struct WriterCase {
    FinitePomdp<std::string, std::string, std::string> model;
    WriteOptions options;
};

/// The model and write options the bytes stand for (this header's comment).
inline WriterCase pomdp_writer_model(std::string_view bytes) {
    std::size_t pos = 0;
    auto byte = [&]() -> unsigned {
        return pos < bytes.size() ? static_cast<unsigned char>(bytes[pos++]) : 0U;
    };
    const std::size_t S = 1 + byte() % 5, A = 1 + byte() % 3, O = 1 + byte() % 4;
    const unsigned flags = byte();
    const unsigned discount = byte();
    auto entry = [&] {
        std::uint64_t bits = 0;
        for (int k = 0; k < 8; ++k) bits |= std::uint64_t{byte()} << (8 * k);
        bits &= ~(std::uint64_t{1} << 63);
        double x = 0.0;
        std::memcpy(&x, &bits, sizeof x);
        return std::isfinite(x) ? x : 0.0;
    };
    auto row = [&](auto&& r) {
        double sum = 0.0;
        for (Eigen::Index j = 0; j < r.size(); ++j) {
            r[j] = entry();
            sum += r[j];
        }
        if (!(sum > 0.0) || !std::isfinite(sum)) {
            r.setZero();
            r[0] = 1.0;
            return;
        }
        for (Eigen::Index j = 0; j < r.size(); ++j) r[j] /= sum;
    };
    const auto s = static_cast<Eigen::Index>(S), o = static_cast<Eigen::Index>(O);
    Eigen::VectorXd mu(s);
    row(mu);
    std::vector<Eigen::MatrixXd> P(A, Eigen::MatrixXd(s, s));
    for (auto& m : P)
        for (Eigen::Index i = 0; i < s; ++i) row(m.row(i));
    std::vector<Eigen::MatrixXd> E((flags & 2U) != 0 ? A : 1, Eigen::MatrixXd(s, o));
    for (auto& m : E)
        for (Eigen::Index i = 0; i < s; ++i) row(m.row(i));
    const std::string title(bytes.substr(pos < bytes.size() ? pos : bytes.size()));
    auto labels = [&](std::size_t n) {
        std::vector<std::string> out;
        for (std::size_t i = 0; i < n; ++i) out.push_back(std::to_string(i) + "|" + title);
        return out;
    };
    WriteOptions options;
    if ((flags & 1U) != 0) options.discount = discount / 255.0;
    options.title = title;
    return {FinitePomdp<std::string, std::string, std::string>(labels(S), labels(A), labels(O), P, E, mu, 3), options};
}

/// True when `f` holds exactly (==) the numbers of `m`.
template <class M>
bool same_pomdp_numbers(const PomdpFile& f, const M& m) {
    if (f.model.num_states() != m.num_states() || f.model.num_actions() != m.num_actions() ||
        f.model.num_observations() != m.num_observations())
        return false;
    bool eq = f.model.initial_distribution() == m.initial_distribution();
    for (std::size_t a = 0; a < m.num_actions(); ++a) {
        eq = eq && Eigen::MatrixXd(f.model.transition_matrix(a)) == Eigen::MatrixXd(m.transition_matrix(a));
        eq = eq && Eigen::MatrixXd(f.model.observation_matrix(a)) == Eigen::MatrixXd(m.observation_matrix(a));
    }
    return eq;
}

/// One input: the model written, read back and compared. Returns false when the model is one
/// the writer refuses (per-action observations make o_1's matrix differ from action 0's:
/// config_error, never anything else); traps on any difference.
inline bool pomdp_writer_round_trip(std::string_view bytes) {
    const WriterCase c = pomdp_writer_model(bytes);
    std::ostringstream out;
    try {
        write_pomdp_file(c.model, out, c.options);
    } catch (const config_error&) {
        if (c.model.num_actions() == 1) __builtin_trap();  // one action: o_1's matrix is action 0's
        return false;
    }
    std::optional<PomdpFile> f;
    try {
        f.emplace(parse_pomdp(out.str(), "written"));
    } catch (const error&) {
        __builtin_trap();  // what the writer writes must read
    }
    if (!same_pomdp_numbers(*f, c.model)) __builtin_trap();
    if (f->discount != c.options.discount) __builtin_trap();
    if (!f->rewards.empty() || f->values_are_costs) __builtin_trap();  // injected by the title or a label
    return true;
}

}  // namespace maxent::fuzz
