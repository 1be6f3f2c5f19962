// maxent/policy/softmax.hpp — numerically stable softmax and sampling from it.
//
// The policies of the paper (Section 4, Appendix D) are softmax (Boltzmann) over linear
// logits. `softmax_into` subtracts the maximum before exponentiating, so logits of any
// finite magnitude give a finite distribution; non-finite logits are an error.
#pragma once

#include <cmath>
#include <cstddef>
#include <limits>

#include <Eigen/Core>

#include "maxent/core/error.hpp"

namespace maxent {

/// out <- softmax(logits). Throws config_error if a logit is not finite (e.g. parameters
/// that diverged to inf/NaN), naming the entry.
inline void softmax_into(const Eigen::Ref<const Eigen::VectorXd>& logits, Eigen::VectorXd& out) {
    const Eigen::Index n = logits.size();
    if (out.size() != n) out.resize(n);
    double m = -std::numeric_limits<double>::infinity();
    for (Eigen::Index i = 0; i < n; ++i) {
        const double x = logits[i];
        if (!std::isfinite(x))
            throw config_error(detail::message("softmax: logit ", i, " is ", x,
                                               " (policy parameters are no longer finite)"));
        if (x > m) m = x;
    }
    double z = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
        out[i] = std::exp(logits[i] - m);
        z += out[i];
    }
    out /= z;  // z >= 1 because the maximum contributes exp(0)
}

}  // namespace maxent
