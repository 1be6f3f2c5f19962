// maxent/policy/gaussian.hpp — a Gaussian policy for worlds with continuous actions
// (model/concepts.hpp: action_type and an ActionBox), squashed into the box by tanh.
//
// The agent's inputs x = (1, φ(b), ψ(o)): a bias, the belief's features φ(b) (AgentView::
// features(): a particle filter's StateFeatureMap, or the belief itself; F_b of them, 0 for
// none) and observation features ψ(o) of the observation's point (an ObservationFeatureMap as
// ObservationFeaturePolicy reads it, policy/observation_features.hpp; none by default). For
// each action coordinate j = 1..d, with θ = [W | S] (F x 2d, F = 1 + F_b + F_ψ):
//     μ_j = W_jᵀ x,   log σ_j = S_{0j} (state-independent, the default) or S_jᵀ x (linear),
//     u_j = μ_j + σ_j ε_j, ε_j ~ N(0, 1),   a_j = c_j + h_j tanh(u_j)
// with c, h the box's centre and half-widths. Density on the box (change of variables):
//     log π(a | x) = Σ_j [ log N(u_j; μ_j, σ_j²) - log(1 - tanh²(u_j)) - log h_j ],
//     u_j = atanh((a_j - c_j) / h_j).
// The correction terms do not depend on θ, so the score is the Gaussian's at u:
//     ∂ log π / ∂W_j = x ε_j / σ_j,   ∂ log π / ∂ log σ_j = ε_j² - 1 (times x when linear).
//
// Why tanh and not a Beta: the Beta's score needs digamma functions of its parameters at every
// step (costly and ill-conditioned near the shapes < 1 that concentrate on an edge), while the
// squashed Gaussian's score is the Gaussian's in closed form, its draw one normal per
// coordinate, and its mean linear in x as the softmax policies' logits are; the price is a
// density that vanishes on the box's boundary (log_density is -inf there; a drawn action
// reaches the boundary only when |u| > 19, in double precision).
//
// Allocation: θ and the scratch vectors are sized at construction; sample, log_density and
// log_gradient allocate nothing. The score is ADDED into the caller's matrix (θ's shape).
// Errors: config_error for a bad box, a feature length that does not match, an action outside
// the box's interior (log_gradient); numeric_error for a non-finite feature, mean or log σ
// outside [-30, 30] (σ would over- or underflow), naming the coordinate and value.
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
        mu_.resize(d);
        sigma_.resize(d);
        log_sigma_.resize(d);
        cached_log_sigma_ = Eigen::VectorXd::Constant(d, std::numeric_limits<double>::quiet_NaN());
        linear_.resize(2 * d);
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
        check_buffer(score);
        compute(v);
        const auto d = static_cast<Eigen::Index>(d_);
        for (Eigen::Index j = 0; j < d; j += 2) {
            double x, y, r2;
            do {
                x = 2.0 * uniform01(g) - 1.0;
                y = 2.0 * uniform01(g) - 1.0;
                r2 = x * x + y * y;
            } while (!(r2 < 1.0 && r2 > 0.0));
            const double f = std::sqrt(-2.0 * std::log(r2) / r2);
            eps_[j] = x * f;
            if (j + 1 < d) eps_[j + 1] = y * f;
        }
        for (Eigen::Index j = 0; j < d; ++j)
            action[static_cast<std::size_t>(j)] = centre_[j] + half_[j] * squash(mu_[j] + sigma_[j] * eps_[j]);
        add_score(v, score);
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
            const double z = (u - mu_[j]) / sigma_[j];
            log_p += -0.5 * z * z - log_sigma_[j] - 0.5 * std::log(2.0 * std::numbers::pi) - std::log1p(-y * y);
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
            eps_[j] = (std::atanh(y) - mu_[j]) / sigma_[j];
        }
        add_score(v, grad);
    }

    void check_dimensions(const AgentDimensions& d) const {
        if (d.actions != d_)
            throw config_error(detail::message("GaussianPolicy: built for actions of dimension ", d_,
                                               " but the world's actions have ", d.actions, " coordinates"));
        if (fb_ != 0 && d.feature_dimension() != fb_)
            throw config_error(detail::message("GaussianPolicy: built for ", fb_, " belief features but the agent's "
                                               "belief model gives ", d.feature_dimension()));
    }

    /// μ(v) and σ(v) of the unsquashed Gaussian (for inspection; the same scratch as sample).
    void mean_and_std(const AgentView& v, Eigen::VectorXd& mean, Eigen::VectorXd& std_dev) const {
        compute(v);
        mean = mu_;
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

    // The inner products and score updates, two columns of θ per pass over x (x loaded once),
    // in pairs of doubles (the compiler's vector extension: SSE2 registers on x86-64) with a
    // fixed order of additions, so every call gives the same bits.
    using pair = double __attribute__((vector_size(16)));
    [[nodiscard]] static pair load(const double* p) noexcept {
        pair v;
        std::memcpy(&v, p, sizeof v);
        return v;
    }
    static void store(double* p, pair v) noexcept { std::memcpy(p, &v, sizeof v); }

    /// r0 = w0[0..n) · x, r1 = w1[0..n) · x.
    static void dot2(const double* w0, const double* w1, const double* x, Eigen::Index n, double& r0,
                     double& r1) noexcept {
        pair a0{0.0, 0.0}, b0{0.0, 0.0}, a1{0.0, 0.0}, b1{0.0, 0.0};
        Eigen::Index i = 0;
        for (; i + 4 <= n; i += 4) {
            const pair x0 = load(x + i), x1 = load(x + i + 2);
            a0 += load(w0 + i) * x0;
            b0 += load(w0 + i + 2) * x1;
            a1 += load(w1 + i) * x0;
            b1 += load(w1 + i + 2) * x1;
        }
        const pair s0 = a0 + b0, s1 = a1 + b1;
        r0 = s0[0] + s0[1];
        r1 = s1[0] + s1[1];
        for (; i < n; ++i) {
            r0 += w0[i] * x[i];
            r1 += w1[i] * x[i];
        }
    }
    [[nodiscard]] static double dot(const double* w, const double* x, Eigen::Index n) noexcept {
        double r0 = 0.0, r1 = 0.0;
        dot2(w, w, x, n, r0, r1);
        return r0;
    }
    /// s0[0..n) += c0 x, s1[0..n) += c1 x.
    static void axpy2(double c0, double c1, const double* x, double* s0, double* s1, Eigen::Index n) noexcept {
        const pair k0{c0, c0}, k1{c1, c1};
        Eigen::Index i = 0;
        for (; i + 4 <= n; i += 4) {
            const pair xa = load(x + i), xb = load(x + i + 2);
            const pair s0a = load(s0 + i) + k0 * xa, s0b = load(s0 + i + 2) + k0 * xb;
            const pair s1a = load(s1 + i) + k1 * xa, s1b = load(s1 + i + 2) + k1 * xb;
            store(s0 + i, s0a);
            store(s0 + i + 2, s0b);
            store(s1 + i, s1a);
            store(s1 + i + 2, s1b);
        }
        for (; i < n; ++i) {
            s0[i] += c0 * x[i];
            s1[i] += c1 * x[i];
        }
    }
    /// s[0..n) += c x (one column: axpy2 with the same column twice would store the second,
    /// unchanged, sum over the first).
    static void axpy1(double c, const double* x, double* s, Eigen::Index n) noexcept {
        const pair k{c, c};
        Eigen::Index i = 0;
        for (; i + 4 <= n; i += 4) {
            const pair sa = load(s + i) + k * load(x + i), sb = load(s + i + 2) + k * load(x + i + 2);
            store(s + i, sa);
            store(s + i + 2, sb);
        }
        for (; i < n; ++i) s[i] += c * x[i];
    }
    /// z[j] += θ column j's block of rows [first, first + n) · x, for the columns [0, m).
    void dot_columns(const double* x, Eigen::Index first, Eigen::Index n, Eigen::Index m, double* z) const noexcept {
        const Eigen::Index F = theta_.rows();
        const double* base = theta_.data() + first;
        Eigen::Index j = 0;
        for (; j + 2 <= m; j += 2) {
            double r0, r1;
            dot2(base + j * F, base + (j + 1) * F, x, n, r0, r1);
            z[j] += r0;
            z[j + 1] += r1;
        }
        if (j < m) z[j] += dot(base + j * F, x, n);
    }
    /// score column j's rows [first, first + n) += c[j] x, for the columns [c0, c0 + m).
    static void add_columns(Eigen::MatrixXd& score, const double* c, Eigen::Index col0, Eigen::Index m,
                            const double* x, Eigen::Index first, Eigen::Index n) noexcept {
        const Eigen::Index F = score.rows();
        double* base = score.data() + first + col0 * F;
        Eigen::Index j = 0;
        for (; j + 2 <= m; j += 2) axpy2(c[j], c[j + 1], x, base + j * F, base + (j + 1) * F, n);
        if (j < m) axpy1(c[j], x, base + j * F, n);  // the unpaired column (odd m): its own loop
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

    /// The view's φ(b) (checked: length F_b, finite) when the policy reads it.
    [[nodiscard]] const Eigen::VectorXd* belief_part(const AgentView& v) const {
        if (fb_ == 0) return nullptr;
        const Eigen::VectorXd& phi = v.features();
        if (static_cast<std::size_t>(phi.size()) != fb_)
            throw config_error(detail::message("GaussianPolicy: the agent's features have ", phi.size(),
                                               " entries, the policy reads ", fb_));
        return &phi;
    }

    /// mu_, log_sigma_, sigma_ <- at v (psi_out_ <- ψ(o) when the policy has observation features).
    void compute(const AgentView& v) const {
        const auto d = static_cast<Eigen::Index>(d_);
        const auto fb = static_cast<Eigen::Index>(fb_);
        const auto fo = static_cast<Eigen::Index>(fo_);
        const Eigen::VectorXd* phi = belief_part(v);
        if constexpr (has_observation_features) {
            if (v.observation_point.empty())
                throw config_error("GaussianPolicy: the view carries no observation point (the world's observations "
                                   "are indices, or of a type that is not a point)");
            psi_(v.observation_point, psi_out_);
            if (psi_out_.size() != fo)
                throw config_error(detail::message("GaussianPolicy: the observation feature map wrote ",
                                                   psi_out_.size(), " features; its dimension() says ", fo));
        }
        const Eigen::Index columns = options_.state_dependent_std ? 2 * d : d;
        double* z = linear_.data();  // μ, then (state-dependent σ) log σ
        for (Eigen::Index j = 0; j < columns; ++j) z[j] = theta_(0, j);
        if (phi != nullptr) dot_columns(phi->data(), 1, fb, columns, z);
        if constexpr (has_observation_features) dot_columns(psi_out_.data(), 1 + fb, fo, columns, z);
        for (Eigen::Index j = 0; j < d; ++j) mu_[j] = z[j];
        if (options_.state_dependent_std)
            for (Eigen::Index j = 0; j < d; ++j) log_sigma_[j] = z[d + j];
        for (Eigen::Index j = 0; j < d; ++j) {
            if (!options_.state_dependent_std) log_sigma_[j] = theta_(0, d + j);
            if (!std::isfinite(mu_[j])) throw_bad_input(v, j);
            if (log_sigma_[j] != cached_log_sigma_[j]) {  // σ = exp(log σ), recomputed when log σ changes
                check_log_std(log_sigma_[j], j);
                sigma_[j] = std::exp(log_sigma_[j]);
                cached_log_sigma_[j] = log_sigma_[j];
            }
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
        throw numeric_error(detail::message("GaussianPolicy: the mean of action coordinate ", j, " is ", mu_[j]));
    }

    /// score += ∇_θ log π at eps_ (the standardised u), mu_, sigma_ of the last compute.
    void add_score(const AgentView& v, Eigen::MatrixXd& score) const {
        const auto d = static_cast<Eigen::Index>(d_);
        const auto fb = static_cast<Eigen::Index>(fb_);
        const auto fo = static_cast<Eigen::Index>(fo_);
        const Eigen::VectorXd* phi = fb_ == 0 ? nullptr : &v.features();
        double* c = linear_.data();  // ∂ log π / ∂μ_j, then ∂ log π / ∂ log σ_j
        for (Eigen::Index j = 0; j < d; ++j) {
            const double e = eps_[j];
            c[j] = e / sigma_[j];
            c[d + j] = e * e - 1.0;
            score(0, j) += c[j];
            score(0, d + j) += c[d + j];
        }
        const Eigen::Index columns = options_.state_dependent_std ? 2 * d : d;
        if (phi != nullptr) add_columns(score, c, 0, columns, phi->data(), 1, fb);
        if constexpr (has_observation_features) add_columns(score, c, 0, columns, psi_out_.data(), 1 + fb, fo);
    }

    ActionBox box_;
    Psi psi_;
    GaussianPolicyOptions options_;
    std::size_t fb_ = 0, fo_ = 0, d_ = 0;
    Eigen::MatrixXd theta_;
    Eigen::VectorXd centre_, half_;
    double log_half_sum_ = 0.0;
    mutable Eigen::VectorXd psi_out_, mu_, sigma_, log_sigma_, cached_log_sigma_, eps_, linear_;
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
