// maxent/policy/gaussian.hpp — a Gaussian policy for worlds with continuous actions
// (model/concepts.hpp: action_type and an ActionBox), squashed into the box by tanh.
//
// Inputs x = (1, φ(b), ψ(o)): a bias, F_b belief features (AgentView::features(); 0 for none)
// and observation features ψ(o) (an ObservationFeatureMap, policy/observation_features.hpp;
// none by default). For each action coordinate j, with θ = [W | S] (F x 2d, F = 1 + F_b + F_ψ):
//     μ_j = W_jᵀ x,   log σ_j = S_{0j} (state-independent, the default) or S_jᵀ x (linear),
//     u_j = μ_j + σ_j ε_j, ε_j ~ N(0, 1),  a_j = c_j + h_j tanh(u_j)  (c, h: centre, half-widths),
//     log π(a | x) = Σ_j [ log N(u_j; μ_j, σ_j²) - log(1 - tanh²(u_j)) - log h_j ].
// The correction terms do not depend on θ, so the score is the Gaussian's at u:
//     ∂ log π / ∂W_j = x ε_j / σ_j,   ∂ log π / ∂ log σ_j = ε_j² - 1 (times x when linear).
// Why tanh, not a Beta: the Beta's score needs digamma functions at every step; the squashed
// Gaussian's score is closed-form and its draw one normal per coordinate. The price: the density
// vanishes on the boundary (log_density -inf there; a draw reaches it only when |u| > 19).
//
// sample, log_density and log_gradient allocate nothing; the score is ADDED into the caller's
// matrix. Errors: config_error (bad box, feature length, an action outside the interior, a
// world's box not the policy's: check_dimensions); numeric_error (a non-finite feature or mean,
// log σ outside [-30, 30]), naming coordinate and value. With a state-independent σ the mean
// and score are one pass after the draws, so a numeric_error may leave the score partly updated.
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstring>
#include <limits>
#include <numbers>
#include <random>
#include <span>
#include <utility>

#include <Eigen/Core>

#include "maxent/core/actions.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/policy/concepts.hpp"

// The AVX2 path of the inner products (see pass2_avx2), on x86 with GCC or Clang: chosen at run
// time, or always when the build targets AVX2. Define MAXENT_GAUSSIAN_AVX2 to 0 to leave it out
// (the results are the same bits either way).
#ifndef MAXENT_GAUSSIAN_AVX2
#if (defined(__x86_64__) || defined(__i386__)) && defined(__GNUC__)
#define MAXENT_GAUSSIAN_AVX2 1
#else
#define MAXENT_GAUSSIAN_AVX2 0
#endif
#endif

namespace maxent {

/// No observation features: the policy reads the bias and φ(b) only.
struct NoObservationFeatures {
    [[nodiscard]] static constexpr std::size_t dimension() noexcept { return 0; }
    void operator()(std::span<const double>, Eigen::VectorXd&) const noexcept {}
};

struct GaussianPolicyOptions {
    double initial_log_std = 0.0;      ///< log σ at construction (the mean starts at the box's centre)
    bool state_dependent_std = false;  ///< log σ_j = S_jᵀ x instead of S_{0j}
};

/// ReadsBelief = false: the policy reads the observation's features only (no φ(b)); the
/// rollout may then skip belief updates nobody else reads (needs_belief).
template <class Psi = NoObservationFeatures, bool ReadsBelief = true>
class GaussianPolicy {
public:
    static constexpr bool needs_belief = ReadsBelief;
    static constexpr bool has_observation_features = !std::is_same_v<Psi, NoObservationFeatures>;

    /// Mean linear in (1, φ(b)), φ(b) of length belief_features (0: the bias only, a
    /// state-independent Gaussian).
    GaussianPolicy(ActionBox box, std::size_t belief_features, GaussianPolicyOptions options = {})
        requires(!has_observation_features)
        : GaussianPolicy(std::move(box), belief_features, Psi{}, options) {}
    /// Mean linear in (1, ψ(o)).
    GaussianPolicy(ActionBox box, Psi psi, GaussianPolicyOptions options = {})
        requires has_observation_features
        : GaussianPolicy(std::move(box), 0, std::move(psi), options) {}
    /// Mean linear in (1, φ(b), ψ(o)).
    GaussianPolicy(ActionBox box, std::size_t belief_features, Psi psi, GaussianPolicyOptions options = {})
        : box_(std::move(box)), psi_(std::move(psi)), options_(options), fb_(belief_features) {
        box_.check("GaussianPolicy");
        if (!ReadsBelief && fb_ != 0)
            throw config_error(detail::message("GaussianPolicy: built not to read the belief (ReadsBelief = false) "
                                               "but given ", fb_, " belief features"));
        check_log_std(options.initial_log_std, 0);
        d_ = box_.dimension();
        fo_ = psi_.dimension();
        const auto F = static_cast<Eigen::Index>(1 + fb_ + fo_);
        const auto d = static_cast<Eigen::Index>(d_);
        theta_ = Eigen::MatrixXd::Zero(F, 2 * d);
        theta_.block(0, d, 1, d).setConstant(options.initial_log_std);
        centre_.resize(d);
        half_.resize(d);
        log_half_sum_ = 0.0;
        for (Eigen::Index j = 0; j < d; ++j) {
            const auto k = static_cast<std::size_t>(j);
            centre_[j] = 0.5 * (box_.lower[k] + box_.upper[k]);
            half_[j] = 0.5 * (box_.upper[k] - box_.lower[k]);
            log_half_sum_ += std::log(half_[j]);
        }
        psi_out_.resize(static_cast<Eigen::Index>(fo_));
        sigma_.resize(d);
        cached_log_sigma_ = Eigen::VectorXd::Constant(d, std::numeric_limits<double>::quiet_NaN());
        linear_.resize(2 * d);
        coef_.resize(2 * d);
        eps_.resize(d);
    }

    [[nodiscard]] std::size_t action_dimension() const noexcept { return d_; }
    [[nodiscard]] std::size_t num_features() const noexcept { return 1 + fb_ + fo_; }
    [[nodiscard]] std::size_t belief_features() const noexcept { return fb_; }
    [[nodiscard]] const ActionBox& box() const noexcept { return box_; }
    [[nodiscard]] const GaussianPolicyOptions& options() const noexcept { return options_; }
    [[nodiscard]] const Psi& feature_map() const noexcept { return psi_; }
    [[nodiscard]] Eigen::MatrixXd& parameters() noexcept { return theta_; }
    [[nodiscard]] const Eigen::MatrixXd& parameters() const noexcept { return theta_; }

    /// Draws a ~ π(· | v) into `action` (d coordinates, in the box) and adds ∇_θ log π(a | v)
    /// to `score`. The normals come in pairs from Marsaglia's polar method (uniform pairs in
    /// the unit disc, drawn from g until one falls inside: a pure function of g's stream).
    template <std::uniform_random_bit_generator G>
    void sample(const AgentView& v, G& g, Eigen::MatrixXd& score, std::span<double> action) {
        if (action.size() != d_)
            throw config_error(detail::message("GaussianPolicy: sample was given room for an action of ",
                                               action.size(), " coordinates; the policy's have ", d_));
        check_buffer(score);
        if (options_.state_dependent_std) {
            compute(v);
            draw_normals(g);
            write_action(action);  // before the score pass, which does not wait for its exp
            add_score(v, score);
        } else {
            // σ and the score's coefficients ε_j / σ_j do not depend on x: the normals are drawn
            // first and one pass over x computes μ and adds the score (the same sums in the
            // same order as a pass for μ followed by a pass for the score).
            const double* phi = read_inputs(v);
            refresh_fixed_std();
            draw_normals(g);
            fixed_std_step(v, phi, score);
            write_action(action);
        }
    }

    /// log π(a | v), the density on the box; -inf on its boundary (the squashed density
    /// vanishes there). config_error for an action outside the box.
    [[nodiscard]] double log_density(const AgentView& v, std::span<const double> action) const {
        compute(v);
        double log_p = -log_half_sum_;
        for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(d_); ++j) {
            const double y = squashed(action, j);
            if (std::abs(y) >= 1.0) return -std::numeric_limits<double>::infinity();
            const double u = std::atanh(y);
            const double z = (u - linear_[j]) / sigma_[j];
            log_p += -0.5 * z * z - linear_[static_cast<Eigen::Index>(d_) + j] - 0.5 * std::log(2.0 * std::numbers::pi) - std::log1p(-y * y);
        }
        return log_p;
    }

    /// grad += ∇_θ log π(a | v). config_error for an action not inside the box's interior.
    void log_gradient(const AgentView& v, std::span<const double> action, Eigen::MatrixXd& grad) const {
        check_buffer(grad);
        compute(v);
        for (Eigen::Index j = 0; j < static_cast<Eigen::Index>(d_); ++j) {
            const double y = squashed(action, j);
            if (!(std::abs(y) < 1.0))
                throw config_error(detail::message("GaussianPolicy::log_gradient: action coordinate ", j, " = ",
                                                   action[static_cast<std::size_t>(j)],
                                                   " is not inside the box's interior (",
                                                   box_.lower[static_cast<std::size_t>(j)], ", ",
                                                   box_.upper[static_cast<std::size_t>(j)],
                                                   "), where the squashed density is positive"));
            eps_[j] = (std::atanh(y) - linear_[j]) / sigma_[j];
        }
        add_score(v, grad);
    }

    void check_dimensions(const AgentDimensions& d) const {
        if (d.actions != d_)
            throw config_error(detail::message("GaussianPolicy: built for actions of dimension ", d_,
                                               " but the world's actions have ", d.actions, " coordinates"));
        box_.require_world_box(d.box, "GaussianPolicy");
        if (fb_ != 0 && d.feature_dimension() != fb_)
            throw config_error(detail::message("GaussianPolicy: built for ", fb_, " belief features but the agent's "
                                               "belief model gives ", d.feature_dimension()));
    }

    /// μ(v) and σ(v) of the unsquashed Gaussian (for inspection; the same scratch as sample).
    void mean_and_std(const AgentView& v, Eigen::VectorXd& mean, Eigen::VectorXd& std_dev) const {
        compute(v);
        mean = linear_.head(static_cast<Eigen::Index>(d_));
        std_dev = sigma_;
    }

private:
    /// tanh(u) as (1 - t) / (1 + t), t = exp(-2|u|), with u's sign: one exp (glibc's tanh costs
    /// several times as much); absolute error a few ulps of 1, which is what the action's
    /// coordinate c + h tanh(u) resolves.
    [[nodiscard]] static double squash(double u) noexcept {
        const double t = std::exp(-2.0 * std::abs(u));
        const double y = (1.0 - t) / (1.0 + t);
        return u < 0.0 ? -y : y;
    }

    // The inner products and the score updates. Two columns of θ (and of the score) per pass
    // over x, x loaded once; each inner product in two pairs of doubles, a over x[4i, 4i + 1]
    // and b over x[4i + 2, 4i + 3], summed as r = (a + b)[0] + (a + b)[1] and then the tail in
    // order: a fixed association, so every call gives the same bits. The pairs are SSE2
    // registers on x86-64 (the compiler's vector extension). Where the processor has AVX2
    // (asked once, at run time) a and b are the two halves of one register of four doubles:
    // the same operations on the same numbers, hence the same bits, in half the instructions
    // (no fused multiply-add unless the whole program is compiled with it, and then both paths
    // contract alike). Loads and stores go through a pair type aligned like a double that may
    // alias one (a memcpy into a local pair made GCC 12 keep loaded pairs on the stack); it is a
    // typedef because Clang ignores the lowered alignment in an alias-declaration.
    using pair = double __attribute__((vector_size(16)));
    typedef double unaligned_pair __attribute__((vector_size(16), aligned(8), may_alias));
    [[nodiscard]] static pair load(const double* p) noexcept { return *reinterpret_cast<const unaligned_pair*>(p); }
    static void store(double* p, pair v) noexcept { *reinterpret_cast<unaligned_pair*>(p) = v; }

    /// The scalar end of pass2 and pass2_avx2: x[i, n) after their vector blocks.
    template <bool Dot, bool Axpy>
    static void tail2(const double* w0, const double* w1, const double* __restrict x, Eigen::Index i, Eigen::Index n,
                      double c0, double c1, double* __restrict s0, double* __restrict s1, double& r0,
                      double& r1) noexcept {
        for (; i < n; ++i) {
            if constexpr (Dot) {
                r0 += w0[i] * x[i];
                r1 += w1[i] * x[i];
            }
            if constexpr (Axpy) {
                s0[i] += c0 * x[i];
                s1[i] += c1 * x[i];
            }
        }
    }
    /// One pass over x[0, n) for θ's columns w0, w1 and the score's columns s0, s1 (distinct):
    /// Dot: r0 = w0 · x, r1 = w1 · x; Axpy: s0 += c0 x, s1 += c1 x.
    template <bool Dot, bool Axpy>
    static void pass2(const double* w0, const double* w1, const double* __restrict x, Eigen::Index n, double c0,
                      double c1, double* __restrict s0, double* __restrict s1, double& r0, double& r1) noexcept {
        pair a0{0.0, 0.0}, b0{0.0, 0.0}, a1{0.0, 0.0}, b1{0.0, 0.0};
        const pair k0{c0, c0}, k1{c1, c1};
        Eigen::Index i = 0;
        for (; i + 4 <= n; i += 4) {
            const pair x0 = load(x + i), x1 = load(x + i + 2);
            if constexpr (Dot) {
                a0 += load(w0 + i) * x0;
                b0 += load(w0 + i + 2) * x1;
                a1 += load(w1 + i) * x0;
                b1 += load(w1 + i + 2) * x1;
            }
            if constexpr (Axpy) {
                store(s0 + i, load(s0 + i) + k0 * x0);
                store(s0 + i + 2, load(s0 + i + 2) + k0 * x1);
                store(s1 + i, load(s1 + i) + k1 * x0);
                store(s1 + i + 2, load(s1 + i + 2) + k1 * x1);
            }
        }
        if constexpr (Dot) {
            const pair t0 = a0 + b0, t1 = a1 + b1;
            r0 = t0[0] + t0[1];
            r1 = t1[0] + t1[1];
        }
        tail2<Dot, Axpy>(w0, w1, x, i, n, c0, c1, s0, s1, r0, r1);
    }
#if MAXENT_GAUSSIAN_AVX2
    /// pass2 in registers of four doubles (AVX2): the same sums, in the same order.
    template <bool Dot, bool Axpy>
    __attribute__((target("avx2"))) static void pass2_avx2(const double* w0, const double* w1,
                                                          const double* __restrict x, Eigen::Index n, double c0,
                                                          double c1, double* __restrict s0, double* __restrict s1,
                                                          double& r0, double& r1) noexcept {
        using quad = double __attribute__((vector_size(32)));
        typedef double unaligned_quad __attribute__((vector_size(32), aligned(8), may_alias));
        quad a0{0.0, 0.0, 0.0, 0.0}, a1{0.0, 0.0, 0.0, 0.0};
        const quad k0{c0, c0, c0, c0}, k1{c1, c1, c1, c1};
        Eigen::Index i = 0;
        for (; i + 4 <= n; i += 4) {
            const quad xi = *reinterpret_cast<const unaligned_quad*>(x + i);
            if constexpr (Dot) {
                a0 += *reinterpret_cast<const unaligned_quad*>(w0 + i) * xi;
                a1 += *reinterpret_cast<const unaligned_quad*>(w1 + i) * xi;
            }
            if constexpr (Axpy) {
                *reinterpret_cast<unaligned_quad*>(s0 + i) += k0 * xi;
                *reinterpret_cast<unaligned_quad*>(s1 + i) += k1 * xi;
            }
        }
        if constexpr (Dot) {
            const pair t0 = pair{a0[0], a0[1]} + pair{a0[2], a0[3]};
            const pair t1 = pair{a1[0], a1[1]} + pair{a1[2], a1[3]};
            r0 = t0[0] + t0[1];
            r1 = t1[0] + t1[1];
        }
        tail2<Dot, Axpy>(w0, w1, x, i, n, c0, c1, s0, s1, r0, r1);
    }
    [[nodiscard]] static bool has_avx2() noexcept {
#ifdef __AVX2__
        return true;
#else
        static const bool yes = [] {
            __builtin_cpu_init();
            return __builtin_cpu_supports("avx2") != 0;
        }();
        return yes;
#endif
    }
#endif
    /// pass2 for one column (an odd number of columns: the last one).
    template <bool Dot, bool Axpy>
    static void pass1(const double* w, const double* __restrict x, Eigen::Index n, double c, double* __restrict s,
                      double& r) noexcept {
        pair a{0.0, 0.0}, b{0.0, 0.0};
        const pair k{c, c};
        Eigen::Index i = 0;
        for (; i + 4 <= n; i += 4) {
            const pair x0 = load(x + i), x1 = load(x + i + 2);
            if constexpr (Dot) {
                a += load(w + i) * x0;
                b += load(w + i + 2) * x1;
            }
            if constexpr (Axpy) {
                store(s + i, load(s + i) + k * x0);
                store(s + i + 2, load(s + i + 2) + k * x1);
            }
        }
        if constexpr (Dot) {
            const pair t = a + b;
            r = t[0] + t[1];
        }
        for (; i < n; ++i) {
            if constexpr (Dot) r += w[i] * x[i];
            if constexpr (Axpy) s[i] += c * x[i];
        }
    }

    /// For the columns j in [0, m) and θ's and the score's rows [first, first + n), x of
    /// length n: Dot: z[j] += θ's column j · x; Axpy: the score's column j += c[j] x.
    template <bool Dot, bool Axpy>
    void columns_pass(const double* x, Eigen::Index first, Eigen::Index n, Eigen::Index m, double* z,
                      const double* c, Eigen::MatrixXd* score) const noexcept {
        const Eigen::Index F = theta_.rows();
        const double* w = theta_.data() + first;
        double* s = Axpy ? score->data() + first : nullptr;
        const auto column = [&](Eigen::Index j) { return Axpy ? s + j * F : nullptr; };
        Eigen::Index j = 0;
        for (; j + 2 <= m; j += 2) {
            double r0 = 0.0, r1 = 0.0;
            const double c0 = Axpy ? c[j] : 0.0, c1 = Axpy ? c[j + 1] : 0.0;
#if MAXENT_GAUSSIAN_AVX2
            if (has_avx2())
                pass2_avx2<Dot, Axpy>(w + j * F, w + (j + 1) * F, x, n, c0, c1, column(j), column(j + 1), r0, r1);
            else
#endif
                pass2<Dot, Axpy>(w + j * F, w + (j + 1) * F, x, n, c0, c1, column(j), column(j + 1), r0, r1);
            if constexpr (Dot) {
                z[j] += r0;
                z[j + 1] += r1;
            }
        }
        if (j < m) {
            double r = 0.0;
            pass1<Dot, Axpy>(w + j * F, x, n, Axpy ? c[j] : 0.0, column(j), r);
            if constexpr (Dot) z[j] += r;
        }
    }

    /// (a_j - c_j) / h_j: the tanh of u_j. config_error outside [-1, 1] (NaN included).
    [[nodiscard]] double squashed(std::span<const double> action, Eigen::Index j) const {
        const auto k = static_cast<std::size_t>(j);
        if (action.size() != d_)
            throw config_error(detail::message("GaussianPolicy: an action of ", action.size(),
                                               " coordinates, the policy's have ", d_));
        const double y = (action[k] - centre_[j]) / half_[j];
        if (!(std::abs(y) <= 1.0))
            throw config_error(detail::message("GaussianPolicy: action coordinate ", j, " = ", action[k],
                                               " is outside the box [", box_.lower[k], ", ", box_.upper[k], "]"));
        return y;
    }

    static void check_log_std(double log_sigma, Eigen::Index j) {
        if (!(log_sigma >= -30.0 && log_sigma <= 30.0))
            throw numeric_error(detail::message("GaussianPolicy: log σ of action coordinate ", j, " is ", log_sigma,
                                                "; it must lie in [-30, 30]"));
    }

    void check_buffer(const Eigen::MatrixXd& m) const {
        if (m.rows() != theta_.rows() || m.cols() != theta_.cols())
            throw config_error(detail::message("GaussianPolicy: the score buffer is ", m.rows(), " x ", m.cols(),
                                               ", the parameters ", theta_.rows(), " x ", theta_.cols()));
    }

    /// The view's φ(b) (checked: length F_b), nullptr when the policy reads none; ψ(o) into
    /// psi_out_ (checked) when it has observation features.
    [[nodiscard]] const double* read_inputs(const AgentView& v) const {
        const double* phi = nullptr;
        if (fb_ != 0) {
            const Eigen::VectorXd& features = v.features();
            if (static_cast<std::size_t>(features.size()) != fb_)
                throw config_error(detail::message("GaussianPolicy: the agent's features have ", features.size(),
                                                   " entries, the policy reads ", fb_));
            phi = features.data();
        }
        if constexpr (has_observation_features) {
            if (v.observation_point.empty())
                throw config_error("GaussianPolicy: the view carries no observation point (the world's observations "
                                   "are indices, or of a type that is not a point)");
            psi_(v.observation_point, psi_out_);
            if (psi_out_.size() != static_cast<Eigen::Index>(fo_))
                throw config_error(detail::message("GaussianPolicy: the observation feature map wrote ",
                                                   psi_out_.size(), " features; its dimension() says ", fo_));
        }
        return phi;
    }

    /// sigma_[j] <- exp(log σ_j), recomputed only when log σ_j changed (checked then).
    void refresh_std(Eigen::Index j, double log_sigma) const {
        if (log_sigma != cached_log_sigma_[j]) {
            check_log_std(log_sigma, j);
            sigma_[j] = std::exp(log_sigma);
            cached_log_sigma_[j] = log_sigma;
        }
    }
    /// The state-independent σ: log σ_j = θ(0, d + j), into linear_'s second half.
    void refresh_fixed_std() const {
        const auto d = static_cast<Eigen::Index>(d_);
        for (Eigen::Index j = 0; j < d; ++j) {
            const double log_sigma = theta_(0, d + j);
            linear_[d + j] = log_sigma;
            refresh_std(j, log_sigma);
        }
    }

    /// a_j = c_j + h_j tanh(μ_j + σ_j ε_j).
    void write_action(std::span<double> action) const {
        const double* mu = linear_.data();
        for (std::size_t j = 0; j < d_; ++j) {
            const auto k = static_cast<Eigen::Index>(j);
            action[j] = centre_[k] + half_[k] * squash(mu[j] + sigma_[k] * eps_[k]);
        }
    }

    /// The normals ε_j into eps_, in pairs from Marsaglia's polar method.
    template <class G>
    void draw_normals(G& g) const {
        const auto d = static_cast<Eigen::Index>(d_);
        double* eps = eps_.data();
        for (Eigen::Index j = 0; j < d; j += 2) {
            double x, y, r2;
            do {
                x = 2.0 * uniform01(g) - 1.0;
                y = 2.0 * uniform01(g) - 1.0;
                r2 = x * x + y * y;
            } while (!(r2 < 1.0 && r2 > 0.0));
            const double f = std::sqrt(-2.0 * std::log(r2) / r2);
            eps[j] = x * f;
            if (j + 1 < d) eps[j + 1] = y * f;
        }
    }

    /// The state-independent σ's step after the draws: μ <- θ's mean columns · x and score +=
    /// the score at eps_, in one pass over x (σ already refreshed).
    void fixed_std_step(const AgentView& v, const double* phi, Eigen::MatrixXd& score) const {
        const auto d = static_cast<Eigen::Index>(d_);
        const auto fb = static_cast<Eigen::Index>(fb_);
        const Eigen::Index F = theta_.rows();
        double* mu = linear_.data();
        double* c = coef_.data();  // ∂ log π / ∂μ_j, then ∂ log π / ∂ log σ_j
        const double* theta = theta_.data();
        for (Eigen::Index j = 0; j < d; ++j) {
            const double e = eps_[j];
            mu[j] = theta[j * F];
            c[j] = e / sigma_[j];
            c[d + j] = e * e - 1.0;
        }
        if (phi != nullptr) columns_pass<true, true>(phi, 1, fb, d, mu, c, &score);
        if constexpr (has_observation_features)
            columns_pass<true, true>(psi_out_.data(), 1 + fb, psi_out_.size(), d, mu, c, &score);
        double* s = score.data();
        for (Eigen::Index j = 0; j < d; ++j) {
            if (!std::isfinite(mu[j])) throw_bad_input(v, j);
            s[j * F] += c[j];
            s[(d + j) * F] += c[d + j];
        }
    }

    /// linear_ <- μ (first d) and log σ (last d), sigma_ <- σ, at v (psi_out_ <- ψ(o) when the
    /// policy has observation features).
    void compute(const AgentView& v) const {
        const auto d = static_cast<Eigen::Index>(d_);
        const auto fb = static_cast<Eigen::Index>(fb_);
        const double* phi = read_inputs(v);
        if (!options_.state_dependent_std) refresh_fixed_std();
        const Eigen::Index columns = options_.state_dependent_std ? 2 * d : d;
        double* z = linear_.data();  // μ, then (state-dependent σ) log σ
        for (Eigen::Index j = 0; j < columns; ++j) z[j] = theta_(0, j);
        if (phi != nullptr) columns_pass<true, false>(phi, 1, fb, columns, z, nullptr, nullptr);
        if constexpr (has_observation_features)
            columns_pass<true, false>(psi_out_.data(), 1 + fb, psi_out_.size(), columns, z, nullptr, nullptr);
        for (Eigen::Index j = 0; j < d; ++j) {
            if (!std::isfinite(z[j])) throw_bad_input(v, j);
            if (options_.state_dependent_std) refresh_std(j, z[d + j]);
        }
    }

    [[noreturn]] void throw_bad_input(const AgentView& v, Eigen::Index j) const {
        const Eigen::VectorXd* phi = fb_ == 0 ? nullptr : &v.features();
        for (Eigen::Index i = 0; phi != nullptr && i < phi->size(); ++i)
            if (!std::isfinite((*phi)[i]))
                throw numeric_error(detail::message("GaussianPolicy: belief feature ", i, " is ", (*phi)[i]));
        for (Eigen::Index i = 0; i < psi_out_.size(); ++i)
            if (!std::isfinite(psi_out_[i]))
                throw numeric_error(detail::message("GaussianPolicy: observation feature ", i, " is ", psi_out_[i]));
        throw numeric_error(detail::message("GaussianPolicy: the mean of action coordinate ", j, " is ", linear_[j]));
    }

    /// score += ∇_θ log π at eps_ (the standardised u) and sigma_ of the last compute.
    void add_score(const AgentView& v, Eigen::MatrixXd& score) const {
        const auto d = static_cast<Eigen::Index>(d_);
        const auto fb = static_cast<Eigen::Index>(fb_);
        const auto fo = static_cast<Eigen::Index>(fo_);
        const Eigen::VectorXd* phi = fb_ == 0 ? nullptr : &v.features();
        double* c = coef_.data();  // ∂ log π / ∂μ_j, then ∂ log π / ∂ log σ_j
        for (Eigen::Index j = 0; j < d; ++j) {
            const double e = eps_[j];
            c[j] = e / sigma_[j];
            c[d + j] = e * e - 1.0;
            score(0, j) += c[j];
            score(0, d + j) += c[d + j];
        }
        const Eigen::Index columns = options_.state_dependent_std ? 2 * d : d;
        if (phi != nullptr) columns_pass<false, true>(phi->data(), 1, fb, columns, nullptr, c, &score);
        if constexpr (has_observation_features)
            columns_pass<false, true>(psi_out_.data(), 1 + fb, fo, columns, nullptr, c, &score);
    }

    ActionBox box_;
    Psi psi_;
    GaussianPolicyOptions options_;
    std::size_t fb_ = 0, fo_ = 0, d_ = 0;
    Eigen::MatrixXd theta_;
    Eigen::VectorXd centre_, half_;
    double log_half_sum_ = 0.0;
    // Scratch of the last call: linear_ = (μ, log σ), sigma_ = σ (and the log σ it was computed
    // from, cached_log_sigma_), eps_ = the standardised u, coef_ = the score's coefficients.
    mutable Eigen::VectorXd psi_out_, sigma_, cached_log_sigma_, eps_, linear_, coef_;
};

// GaussianPolicy(box, F_b[, options]) reads (1, φ(b)); GaussianPolicy(box, psi[, options])
// reads (1, ψ(o)); GaussianPolicy(box, F_b, psi[, options]) both.
template <std::integral I>
GaussianPolicy(ActionBox, I) -> GaussianPolicy<>;
template <std::integral I>
GaussianPolicy(ActionBox, I, GaussianPolicyOptions) -> GaussianPolicy<>;
template <class Psi>
    requires(!std::integral<Psi>)
GaussianPolicy(ActionBox, Psi) -> GaussianPolicy<Psi>;
template <class Psi>
    requires(!std::integral<Psi>)
GaussianPolicy(ActionBox, Psi, GaussianPolicyOptions) -> GaussianPolicy<Psi>;
template <std::integral I, class Psi>
GaussianPolicy(ActionBox, I, Psi) -> GaussianPolicy<Psi>;
template <std::integral I, class Psi>
GaussianPolicy(ActionBox, I, Psi, GaussianPolicyOptions) -> GaussianPolicy<Psi>;

/// A Gaussian policy over the observation's features alone (it never reads the belief).
template <class Psi>
using ObservationGaussianPolicy = GaussianPolicy<Psi, false>;

}  // namespace maxent
