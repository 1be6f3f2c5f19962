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
    if (n == 0) return;
    double m = logits[0];
    bool finite = true;
    for (Eigen::Index i = 0; i < n; ++i) {
        const double x = logits[i];
        finite = finite && (x - x == 0.0);  // false for ±inf and NaN
        m = x > m ? x : m;
    }
    if (!finite) {
        for (Eigen::Index i = 0; i < n; ++i)
            if (!std::isfinite(logits[i]))
                throw config_error(detail::message("softmax: logit ", i, " is ", logits[i],
                                                   " (policy parameters are no longer finite)"));
    }
    double z = 0.0;
    for (Eigen::Index i = 0; i < n; ++i) {
        out[i] = std::exp(logits[i] - m);
        z += out[i];
    }
    out *= 1.0 / z;  // z >= 1: the maximum contributes exp(0)
}

}  // namespace maxent
