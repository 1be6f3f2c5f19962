// maxent/model/generative_view.hpp — an explicit finite model seen as a simulator:
// as_generative(model).
//
// What it is for: running the machinery written for simulators (a particle filter,
// belief/particle_filter.hpp) on a finite model whose exact answer is known (BayesFilter),
// so the approximation can be measured against the exact filter. The view's states are the
// model's indices (std::size_t); its draws are the categorical draws of the model's rows
// (model/concepts.hpp); its observation_likelihood(a, o, s) is Obs(o | s, a), read from the
// row observation(a, s); its state binning is the identity (S bins), so MSE counts what it
// counts on the model itself.
//
// The view satisfies GenerativePomdp, ObservationLikelihood and StateBinning, and on purpose
// not ExplicitPomdp (it would otherwise be sampled as the explicit model). It refers to
// the model, which must outlive it.
#pragma once

#include <cstddef>

#include "maxent/core/distribution.hpp"
#include "maxent/model/concepts.hpp"

namespace maxent {

template <class M>  // checked by static_assert(require_pomdp<M>()) inside (readable messages)
class GenerativeView {
    static_assert(require_pomdp<M>());

public:
    using state_type = std::size_t;

    explicit GenerativeView(const M& model) : model_(&model) {}
    explicit GenerativeView(const M&& model) = delete;

    [[nodiscard]] std::size_t num_actions() const { return model_->num_actions(); }
    [[nodiscard]] std::size_t num_observations() const { return model_->num_observations(); }
    [[nodiscard]] std::size_t horizon() const { return model_->horizon(); }
    template <class G>
    [[nodiscard]] std::size_t sample_initial_state(G& g) const {
        return sample_categorical(model_->initial_distribution(), g);
    }
    template <class G>
    [[nodiscard]] std::size_t sample_initial_observation(std::size_t s, G& g) const {
        return sample_categorical(model_->initial_observation(s), g);
    }
    template <class G>
    [[nodiscard]] std::size_t sample_next_state(std::size_t s, std::size_t a, G& g) const {
        return sample_categorical(model_->transition(s, a), g);
    }
    template <class G>
    [[nodiscard]] std::size_t sample_observation(std::size_t a, std::size_t s, G& g) const {
        return sample_categorical(model_->observation(a, s), g);
    }
    /// Obs(o | s, a): the entry o of the row observation(a, s) (0 when absent).
    [[nodiscard]] double observation_likelihood(std::size_t a, std::size_t o, std::size_t s) const {
        return model_->observation(a, s)(o);
    }
    [[nodiscard]] std::size_t num_state_bins() const { return model_->num_states(); }
    [[nodiscard]] std::size_t state_bin(std::size_t s) const { return s; }
    [[nodiscard]] const M& model() const noexcept { return *model_; }

private:
    const M* model_;
};

/// The simulator view of an explicit model (which must outlive it).
template <class M>  // checked by static_assert(require_pomdp<M>()) in GenerativeView
[[nodiscard]] GenerativeView<M> as_generative(const M& model) {
    return GenerativeView<M>(model);
}
template <class M>
void as_generative(const M&& model) = delete;

}  // namespace maxent
