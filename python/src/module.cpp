// python/src/module.cpp — the module `maxent`: the exception hierarchy, the components chosen
// at run time (feedbacks, estimators, step rules, the random generator), the job runner that
// releases the GIL, and the entry point that registers everything.
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <cmath>
#include <cstdio>
#include <thread>

#include "runtime/cli.hpp"  // physical_memory_bytes
#include "common.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/objective/knn_feedbacks.hpp"

namespace maxent::python {

// ---------------------------------------------------------------------------------------
// Errors: maxent::error and its subclasses become maxent.Error and its subclasses, with the
// same message. Translators registered later are tried first, so bases come first.
// ---------------------------------------------------------------------------------------

void bind_errors(py::module_& m) {
    static py::exception<error> base(m, "Error", PyExc_RuntimeError);
    static py::exception<model_error> model(m, "ModelError", base.ptr());
    // ConfigError is also a ValueError (a bad argument), built with both bases; its class object
    // lives as long as the process (released, not destroyed after the interpreter).
    static const py::handle config = [&] {
        py::dict ns;
        ns["__module__"] = "maxent";
        ns["__doc__"] = "A setting or argument with a value the library refuses (also a ValueError).";
        py::object t = py::module_::import("builtins").attr("type")("ConfigError", py::make_tuple(base, py::handle(PyExc_ValueError)), ns);
        m.attr("ConfigError") = t;
        return t.release();
    }();
    static py::exception<unknown_label_error> label(m, "UnknownLabelError", base.ptr());
    static py::exception<zero_likelihood_error> zero(m, "ZeroLikelihoodError", base.ptr());
    static py::exception<budget_error> budget(m, "BudgetError", base.ptr());
    static py::exception<numeric_error> numeric(m, "NumericError", config.ptr());
    static py::exception<parse_error> parse(m, "ParseError", base.ptr());
    py::register_exception_translator([](std::exception_ptr p) {
        try {
            if (p) std::rethrow_exception(p);
        } catch (const numeric_error& e) {
            numeric(e.what());
        } catch (const config_error& e) {
            PyErr_SetString(config.ptr(), e.what());
        } catch (const model_error& e) {
            model(e.what());
        } catch (const unknown_label_error& e) {
            label(e.what());
        } catch (const zero_likelihood_error& e) {
            zero(e.what());
        } catch (const budget_error& e) {
            budget(e.what());
        } catch (const parse_error& e) {
            parse(e.what());
        } catch (const error& e) {
            base(e.what());
        }
    });
}

std::vector<ModelInUse> models_in_use(const std::shared_ptr<PyModel>& world, const py::handle& updater) {
    std::vector<ModelInUse> out;
    if (world) out.emplace_back(world);
    if (py::isinstance<PyFilter>(updater)) out.emplace_back(updater.cast<PyFilter&>().agent);
    else if (py::isinstance<PyNoisy>(updater)) out.emplace_back(updater.cast<PyNoisy&>().inner->agent);
    return out;
}

void check_size(const char* what, std::size_t n, std::size_t bytes_each, std::size_t n_other) {
    // 2^46 bytes (64 TiB): more than any machine this runs on; the product is checked for overflow.
    // A zero factor needs no memory (and is the constructors' to refuse, naming it).
    constexpr std::size_t limit = std::size_t{1} << 46;
    const bool over = n != 0 && n_other != 0 && (n_other > limit / n || bytes_each > limit / (n * n_other));
    if (over)
        throw py::value_error(detail::message(what, " = ", n, n_other > 1 ? detail::message(" (x ", n_other, ")") : "",
                                              " is too large: it would need more than 2^46 bytes of memory"));
}

PyObject* numpy_bool_type = nullptr;
PyObject* masked_array_type = nullptr;

void init_argument_checks() {
    // Held for the life of the process, like the module's classes.
    numpy_bool_type = py::object(py::module_::import("numpy").attr("bool_")).release().ptr();
    masked_array_type = py::object(py::module_::import("numpy.ma").attr("MaskedArray")).release().ptr();
}

bool has_masked_entry(PyObject* x) {
    if (masked_array_type == nullptr || PyObject_IsInstance(x, masked_array_type) != 1) return false;
    static const py::handle getmaskarray = py::object(py::module_::import("numpy.ma").attr("getmaskarray")).release();
    return getmaskarray(py::handle(x)).attr("any")().cast<bool>();
}

void require_memory(const std::string& setting, const std::string& what, double bytes) {
    double have = programs::detail::physical_memory_bytes();  // the programs' reading of the machine
    if (have <= 0.0) have = static_cast<double>(std::uint64_t{1} << 46);
    if (!(bytes > have)) return;
    char msg[200];
    std::snprintf(msg, sizeof msg, " would take at least %.4g bytes (%.3g GiB) of memory, more than this machine's %.3g GiB",
                  bytes, bytes / 1073741824.0, have / 1073741824.0);
    throw config_error(detail::message(setting, ": ", what, msg));
}

Eigen::MatrixXd real_matrix(const py::handle& x, const std::string& who, Eigen::Index rows, Eigen::Index cols) {
    if (has_masked_entry(x.ptr()))
        throw config_error(detail::message(who, ": ", std::string(py::repr(x)),
                                           " is a masked array with masked entries (give the values: a plain array)"));
    py::object src = py::reinterpret_borrow<py::object>(x);
    if (masked_array_type != nullptr && PyObject_IsInstance(x.ptr(), masked_array_type) == 1) src = src.attr("data");
    const py::array a = py::module_::import("numpy").attr("asarray")(src);
    const char kind = a.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u')
        throw py::type_error(detail::message(who, ": an array of dtype ", std::string(py::str(a.dtype())),
                                             ", not of real numbers (ints or floats)"));
    auto shape_text = [&] {
        std::string t = "(";
        for (py::ssize_t i = 0; i < a.ndim(); ++i) t += std::to_string(a.shape(i)) + (a.ndim() == 1 ? "," : i + 1 < a.ndim() ? ", " : "");
        return t + ")";
    };
    const bool shape_ok = a.ndim() == 2 && (rows < 0 || a.shape(0) == rows) && (cols < 0 || a.shape(1) == cols);
    if (!shape_ok) {
        const std::string expected = rows >= 0 && cols >= 0 ? detail::message("a ", rows, " x ", cols, " array")
                                                             : std::string("a 2-d array");
        throw config_error(detail::message(who, ": expected ", expected, ", got an array of shape ", shape_text()));
    }
    const auto d = py::array_t<double, py::array::forcecast>::ensure(a);
    if (!d) throw py::error_already_set();
    const auto v = d.unchecked<2>();
    Eigen::MatrixXd out(v.shape(0), v.shape(1));
    for (py::ssize_t r = 0; r < v.shape(0); ++r)
        for (py::ssize_t c = 0; c < v.shape(1); ++c) {
            const double e = v(r, c);
            if (!std::isfinite(e))
                throw numeric_error(detail::message(who, ": entry [", r, ", ", c, "] is ", e, ", not finite"));
            out(r, c) = e;
        }
    return out;
}

namespace {
/// Why an object of a class that has no pickling cannot be pickled, and what to do instead.
std::string pickling_hint(const std::string& name) {
    if (name == "ParticleFilter")
        return "its particles live in C++; build a new ParticleFilter from the world and the same settings";
    if (name == "BayesFilter" || name == "NoisyBelief" || name == "GenerativeView")
        return "pickle its model (.model) and build a new one from it";
    if (name == "ObservationFeaturePolicy")
        return "its feature map may be a Python callable; save its parameters (a numpy array) and set them on a "
               "new policy";
    if (name == "TrajectoryView") return "it is valid only during the feedback call that received it";
    if (name == "Rng") return "build a new maxent.Rng from the seed";
    return "give its constructor's arguments (or its name) to the new process instead";
}
}  // namespace

void guard_pickling(py::module_& m) {
    const py::object newobj = py::module_::import("copyreg").attr("__newobj__");
    for (const auto item : m.attr("__dict__").cast<py::dict>()) {
        const py::handle cls = item.second;
        if (!PyType_Check(cls.ptr()) || py::detail::get_type_info(reinterpret_cast<PyTypeObject*>(cls.ptr())) == nullptr)
            continue;
        const py::dict own = cls.attr("__dict__").cast<py::dict>();
        if (own.contains("__reduce__")) continue;
        const std::string name = cls.attr("__name__").cast<std::string>();
        if (own.contains("__getstate__") && own.contains("__setstate__")) {
            // (copyreg.__newobj__, (cls,), state): cls.__new__(cls) then __setstate__(state), which
            // every protocol can express (protocol 0 and 1 as a call of copyreg.__newobj__).
            cls.attr("__reduce__") = py::cpp_function(
                [newobj](const py::object& self) {
                    return py::make_tuple(newobj, py::make_tuple(py::type::of(self)), self.attr("__getstate__")());
                },
                py::is_method(cls), py::name("__reduce__"));
        } else {
            cls.attr("__reduce__") = py::cpp_function(
                [name](const py::object&) -> py::object {
                    throw py::type_error(detail::message("cannot pickle 'maxent.", name, "' object: ", pickling_hint(name)));
                },
                py::is_method(cls), py::name("__reduce__"));
        }
    }
}

bool Progress::operator()(std::uint64_t seed, const IterationMetrics& m) const {
    if (!fn.obj) return true;
    const std::size_t done = m.iteration + 1;
    if (done % every != 0 && done != iterations) return true;
    py::gil_scoped_acquire gil;
    py::dict d;
    d["seed"] = seed;
    d["iteration"] = m.iteration;
    d["iterations"] = iterations;
    d["true_entropy"] = m.true_entropy;
    d["feedback"] = m.feedback;
    d["belief_entropy_sum"] = m.belief_entropy_sum;
    d["gradient_norm"] = m.gradient_norm;
    const py::object r = fn.get()(d);
    if (r.is_none()) return true;
    if (PyBool_Check(r.ptr()) || PyObject_IsInstance(r.ptr(), numpy_bool_type) == 1) return PyObject_IsTrue(r.ptr()) == 1;
    throw py::type_error(detail::message("progress returned ", std::string(py::repr(r)),
                                         "; return None or True to go on, False to stop the run"));
}

// ---------------------------------------------------------------------------------------
// Python objects held off the GIL
// ---------------------------------------------------------------------------------------

PyRef::PyRef(py::object o)
    : obj(new py::object(std::move(o)), [](py::object* p) {
          py::gil_scoped_acquire gil;
          delete p;
      }) {}

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

Noisy finite_updater(const py::object& u, const std::shared_ptr<PyModel>& world, const char* who) {
    if (u.is_none()) return Noisy(Filter(*world->model), 0.0);
    if (py::isinstance<PyFilter>(u)) return Noisy(u.cast<PyFilter&>().filter, 0.0);
    if (py::isinstance<PyNoisy>(u)) return u.cast<PyNoisy&>().make();
    throw config_error(detail::message(who, ": the updater of a finite world must be a BayesFilter or a NoisyBelief "
                                       "(or None: the world's exact filter), got ",
                                       std::string(py::repr(u))));
}

std::vector<std::uint64_t> seeds_of(const TrainOptions& o) {
    return o.seeds ? *o.seeds : std::vector<std::uint64_t>{o.config.seed};
}

py::object results(std::vector<PyTrainResult> runs, const TrainOptions& o) {
    if (!o.seeds) return to_python(std::move(runs.front()));
    py::list out;
    for (auto& r : runs) out.append(to_python(std::move(r)));
    return out;
}

StateCounting to_counting(const std::string& s) {
    if (s == "paper") return StateCounting::paper;
    if (s == "authors") return StateCounting::authors;
    throw config_error(detail::message("unknown counting '", s, "' (known: paper, authors)"));
}

// ---------------------------------------------------------------------------------------
// Jobs with the GIL released, and signals
// ---------------------------------------------------------------------------------------

void run_jobs(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& job,
              std::atomic<bool>& stop) {
    if (count == 0) return;
    const std::size_t workers = std::min(count, threads == 0 ? hardware_threads() : threads);
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::condition_variable cv;
    std::size_t running = workers;
    std::vector<std::exception_ptr> errors(count);
    std::vector<std::thread> pool;
    {
        py::gil_scoped_release release;
        for (std::size_t w = 0; w < workers; ++w)
            pool.emplace_back([&] {
                for (;;) {
                    const std::size_t i = next.fetch_add(1);
                    if (i >= count || stop.load()) break;
                    try {
                        job(i);
                    } catch (...) {
                        errors[i] = std::current_exception();
                        stop.store(true);
                    }
                }
                std::lock_guard<std::mutex> lock(mutex);
                if (--running == 0) cv.notify_all();
            });
    }
    // Wait with the GIL released; take it every 100 ms to let Python see signals.
    bool interrupted = false;
    for (;;) {
        bool done = false;
        {
            py::gil_scoped_release release;
            std::unique_lock<std::mutex> lock(mutex);
            done = cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return running == 0; });
        }
        if (done) break;
        if (!interrupted && PyErr_CheckSignals() != 0) {
            interrupted = true;
            stop.store(true);
        }
    }
    {
        py::gil_scoped_release release;
        for (auto& t : pool) t.join();
    }
    if (interrupted) throw py::error_already_set();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

bool SignalPoll::operator()(const IterationMetrics&) {
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
    if (ns - last_ns < 100'000'000) return true;
    last_ns = ns;
    if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        return false;
    }
    return true;
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

PYBIND11_MODULE(_core, m) {
    using namespace maxent::python;
    m.doc() =
        "maxent: state entropy maximisation in POMDPs (Python bindings of the header-only C++ library).\n"
        "Models from numpy arrays, grid worlds and POMDP files; exact and noisy belief filters, learned belief\n"
        "models, particle filters of simulators written in Python; the policy classes, feedbacks, estimators\n"
        "and step rules; train(), the exact objective, evaluation, estimator quality and the paper's experiments.\n"
        "The compiled part of the package maxent (maxent/__init__.py re-exports it with the Python helpers).";
    m.attr("__version__") = "0.1.0";
    init_argument_checks();
    bind_errors(m);
    bind_components(m);
    bind_models(m);
    bind_train(m);
    bind_analysis(m);
    bind_generative(m);
    bind_sequences(m);
    guard_pickling(m);
}
