// python/src/features.hpp — ObservationFeaturePolicy over a simulator's vector observations:
// the feature maps it is offered with in one box (PyFeatureMap: the library's Raw, RBF and tile
// features, or a Python callable), the bound policy (PyFeaturePolicy), and the policies a
// simulator trains and evaluates with (SimPolicy, with_policy), which sim_train.cpp and
// sim_evaluate.cpp share. Bound in features.cpp.
#pragma once

#include <variant>

#include "common.hpp"
#include "maxent/policy/observation_features.hpp"
#include "sim_worlds.hpp"

namespace maxent::python {

/// ψ of ObservationFeaturePolicy written in Python: fn(o) -> a float array of shape (F,), o the
/// observation as a read-only float64 array (called once per step, with the GIL held).
struct PyUserFeatures {
    py::object fn;
    std::size_t F = 0;
};

/// The feature maps ObservationFeaturePolicy is offered with, in one box (one instantiation):
/// the library's three and a Python callable.
class PyFeatureMap {
public:
    using Variant = std::variant<RawObservationFeatures, RbfObservationFeatures, ObservationTiles, PyUserFeatures>;
    explicit PyFeatureMap(Variant f) : f_(std::move(f)) {}

    [[nodiscard]] std::size_t dimension() const {
        return std::visit(
            [](const auto& f) -> std::size_t {
                if constexpr (std::is_same_v<std::decay_t<decltype(f)>, PyUserFeatures>) return f.F;
                else return f.dimension();
            },
            f_);
    }
    void operator()(std::span<const double> x, Eigen::VectorXd& out) const {
        std::visit(
            [&](const auto& f) {
                if constexpr (std::is_same_v<std::decay_t<decltype(f)>, PyUserFeatures>) {
                    py::array_t<double> a(static_cast<py::ssize_t>(x.size()));
                    std::copy(x.begin(), x.end(), a.mutable_data());
                    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
                    out.resize(static_cast<Eigen::Index>(f.F));
                    read_vector(f.fn(a), f.F, out.data(), [] { return std::string("the observation feature map ψ(o)"); },
                                "dimension");
                } else {
                    f(x, out);
                }
            },
            f_);
    }
    [[nodiscard]] const char* kind() const {
        static constexpr const char* names[] = {"RawObservationFeatures", "RbfObservationFeatures", "ObservationTiles",
                                                "a Python callable"};
        return names[f_.index()];
    }

private:
    Variant f_;
};
using FeaturePolicy = ObservationFeaturePolicy<PyFeatureMap>;

/// maxent.ObservationFeaturePolicy: softmax(θᵀ ψ(o)) over a vector world's observations.
struct PyFeaturePolicy {
    FeaturePolicy p;
};

/// The policies a Python simulator trains and evaluates with: the bound classes, or the
/// observation-feature policy (vector worlds only).
using SimPolicy = std::variant<const PyPolicy*, const PyFeaturePolicy*>;
SimPolicy sim_policy(const py::handle& policy);

/// Calls fn(policy) with the library policy a run on world W uses, refusing the classes W is
/// not offered with (config_error naming them; `who` first).
template <class W, class Fn>
auto with_policy(const SimPolicy& sp, const char* who, Fn&& fn) {
    using R = decltype(fn(std::declval<const BeliefAveragedPolicy&>()));
    if (const auto* const* f = std::get_if<const PyFeaturePolicy*>(&sp)) {
        if constexpr (std::is_same_v<W, PyVecWorld>)
            return fn((*f)->p);
        else
            throw config_error(detail::message(who, ": ObservationFeaturePolicy reads observations as vectors; this "
                                               "world observes indices (declare observation_dim = d for vectors)"));
    } else {
        const PyPolicy& pp = *std::get<const PyPolicy*>(sp);
        return std::visit(
            [&](const auto& p) -> R {
                using P = std::decay_t<decltype(p)>;
                if constexpr (std::is_same_v<P, TabularBeliefPolicy>) {
                    throw config_error(detail::message(who, ": TabularBeliefPolicy is not offered with a particle "
                                                       "filter (see train)"));
                } else if constexpr (std::is_same_v<W, PyVecWorld> && !std::is_same_v<P, BeliefAveragedPolicy>) {
                    throw config_error(detail::message(
                        who, ": a world with vector observations (observation_dim) trains with BeliefAveragedPolicy "
                             "(over the filter's bins) or ObservationFeaturePolicy (over the observation vector), not ",
                        pp.class_name()));
                } else {
                    return fn(p);
                }
            },
            pp.p);
    }
}

}  // namespace maxent::python
