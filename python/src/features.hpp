// python/src/features.hpp — ObservationFeaturePolicy over a simulator's vector observations:
// the feature maps it is offered with in one box (PyFeatureMap: the library's Raw, RBF and tile
// features, or a Python callable), the bound policy (PyFeaturePolicy), and the policies a
// simulator trains and evaluates with (SimPolicy, with_policy), which sim_train.cpp and
// sim_evaluate.cpp share. Bound in features.cpp.
#pragma once

#include <memory>
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

/// The arguments a feature map was built from (the library's maps keep theirs private): what
/// ObservationFeatures.arguments gives back, so pickling and Policy.save rebuild the same map.
struct FeatureArgs {
    std::size_t observation_dim = 0;  ///< RawObservationFeatures, ObservationTiles
    Eigen::MatrixXd centres;          ///< RbfObservationFeatures
    double width = 0.0;               ///< RbfObservationFeatures
    double low = 0.0, high = 0.0;     ///< ObservationTiles
    std::size_t tiles = 0, tilings = 0;
};

/// The feature maps ObservationFeaturePolicy is offered with, in one box (one instantiation):
/// the library's three and a Python callable, with the arguments each was built from.
class PyFeatureMap {
public:
    using Variant = std::variant<RawObservationFeatures, RbfObservationFeatures, ObservationTiles, PyUserFeatures>;
    explicit PyFeatureMap(Variant f, FeatureArgs args = {})
        : f_(std::move(f)), args_(std::make_shared<const FeatureArgs>(std::move(args))) {}

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
    /// The function of the module that builds this map ("UserObservationFeatures" for a callable).
    [[nodiscard]] const char* factory() const {
        static constexpr const char* names[] = {"RawObservationFeatures", "RbfObservationFeatures", "ObservationTiles",
                                                "UserObservationFeatures"};
        return names[f_.index()];
    }
    /// The keyword arguments of factory() that build this map again (the callable itself for a Python one).
    [[nodiscard]] py::dict arguments() const {
        py::dict d;
        const FeatureArgs& a = *args_;
        switch (f_.index()) {
            case 0: d["observation_dim"] = a.observation_dim; break;
            case 1:
                d["centres"] = a.centres;
                d["width"] = a.width;
                break;
            case 2:
                d["observation_dim"] = a.observation_dim;
                d["low"] = a.low;
                d["high"] = a.high;
                d["tiles"] = a.tiles;
                d["tilings"] = a.tilings;
                break;
            default:
                d["fn"] = std::get<PyUserFeatures>(f_).fn;
                d["dimension"] = std::get<PyUserFeatures>(f_).F;
        }
        return d;
    }

private:
    Variant f_;
    std::shared_ptr<const FeatureArgs> args_;
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
