// maxent/model/draws.hpp — the one set of free functions through which the library samples
// and counts any world (model/concepts.hpp's Environment).
//
// draw_initial_state, draw_initial_observation, draw_next_state and draw_observation are the
// rollout's only access to a world's dynamics (paper, Section 2.1: s_1 ~ μ, o_1, s_{t+1} ~
// P(· | s_t, a_t), o_{t+1} ~ Obs(· | s_{t+1}, a_t)): categorical draws from the sparse rows
// of an explicit model, the model's own members (their results checked) for a simulator.
// state_bins and state_bin say where a true state is counted (MSE): the index itself for
// explicit models, the world's StateBinning otherwise; observation_count, observation_bin and
// the observation points are what MOE and kNN counting read. Actions are world_action_t<M>:
// indices, or a simulator's continuous action_type (model/concepts.hpp), passed as
// action_arg_t<M>; action_box(m) is the bounds of the latter.
#pragma once

#include <cstddef>
#include <span>

#include "maxent/core/distribution.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/point.hpp"
#include "maxent/model/concepts.hpp"

namespace maxent {

namespace detail {
[[noreturn]] inline void throw_observation_out_of_range(const char* where, std::size_t o, std::size_t count,
                                                        std::size_t a, bool has_action) {
    if (has_action)
        throw model_error(message("generative model: ", where, " returned observation ", o, " after action ", a,
                                  "; observations must be < num_observations() = ", count));
    throw model_error(message("generative model: ", where, " returned observation ", o,
                              "; observations must be < num_observations() = ", count));
}
}  // namespace detail

/// s_1 ~ μ.
template <class M, class G>
[[nodiscard]] world_state_t<M> draw_initial_state(const M& m, G& g) {
    if constexpr (ExplicitPomdp<M>)
        return sample_categorical(m.initial_distribution(), g);
    else
        return m.sample_initial_state(g);
}

/// o_1 given s_1.
template <class M, class G>
[[nodiscard]] world_observation_t<M> draw_initial_observation(const M& m, const world_state_t<M>& s, G& g) {
    if constexpr (ExplicitPomdp<M>) {
        return sample_categorical(m.initial_observation(s), g);
    } else if constexpr (!indexed_observations<M>) {
        return m.sample_initial_observation(s, g);
    } else {
        const std::size_t o = m.sample_initial_observation(s, g);
        if (o >= m.num_observations())
            detail::throw_observation_out_of_range("sample_initial_observation", o, m.num_observations(), 0, false);
        return o;
    }
}

/// s' ~ P(· | s, a); a is an index, or the world's continuous action_type (action_arg_t).
template <class M, class G>
[[nodiscard]] world_state_t<M> draw_next_state(const M& m, const world_state_t<M>& s, action_arg_t<M> a, G& g) {
    if constexpr (ExplicitPomdp<M>)
        return sample_categorical(m.transition(s, a), g);
    else
        return m.sample_next_state(s, a, g);
}

/// o ~ Obs(· | s', a), the observation emitted on arriving in s' after action a.
template <class M, class G>
[[nodiscard]] world_observation_t<M> draw_observation(const M& m, action_arg_t<M> a, const world_state_t<M>& s_next,
                                                      G& g) {
    if constexpr (ExplicitPomdp<M>) {
        return sample_categorical(m.observation(a, s_next), g);
    } else if constexpr (!indexed_observations<M>) {
        return m.sample_observation(a, s_next, g);
    } else {
        const std::size_t o = m.sample_observation(a, s_next, g);
        if (o >= m.num_observations()) {
            if constexpr (continuous_actions<M>)
                throw model_error(detail::message("generative model: sample_observation returned observation ", o,
                                                  " after action ", detail::value_text(a),
                                                  "; observations must be < num_observations() = ",
                                                  m.num_observations()));
            else
                detail::throw_observation_out_of_range("sample_observation", o, m.num_observations(), a, true);
        }
        return o;
    }
}

/// The bounds of a continuous-action world's actions, checked (config_error naming the
/// offending coordinate).
template <class M>
    requires continuous_actions<M>
[[nodiscard]] ActionBox action_box(const M& m) {
    ActionBox box = m.action_box();
    box.check("the world's action_box()");
    if constexpr (action_static_dimension<world_action_t<M>> != 0) {
        if (box.dimension() != action_static_dimension<world_action_t<M>>)
            throw model_error(detail::message("the world's action_box() has dimension ", box.dimension(),
                                              " but its action_type has ",
                                              action_static_dimension<world_action_t<M>>, " coordinates"));
    }
    return box;
}

/// How many bins true states are counted in: S for explicit models.
template <class M>
[[nodiscard]] std::size_t state_bins(const M& m) {
    if constexpr (ExplicitPomdp<M>)
        return m.num_states();
    else
        return m.num_state_bins();
}

/// The bin a true state is counted in: the index itself for explicit models; for generative
/// ones the model's state_bin, checked (model_error naming the bin and the count).
template <class M>
[[nodiscard]] std::size_t state_bin(const M& m, const world_state_t<M>& s) {
    if constexpr (ExplicitPomdp<M>) {
        return s;
    } else {
        const std::size_t bin = m.state_bin(s);
        const std::size_t bins = m.num_state_bins();
        if (bin >= bins)
            throw model_error(detail::message("state binning: state_bin returned bin ", bin,
                                              " for a true state; bins must be < num_state_bins() = ", bins));
        return bin;
    }
}

// ---------------------------------------------------------------------------------------
// Observations as bins and as points (what MOE and kNN counting read).
//   observation_count(m)       O: the world's observation indices, or the bins of a typed
//                              world's observation_bin(o) (0 when it has none)
//   observation_bin(m, o)      the index itself, or m.observation_bin(o), checked < O
//   observation_point_dimension(m, o), write_observation_point(m, o, out): for worlds with
//                              has_observation_points<M> (model/concepts.hpp)
// ---------------------------------------------------------------------------------------
template <class M>
[[nodiscard]] std::size_t observation_count(const M& m) {
    if constexpr (indexed_observations<M> || concept_checks::has_observation_bin<M>)
        return m.num_observations();
    else
        return 0;
}

template <class M>
[[nodiscard]] std::size_t observation_bin(const M& m, const world_observation_t<M>& o) {
    if constexpr (indexed_observations<M>) {
        return o;
    } else if constexpr (concept_checks::has_observation_bin<M>) {
        const std::size_t bin = m.observation_bin(o);
        const std::size_t bins = m.num_observations();
        if (bin >= bins)
            throw model_error(detail::message("observation binning: observation_bin returned bin ", bin,
                                              "; bins must be < num_observations() = ", bins));
        return bin;
    } else {
        return 0;
    }
}

template <class M>
    requires has_observation_points<M>
[[nodiscard]] std::size_t observation_point_dimension(const M& m, const world_observation_t<M>& o) {
    if constexpr (concept_checks::has_observation_point<M>)
        return m.observation_point_dimension();
    else
        return point_dimension(o);
}

template <class M>
    requires has_observation_points<M>
void write_observation_point(const M& m, const world_observation_t<M>& o, std::span<double> out) {
    if constexpr (concept_checks::has_observation_point<M>)
        m.observation_point(o, out);
    else
        write_point(o, out);
}

}  // namespace maxent
