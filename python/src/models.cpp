// python/src/models.cpp — finite models (numpy arrays, the paper's grid worlds, POMDP files),
// labels, the exact filter and the noisy oracle, the policy classes, and learned belief
// models (fit_belief_model).
#include <fstream>
#include <sstream>

#include "common.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/model/pomdp_file.hpp"

namespace maxent::python {

py::list index_labels(std::size_t n) {
    py::list l;
    for (std::size_t i = 0; i < n; ++i) l.append(py::int_(i));
    return l;
}

std::size_t PyModel::index(const py::list& labels, const py::handle& x, const char* what) const {
    // A label matches x when they compare equal and are of the same kind: bools (Python's or
    // numpy's) only bools and integers only integers (in Python True == 1 == 1.0, so the ring's
    // index labels would otherwise take True or 1.0 as state 1); an array matches no label.
    enum class Kind { boolean, integer, array, other };
    const auto kind = [](const py::handle& o) {
        if (PyBool_Check(o.ptr()) || (numpy_bool_type != nullptr && PyObject_IsInstance(o.ptr(), numpy_bool_type) == 1))
            return Kind::boolean;
        if (py::detail::npy_api::get().PyArray_Check_(o.ptr())) return Kind::array;
        return PyIndex_Check(o.ptr()) ? Kind::integer : Kind::other;
    };
    const Kind x_kind = kind(x);
    const std::size_t n = labels.size();
    if (x_kind != Kind::array) {
        for (std::size_t i = 0; i < n; ++i) {
            if (kind(labels[i]) != x_kind) continue;
            const int equal = PyObject_RichCompareBool(labels[i].ptr(), x.ptr(), Py_EQ);
            if (equal == 1) return i;
            if (equal < 0) PyErr_Clear();  // a comparison that raises is no match
        }
    }
    // An index: an integer as every size argument of the module reads one (common.hpp's caster:
    // a Python int, a numpy integer, __index__; not a bool, a float or a negative number).
    py::detail::make_caster<std::size_t> as_index;
    if (as_index.load(x, false)) {
        const auto v = static_cast<std::size_t>(as_index);
        if (v < n) return v;
    }
    const bool vowel = std::string_view("aeiou").find(what[0]) != std::string_view::npos;
    throw unknown_label_error(detail::message("unknown ", what, " ", std::string(py::repr(x)), ": neither ",
                                              vowel ? "an " : "a ", what, " label nor an index in [0, ", n, ")"));
}

namespace {

std::vector<std::size_t> iota(std::size_t n) {
    std::vector<std::size_t> v(n);
    for (std::size_t i = 0; i < n; ++i) v[i] = i;
    return v;
}

/// Any FinitePomdp as the bound model type: the same sparse matrices, so the same bits.
template <class S, class A, class O>
Model to_index_model(const FinitePomdp<S, A, O>& m) {
    std::vector<SparseMatrix> P, Z;
    for (std::size_t a = 0; a < m.num_actions(); ++a) P.push_back(m.transition_matrix(a));
    const std::size_t slots = m.observation_depends_on_action() ? m.num_actions() : 1;
    for (std::size_t a = 0; a < slots; ++a) Z.push_back(m.observation_matrix(a));
    Model out(iota(m.num_states()), iota(m.num_actions()), iota(m.num_observations()), std::move(P), std::move(Z),
              m.initial_distribution(), m.horizon(), {.tolerance = m.tolerance()});
    if (m.observation_depends_on_action()) out.set_initial_observation(m.initial_observation_matrix());
    return out;
}


}  // namespace

std::shared_ptr<PyModel> wrap_model(Model m, py::list states, py::list actions, py::list observations, std::string d) {
    auto p = std::make_shared<PyModel>();
    p->model = std::make_shared<Model>(std::move(m));
    p->states = std::move(states);
    p->actions = std::move(actions);
    p->observations = std::move(observations);
    p->description = std::move(d);
    return p;
}

std::shared_ptr<PyModel> grid_model(const GridPomdp& g, std::string d) {
    py::list states, actions;
    for (std::size_t s = 0; s < g.num_states(); ++s)
        states.append(py::make_tuple(g.state_label(s).x, g.state_label(s).y));
    for (const char* a : {"up", "down", "left", "right"}) actions.append(a);
    return wrap_model(to_index_model(g), std::move(states), std::move(actions), index_labels(g.num_observations()),
                std::move(d));
}

namespace {

py::list labels_or_indices(const std::optional<py::list>& given, std::size_t n, const char* what) {
    if (!given) return index_labels(n);
    if (given->size() != n)
        throw model_error(detail::message("got ", given->size(), " ", what, " labels for ", n, " ", what, "s"));
    return *given;
}

/// A 3-d array a x r x c as `a` matrices (rows r, columns c).
std::vector<Eigen::MatrixXd> slices(const py::array_t<double, py::array::c_style | py::array::forcecast>& x,
                                    const char* what) {
    if (x.ndim() != 3)
        throw model_error(detail::message(what, " must be a 3-d array (actions x rows x columns), got ", x.ndim(),
                                          " dimensions"));
    std::vector<Eigen::MatrixXd> out;
    const auto A = x.shape(0), R = x.shape(1), C = x.shape(2);
    const double* d = x.data();
    for (py::ssize_t a = 0; a < A; ++a) {
        Eigen::MatrixXd m(R, C);
        for (py::ssize_t r = 0; r < R; ++r)
            for (py::ssize_t c = 0; c < C; ++c) m(r, c) = d[(a * R + r) * C + c];
        out.push_back(std::move(m));
    }
    return out;
}

Eigen::MatrixXd dense(const SparseMatrix& m) { return Eigen::MatrixXd(m); }

ObservationSpec observation_spec(const std::string& kind, std::optional<double> precision,
                                 std::optional<double> variance) {
    if (kind == "identity") return observe::identity();
    if (kind == "room_id" || kind == "room-id") return observe::room_id();
    if (kind == "side") return observe::side();
    if (kind == "gaussian") {
        if (precision && variance)
            throw config_error("grid_world: give the Gaussian precision k or the variance 1/k, not both");
        if (precision) return observe::gaussian(*precision);
        if (variance) return observe::gaussian_variance(*variance);
        throw config_error("grid_world: observation 'gaussian' needs precision= (k) or variance= (1/k)");
    }
    throw config_error(detail::message("grid_world: unknown observation model '", kind,
                                       "' (known: identity, gaussian, room_id, side)"));
}

}  // namespace

namespace {
/// A policy's θ (rows x actions doubles; its score buffers as many again): check_size's 2^46-byte
/// ValueError for sizes no machine has, then the machine's memory (require_memory).
void policy_memory(const char* name, const char* what, std::size_t rows, std::size_t actions) {
    check_size(what, rows, 8, actions);
    require_memory(detail::message(name, ": ", what, " = ", rows, ", num_actions = ", actions), "its parameters",
                   16.0 * static_cast<double>(rows) * static_cast<double>(actions));
}
}  // namespace

const char* PyPolicy::class_name() const {
    switch (p.index()) {
        case 0: return "ObservationPolicy";
        case 1: return "BeliefAveragedPolicy";
        case 2: return "BelievedStatePolicy";
        case 3: return "BeliefMixturePolicy";
        default: return "TabularBeliefPolicy";
    }
}

void bind_models(py::module_& m) {
    // --- finite models -------------------------------------------------------------------
    py::class_<PyModel, std::shared_ptr<PyModel>>(m, "Model",
        "A finite POMDP (S, A, O, P, Obs, T, μ). States, actions and observations are indices 0..n-1 with\n"
        "labels (ints, strings or tuples): every argument that names one accepts its label or its index.")
        .def(py::init([](const py::array_t<double, py::array::c_style | py::array::forcecast>& transitions,
                         const py::array_t<double, py::array::c_style | py::array::forcecast>& observations,
                         const Eigen::VectorXd& initial, std::size_t horizon, std::optional<py::list> states,
                         std::optional<py::list> actions, std::optional<py::list> observation_labels,
                         double tolerance,
                         std::optional<Eigen::MatrixXd> initial_observation) {
                 std::vector<Eigen::MatrixXd> P = slices(transitions, "transitions");
                 std::vector<Eigen::MatrixXd> Z;
                 if (observations.ndim() == 2) {
                     Eigen::MatrixXd z(observations.shape(0), observations.shape(1));
                     for (py::ssize_t r = 0; r < observations.shape(0); ++r)
                         for (py::ssize_t c = 0; c < observations.shape(1); ++c) z(r, c) = observations.at(r, c);
                     Z.push_back(std::move(z));
                 } else {
                     Z = slices(observations, "observations");
                 }
                 const std::size_t S = P.empty() ? 0 : static_cast<std::size_t>(P[0].rows());
                 const std::size_t A = P.size();
                 const std::size_t O = Z.empty() ? 0 : static_cast<std::size_t>(Z[0].cols());
                 Model model(iota(S), iota(A), iota(O), P, Z, initial, horizon, {.tolerance = tolerance});
                 if (initial_observation) model.set_initial_observation(to_sparse(*initial_observation));
                 const bool labelled = states || actions || observation_labels;
                 std::string d = detail::message("from arrays: S=", S, ", A=", A, ", O=", O, ", T=", horizon,
                                                 Z.size() == 1 ? ", observations shared by all actions"
                                                               : ", observations per action",
                                                 initial_observation ? ", initial observation matrix given" : "",
                                                 labelled ? ", labelled" : "");
                 return wrap_model(std::move(model), labels_or_indices(states, S, "state"),
                             labels_or_indices(actions, A, "action"),
                             labels_or_indices(observation_labels, O, "observation"), std::move(d));
             }),
             py::arg("transitions"), py::arg("observations"), py::arg("initial"), py::arg("horizon"),
             py::arg("states") = py::none(), py::arg("actions") = py::none(),
             py::arg("observation_labels") = py::none(), py::arg("tolerance") = 1e-9,
             py::arg("initial_observation") = py::none(),
             "transitions[a, s, s'] = P(s' | s, a); observations[s', o] = Obs(o | s') (shared) or\n"
             "observations[a, s', o] (per action); initial[s] = μ(s); horizon T. Validated (ModelError naming the\n"
             "matrix, row, column and value).")
        .def_property_readonly("num_states", [](const PyModel& p) { return p.model->num_states(); })
        .def_property_readonly("num_actions", [](const PyModel& p) { return p.model->num_actions(); })
        .def_property_readonly("num_observations", [](const PyModel& p) { return p.model->num_observations(); })
        .def_property("horizon", [](const PyModel& p) { return p.model->horizon(); },
                      [](PyModel& p, std::size_t T) {
                          // A call with the GIL released (train, evaluate, ...) reads the horizon on other threads.
                          if (p.users.load() > 0)
                              throw config_error(detail::message(
                                  "Model.horizon = ", T, ": the model is in use by a running call (train, evaluate, "
                                  "...) in another thread; set the horizon before or after it"));
                          p.model->set_horizon(T);
                      },
                      "T; refused (ConfigError) while a call running in another thread uses the model")
        .def_property_readonly("tolerance", [](const PyModel& p) { return p.model->tolerance(); })
        .def_property_readonly("observation_depends_on_action",
                               [](const PyModel& p) { return p.model->observation_depends_on_action(); })
        .def_readonly("states", &PyModel::states)
        .def_readonly("actions", &PyModel::actions)
        .def_readonly("observations", &PyModel::observations)
        .def_readwrite("description", &PyModel::description,
                       "what the model is: a grid's spec, 'POMDP file', or the sizes and matrices of a model from arrays")
        .def("state_index", &PyModel::state, py::arg("label"))
        .def("action_index", &PyModel::action, py::arg("label"))
        .def("observation_index", &PyModel::observation, py::arg("label"))
        .def_property_readonly("initial_distribution",
                               [](const PyModel& p) -> Eigen::VectorXd { return p.model->initial_distribution(); })
        .def("transition_matrix", [](const PyModel& p, const py::handle& a) {
            return dense(p.model->transition_matrix(p.action(a)));
        }, py::arg("action"), "P(s' | s, a) as an S x S array")
        .def("observation_matrix", [](const PyModel& p, const py::handle& a) {
            return dense(p.model->observation_matrix(p.action(a)));
        }, py::arg("action") = 0, "Obs(o | s', a) as an S x O array")
        .def_property_readonly("initial_observation_matrix",
                               [](const PyModel& p) { return dense(p.model->initial_observation_matrix()); })
        .def("__repr__", [](const PyModel& p) {
            return detail::message("maxent.Model(S=", p.model->num_states(), ", A=", p.model->num_actions(),
                                   ", O=", p.model->num_observations(), ", T=", p.model->horizon(),
                                   p.description.empty() ? "" : ", ", p.description, ")");
        });

    m.def(
        "grid_world",
        [](std::size_t width, std::size_t height, const std::string& layout, double slip,
           const std::string& observation, std::optional<double> precision, std::optional<double> variance,
           std::optional<std::size_t> horizon, std::pair<int, int> start) {
            check_size("width", width, 8 * 64, height);  // S = width x height states, sparse rows
            require_memory(detail::message("grid_world: width = ", width, ", height = ", height),
                           "its transition and observation matrices (about 512 bytes per state)",
                           512.0 * static_cast<double>(width) * static_cast<double>(height));
            GridLayout g = layout == "single_room" || layout == "single-room" ? GridLayout::single_room(width, height)
                           : layout == "four_rooms" || layout == "four-rooms"
                               ? GridLayout::four_rooms(width, height)
                               : throw config_error(detail::message("grid_world: unknown layout '", layout,
                                                                    "' (known: single_room, four_rooms)"));
            const GridPomdp w = make_grid_world({.layout = g,
                                                 .slip = slip,
                                                 .observation = observation_spec(observation, precision, variance),
                                                 .horizon = horizon,
                                                 .start = {start.first, start.second}});
            char slip_text[32];
            std::snprintf(slip_text, sizeof slip_text, "%g", slip);
            return grid_model(w, detail::message(layout, " ", width, "x", height, ", slip ", slip_text, ", ", observation));
        },
        py::arg("width"), py::arg("height"), py::arg("layout") = "single_room", py::arg("slip") = 0.0,
        py::arg("observation") = "identity", py::arg("precision") = py::none(), py::arg("variance") = py::none(),
        py::arg("horizon") = py::none(), py::arg("start") = std::pair<int, int>{0, 0},
        "A grid world (docs/reference.md, 'Grid worlds'): states (x, y), actions up/down/left/right,\n"
        "observations identity | gaussian (precision k or the paper's variance 1/k) | room_id | side; T = S\n"
        "unless given.");
    m.def(
        "paper_environment",
        [](const std::string& env, double slip, std::optional<double> variance) {
            PaperEnvironment e;
            if (env == "i") e = PaperEnvironment::single_room_gaussian;
            else if (env == "ii") e = PaperEnvironment::four_rooms_gaussian;
            else if (env == "iii") e = PaperEnvironment::four_rooms_room_id;
            else if (env == "iv") e = PaperEnvironment::four_rooms_side;
            else throw config_error(detail::message("paper_environment: unknown environment '", env,
                                                    "' (known: i, ii, iii, iv)"));
            std::optional<double> k;
            if (variance) k = precision_from_variance(*variance);
            return grid_model(paper_environment(e, slip, k), detail::message("environment ", env));
        },
        py::arg("environment"), py::arg("slip") = 0.0, py::arg("variance") = py::none(),
        "Environment i-iv of the paper's Section 6.1; i and ii need the observation variance (0.1 or 10).");

    auto from_file = [](const PomdpFile& f) {
        py::list s, a, o;
        for (std::size_t i = 0; i < f.model.num_states(); ++i) s.append(f.model.state_label(i));
        for (std::size_t i = 0; i < f.model.num_actions(); ++i) a.append(f.model.action_label(i));
        for (std::size_t i = 0; i < f.model.num_observations(); ++i) o.append(f.model.observation_label(i));
        return wrap_model(to_index_model(f.model), std::move(s), std::move(a), std::move(o), "POMDP file");
    };
    // The reader's options as maxent-explore takes them (--horizon, --empty-rows error|self-loop).
    auto read_options = [](std::size_t horizon, const std::string& empty_rows, const char* who) {
        ReadOptions o;
        o.horizon = horizon;
        if (empty_rows == "self-loop" || empty_rows == "self_loop") o.empty_transition_rows = EmptyRows::self_loop;
        else if (empty_rows != "error")
            throw config_error(detail::message(who, ": empty_rows '", empty_rows, "' (known: error, self-loop)"));
        return o;
    };
    m.def("read_pomdp_file", [from_file, read_options](const std::string& path, std::size_t horizon,
                                                       const std::string& empty_rows) {
        return from_file(read_pomdp_file(path, read_options(horizon, empty_rows, "read_pomdp_file")));
    }, py::arg("path"), py::arg("horizon") = 0, py::arg("empty_rows") = "error",
          "A model from a file in the POMDP file format (labels: the file's names); horizon 0 = S. empty_rows:\n"
          "what to do with a state that has no transition probabilities under an action: 'error' (ParseError\n"
          "naming file:line, the state and the action) or 'self-loop' (the state becomes absorbing under it),\n"
          "as maxent-explore --empty-rows.");
    m.def("parse_pomdp", [from_file, read_options](const std::string& text, std::size_t horizon,
                                                   const std::string& empty_rows) {
        return from_file(parse_pomdp(text, "<text>", read_options(horizon, empty_rows, "parse_pomdp")));
    }, py::arg("text"), py::arg("horizon") = 0, py::arg("empty_rows") = "error",
          "A model from POMDP-file text (options as read_pomdp_file).");

    // --- belief updaters -------------------------------------------------------------------
    py::class_<PyFilter, std::shared_ptr<PyFilter>>(m, "BayesFilter",
        "The exact Bayes filter of an agent model (the world's, or a coarser or learned one).")
        .def(py::init([](std::shared_ptr<PyModel> agent, const py::object& prior) {
                 auto f = std::make_shared<PyFilter>(PyFilter{agent, Filter(*agent->model)});
                 if (py::isinstance<py::str>(prior)) {
                     if (prior.cast<std::string>() != "model")
                         throw config_error(detail::message("BayesFilter: prior '", prior.cast<std::string>(),
                                                            "' (give None: uniform, 'model': μ, or a vector)"));
                     f->filter = Filter(*agent->model, model_prior);
                 } else if (!prior.is_none()) {
                     f->filter = Filter(*agent->model, prior.cast<Eigen::VectorXd>());
                 }
                 return f;
             }),
             py::arg("model"), py::arg("prior") = py::none(),
             "prior None: the paper's uniform b_1; 'model': the model's μ; or any probability vector.")
        .def_property_readonly("dimension", [](const PyFilter& f) { return f.filter.dimension(); })
        .def_readonly("model", &PyFilter::agent)
        .def("initial", [](const PyFilter& f) {
            Eigen::VectorXd b;
            f.filter.initial(b);
            return b;
        }, "b_1")
        .def("update", [](PyFilter& f, Eigen::VectorXd b, const py::handle& a, const py::handle& o) {
            f.filter.update(b, f.agent->action(a), f.agent->observation(o));
            return b;
        }, py::arg("belief"), py::arg("action"), py::arg("observation"),
             "b' ∝ Obs(o | ·, a) · Pᵀ b (ZeroLikelihoodError when o is impossible)");

    py::class_<PyNoisy, std::shared_ptr<PyNoisy>>(m, "NoisyBelief",
        "The noisy belief oracle (Figure 3): Gaussian noise of standard deviation sigma on every entry after\n"
        "each exact update, clipped and renormalised. sigma = 0 is the exact filter, bit for bit.")
        .def(py::init([](std::shared_ptr<PyFilter> f, double sigma) {
                 (void)Noisy(f->filter, sigma);  // validates σ
                 return std::make_shared<PyNoisy>(PyNoisy{std::move(f), sigma});
             }),
             py::arg("filter"), py::arg("sigma"))
        .def_readonly("sigma", &PyNoisy::sigma)
        .def_readonly("filter", &PyNoisy::inner)
        .def_property_readonly("dimension", [](const PyNoisy& n) { return n.inner->filter.dimension(); })
        .def("update", [](const PyNoisy& n, Eigen::VectorXd b, const py::handle& a, const py::handle& o,
                          std::uint64_t seed) {
            Noisy u = n.make();
            DefaultRng g = stream(seed);
            u.update(b, n.inner->agent->action(a), n.inner->agent->observation(o), g);
            return b;
        }, py::arg("belief"), py::arg("action"), py::arg("observation"), py::arg("seed") = 0,
             "One noisy update drawing from stream(seed).");

    // --- policies --------------------------------------------------------------------------
    py::class_<PyPolicy>(m, "Policy", "A policy class with parameters θ (numpy array, settable).")
        .def_property(
            "parameters",
            [](const PyPolicy& p) -> Eigen::MatrixXd {
                return std::visit([](const auto& x) -> Eigen::MatrixXd { return x.parameters(); }, p.p);
            },
            [](PyPolicy& p, const py::object& theta) {
                std::visit([&](auto& x) {
                    x.parameters() = real_matrix(theta, detail::message(p.class_name(), ".parameters"),
                                                 x.parameters().rows(), x.parameters().cols());
                }, p.p);
            },
            "θ (rows x actions); set from a 2-d array of that shape with finite entries (a masked array only when\n"
            "nothing is masked), else ConfigError naming the shape, NumericError naming the entry")
        .def_property_readonly("num_actions",
                               [](const PyPolicy& p) { return std::visit([](const auto& x) { return x.num_actions(); }, p.p); })
        .def_property_readonly("class_name", &PyPolicy::class_name)
        .def("probabilities",
             [](const PyPolicy& p, const Eigen::VectorXd& belief, std::size_t observation, std::size_t step) {
                 Eigen::VectorXd out;
                 const AgentView v{step, observation, belief};
                 std::visit([&](const auto& x) { x.probabilities(v, out); }, p.p);
                 return out;
             },
             py::arg("belief"), py::arg("observation") = 0, py::arg("step") = 0,
             "π(· | o, b): the action distribution (marginal over a believed state's draw)")
        .def("copy", [](const PyPolicy& p) { return p; })
        .def("__repr__", [](const PyPolicy& p) {
            const auto& t = std::visit([](const auto& x) -> const Eigen::MatrixXd& { return x.parameters(); }, p.p);
            return detail::message("maxent.", p.class_name(), "(θ: ", t.rows(), " x ", t.cols(), ")");
        });
    m.def("ObservationPolicy", [](std::size_t O, std::size_t A) { policy_memory("ObservationPolicy", "num_observations", O, A); return PyPolicy{ObservationPolicy(O, A)}; },
          py::arg("num_observations"), py::arg("num_actions"), "Class O: softmax(θ[o_t]).");
    m.def("BeliefAveragedPolicy", [](std::size_t L, std::size_t A) { policy_memory("BeliefAveragedPolicy", "num_states", L, A); return PyPolicy{BeliefAveragedPolicy(L, A)}; },
          py::arg("num_states"), py::arg("num_actions"), "Class BA (the paper's): softmax(θᵀ b_t).");
    m.def("BelievedStatePolicy", [](std::size_t L, std::size_t A) { policy_memory("BelievedStatePolicy", "num_states", L, A); return PyPolicy{BelievedStatePolicy(L, A)}; },
          py::arg("num_states"), py::arg("num_actions"), "Class S̃: s̃_t ~ b_t, softmax(θ[s̃_t]).");
    m.def("BeliefMixturePolicy", [](std::size_t L, std::size_t A) { policy_memory("BeliefMixturePolicy", "num_states", L, A); return PyPolicy{BeliefMixturePolicy(L, A)}; },
          py::arg("num_states"), py::arg("num_actions"), "Class BM: Σ_s b_t(s) softmax(θ_s).");
    m.def("TabularBeliefPolicy",
          [](std::size_t L, std::size_t A, double tolerance) {
              check_size("num_states", L, 8, A);  // θ grows a row per distinct belief met
              return PyPolicy{TabularBeliefPolicy(L, A, tolerance)};
          },
          py::arg("num_states"), py::arg("num_actions"), py::arg("tolerance") = default_belief_tolerance,
          "Class B: one softmax row per distinct belief, added on first visit.");

}

}  // namespace maxent::python
