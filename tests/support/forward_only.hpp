// tests/support/forward_only.hpp — a model seen through the TabularPomdp members only.
//
// ForwardOnly<M> forwards sizes, labels, μ, the sparse rows and the likelihood columns of a
// model and nothing else: no transition matrices and no transposes, so BayesFilter predicts
// by its forward scatter of the believed states' transition rows instead of gathering over
// the transposed matrix. Tests compare the two paths, which must give the same bits.
#pragma once

#include <cstddef>

#include <Eigen/Core>

#include "maxent/core/distribution.hpp"

namespace test_models {

template <class M>
class ForwardOnly {
public:
    using state_type = typename M::state_type;
    using action_type = typename M::action_type;
    using observation_type = typename M::observation_type;
    explicit ForwardOnly(const M& m) : m_(&m) {}
    std::size_t num_states() const { return m_->num_states(); }
    std::size_t num_actions() const { return m_->num_actions(); }
    std::size_t num_observations() const { return m_->num_observations(); }
    std::size_t horizon() const { return m_->horizon(); }
    const state_type& state_label(std::size_t i) const { return m_->state_label(i); }
    const action_type& action_label(std::size_t i) const { return m_->action_label(i); }
    const observation_type& observation_label(std::size_t i) const { return m_->observation_label(i); }
    std::size_t state_index(const state_type& x) const { return m_->state_index(x); }
    std::size_t action_index(const action_type& x) const { return m_->action_index(x); }
    std::size_t observation_index(const observation_type& x) const { return m_->observation_index(x); }
    const Eigen::VectorXd& initial_distribution() const { return m_->initial_distribution(); }
    maxent::SparseDistribution transition(std::size_t s, std::size_t a) const { return m_->transition(s, a); }
    maxent::SparseDistribution observation(std::size_t a, std::size_t s) const { return m_->observation(a, s); }
    maxent::SparseDistribution initial_observation(std::size_t s) const { return m_->initial_observation(s); }
    maxent::SparseDistribution likelihood(std::size_t a, std::size_t o) const { return m_->likelihood(a, o); }

private:
    const M* m_;
};

}  // namespace test_models
