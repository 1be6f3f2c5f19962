// maxent/model/wrappers.hpp — a simulator with what the optimiser needs added: a binning of
// its true states, with_state_binning (what MSE counts), or a map of them to points of R^d,
// with_state_points (kNN counting).
//
// Both refer to the wrapped model (which must outlive them) and forward every member it has
// (detail::ForwardedModel): its draws, and when it has them its observation type, continuous
// action type and action box, density, bins and points, so the wrapped world is still an ObservationLikelihood for a particle
// filter. The model is checked by a static_assert with the concepts' readable messages
// (model/concepts.hpp), not by a constraint, so a simulator missing a member gets the same
// message whichever entry point it meets first.
#pragma once

#include <cstddef>
#include <span>
#include <type_traits>
#include <utility>

#include "maxent/core/error.hpp"
#include "maxent/model/concepts.hpp"

namespace maxent {

// ---------------------------------------------------------------------------------------
// with_state_binning(model, bins, fn): a generative model counted through the user's
// partition of its states into `bins` bins, fn(state) -> std::size_t in [0, bins). The
// result satisfies GenerativePomdp and StateBinning; it refers to `model`, which must
// outlive it. Out-of-range bins are reported by the rollout (state_bin, model/draws.hpp).
// ---------------------------------------------------------------------------------------
namespace detail {
/// The observation_type a wrapper declares: the wrapped model's, when it declares one.
template <class M>
struct forwarded_observation_type {};
template <class M>
    requires concept_checks::declares_observation_type<M>
struct forwarded_observation_type<M> {
    using observation_type = typename M::observation_type;
};

/// The action_type a wrapper declares: the wrapped model's, when it declares a continuous one.
template <class M>
struct forwarded_action_type {};
template <class M>
    requires(!concept_checks::index_actions<M>)
struct forwarded_action_type<M> {
    using action_type = typename M::action_type;
};

/// What a wrapper of a generative model forwards unchanged: the model itself and, when the
/// model has them, its observation members (type, density, bins, points). `model` must
/// outlive the wrapper. M is checked by a static_assert (readable messages), not a
/// constraint: a constraint would fail before the message is shown.
template <class M>
class ForwardedModel : public forwarded_observation_type<M>, public forwarded_action_type<M> {
    static_assert(require_generative_pomdp<M>());

public:
    using state_type = typename M::state_type;
    using obs_t = typename concept_checks::observation_of<M>::type;
    /// An action as the model takes it: an index by value, a continuous action by reference.
    using act_t = std::conditional_t<concept_checks::index_actions<M>, std::size_t,
                                     const typename concept_checks::action_of<M>::type&>;

    explicit ForwardedModel(const M& model) : model_(&model) {}

    [[nodiscard]] std::size_t num_actions() const
        requires concept_checks::has_num_actions<M>
    {
        return model_->num_actions();
    }
    [[nodiscard]] ActionBox action_box() const
        requires concept_checks::has_action_box<M>
    {
        return model_->action_box();
    }
    [[nodiscard]] std::size_t num_observations() const
        requires concept_checks::has_num_observations<M>
    {
        return model_->num_observations();
    }
    [[nodiscard]] std::size_t horizon() const { return model_->horizon(); }
    template <class G>
    [[nodiscard]] state_type sample_initial_state(G& g) const {
        return model_->sample_initial_state(g);
    }
    template <class G>
    [[nodiscard]] obs_t sample_initial_observation(const state_type& s, G& g) const {
        return model_->sample_initial_observation(s, g);
    }
    template <class G>
    [[nodiscard]] state_type sample_next_state(const state_type& s, act_t a, G& g) const {
        return model_->sample_next_state(s, a, g);
    }
    template <class G>
    [[nodiscard]] obs_t sample_observation(act_t a, const state_type& s, G& g) const {
        return model_->sample_observation(a, s, g);
    }
    /// Forwarded when the model weighs observations (ObservationLikelihood), bins them or
    /// reads them or its states as points.
    [[nodiscard]] double observation_likelihood(act_t a, const obs_t& o, const state_type& s) const
        requires concept_checks::has_observation_likelihood<M>
    {
        return model_->observation_likelihood(a, o, s);
    }
    [[nodiscard]] double observation_log_likelihood(act_t a, const obs_t& o, const state_type& s) const
        requires concept_checks::has_observation_log_likelihood<M>
    {
        return model_->observation_log_likelihood(a, o, s);
    }
    [[nodiscard]] std::size_t observation_bin(const obs_t& o) const
        requires concept_checks::has_observation_bin<M>
    {
        return model_->observation_bin(o);
    }
    [[nodiscard]] std::size_t observation_point_dimension() const
        requires concept_checks::has_observation_point<M>
    {
        return model_->observation_point_dimension();
    }
    void observation_point(const obs_t& o, std::span<double> out) const
        requires concept_checks::has_observation_point<M>
    {
        model_->observation_point(o, out);
    }
    [[nodiscard]] const M& model() const noexcept { return *model_; }

protected:
    const M* model_;
};
}  // namespace detail

template <class M, class Binning>  // M: a GenerativePomdp (ForwardedModel's static_assert)
class BinnedModel : public detail::ForwardedModel<M> {
public:
    using state_type = typename M::state_type;

    BinnedModel(const M& model, std::size_t bins, Binning binning)
        : detail::ForwardedModel<M>(model), bins_(bins), binning_(std::move(binning)) {
        if (bins == 0) throw config_error("with_state_binning: the binning has 0 bins; it needs at least 1");
    }
    BinnedModel(const M&& model, std::size_t bins, Binning binning) = delete;

    [[nodiscard]] std::size_t state_point_dimension() const
        requires concept_checks::has_state_point<M>
    {
        return this->model_->state_point_dimension();
    }
    void state_point(const state_type& s, std::span<double> out) const
        requires concept_checks::has_state_point<M>
    {
        this->model_->state_point(s, out);
    }
    [[nodiscard]] std::size_t num_state_bins() const noexcept { return bins_; }
    [[nodiscard]] std::size_t state_bin(const state_type& s) const { return static_cast<std::size_t>(binning_(s)); }

private:
    std::size_t bins_;
    Binning binning_;
};

template <class M, class Binning>  // checked by the static_asserts below (readable messages)
[[nodiscard]] auto with_state_binning(const M& model, std::size_t bins, Binning binning) {
    static_assert(require_generative_pomdp<M>());
    static_assert(std::is_invocable_r_v<std::size_t, const Binning&, const typename M::state_type&>,
                  "maxent::with_state_binning: the binning must be callable as `std::size_t fn(const state_type&)`");
    return BinnedModel<M, Binning>(model, bins, std::move(binning));
}

// ---------------------------------------------------------------------------------------
// with_state_points(model, d, fn): a generative model whose true states are also read as
// points of R^d (kNN counting of true states, objective/knn_feedbacks.hpp) through the user's
// map fn(const state_type&, std::span<double> out), out of length d. Everything else is
// forwarded; `model` must outlive the result. d = 0 is a config_error.
// ---------------------------------------------------------------------------------------
template <class M, class Map>  // M: a GenerativePomdp (ForwardedModel's static_assert)
class PointedModel : public detail::ForwardedModel<M> {
public:
    using state_type = typename M::state_type;

    PointedModel(const M& model, std::size_t dimension, Map map)
        : detail::ForwardedModel<M>(model), dimension_(dimension), map_(std::move(map)) {
        if (dimension == 0) throw config_error("with_state_points: dimension 0; points need at least 1 coordinate");
    }
    PointedModel(const M&& model, std::size_t dimension, Map map) = delete;

    [[nodiscard]] std::size_t num_state_bins() const
        requires concept_checks::has_num_state_bins<M>
    {
        return this->model_->num_state_bins();
    }
    [[nodiscard]] std::size_t state_bin(const state_type& s) const
        requires concept_checks::has_state_bin<M>
    {
        return this->model_->state_bin(s);
    }
    [[nodiscard]] std::size_t state_point_dimension() const noexcept { return dimension_; }
    void state_point(const state_type& s, std::span<double> out) const { map_(s, out); }

private:
    std::size_t dimension_;
    Map map_;
};

template <class M, class Map>  // checked by the static_asserts below (readable messages)
[[nodiscard]] auto with_state_points(const M& model, std::size_t dimension, Map map) {
    static_assert(require_generative_pomdp<M>());
    static_assert(std::is_invocable_v<const Map&, const typename M::state_type&, std::span<double>>,
                  "maxent::with_state_points: the map must be callable as `void fn(const state_type&, "
                  "std::span<double> out)`");
    return PointedModel<M, Map>(model, dimension, std::move(map));
}

}  // namespace maxent
