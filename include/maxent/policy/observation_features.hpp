// maxent/policy/observation_features.hpp — a policy over features of the observation itself,
// for worlds whose observations are real values or vectors (a range sensor's readings).
//
// Paper, Section 2.1 "Policies" (π acts on the agent's information, here o_t alone), with a
// user feature map ψ of the observation's point form (AgentView::observation_point):
//     π(· | o) = softmax(θᵀ ψ(o)),  θ ∈ R^{F x A}, initialised to zero
//     ∇_θ log π(a | o) = ψ(o) (e_a - π(· | o))ᵀ
// the same form as the belief-averaged policy with ψ(o) in place of φ(b).
//
// ObservationFeatureMap — required expressions, for `const Psi psi`, `std::span<const double>
// x` (the observation's coordinates) and `Eigen::VectorXd& out`:
//   psi.dimension()      -> std::size_t: F > 0
//   psi(x, out)          out <- ψ(x), F entries (out arrives with size F; the policy checks it
//                        keeps that size: a map of the wrong length is a config_error)
// Satisfied by RawObservationFeatures (the coordinates and a constant 1),
// RbfObservationFeatures (Gaussian bumps on given centres, and a constant 1) and
// ObservationTiles (one-hot tiles of a box, several offset tilings) below.
// The policy never reads the belief (needs_belief = false).
#pragma once

#include <cmath>
#include <concepts>
#include <cstddef>
#include <span>
#include <utility>
#include <vector>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/policy/concepts.hpp"
#include "maxent/policy/parameter_table.hpp"

namespace maxent {

template <class Psi>
concept ObservationFeatureMap = requires(const Psi& psi, std::span<const double> x, Eigen::VectorXd& out) {
    { psi.dimension() } -> std::convertible_to<std::size_t>;
    psi(x, out);
};

/// ψ(x) = (x_1, .., x_d, 1): the raw vector and a bias.
class RawObservationFeatures {
public:
    explicit RawObservationFeatures(std::size_t observation_dimension) : d_(observation_dimension) {
        if (d_ == 0) throw config_error("RawObservationFeatures: observation dimension 0");
    }
    [[nodiscard]] std::size_t dimension() const noexcept { return d_ + 1; }
    void operator()(std::span<const double> x, Eigen::VectorXd& out) const {
        if (x.size() != d_)
            throw config_error(detail::message("RawObservationFeatures: the observation has ", x.size(),
                                               " coordinates, the map expects ", d_));
        for (std::size_t j = 0; j < d_; ++j) out[static_cast<Eigen::Index>(j)] = x[j];
        out[static_cast<Eigen::Index>(d_)] = 1.0;
    }

private:
    std::size_t d_;
};

/// ψ(x) = (exp(-|x - c_1|² / (2 w²)), .., exp(-|x - c_m|² / (2 w²)), 1): Gaussian radial
/// basis functions on the centres (rows of `centres`, m x d) with width w > 0, and a bias.
class RbfObservationFeatures {
public:
    RbfObservationFeatures(Eigen::MatrixXd centres, double width) : centres_(std::move(centres)), width_(width) {
        if (centres_.rows() == 0 || centres_.cols() == 0)
            throw config_error(detail::message("RbfObservationFeatures: centres are ", centres_.rows(), " x ",
                                               centres_.cols(), "; at least one centre of dimension >= 1"));
        if (!(width > 0.0) || !std::isfinite(width))
            throw config_error(detail::message("RbfObservationFeatures: width ", width, " must be finite and > 0"));
        if (!centres_.allFinite()) throw config_error("RbfObservationFeatures: a centre has a non-finite coordinate");
    }
    [[nodiscard]] std::size_t dimension() const noexcept { return static_cast<std::size_t>(centres_.rows()) + 1; }
    void operator()(std::span<const double> x, Eigen::VectorXd& out) const {
        if (x.size() != static_cast<std::size_t>(centres_.cols()))
            throw config_error(detail::message("RbfObservationFeatures: the observation has ", x.size(),
                                               " coordinates, the centres ", centres_.cols()));
        const double scale = -0.5 / (width_ * width_);
        for (Eigen::Index i = 0; i < centres_.rows(); ++i) {
            double r2 = 0.0;
            for (Eigen::Index j = 0; j < centres_.cols(); ++j) {
                const double dx = x[static_cast<std::size_t>(j)] - centres_(i, j);
                r2 += dx * dx;
            }
            out[i] = std::exp(scale * r2);
        }
        out[centres_.rows()] = 1.0;
    }

private:
    Eigen::MatrixXd centres_;
    double width_;
};

/// Tile coding of the box [low, high]^d: `tilings` grids of `tiles` cells per axis, tiling t
/// shifted by t / tilings of a cell; ψ(x) has one 1 per tiling (the cell holding x, clamped
/// to the box's edge cells) and zeros elsewhere: F = tilings · tiles^d (config_error above 2^40).
class ObservationTiles {
public:
    ObservationTiles(std::size_t d, double low, double high, std::size_t tiles, std::size_t tilings)
        : d_(d), low_(low), high_(high), tiles_(tiles), tilings_(tilings) {
        if (d == 0 || tiles == 0 || tilings == 0)
            throw config_error(detail::message("ObservationTiles: dimension ", d, ", ", tiles, " tiles, ", tilings,
                                               " tilings; each must be >= 1"));
        if (!(low < high) || !std::isfinite(low) || !std::isfinite(high))
            throw config_error(detail::message("ObservationTiles: the box [", low, ", ", high,
                                               "] must be finite with low < high"));
        // F = tilings · tiles^d, each product checked before it is taken (a wrapped F would
        // size ψ below the indices operator() writes).
        constexpr std::size_t max_features = std::size_t{1} << 40;
        per_tiling_ = 1;
        for (std::size_t j = 0; j < d; ++j) {
            if (per_tiling_ > max_features / tiles)
                throw config_error(detail::message("ObservationTiles: ", tiles, "^", d,
                                                   " tiles per tiling are too many (more than 2^40 features)"));
            per_tiling_ *= tiles;
        }
        if (tilings > max_features / per_tiling_)
            throw config_error(detail::message("ObservationTiles: ", tilings, " tilings of ", tiles, "^", d, " = ",
                                               per_tiling_, " tiles are too many (more than 2^40 features)"));
    }
    [[nodiscard]] std::size_t dimension() const noexcept { return tilings_ * per_tiling_; }
    void operator()(std::span<const double> x, Eigen::VectorXd& out) const {
        if (x.size() != d_)
            throw config_error(detail::message("ObservationTiles: the observation has ", x.size(),
                                               " coordinates, the map expects ", d_));
        out.setZero();
        const double cell = (high_ - low_) / static_cast<double>(tiles_);
        for (std::size_t t = 0; t < tilings_; ++t) {
            const double shift = cell * static_cast<double>(t) / static_cast<double>(tilings_);
            std::size_t index = 0;
            for (std::size_t j = 0; j < d_; ++j) {
                const double u = (x[j] - low_ + shift) / cell;
                std::size_t c = 0;
                if (u > 0.0) c = std::min(static_cast<std::size_t>(u), tiles_ - 1);  // u NaN: not > 0, cell 0
                index = index * tiles_ + c;
            }
            out[static_cast<Eigen::Index>(t * per_tiling_ + index)] = 1.0;
        }
    }

private:
    std::size_t d_;
    double low_, high_;
    std::size_t tiles_, tilings_;
    std::size_t per_tiling_ = 1;
};

/// softmax(θᵀ ψ(o)) over the observation's point form; see the header.
template <ObservationFeatureMap Psi>
class ObservationFeaturePolicy : public ParameterTable {
public:
    static constexpr bool needs_belief = false;

    /// θ = 0 (the uniform policy), F x A with F = psi.dimension().
    ObservationFeaturePolicy(Psi psi, std::size_t num_actions)
        : ParameterTable(name, ParameterRows::observation_features, psi.dimension(), num_actions),
          psi_(std::move(psi)),
          features_(theta_.rows()),
          logits_(theta_.cols()),
          probs_(theta_.cols()) {}

    [[nodiscard]] std::size_t num_features() const noexcept { return num_rows(); }
    [[nodiscard]] const Psi& feature_map() const noexcept { return psi_; }

    void probabilities(const AgentView& v, Eigen::VectorXd& out) const {
        compute(v);
        out = probs_;
    }

    template <std::uniform_random_bit_generator G>
    std::size_t sample(const AgentView& v, G& g, Eigen::MatrixXd& score) {
        check_buffer(score);
        compute(v);
        const std::size_t a = sample_categorical(probs_, g);
        add_score(a, score);
        return a;
    }

    void log_gradient(const AgentView& v, std::size_t a, Eigen::MatrixXd& grad) const {
        check_action(a);
        check_buffer(grad);
        compute(v);
        add_score(a, grad);
    }

private:
    static constexpr const char* name = "ObservationFeaturePolicy";

    /// features_ <- ψ(o), logits_ <- θᵀ ψ(o), probs_ <- softmax (scratch: no allocation).
    void compute(const AgentView& v) const {
        if (v.observation_point.empty())
            throw config_error("ObservationFeaturePolicy: the view carries no observation point (the world's "
                               "observations are indices, or of a type that is not a point)");
        const Eigen::Index F = theta_.rows();
        psi_(v.observation_point, features_);
        if (features_.size() != F)
            throw config_error(detail::message("ObservationFeaturePolicy: the feature map wrote ", features_.size(),
                                               " features; its dimension() and the parameters say ", F));
        for (Eigen::Index j = 0; j < F; ++j)
            if (!std::isfinite(features_[j]))
                throw numeric_error(detail::message("ObservationFeaturePolicy: feature ", j, " of the observation is ",
                                                    features_[j]));
        for (Eigen::Index a = 0; a < theta_.cols(); ++a) logits_[a] = theta_.col(a).dot(features_);
        softmax_into(logits_, probs_);
    }

    void add_score(std::size_t a, Eigen::MatrixXd& score) const {
        const auto ai = static_cast<Eigen::Index>(a);
        for (Eigen::Index c = 0; c < theta_.cols(); ++c)
            score.col(c) += ((c == ai ? 1.0 : 0.0) - probs_[c]) * features_;
    }

    Psi psi_;
    mutable Eigen::VectorXd features_, logits_, probs_;
};

}  // namespace maxent
