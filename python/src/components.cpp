// python/src/components.cpp — the components chosen at run time: feedbacks (the paper's four,
// PartitionEntropy, kNN, a Python callable, and the TrajectoryView it reads), estimators, step
// rules and stream seeds; their classes, and their reading from names or objects (to_feedback,
// to_estimator, to_step).
#include <memory>

#include "common.hpp"
#include "maxent/objective/knn_feedbacks.hpp"

namespace maxent::python {

// ---------------------------------------------------------------------------------------
// Feedbacks
// ---------------------------------------------------------------------------------------

const Trajectory& TrajectoryView::get() const {
    if (t == nullptr)
        throw config_error("TrajectoryView: the trajectory is only valid during the feedback call that received it");
    return *t;
}

double PythonFeedback::call(const Trajectory& t) const {
    py::gil_scoped_acquire gil;
    auto view = std::make_unique<TrajectoryView>();
    view->t = &t;
    TrajectoryView* raw = view.get();
    py::object v = py::cast(std::move(view));
    struct Invalidate {
        TrajectoryView* v;
        ~Invalidate() { v->t = nullptr; }
    } invalidate{raw};
    const py::object r = fn.get()(v);
    double x = 0.0;
    try {
        x = r.cast<double>();
    } catch (const py::cast_error&) {
        throw config_error(detail::message("feedback ", name, ": returned ", std::string(py::repr(r)),
                                           ", not a float"));
    }
    return x;
}

FeedbackBox knn_feedback(bool states, std::size_t k, std::optional<double> min_distance) {
    programs::CallableFeedback f;
    if (states) {
        f.fn = [e = KnnStateEntropy(k, min_distance), g = 0](const Trajectory& t) mutable { return e(t, g); };
        f.needs.state_points = true;
        f.name = "mse-knn";
    } else {
        f.fn = [e = KnnObservationEntropy(k, min_distance), g = 0](const Trajectory& t) mutable { return e(t, g); };
        f.needs.observation_points = true;
        f.name = "moe-knn";
    }
    return FeedbackBox(std::move(f));
}

FeedbackBox python_feedback(PythonFeedback p) {
    std::string name = p.name;
    const RolloutNeeds needs = p.needs;
    return programs::CallableFeedback{[p = std::move(p)](const Trajectory& t) { return p.call(t); }, needs,
                                      std::move(name)};
}

// ---------------------------------------------------------------------------------------
// Names and objects -> components
// ---------------------------------------------------------------------------------------

namespace {
template <class T>
std::optional<T> try_cast(const py::handle& x) {
    if (py::isinstance<T>(x)) return x.cast<T>();
    return std::nullopt;
}
std::string lower(std::string s) {
    for (char& c : s)
        if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
    return s;
}
}  // namespace

FeedbackBox to_feedback(const py::handle& x) {
    if (auto f = try_cast<FeedbackBox>(x)) return *f;
    if (py::isinstance<py::str>(x)) {
        const std::string s = lower(x.cast<std::string>());
        if (s == "mse") return {MSE{}};
        if (s == "moe") return {MOE{}};
        if (s == "mbe") return {MBE{}};
        if (s == "reg-mbe" || s == "regmbe" || s == "reg_mbe") return {RegMBE(0.02)};
        if (s == "mse-knn" || s == "mse_knn") return knn_feedback(true, 4, std::nullopt);
        if (s == "moe-knn" || s == "moe_knn") return knn_feedback(false, 4, std::nullopt);
        throw config_error(detail::message("unknown feedback '", x.cast<std::string>(),
                                           "' (known: mse, moe, mbe, reg-mbe, mse-knn, moe-knn, or a callable)"));
    }
    if (PyCallable_Check(x.ptr())) {
        PythonFeedback p;
        p.fn = PyRef(py::reinterpret_borrow<py::object>(x));
        p.name = py::hasattr(x, "__name__") ? x.attr("__name__").cast<std::string>() : std::string("python");
        return python_feedback(std::move(p));
    }
    throw config_error(detail::message("not a feedback: ", std::string(py::repr(x)),
                                       " (give maxent.MSE(), ..., a name such as 'mse', or a callable)"));
}

EstimatorBox to_estimator(const py::handle& x) {
    if (auto e = try_cast<EstimatorBox>(x)) return *e;
    if (py::isinstance<py::str>(x)) {
        const std::string s = x.cast<std::string>();
        if (const auto k = programs::parse_estimator(s)) return EstimatorBox(*k);
        throw config_error(detail::message("unknown estimator '", s, "' (known: ", programs::estimator_names, ")"));
    }
    throw config_error(detail::message("not an estimator: ", std::string(py::repr(x))));
}

StepBox to_step(const py::handle& x, std::optional<double> alpha) {
    if (auto r = try_cast<StepBox>(x)) return *r;
    if (py::isinstance<py::str>(x)) {
        const std::string s = x.cast<std::string>();
        if (const auto k = programs::parse_step(s))
            return StepBox(*k, alpha.value_or(*k == programs::StepKind::constant ? 0.3 : 0.05));
        throw config_error(detail::message("unknown step rule '", s, "' (known: ", programs::step_names, ")"));
    }
    throw config_error(detail::message("not a step rule: ", std::string(py::repr(x))));
}

// ---------------------------------------------------------------------------------------
// Components
// ---------------------------------------------------------------------------------------

namespace {
/// A view's recorded points as an n x d array (n x 0 when not recorded).
py::array_t<double> points_array(const std::vector<double>& x, std::size_t d) {
    const std::size_t n = d == 0 ? 0 : x.size() / d;
    py::array_t<double> a({static_cast<py::ssize_t>(n), static_cast<py::ssize_t>(d)});
    std::copy(x.begin(), x.end(), a.mutable_data());
    return a;
}
RolloutNeeds needs_of(bool belief_entropy, bool believed_states, bool beliefs) {
    RolloutNeeds n;
    n.belief_entropy = belief_entropy;
    n.believed_states = believed_states;
    n.beliefs = beliefs;
    return n;
}
py::array_t<std::size_t> index_array(std::span<const std::size_t> v) {
    py::array_t<std::size_t> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}
}  // namespace

void bind_components(py::module_& m) {
    // --- feedbacks ---------------------------------------------------------------------
    py::class_<FeedbackBox>(m, "Feedback", "A feedback F(τ): what multiplies the score in Algorithm 1.")
        .def_property_readonly("name", &FeedbackBox::name)
        .def_property_readonly("needs", [](const FeedbackBox& f) {
            const RolloutNeeds n = f.needs();
            py::dict d;
            d["belief_entropy"] = n.belief_entropy;
            d["believed_states"] = n.believed_states;
            d["beliefs"] = n.beliefs;
            return d;
        })
        .def("__call__", [](const FeedbackBox& f, const TrajectoryView& v) {
            DefaultRng g = stream(0);
            return f(v.get(), g);
        }, py::arg("trajectory"), "The feedback of a trajectory (inside another feedback's call).")
        .def("__repr__", [](const FeedbackBox& f) { return "maxent.Feedback('" + f.name() + "')"; });
    m.def("MSE", [] { return FeedbackBox{MSE{}}; }, "Entropy of the trajectory's true states (bins).");
    m.def("MOE", [] { return FeedbackBox{MOE{}}; }, "Entropy of the trajectory's observations.");
    m.def("MBE", [] { return FeedbackBox{MBE{}}; }, "Entropy of believed states s̃_t ~ b_t.");
    m.def("RegMBE", [](double rho) { return FeedbackBox{RegMBE(rho)}; }, py::arg("rho") = 0.02,
          "MBE minus rho times the sum of belief entropies.");
    m.def("MSEKnn", [](std::size_t k, std::optional<double> min_distance) { return knn_feedback(true, k, min_distance); },
          py::arg("k") = 4, py::arg("min_distance") = py::none(),
          "'mse-knn': the k-nearest-neighbour entropy (nats) of the true states' points (a world's state_point);\n"
          "ties as knn_entropy counts them (min_distance None: 1e-12 of the points' extent, 0: refused).");
    m.def("MOEKnn", [](std::size_t k, std::optional<double> min_distance) { return knn_feedback(false, k, min_distance); },
          py::arg("k") = 4, py::arg("min_distance") = py::none(),
          "'moe-knn': the k-nearest-neighbour entropy (nats) of the raw observation vectors (observation_dim);\n"
          "ties as knn_entropy counts them (min_distance None: 1e-12 of the points' extent, 0: refused).");
    m.def("PartitionEntropy", [](std::vector<std::size_t> blocks) { return FeedbackBox{PartitionEntropy(std::move(blocks))}; },
          py::arg("block_of_state"), "Entropy of the true states mapped to blocks (e.g. rooms).");
    m.def(
        "UserFeedback",
        [](py::function fn, bool belief_entropy, bool believed_states, bool beliefs, std::optional<std::string> name,
           bool state_points, bool observation_points) {
            PythonFeedback p;
            p.name = name ? *name
                          : (py::hasattr(fn, "__name__") ? fn.attr("__name__").cast<std::string>() : "python");
            p.fn = PyRef(std::move(fn));
            p.needs = needs_of(belief_entropy, believed_states, beliefs);
            p.needs.state_points = state_points;
            p.needs.observation_points = observation_points;
            return python_feedback(std::move(p));
        },
        py::arg("fn"), py::arg("belief_entropy") = false, py::arg("believed_states") = false,
        py::arg("beliefs") = false, py::arg("name") = py::none(), py::arg("state_points") = false,
        py::arg("observation_points") = false,
        "A feedback written in Python: fn(trajectory: TrajectoryView) -> float; say which extra records it reads.");

    py::class_<TrajectoryView>(m, "TrajectoryView",
                               "One episode as a feedback sees it (valid only during the feedback call).")
        .def_property_readonly("horizon", [](const TrajectoryView& v) { return v.get().horizon; })
        .def_property_readonly("num_states", [](const TrajectoryView& v) { return v.get().num_states; })
        .def_property_readonly("num_observations", [](const TrajectoryView& v) { return v.get().num_observations; })
        .def_property_readonly("belief_dimension", [](const TrajectoryView& v) { return v.get().belief_dimension; })
        .def_property_readonly("counting",
                               [](const TrajectoryView& v) {
                                   return v.get().counting == StateCounting::paper ? "paper" : "authors";
                               })
        .def_property_readonly("states", [](const TrajectoryView& v) { return index_array(v.get().states); },
                               "s_1 .. s_{K+1} (true states, as bins)")
        .def_property_readonly("observations", [](const TrajectoryView& v) { return index_array(v.get().observations); })
        .def_property_readonly("actions", [](const TrajectoryView& v) { return index_array(v.get().actions); })
        .def_property_readonly("believed", [](const TrajectoryView& v) { return index_array(v.get().believed); })
        .def_property_readonly("belief_entropy", [](const TrajectoryView& v) {
            const auto& e = v.get().belief_entropy;
            py::array_t<double> a(static_cast<py::ssize_t>(e.size()));
            std::copy(e.begin(), e.end(), a.mutable_data());
            return a;
        })
        .def_property_readonly("beliefs", [](const TrajectoryView& v) -> Eigen::MatrixXd { return v.get().beliefs; },
                               "column k = b_{k+1} (if the feedback asked for beliefs)")
        .def_property_readonly("counted_states",
                               [](const TrajectoryView& v) { return index_array(v.get().counted_states()); },
                               "the true states the counting convention counts")
        .def_property_readonly("counted_observations",
                               [](const TrajectoryView& v) { return index_array(v.get().counted_observations()); })
        .def_property_readonly("state_points",
                               [](const TrajectoryView& v) {
                                   return points_array(v.get().state_points, v.get().state_point_dimension);
                               }, "s_1 .. s_{K+1} as points (n x d; recorded for kNN MSE)")
        .def_property_readonly("observation_points",
                               [](const TrajectoryView& v) {
                                   return points_array(v.get().observation_points, v.get().observation_point_dimension);
                               }, "o_1 .. o_{K+1} as points (n x d; recorded for kNN MOE)")
        .def_property_readonly("counted_state_points",
                               [](const TrajectoryView& v) {
                                   const auto x = v.get().counted_state_points();
                                   return points_array({x.begin(), x.end()}, v.get().state_point_dimension);
                               })
        .def_property_readonly("counted_observation_points",
                               [](const TrajectoryView& v) {
                                   const auto x = v.get().counted_observation_points();
                                   return points_array({x.begin(), x.end()}, v.get().observation_point_dimension);
                               })
        .def_property_readonly("counted_believed",
                               [](const TrajectoryView& v) { return index_array(v.get().counted_believed()); });

    // --- estimators and step rules ------------------------------------------------------
    py::class_<EstimatorBox>(m, "Estimator", "A gradient estimator.")
        .def_property_readonly("name", [](const EstimatorBox& e) { return std::string(e.name()); })
        .def_property_readonly("uses_steps", &EstimatorBox::uses_steps,
                               "whether it needs per-step scores (the per-step baseline; not with TabularBeliefPolicy)")
        .def("__repr__", [](const EstimatorBox& e) { return detail::message("maxent.Estimator('", e.name(), "')"); });
    m.def("Reinforce", [] { return EstimatorBox(Reinforce{}); }, "REINFORCE: (1/N) Σ_n F_n g_n (Algorithm 1 as printed)");
    m.def("BatchMeanBaseline", [] { return EstimatorBox(BatchMeanBaseline{}); },
          "(1/N) Σ_n (F_n - F̄) g_n (the authors' figures; biased by (N-1)/N)");
    m.def("LeaveOneOutBaseline", [] { return EstimatorBox(LeaveOneOutBaseline{}); },
          "(1/N) Σ_n (F_n - F̄_{-n}) g_n, the baseline from the other trajectories (unbiased)");
    m.def("OptimalBaseline", [] { return EstimatorBox(OptimalBaseline{}); },
          "per parameter, the variance-minimising baseline from the other trajectories (unbiased)");
    m.def("PerStepBaseline", [] { return EstimatorBox(PerStepBaseline{}); },
          "per step and parameter, the variance-minimising baseline from the other trajectories (unbiased);\n"
          "records N x K per-step scores per iteration; not with TabularBeliefPolicy (no per-step scores)");

    py::class_<StepBox>(m, "StepRule", "A step rule (gradient ascent).", py::dynamic_attr())
        .def_property_readonly("name", [](const StepBox& r) { return std::string(r.name()); })
        .def_property_readonly("alpha", &StepBox::alpha)
        .def("__repr__", [](const StepBox& r) {
            return detail::message("maxent.StepRule('", r.name(), "', alpha=", r.alpha(), ")");
        });
    // Each keeps its constructor's arguments in `_args` (pickling, copy.deepcopy, ==).
    auto with_args = [](StepBox r, py::tuple args) {
        py::object o = py::cast(std::move(r));
        o.attr("_args") = std::move(args);
        return o;
    };
    m.def("ConstantStep", [with_args](double alpha) { return with_args(StepBox(ConstantStep(alpha)), py::make_tuple(alpha)); },
          py::arg("alpha") = 0.3, "θ += α ĝ");
    m.def("Adam", [with_args](double alpha, double b1, double b2, double eps) {
              return with_args(StepBox(Adam(alpha, b1, b2, eps)), py::make_tuple(alpha, b1, b2, eps));
          },
          py::arg("alpha") = 0.05, py::arg("beta1") = 0.9, py::arg("beta2") = 0.999, py::arg("epsilon") = 1e-8,
          "Adam (ascent); its moments decay at every parameter, every step");
    m.def("LazyAdam",
          [with_args](double alpha, double b1, double b2, double eps) {
              return with_args(StepBox(LazyAdam(alpha, b1, b2, eps)), py::make_tuple(alpha, b1, b2, eps));
          },
          py::arg("alpha") = 0.05, py::arg("beta1") = 0.9, py::arg("beta2") = 0.999, py::arg("epsilon") = 1e-8,
          "Adam on the rows with a non-zero gradient only (a skipped row does not move; its decays are caught\n"
          "up when it is next updated): O(touched rows) per step on the trainer's row-sparse path; differs\n"
          "from Adam once a row is skipped");

    // --- the random generator -------------------------------------------------------------
    m.def("stream_seed", [](std::uint64_t seed, std::uint64_t run, std::uint64_t index) {
        return derive_seed(seed, run, index);
    }, py::arg("seed"), py::arg("run") = 0, py::arg("index") = 0, "The seed of stream(seed, run, index).");
}

}  // namespace maxent::python
