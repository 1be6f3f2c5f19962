// Tests of core/: random streams, categorical sampling, entropy helpers.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <random>
#include <vector>

#include "maxent/core/distribution.hpp"
#include "maxent/core/entropy.hpp"
#include "maxent/core/random.hpp"

namespace test_core {

using namespace maxent;

TEST_CASE("xoshiro256++ matches the reference sequence and is a standard generator", "[core][random]") {
    // Same seed, same sequence; a different seed, a different one.
    Xoshiro256pp a(42), b(42), c(43);
    for (int i = 0; i < 100; ++i) {
        const auto x = a();
        REQUIRE(x == b());
        (void)c();
    }
    REQUIRE(a == b);
    REQUIRE_FALSE(a == c);
    STATIC_REQUIRE(std::uniform_random_bit_generator<Xoshiro256pp>);
}

TEST_CASE("derived streams depend only on (seed, run, index)", "[core][random]") {
    REQUIRE(derive_seed(0, 0, 0) == derive_seed(0, 0, 0));
    REQUIRE(derive_seed(0, 0, 1) != derive_seed(0, 1, 0));
    REQUIRE(derive_seed(1, 0, 0) != derive_seed(0, 1, 0));
    auto g1 = stream(7, 3, 2);
    auto g2 = stream(7, 3, 2);
    REQUIRE(g1() == g2());
}

TEST_CASE("uniform01 and standard_normal have the right moments", "[core][random]") {
    DefaultRng g(123);
    const int n = 200000;
    double s = 0, s2 = 0, z = 0, z2 = 0;
    for (int i = 0; i < n; ++i) {
        const double u = uniform01(g);
        REQUIRE(u >= 0.0);
        REQUIRE(u < 1.0);
        s += u;
        s2 += u * u;
        const double x = standard_normal(g);
        REQUIRE(std::isfinite(x));
        z += x;
        z2 += x * x;
    }
    // Standard errors: mean of U(0,1) 0.289/sqrt(n) = 6.5e-4; use 5 sigma.
    CHECK(std::abs(s / n - 0.5) < 5 * 6.5e-4);
    CHECK(std::abs(s2 / n - 1.0 / 3.0) < 5 * 6.7e-4);
    CHECK(std::abs(z / n) < 5 * 2.3e-3);
    CHECK(std::abs(z2 / n - 1.0) < 5 * 3.2e-3);
}

TEST_CASE("uniform01 works with narrow standard generators", "[core][random]") {
    std::minstd_rand g(5);  // range [1, 2^31 - 2]
    for (int i = 0; i < 1000; ++i) {
        const double u = uniform01(g);
        REQUIRE(u >= 0.0);
        REQUIRE(u < 1.0);
    }
    std::mt19937 h(5);
    double sum = 0;
    for (int i = 0; i < 10000; ++i) sum += uniform01(h);
    CHECK(std::abs(sum / 10000 - 0.5) < 0.02);
}

TEST_CASE("uniform_index is unbiased over a small range", "[core][random]") {
    DefaultRng g(9);
    std::vector<int> counts(3, 0);
    const int n = 300000;
    for (int i = 0; i < n; ++i) ++counts[uniform_index(g, 3)];
    for (int c : counts) CHECK(std::abs(c - n / 3.0) < 5 * std::sqrt(n * (1.0 / 3) * (2.0 / 3)));
}

TEST_CASE("categorical sampling follows the probabilities (chi-square bound)", "[core][sampling]") {
    Eigen::VectorXd p(4);
    p << 0.1, 0.0, 0.6, 0.3;
    DefaultRng g(2024);
    const int n = 100000;
    std::vector<double> counts(4, 0.0);
    for (int i = 0; i < n; ++i) counts[sample_categorical(p, g)] += 1;
    REQUIRE(counts[1] == 0.0);
    double chi2 = 0;
    for (int i : {0, 2, 3}) chi2 += std::pow(counts[static_cast<std::size_t>(i)] - n * p[i], 2) / (n * p[i]);
    // 2 degrees of freedom: P(chi2 > 13.8) = 0.001.
    CHECK(chi2 < 13.8);

    const std::vector<int> idx{3, 7};
    const std::vector<double> pr{0.25, 0.75};
    const SparseDistribution d{idx, pr};
    REQUIRE(d(7) == 0.75);
    REQUIRE(d(5) == 0.0);
    int sevens = 0;
    for (int i = 0; i < n; ++i) {
        const auto k = sample_categorical(d, g);
        REQUIRE((k == 3 || k == 7));
        sevens += k == 7;
    }
    CHECK(std::abs(sevens - 0.75 * n) < 5 * std::sqrt(n * 0.75 * 0.25));
}

TEST_CASE("sampling rejects a distribution with no mass and tolerates rounding", "[core][sampling]") {
    DefaultRng g(1);
    Eigen::VectorXd zero = Eigen::VectorXd::Zero(3);
    REQUIRE_THROWS_AS(sample_categorical(zero, g), config_error);
    Eigen::VectorXd almost(2);
    almost << 0.5, 0.5 - 1e-15;  // sums below 1: the last positive entry absorbs the gap
    for (int i = 0; i < 1000; ++i) REQUIRE(sample_categorical(almost, g) < 2);
}

TEST_CASE("entropy uses the natural log with 0 log 0 = 0", "[core][entropy]") {
    Eigen::VectorXd u = Eigen::VectorXd::Constant(25, 1.0 / 25);
    REQUIRE(entropy(u) == Approx(std::log(25.0)).epsilon(1e-14));  // 3.2188758
    Eigen::VectorXd p(3);
    p << 0.5, 0.5, 0.0;
    REQUIRE(entropy(p) == Approx(std::log(2.0)));
    Eigen::VectorXd bad(2);
    bad << 0.5, std::nan("");
    REQUIRE_THROWS_AS(entropy(bad), config_error);
    bad << -0.1, 1.1;
    REQUIRE_THROWS_WITH(entropy(bad), Catch::Contains("-0.1"));
}

TEST_CASE("entropy of counts and the empirical counter agree with hand values", "[core][entropy]") {
    // Counts (2, 1, 1): d = (1/2, 1/4, 1/4), H = 1.5 log 2 = 1.0397208.
    const std::vector<int> c{2, 1, 1, 0};
    REQUIRE(entropy_of_counts(std::span<const int>(c)) == Approx(1.5 * std::log(2.0)));
    EmpiricalCounter k(4);
    for (int s : {0, 1, 0, 2}) k.add(static_cast<std::size_t>(s));
    REQUIRE(k.total() == 4);
    REQUIRE(k.distinct() == 3);
    REQUIRE(k.entropy() == Approx(1.5 * std::log(2.0)));
    k.clear();
    REQUIRE(k.entropy() == 0.0);
    k.add(3);
    REQUIRE(k.entropy() == 0.0);
    REQUIRE_THROWS_AS(k.add(4), config_error);
    REQUIRE(k.count(3) == 1);
}

namespace {
// Returns the given 64-bit words in turn: uniform01 of word w is (w >> 11) * 2^-53.
struct FixedBits {
    using result_type = std::uint64_t;
    static constexpr result_type min() { return 0; }
    static constexpr result_type max() { return ~result_type{0}; }
    std::vector<std::uint64_t> words;
    std::size_t next = 0;
    result_type operator()() { return words[next++ % words.size()]; }
};
std::uint64_t bits_of(double u) { return static_cast<std::uint64_t>(std::ldexp(u, 53)) << 11; }
}  // namespace

TEST_CASE("binary search in running sums draws exactly what the linear scan draws", "[core][sampling]") {
    // Rows of 1..40 outcomes with random probabilities; FinitePomdp stores the running sums
    // and sample_categorical searches them. With and without the sums, the same generator
    // state must give the same outcome.
    DefaultRng g(31);
    for (int trial = 0; trial < 300; ++trial) {
        const std::size_t n = 1 + uniform_index(g, 40);
        std::vector<int> idx(n);
        std::vector<double> pr(n), cdf(n);
        double total = 0.0;
        for (std::size_t k = 0; k < n; ++k) {
            idx[k] = static_cast<int>(3 * k + 1);
            pr[k] = uniform01(g) < 0.2 ? 1e-12 : uniform01(g) + 1e-3;
            total += pr[k];
        }
        double running = 0.0;
        for (std::size_t k = 0; k < n; ++k) {
            pr[k] /= total;
            running += pr[k];
            cdf[k] = running;
        }
        const SparseDistribution scan{idx, pr};
        const SparseDistribution search{idx, pr, cdf};
        for (int draw = 0; draw < 200; ++draw) {
            DefaultRng a = g, b = g;
            REQUIRE(sample_categorical(scan, a) == sample_categorical(search, b));
            (void)uniform01(g);
        }
    }
    // At the boundaries: u equal to a running sum moves on to the next outcome (u < sum is
    // strict), and u at or above the last sum (a row summing to slightly less than 1) gives
    // the last outcome. Probabilities in eighths keep every sum exact.
    std::vector<int> idx(9);
    std::vector<double> pr(9, 0.125), cdf(9);
    pr[8] = 0.0;  // explicit zero at the end: the fallback returns the last positive outcome
    for (std::size_t k = 0; k < 9; ++k) idx[k] = static_cast<int>(k);
    double running = 0.0;
    for (std::size_t k = 0; k < 9; ++k) cdf[k] = (running += pr[k]);
    const SparseDistribution scan{idx, pr};
    const SparseDistribution search{idx, pr, cdf};
    for (std::size_t k = 0; k < 7; ++k) {  // cdf[7] = 1 is not a possible draw
        FixedBits a{{bits_of(cdf[k])}}, b{{bits_of(cdf[k])}};
        REQUIRE(sample_categorical(scan, a) == k + 1);
        REQUIRE(sample_categorical(search, b) == k + 1);
    }
    std::vector<double> short_pr{0.25, 0.25, 0.25, 0.25 - 1e-15, 0, 0, 0, 0};
    std::vector<double> short_cdf(8);
    running = 0.0;
    for (std::size_t k = 0; k < 8; ++k) short_cdf[k] = (running += short_pr[k]);
    std::vector<int> short_idx{0, 1, 2, 3, 4, 5, 6, 7};
    FixedBits a{{bits_of(1.0 - 0x1.0p-53)}}, b{{bits_of(1.0 - 0x1.0p-53)}};
    REQUIRE(sample_categorical(SparseDistribution{short_idx, short_pr}, a) == 3);
    REQUIRE(sample_categorical(SparseDistribution{short_idx, short_pr, short_cdf}, b) == 3);
}

}  // namespace test_core
