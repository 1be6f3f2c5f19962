// python/src/features.cpp — binds the feature maps of vector observations (ObservationFeatures:
// RawObservationFeatures, RbfObservationFeatures, ObservationTiles, UserObservationFeatures) and
// ObservationFeaturePolicy (features.hpp).
#include <cmath>

#include "features.hpp"

namespace maxent::python {

SimPolicy sim_policy(const py::handle& policy) {
    if (py::isinstance<PyFeaturePolicy>(policy)) return &policy.cast<const PyFeaturePolicy&>();
    if (py::isinstance<PyGaussianPolicy>(policy)) return &policy.cast<const PyGaussianPolicy&>();
    if (py::isinstance<PyPolicy>(policy)) return &policy.cast<const PyPolicy&>();
    throw config_error(detail::message("not a policy: ", std::string(py::repr(policy))));
}

void bind_features(py::module_& m) {
    py::class_<PyFeatureMap>(m, "ObservationFeatures",
        "A feature map ψ of a vector observation, for ObservationFeaturePolicy: RawObservationFeatures,\n"
        "RbfObservationFeatures, ObservationTiles or UserObservationFeatures (a Python callable).")
        .def_property_readonly("dimension", &PyFeatureMap::dimension, "F, the number of features")
        .def_property_readonly("factory", [](const PyFeatureMap& f) { return feature_factory(f); },
                               "the function of maxent that built it: RawObservationFeatures, RbfObservationFeatures,\n"
                               "ObservationTiles or UserObservationFeatures")
        .def_property_readonly("arguments", [](const PyFeatureMap& f) { return feature_arguments(f); },
                               "the keyword arguments of `factory` that build it again (copies; `fn` itself for a\n"
                               "Python callable): what pickling and save write")
        .def("__call__", [](const PyFeatureMap& f, const py::object& o) {
            // o as the policy would see it: a float vector (its length is the map's to check)
            const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(o);
            if (!a || a.ndim() != 1) throw config_error(detail::message("ObservationFeatures: ", std::string(py::repr(o)),
                                                                         " is not a 1-D float array"));
            Eigen::VectorXd out(static_cast<Eigen::Index>(f.dimension()));
            f(std::span<const double>(a.data(), static_cast<std::size_t>(a.shape(0))), out);
            return out;
        }, py::arg("observation"), "ψ(o)")
        .def("__repr__", [](const PyFeatureMap& f) {
            return detail::message("maxent.ObservationFeatures(", f.kind(), ", dimension=", f.dimension(), ")");
        });
    // ψ(o) is F doubles, made at every step.
    auto feature_memory = [](const char* who, std::size_t F) {
        require_memory(detail::message(who, F), "each feature vector", 8.0 * (static_cast<double>(F) + 1.0));
    };
    m.def("RawObservationFeatures", [feature_memory](std::size_t d) {
              feature_memory("RawObservationFeatures: observation_dim = ", d);
              FeatureArgs args;
              args.observation_dim = d;
              return PyFeatureMap(RawObservationFeatures(d), std::move(args));
          },
          py::arg("observation_dim"), "ψ(o) = (o_1, .., o_d, 1): the raw vector and a bias.");
    m.def("RbfObservationFeatures",
          [](const py::object& centres, double width) {
              // Exactly 2-d: a 1-d array is refused, not read as m centres of one coordinate.
              Eigen::MatrixXd c = real_matrix(centres, "RbfObservationFeatures: centres");
              RbfObservationFeatures rbf(c, width);  // checks c and width, naming them
              FeatureArgs args;
              args.centres = std::move(c);
              args.width = width;
              return PyFeatureMap(std::move(rbf), std::move(args));
          },
          py::arg("centres"), py::arg("width"),
          "ψ(o) = (exp(-|o - c_i|² / (2 width²)) for each row c_i of centres (a 2-d array, m x d: reshape(-1, 1)\n"
          "for m centres of one coordinate, reshape(1, -1) for one centre), 1).");
    m.def("ObservationTiles",
          [](std::size_t d, double low, double high, std::size_t tiles, std::size_t tilings) {
              // F = tilings x tiles^d features: each ψ(o) is F doubles (and θ F x A of them).
              require_memory(detail::message("ObservationTiles: observation_dim = ", d, ", tiles = ", tiles,
                                             ", tilings = ", tilings),
                             "its feature vector (tilings x tiles^observation_dim doubles)",
                             8.0 * static_cast<double>(tilings) *
                                 std::pow(static_cast<double>(tiles), static_cast<double>(d)));
              FeatureArgs args;
              args.observation_dim = d;
              args.low = low;
              args.high = high;
              args.tiles = tiles;
              args.tilings = tilings;
              return PyFeatureMap(ObservationTiles(d, low, high, tiles, tilings), std::move(args));
          },
          py::arg("observation_dim"), py::arg("low"), py::arg("high"), py::arg("tiles"), py::arg("tilings") = 1,
          "Tile coding of [low, high]^d: `tilings` offset grids of `tiles` cells per axis, one 1 per tiling.");
    m.def("UserObservationFeatures",
          [feature_memory](py::function fn, std::size_t dimension) {
              if (dimension == 0) throw config_error("UserObservationFeatures: dimension 0; ψ needs >= 1 feature");
              feature_memory("UserObservationFeatures: dimension = ", dimension);
              return python_features(std::move(fn), dimension);
          },
          py::arg("fn"), py::arg("dimension"),
          "ψ written in Python: fn(o) -> a float array of shape (dimension,), o a read-only float64 array.");

    py::class_<PyFeaturePolicy>(m, "ObservationFeaturePolicy",
        "softmax(θᵀ ψ(o)) over a vector observation o (worlds that declare observation_dim), θ: F x A, zero at\n"
        "the start. features: an ObservationFeatures, or a Python callable o -> float array with `dimension`\n"
        "given. train() returns it trained as result.policy (θ: result.parameters). Pickles, copies and saves\n"
        "(save / maxent.save_policy, .npz) with its feature map's arguments, except a map written in Python.")
        .def(py::init([](const py::object& features, std::size_t num_actions, std::optional<std::size_t> dimension) {
                 // θ is F x A doubles, and the score buffers as many again.
                 auto memory = [&](std::size_t F) {
                     require_memory(detail::message("ObservationFeaturePolicy: ", F, " features x num_actions = ",
                                                    num_actions),
                                    "its parameters", 16.0 * static_cast<double>(F) * static_cast<double>(num_actions));
                 };
                 if (py::isinstance<PyFeatureMap>(features)) {
                     if (dimension) throw config_error("ObservationFeaturePolicy: dimension is given by the feature map");
                     memory(features.cast<const PyFeatureMap&>().dimension());
                     return PyFeaturePolicy{FeaturePolicy(features.cast<PyFeatureMap>(), num_actions)};
                 }
                 if (!PyCallable_Check(features.ptr()))
                     throw config_error(detail::message("ObservationFeaturePolicy: features ", std::string(py::repr(features)),
                                                        " is neither an ObservationFeatures nor a callable"));
                 if (!dimension || *dimension == 0)
                     throw config_error("ObservationFeaturePolicy: a callable feature map needs dimension = F >= 1 "
                                        "(the length of the arrays it returns)");
                 check_size("dimension", *dimension, 8, num_actions);
                 memory(*dimension);
                 return PyFeaturePolicy{FeaturePolicy(python_features(features, *dimension), num_actions)};
             }),
             py::arg("features"), py::arg("num_actions"), py::arg("dimension") = py::none())
        .def_property(
            "parameters", [](const PyFeaturePolicy& p) -> Eigen::MatrixXd { return p.p.parameters(); },
            [](PyFeaturePolicy& p, const py::object& theta) {
                const Eigen::MatrixXd& t = p.p.parameters();
                p.p.parameters() = real_matrix(theta, "ObservationFeaturePolicy.parameters", t.rows(), t.cols());
            },
            "θ (features x actions); set from a 2-d array of that shape with finite entries (as Policy.parameters)")
        .def_property_readonly("num_actions", [](const PyFeaturePolicy& p) { return p.p.num_actions(); })
        .def_property_readonly("num_features", [](const PyFeaturePolicy& p) { return p.p.num_features(); })
        .def_property_readonly("class_name", [](const PyFeaturePolicy&) { return "ObservationFeaturePolicy"; })
        .def_property_readonly("features", [](const PyFeaturePolicy& p) { return p.p.feature_map(); })
        .def("probabilities",
             [](const PyFeaturePolicy& p, const py::object& observation) {
                 std::size_t d = 1;
                 if (py::isinstance<py::array>(observation)) {
                     const auto a = py::reinterpret_borrow<py::array>(observation);
                     if (a.ndim() == 1) d = static_cast<std::size_t>(a.shape(0));
                 }
                 std::vector<double> x(d);
                 read_vector(observation, d, x.data(), [] { return std::string("probabilities: the observation"); },
                             "its length");
                 const Eigen::VectorXd none;
                 AgentView v{0, 0, none};
                 v.observation_point = std::span<const double>(x);
                 Eigen::VectorXd out;
                 p.p.probabilities(v, out);
                 return out;
             },
             py::arg("observation"), "π(· | o) for a float vector o")
        .def("copy", [](const PyFeaturePolicy& p) { return p; })
        .def("__repr__", [](const PyFeaturePolicy& p) {
            return detail::message("maxent.ObservationFeaturePolicy(", p.p.feature_map().kind(), ", θ: ",
                                   p.p.num_features(), " x ", p.p.num_actions(), ")");
        });
    bind_sim_actions(m);
}

}  // namespace maxent::python
