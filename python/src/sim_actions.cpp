// python/src/sim_actions.cpp — binds continuous actions: ActionBox (the bounds of a world's
// actions) and GaussianPolicy (the runtime's AnyGaussianPolicy: the library's tanh-squashed
// Gaussian, policy/gaussian.hpp, mean linear in (1, φ(b), ψ(o)), ψ an ObservationFeatures or none).
// The worlds themselves are PyActWorld (sim_worlds.hpp); train and evaluate reach them through
// sim_train.cpp and sim_evaluate.cpp. Pickling, ==, save and load are in maxent/_extras.py.
#include <cmath>
#include <string>
#include <vector>

#include "features.hpp"

namespace maxent::python {

namespace {

/// A 1-d array of finite reals from Python (a sequence or an array of ints or floats), `d`
/// entries unless d is 0 (any length >= 1); config_error naming `who` and the value otherwise.
std::vector<double> real_vector(const py::handle& x, const std::string& who, std::size_t d = 0) {
    const auto refuse = [&](const std::string& why) {
        throw config_error(detail::message(who, " is ", std::string(py::repr(x)), ": ", why));
    };
    if (x.is_none() || py::isinstance<py::str>(x) || py::isinstance<py::bytes>(x)) refuse("not a sequence of numbers");
    const py::array a = py::module_::import("numpy").attr("asarray")(x);
    const char kind = a.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u') refuse("not a sequence of real numbers (ints or floats)");
    if (a.ndim() != 1 || a.shape(0) == 0 || (d != 0 && static_cast<std::size_t>(a.shape(0)) != d))
        refuse(d != 0 ? detail::message("expected ", d, " numbers (shape (", d, ",))")
                      : std::string("expected a 1-d sequence of >= 1 numbers"));
    const auto c = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
    if (!c) throw py::error_already_set();
    std::vector<double> out(c.data(), c.data() + c.shape(0));
    for (std::size_t j = 0; j < out.size(); ++j)
        if (!std::isfinite(out[j])) refuse(detail::message("entry ", j, " is ", out[j], ", not finite"));
    return out;
}

std::string box_text(const ActionBox& b) {
    std::string t;
    for (std::size_t j = 0; j < b.dimension(); ++j)
        t += detail::message(j ? ", " : "", "[", b.lower[j], ", ", b.upper[j], "]");
    return t;
}

/// The agent's information for inspecting a policy from Python: φ(b) (None: empty, for a policy
/// reading no belief features) and the observation (None: none, for a policy without ψ).
struct Inputs {
    Eigen::VectorXd belief;
    std::vector<double> observation;
    AgentView view() const {
        static constexpr double none = 0.0;  // a policy without ψ reads no observation: any point serves
        AgentView v{0, 0, belief};
        v.observation_point = observation.empty() ? std::span<const double>(&none, 1) : std::span<const double>(observation);
        return v;
    }
};

Inputs inputs(const programs::AnyGaussianPolicy& p, const py::object& belief, const py::object& observation,
              const char* who) {
    Inputs in;
    if (p.belief_features() > 0) {
        if (belief.is_none())
            throw config_error(detail::message("GaussianPolicy.", who, ": the policy reads ", p.belief_features(),
                                               " belief features φ(b); give belief= (the particle filter's belief)"));
        const std::vector<double> b =
            real_vector(belief, detail::message("GaussianPolicy.", who, ": belief"), p.belief_features());
        in.belief = Eigen::Map<const Eigen::VectorXd>(b.data(), static_cast<Eigen::Index>(b.size()));
    } else if (!belief.is_none()) {
        throw config_error(detail::message("GaussianPolicy.", who, ": the policy reads no belief features "
                                           "(belief_features = 0); belief must be None"));
    }
    if (p.feature_map().get() != nullptr) {
        if (observation.is_none())
            throw config_error(detail::message("GaussianPolicy.", who, ": the policy reads observation features ψ(o); "
                                               "give observation= (a float vector)"));
        in.observation = real_vector(observation, detail::message("GaussianPolicy.", who, ": observation"));
    } else if (!observation.is_none()) {
        throw config_error(detail::message("GaussianPolicy.", who, ": the policy reads no observation features "
                                           "(features = None); observation must be None"));
    }
    return in;
}

}  // namespace

void bind_sim_actions(py::module_& m) {
    py::class_<ActionBox>(m, "ActionBox",
        "The bounds of a continuous action: coordinate j lies in [lower[j], upper[j]] (finite, lower < upper).\n"
        "A world with continuous actions declares action_dim = d, action_low and action_high (d numbers each);\n"
        "ActionBox(world.action_low, world.action_high) is its box.")
        .def(py::init([](const py::object& lower, const py::object& upper) {
                 std::vector<double> lo = real_vector(lower, "ActionBox: lower");
                 std::vector<double> hi = real_vector(upper, "ActionBox: upper", lo.size());
                 ActionBox b(std::move(lo), std::move(hi));
                 b.check("ActionBox");
                 return b;
             }),
             py::arg("lower"), py::arg("upper"))
        .def_property_readonly("lower", [](const ActionBox& b) { return to_array(b.lower); }, "a copy")
        .def_property_readonly("upper", [](const ActionBox& b) { return to_array(b.upper); }, "a copy")
        .def_property_readonly("dimension", &ActionBox::dimension, "d, the number of coordinates")
        .def("__repr__", [](const ActionBox& b) { return detail::message("maxent.ActionBox(", box_text(b), ")"); });

    py::class_<PyGaussianPolicy>(m, "GaussianPolicy",
        "The policy of a world with continuous actions (action_dim = d): a Gaussian squashed into the box by tanh,\n"
        "a_j = c_j + h_j tanh(u_j), u_j ~ N(μ_j, σ_j²) (c, h: the box's centres and half-widths), with inputs\n"
        "x = (1, φ(b), ψ(o)): φ(b) the particle filter's belief (belief_features = its dimension, or 0 for none)\n"
        "and ψ(o) an ObservationFeatures of the observation vector (or None). θ = [W | S] (F x 2d, F = len(x)):\n"
        "μ_j = W_j·x; log σ_j = S[0, j] (state_dependent_std=False) or S_j·x. Initially W = 0 (the mean at the\n"
        "box's centre) and S[0, :] = initial_log_std. train() returns it trained as result.policy; evaluate()\n"
        "rolls it out, evaluate_uniform() the uniform policy of the box. Pickles, copies and saves (.npz) as\n"
        "ObservationFeaturePolicy does.")
        .def(py::init([](const ActionBox& box, std::size_t belief_features, const py::object& features,
                         double initial_log_std, bool state_dependent_std) {
                 std::size_t fo = 0;
                 programs::MaybeObservationFeatures psi;
                 if (!features.is_none()) {
                     if (!py::isinstance<PyFeatureMap>(features))
                         throw config_error(detail::message(
                             "GaussianPolicy: features ", std::string(py::repr(features)),
                             " is not an ObservationFeatures (RawObservationFeatures, RbfObservationFeatures, "
                             "ObservationTiles or UserObservationFeatures) nor None"));
                     fo = features.cast<const PyFeatureMap&>().dimension();
                     psi = programs::MaybeObservationFeatures(features.cast<PyFeatureMap>());
                 }
                 // θ is F x 2d doubles, and the score buffers as many again.
                 require_memory(detail::message("GaussianPolicy: belief_features = ", belief_features),
                                "its parameters",
                                32.0 * (1.0 + static_cast<double>(belief_features) + static_cast<double>(fo)) *
                                    static_cast<double>(box.dimension()));
                 const GaussianPolicyOptions o{.initial_log_std = initial_log_std,
                                               .state_dependent_std = state_dependent_std};
                 return PyGaussianPolicy{programs::AnyGaussianPolicy(box, belief_features, std::move(psi), o)};
             }),
             py::arg("box"), py::arg("belief_features") = 0, py::arg("features") = py::none(), py::kw_only(),
             py::arg("initial_log_std") = 0.0, py::arg("state_dependent_std") = false)
        .def_property(
            "parameters", [](const PyGaussianPolicy& p) -> Eigen::MatrixXd { return p.p.parameters(); },
            [](PyGaussianPolicy& p, const py::object& theta) {
                const Eigen::MatrixXd& t = p.p.parameters();
                p.p.parameters() = real_matrix(theta, "GaussianPolicy.parameters", t.rows(), t.cols());
            },
            "θ = [W | S] (num_features x 2 action_dim); set from a 2-d array of that shape with finite entries")
        .def_property_readonly("box", [](const PyGaussianPolicy& p) { return p.p.box(); })
        .def_property_readonly("action_dim", [](const PyGaussianPolicy& p) { return p.p.action_dimension(); })
        .def_property_readonly("belief_features", [](const PyGaussianPolicy& p) { return p.p.belief_features(); })
        .def_property_readonly("num_features", [](const PyGaussianPolicy& p) { return p.p.num_features(); },
                               "F = 1 + belief_features + the dimension of features")
        .def_property_readonly("features", [](const PyGaussianPolicy& p) -> py::object {
            const PyFeatureMap* f = p.p.feature_map().get();
            return f != nullptr ? py::cast(*f) : py::none();
        }, "the ObservationFeatures ψ, or None")
        .def_property_readonly("initial_log_std", [](const PyGaussianPolicy& p) { return p.p.options().initial_log_std; })
        .def_property_readonly("state_dependent_std",
                               [](const PyGaussianPolicy& p) { return p.p.options().state_dependent_std; })
        .def_property_readonly("class_name", [](const PyGaussianPolicy&) { return "GaussianPolicy"; })
        .def("mean_and_std",
             [](const PyGaussianPolicy& p, const py::object& belief, const py::object& observation) {
                 const Inputs in = inputs(p.p, belief, observation, "mean_and_std");
                 Eigen::VectorXd mean, std_dev;
                 p.p.mean_and_std(in.view(), mean, std_dev);
                 return py::make_tuple(mean, std_dev);
             },
             py::arg("belief") = py::none(), py::arg("observation") = py::none(),
             "(μ, σ) of the Gaussian before squashing, given φ(b) (belief) and/or the observation")
        .def("log_density",
             [](const PyGaussianPolicy& p, const py::object& action, const py::object& belief,
                const py::object& observation) {
                 const Inputs in = inputs(p.p, belief, observation, "log_density");
                 const std::vector<double> a = real_vector(action, "GaussianPolicy.log_density: action",
                                                           p.p.action_dimension());
                 return p.p.log_density(in.view(), a);
             },
             py::arg("action"), py::arg("belief") = py::none(), py::arg("observation") = py::none(),
             "log π(a | x), the density on the box (-inf on its boundary; ConfigError outside it)")
        .def("score",
             [](const PyGaussianPolicy& p, const py::object& action, const py::object& belief,
                const py::object& observation) {
                 const Inputs in = inputs(p.p, belief, observation, "score");
                 const std::vector<double> a = real_vector(action, "GaussianPolicy.score: action",
                                                           p.p.action_dimension());
                 Eigen::MatrixXd g = Eigen::MatrixXd::Zero(p.p.parameters().rows(), p.p.parameters().cols());
                 p.p.log_gradient(in.view(), a, g);
                 return g;
             },
             py::arg("action"), py::arg("belief") = py::none(), py::arg("observation") = py::none(),
             "∇_θ log π(a | x), θ's shape (the action inside the box's interior)")
        .def("sample",
             [](PyGaussianPolicy& p, PyRng& rng, const py::object& belief, const py::object& observation) {
                 const Inputs in = inputs(p.p, belief, observation, "sample");
                 Eigen::MatrixXd g = Eigen::MatrixXd::Zero(p.p.parameters().rows(), p.p.parameters().cols());
                 Eigen::VectorXd a(static_cast<Eigen::Index>(p.p.action_dimension()));
                 p.p.sample(in.view(), rng.get(), g, std::span<double>(a.data(), static_cast<std::size_t>(a.size())));
                 return py::make_tuple(a, g);
             },
             py::arg("rng"), py::arg("belief") = py::none(), py::arg("observation") = py::none(),
             "(a, ∇_θ log π(a | x)): an action drawn from rng (maxent.Rng) as a rollout draws it")
        .def("copy", [](const PyGaussianPolicy& p) { return p; })
        .def("__repr__", [](const PyGaussianPolicy& p) {
            const PyFeatureMap* f = p.p.feature_map().get();
            return detail::message("maxent.GaussianPolicy(box ", box_text(p.p.box()), ", belief_features=",
                                   p.p.belief_features(), ", features=", f != nullptr ? f->kind() : "None",
                                   ", θ: ", p.p.parameters().rows(), " x ", p.p.parameters().cols(), ")");
        });
}

}  // namespace maxent::python
