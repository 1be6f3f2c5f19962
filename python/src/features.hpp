// python/src/features.hpp — ObservationFeaturePolicy over a simulator's vector observations:
// the feature maps it is offered with in one box (PyFeatureMap, the runtime's: the library's Raw,
// RBF and tile features, or a Python callable), the bound policy (PyFeaturePolicy), the Gaussian
// policy of worlds with continuous actions (PyGaussianPolicy, bound in sim_actions.cpp), and the
// policies a simulator trains and evaluates with (SimPolicy, with_policy), which sim_train.cpp and
// sim_evaluate.cpp share. Bound in features.cpp.
#pragma once

#include <variant>

#include "common.hpp"
#include "maxent/policy/observation_features.hpp"
#include "sim_worlds.hpp"

namespace maxent::python {

/// The feature maps ObservationFeaturePolicy is offered with, in one box (one instantiation):
/// the library's three and a callable (the runtime's, runtime/algorithm.hpp, whose trainers the
/// runtime compiles).
using PyFeatureMap = programs::AnyObservationFeatures;
using FeaturePolicy = programs::FeaturePolicy;

/// ψ written in Python: fn(o) -> a float array of shape (F,), o the observation as a read-only
/// float64 array (called once per step, with the GIL held).
inline PyFeatureMap python_features(py::object fn, std::size_t F) {
    programs::CallableObservationFeatures f;
    f.F = F;
    f.name = "a Python callable";
    f.source = std::make_shared<const py::object>(fn);
    f.fn = [fn = std::move(fn), F](std::span<const double> x, Eigen::VectorXd& out) {
        py::array_t<double> a(static_cast<py::ssize_t>(x.size()));
        std::copy(x.begin(), x.end(), a.mutable_data());
        py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        out.resize(static_cast<Eigen::Index>(F));
        read_vector(fn(a), F, out.data(), [] { return std::string("the observation feature map ψ(o)"); }, "dimension");
    };
    return PyFeatureMap(std::move(f));
}

using FeatureArgs = programs::ObservationFeatureArgs;

/// The function of the module that builds `f` ("UserObservationFeatures" for a callable).
inline const char* feature_factory(const PyFeatureMap& f) {
    static constexpr const char* names[] = {"RawObservationFeatures", "RbfObservationFeatures", "ObservationTiles",
                                            "UserObservationFeatures"};
    return names[f.map().index()];
}

/// The keyword arguments of feature_factory(f) that build `f` again (the callable itself for a
/// Python one): what pickling and save write.
inline py::dict feature_arguments(const PyFeatureMap& f) {
    py::dict d;
    const FeatureArgs& a = f.arguments();
    switch (f.map().index()) {
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
        default: {
            const auto& c = std::get<programs::CallableObservationFeatures>(f.map());
            d["fn"] = c.source ? *static_cast<const py::object*>(c.source.get()) : py::none();
            d["dimension"] = c.F;
        }
    }
    return d;
}

/// maxent.ObservationFeaturePolicy: softmax(θᵀ ψ(o)) over a vector world's observations.
struct PyFeaturePolicy {
    FeaturePolicy p;
};

/// maxent.GaussianPolicy: the squashed Gaussian of worlds with continuous actions (the runtime's
/// AnyGaussianPolicy: mean linear in (1, φ(b), ψ(o)), ψ optional).
struct PyGaussianPolicy {
    programs::AnyGaussianPolicy p;
};

/// Binds ActionBox and GaussianPolicy (sim_actions.cpp); bind_features calls it last.
void bind_sim_actions(py::module_& m);

/// The policies a Python simulator trains and evaluates with: the bound classes, the
/// observation-feature policy (vector worlds only), or the Gaussian policy (worlds with
/// continuous actions only).
using SimPolicy = std::variant<const PyPolicy*, const PyFeaturePolicy*, const PyGaussianPolicy*>;
SimPolicy sim_policy(const py::handle& policy);

/// Throws config_error (`who` first) for a policy a simulator is not offered with: class B (with
/// a particle filter), ObservationFeaturePolicy on a world observing indices, a class other than
/// BeliefAveragedPolicy on a world observing vectors, a policy other than GaussianPolicy on a
/// world with continuous actions and GaussianPolicy on a world with index actions.
inline void refuse_sim_policy(const SimPolicy& sp, SimKind kind, const char* who) {
    if (std::holds_alternative<const PyGaussianPolicy*>(sp)) {
        if (kind != SimKind::continuous)
            throw config_error(detail::message(
                who, ": GaussianPolicy draws continuous actions; this world's actions are indices (num_actions): a "
                     "world with continuous actions declares action_dim = d, action_low and action_high"));
        return;
    }
    if (kind == SimKind::continuous) {
        const char* name = std::holds_alternative<const PyFeaturePolicy*>(sp)
                               ? "ObservationFeaturePolicy"
                               : std::get<const PyPolicy*>(sp)->class_name();
        throw config_error(detail::message(who, ": this world's actions are continuous (action_dim); it trains and is "
                                           "evaluated with GaussianPolicy, not ", name,
                                           ", whose actions are indices (evaluate_uniform gives the uniform policy "
                                           "of the box)"));
    }
    const bool vector_observations = kind == SimKind::vector;
    if (std::holds_alternative<const PyFeaturePolicy*>(sp)) {
        if (!vector_observations)
            throw config_error(detail::message(who, ": ObservationFeaturePolicy reads observations as vectors; this "
                                               "world observes indices (declare observation_dim = d for vectors)"));
        return;
    }
    const PyPolicy& pp = *std::get<const PyPolicy*>(sp);
    if (std::holds_alternative<TabularBeliefPolicy>(pp.p))
        throw config_error(detail::message(who, ": TabularBeliefPolicy is not offered with a particle filter (see train)"));
    if (vector_observations && !std::holds_alternative<BeliefAveragedPolicy>(pp.p))
        throw config_error(detail::message(
            who, ": a world with vector observations (observation_dim) trains with BeliefAveragedPolicy "
                 "(over the filter's bins) or ObservationFeaturePolicy (over the observation vector), not ",
            pp.class_name()));
}

/// Calls fn(policy) with the library policy an evaluation on world W uses, refusing the classes W
/// is not offered with (refuse_sim_policy).
template <class W, class Fn>
auto with_policy(const SimPolicy& sp, const char* who, Fn&& fn) {
    using R = decltype(fn(std::declval<const BeliefAveragedPolicy&>()));
    constexpr bool vec = std::is_same_v<W, PyVecWorld>;
    refuse_sim_policy(sp, vec ? SimKind::vector : SimKind::index, who);
    if (std::holds_alternative<const PyGaussianPolicy*>(sp)) {
        throw config_error(detail::message(who, ": not offered"));  // refused above
    } else if (const auto* const* f = std::get_if<const PyFeaturePolicy*>(&sp)) {
        if constexpr (vec) return fn((*f)->p);
    } else {
        return std::visit(
            [&](const auto& p) -> R {
                using P = std::decay_t<decltype(p)>;
                if constexpr (!std::is_same_v<P, TabularBeliefPolicy> && (!vec || std::is_same_v<P, BeliefAveragedPolicy>))
                    return fn(p);
                else
                    throw config_error(detail::message(who, ": not offered"));  // refused above
            },
            std::get<const PyPolicy*>(sp)->p);
    }
    throw config_error(detail::message(who, ": not offered"));  // refused above
}

/// The policy a simulator run trains, as the runtime's AnyPolicy (refuse_sim_policy first).
inline programs::AnyPolicy sim_run_policy(const SimPolicy& sp, SimKind kind, const char* who) {
    refuse_sim_policy(sp, kind, who);
    if (const auto* const* f = std::get_if<const PyFeaturePolicy*>(&sp)) return (*f)->p;
    if (const auto* const* q = std::get_if<const PyGaussianPolicy*>(&sp)) return (*q)->p;
    return std::visit([](const auto& p) -> programs::AnyPolicy { return p; }, std::get<const PyPolicy*>(sp)->p);
}

}  // namespace maxent::python
