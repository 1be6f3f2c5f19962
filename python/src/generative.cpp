// python/src/generative.cpp — simulators: a generative world written in Python (a class with the
// sampling methods) and an explicit model seen as a simulator (GenerativeView), each filtered by
// the particle filter, and trained with ObservationPolicy (over the world's observations),
// BeliefAveragedPolicy, BelievedStatePolicy or BeliefMixturePolicy (over the filter's bins):
// one Trainer<World, ParticleFilter<World, Binning>, P, ...> per world kind and policy class.
// TabularBeliefPolicy (class B) is refused and never instantiated: its table has one row per
// distinct belief (equal within its tolerance), which the exact filter makes a function of the
// action-observation history; a particle filter's belief is a random histogram of freshly drawn
// particles, so the same history gives a different belief in every episode (one history of the
// 4 x 4 room with Gaussian observations, replayed 50 times through a filter of 1000 particles:
// 50 distinct beliefs at every step from the third on; the exact filter: one). Rows other than
// b_1's would almost never be visited twice, and the table would add a row at nearly every step.
//
// A Python world is called with the GIL held for the whole run (its states are Python objects,
// whose reference counts need it): one run at a time on the calling thread, signals checked
// every 100 ms between iterations. GenerativeView runs in C++ with the GIL released, like the
// finite models; the two are what python/examples/generative_slowdown.py compares.
#include <charconv>
#include <chrono>
#include <cmath>
#include <string_view>

#include "common.hpp"
#include "maxent/belief/particle_filter.hpp"
#include "maxent/model/generative_view.hpp"
#include "maxent/optim/evaluate.hpp"

namespace maxent::python {

namespace {

/// The generator handed to a Python world's methods: a view of the caller's generator,
/// valid during the call only (or an owned one, maxent.Rng(seed)).
struct PyRng {
    DefaultRng own{stream(0)};
    DefaultRng* g = nullptr;
    bool lent = false;  ///< a world's: draws only from the generator of the current call
    DefaultRng& get() {
        if (g != nullptr) return *g;
        if (lent)
            throw config_error("maxent.Rng: this generator was handed to a world method and is only valid during "
                               "that call; draw from the one the current call receives");
        return own;
    }
};

/// Points a PyRng at the caller's generator for one call.
struct Lend {
    PyRng* r;
    Lend(PyRng* rng, DefaultRng& g) : r(rng) { r->g = &g; }
    ~Lend() { r->g = nullptr; }
};

std::size_t to_index(const py::object& x, const char* what) {
    try {
        return x.cast<std::size_t>();
    } catch (const py::cast_error&) {
        throw model_error(detail::message(what, " returned ", std::string(py::repr(x)), ", not an index >= 0"));
    }
}

/// A GenerativePomdp + ObservationLikelihood + StateBinning over a Python object with
///   num_actions, num_observations, horizon, num_state_bins (ints or methods),
///   sample_initial_state(rng), sample_initial_observation(s, rng), sample_next_state(s, a, rng),
///   sample_observation(a, s, rng), observation_likelihood(a, o, s), state_bin(s).
/// Every call needs the GIL.
class PyWorld {
public:
    using state_type = py::object;

    explicit PyWorld(py::object env) : env_(std::move(env)) {
        auto size = [&](const char* name) {
            if (!py::hasattr(env_, name))
                throw config_error(detail::message("generative world ", std::string(py::repr(env_)), ": missing ", name));
            py::object v = env_.attr(name);
            if (PyCallable_Check(v.ptr())) v = v();
            return to_index(v, name);
        };
        A_ = size("num_actions");
        O_ = size("num_observations");
        T_ = size("horizon");
        bins_ = size("num_state_bins");
        auto method = [&](const char* name) {
            if (!py::hasattr(env_, name))
                throw config_error(detail::message("generative world ", std::string(py::repr(env_)), ": missing method ",
                                                   name));
            return env_.attr(name);
        };
        init_ = method("sample_initial_state");
        init_obs_ = method("sample_initial_observation");
        next_ = method("sample_next_state");
        obs_ = method("sample_observation");
        bin_ = method("state_bin");
        if (py::hasattr(env_, "observation_likelihood")) like_ = env_.attr("observation_likelihood");
        PyRng lent;
        lent.lent = true;
        rng_ = py::cast(std::move(lent));
        rng_ptr_ = rng_.cast<PyRng*>();
    }

    [[nodiscard]] std::size_t num_actions() const { return A_; }
    [[nodiscard]] std::size_t num_observations() const { return O_; }
    [[nodiscard]] std::size_t horizon() const { return T_; }
    [[nodiscard]] std::size_t num_state_bins() const { return bins_; }

    [[nodiscard]] py::object sample_initial_state(DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return init_(rng_);
    }
    [[nodiscard]] std::size_t sample_initial_observation(const py::object& s, DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return to_index(init_obs_(s, rng_), "sample_initial_observation");
    }
    [[nodiscard]] py::object sample_next_state(const py::object& s, std::size_t a, DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return next_(s, a, rng_);
    }
    [[nodiscard]] std::size_t sample_observation(std::size_t a, const py::object& s, DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return to_index(obs_(a, s, rng_), "sample_observation");
    }
    [[nodiscard]] double observation_likelihood(std::size_t a, std::size_t o, const py::object& s) const {
        if (!like_) throw config_error("generative world: a particle filter needs observation_likelihood(a, o, s)");
        const py::object r = like_(a, o, s);
        // A real number: a float, an int or a numpy scalar (not a bool, a complex, a string or None).
        const bool real = !py::isinstance<py::bool_>(r) && !PyComplex_Check(r.ptr()) &&
                          (PyFloat_Check(r.ptr()) || PyLong_Check(r.ptr()) ||
                           (py::hasattr(r, "dtype") && PyNumber_Check(r.ptr()) &&
                            py::str(r.attr("dtype").attr("kind")).cast<std::string>().find_first_of("fiu") == 0));
        if (!real)
            throw py::type_error(detail::message("observation_likelihood(a=", a, ", o=", o, ", s) returned ",
                                                 std::string(py::repr(r)), ", not a real number"));
        const double x = PyFloat_AsDouble(r.ptr());
        if (x == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            throw py::value_error(detail::message("observation_likelihood(a=", a, ", o=", o, ", s) returned ",
                                                  std::string(py::repr(r)), ", which is not a finite double"));
        }
        return x;
    }
    [[nodiscard]] std::size_t state_bin(const py::object& s) const { return to_index(bin_(s), "state_bin"); }
    [[nodiscard]] const py::object& object() const { return env_; }

private:
    py::object env_, init_, init_obs_, next_, obs_, bin_, like_, rng_;
    PyRng* rng_ptr_ = nullptr;
    std::size_t A_ = 0, O_ = 0, T_ = 0, bins_ = 0;
};
static_assert(require_environment<PyWorld>());

/// The particle filter's binning of a Python world's states: a callable, or the world's state_bin.
struct PyBinning {
    std::shared_ptr<PyWorld> world;
    py::object fn;  // None: world->state_bin
    std::size_t operator()(const py::object& s) const {
        if (fn.is_none()) return world->state_bin(s);
        return to_index(fn(s), "binning");
    }
};

using View = GenerativeView<Model>;
using PyPF = ParticleFilter<PyWorld, PyBinning>;
using ViewPF = ParticleFilter<View, IdentityBinning>;

struct PyGenerativeView {
    std::shared_ptr<PyModel> model;
    std::shared_ptr<View> view;
};

struct PyParticleFilter {
    std::shared_ptr<PyWorld> py_world;          // the Python world it filters, or
    std::shared_ptr<PyGenerativeView> view;     // the GenerativeView
    std::optional<PyPF> py_filter;
    std::optional<ViewPF> view_filter;
    std::size_t bins = 0;
    /// A Python world's filter runs one call at a time: its world lends one generator to the
    /// Python methods, which another thread's call would re-point while this one runs Python code.
    std::atomic<bool> busy{false};
};

/// Holds a Python world's particle filter for one call; ConfigError if another thread holds it.
class FilterInUse {
public:
    explicit FilterInUse(PyParticleFilter& p) : p_(p.py_filter ? &p : nullptr) {
        if (p_ != nullptr && p_->busy.exchange(true))
            throw config_error("ParticleFilter: this filter of a Python world is in use by another call (another "
                               "thread); a Python world's filter runs one call at a time: give each thread its own "
                               "ParticleFilter (and world object)");
    }
    FilterInUse(const FilterInUse&) = delete;
    FilterInUse& operator=(const FilterInUse&) = delete;
    ~FilterInUse() {
        if (p_ != nullptr) p_->busy.store(false);
    }

private:
    PyParticleFilter* p_;
};

ParticleFilterOptions pf_options(std::size_t particles, double threshold, const std::string& entropy) {
    ParticleFilterOptions o;
    o.particles = particles;
    o.resample_threshold = threshold;
    if (entropy == "miller_madow" || entropy == "miller-madow") o.entropy = ParticleEntropy::miller_madow;
    else if (entropy != "plug_in" && entropy != "plug-in")
        throw config_error(detail::message("ParticleFilter: unknown entropy '", entropy, "' (known: plug_in, miller_madow)"));
    return o;
}

}  // namespace

py::object train_generative(const py::object& world, const py::object& updater, const PyPolicy& policy,
                            const FeedbackBox& feedback, const EstimatorBox& estimator, const StepBox& step,
                            const TrainOptions& options) {
    if (!py::isinstance<PyParticleFilter>(updater))
        throw config_error(detail::message("train: a simulator world needs a ParticleFilter as its updater, got ",
                                           std::string(py::repr(updater))));
    if (const auto* b = std::get_if<TabularBeliefPolicy>(&policy.p)) {
        char tolerance[32];  // the shortest text that reads back as the tolerance ("1e-09", not 17 digits)
        const auto printed = std::to_chars(tolerance, tolerance + sizeof tolerance, b->tolerance());
        throw config_error(detail::message(
            "train: TabularBeliefPolicy (class B) is not offered with a particle filter: its table has one row per "
            "distinct belief (equal within tolerance ", std::string_view(tolerance, printed.ptr),
            "), and a particle filter's belief is a random histogram of freshly drawn particles, not a function of "
            "the actions and observations: the same history gives a different belief in every episode, so rows "
            "other than b_1's would almost never be visited twice and the table would add a row at nearly every "
            "step; use ObservationPolicy, BeliefAveragedPolicy, BelievedStatePolicy or BeliefMixturePolicy"));
    }
    const auto pf = updater.cast<std::shared_ptr<PyParticleFilter>>();
    const std::vector<std::uint64_t> seeds = seeds_of(options);
    std::vector<PyTrainResult> out(seeds.size());
    // Run i with a trainer of world W and updater U for the policy's class (class B is refused above).
    auto run = [&](std::size_t i, const auto& world_ref, const auto& filter, auto&& callback) {
        using W = std::decay_t<decltype(world_ref)>;
        using U = std::decay_t<decltype(filter)>;
        std::visit(
            [&](const auto& p) {
                using P = std::decay_t<decltype(p)>;
                if constexpr (std::is_same_v<P, TabularBeliefPolicy>) {
                    throw config_error("train: TabularBeliefPolicy is not offered with a particle filter");
                } else {
                    TrainerConfig c = options.config;
                    c.seed = seeds[i];
                    Trainer<W, U, P, FeedbackBox, EstimatorBox, StepBox> t(world_ref, filter, p, feedback, estimator,
                                                                           step, c);
                    TrainResult r = t.run(callback);
                    out[i].seed = seeds[i];
                    out[i].parameters = std::move(r.parameters);
                    out[i].history = std::move(r.history);
                    out[i].stopped_early = r.stopped_early;
                    out[i].policy = t.policy();
                    out[i].policy_class = PyPolicy{*out[i].policy}.class_name();
                }
            },
            policy.p);
    };
    if (py::isinstance<PyGenerativeView>(world)) {
        if (!pf->view_filter)
            throw config_error("train: the ParticleFilter was built for a Python world, not this GenerativeView");
        const auto v = world.cast<std::shared_ptr<PyGenerativeView>>();
        std::atomic<bool> stop{false};
        run_jobs(seeds.size(), options.threads, [&](std::size_t i) {
            run(i, *v->view, *pf->view_filter, [&](const IterationMetrics& m) {
                return !stop.load(std::memory_order_relaxed) && options.progress(seeds[i], m);
            });
        }, stop);
    } else {
        if (!pf->py_filter)
            throw config_error("train: the ParticleFilter was built for a GenerativeView, not a Python world");
        const PyWorld w(world);
        const FilterInUse hold(*pf);
        for (std::size_t i = 0; i < seeds.size(); ++i) {
            SignalPoll poll;
            poll.last_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                               std::chrono::steady_clock::now().time_since_epoch()).count();
            run(i, w, *pf->py_filter,
                [&](const IterationMetrics& m) { return poll(m) && options.progress(seeds[i], m); });
            if (poll.interrupted) throw py::error_already_set();
        }
    }
    return results(std::move(out), options);
}

Evaluation evaluate_generative(const py::object& world, const py::object& updater, const PyPolicy* policy,
                               std::size_t episodes, std::uint64_t seed, std::size_t /*threads: one*/, StateCounting counting) {
    const char* who = policy != nullptr ? "evaluate" : "evaluate_uniform";
    if (!py::isinstance<PyParticleFilter>(updater))
        throw config_error(detail::message(who, ": a simulator world needs a ParticleFilter as its updater, got ",
                                           std::string(py::repr(updater))));
    const auto pf = updater.cast<std::shared_ptr<PyParticleFilter>>();
    // The evaluation for the policy's class, or the uniform policy.
    auto run = [&](const auto& w, const auto& filter, std::size_t workers) -> Evaluation {
        if (policy == nullptr) return evaluate_uniform(w, filter, episodes, seed, workers, counting);
        return std::visit(
            [&](const auto& p) -> Evaluation {
                using P = std::decay_t<decltype(p)>;
                if constexpr (std::is_same_v<P, TabularBeliefPolicy>)
                    throw config_error(detail::message(who, ": TabularBeliefPolicy is not offered with a particle "
                                                       "filter (see train)"));
                else
                    return evaluate(w, filter, p, episodes, seed, workers, counting);
            },
            policy->p);
    };
    // A GenerativeView is refused: its model is evaluated as a Model (each world type here
    // instantiates the evaluation for every policy class, compile time the module pays).
    if (py::isinstance<PyGenerativeView>(world))
        throw config_error(detail::message(who, ": a GenerativeView is evaluated through its finite model: ", who,
                                           "(view.model, updater, ...) with a BayesFilter or NoisyBelief"));
    if (!pf->py_filter)
        throw config_error(detail::message(who, ": the ParticleFilter was built for a GenerativeView, not a Python "
                                           "world"));
    // A Python world runs on this thread, with the GIL (the results do not depend on the thread count).
    const PyWorld w(world);
    const FilterInUse hold(*pf);
    return run(w, *pf->py_filter, 1);
}

void bind_generative(py::module_& m) {
    py::class_<PyRng>(m, "Rng",
        "The library's generator (xoshiro256++). A world's methods receive one: draw from it only, so a run is\n"
        "a pure function of its seed.")
        .def(py::init([](std::uint64_t seed, std::uint64_t run, std::uint64_t index) {
                 PyRng r;
                 r.own = stream(seed, run, index);
                 return r;
             }),
             py::arg("seed") = 0, py::arg("run") = 0, py::arg("index") = 0)
        .def("uniform", [](PyRng& r) {
            DefaultRng& g = r.get();
            return uniform01(g);
        }, "a uniform draw in [0, 1)")
        .def("normal", [](PyRng& r) {
            DefaultRng& g = r.get();
            return standard_normal(g);
        }, "a standard normal draw")
        .def("integers", [](PyRng& r, std::uint64_t n) {
            if (n == 0) throw config_error("Rng.integers: n must be >= 1, got 0");
            DefaultRng& g = r.get();
            return uniform_index(g, n);
        }, py::arg("n"), "a uniform index in [0, n)")
        .def("categorical", [](PyRng& r, const Eigen::VectorXd& p) {
            double total = 0.0;
            for (Eigen::Index i = 0; i < p.size(); ++i) {
                if (!std::isfinite(p[i]) || p[i] < 0.0)
                    throw py::value_error(detail::message("Rng.categorical: probabilities[", i, "] is ", p[i],
                                                          ", not a finite probability >= 0"));
                total += p[i];
            }
            if (!(std::abs(total - 1.0) <= 1e-6))
                throw py::value_error(detail::message("Rng.categorical: the probabilities sum to ", total,
                                                      ", not 1 (within 1e-6)"));
            DefaultRng& g = r.get();
            return sample_categorical(p, g);
        }, py::arg("probabilities"), "an index drawn with the given probabilities (inverse CDF)");

    py::class_<PyGenerativeView, std::shared_ptr<PyGenerativeView>>(m, "GenerativeView",
        "A finite model seen as a simulator (states are indices, binning the identity): the particle filter of\n"
        "a world whose exact filter is known, and the C++ side of the Python-world slowdown measurement.")
        .def(py::init([](std::shared_ptr<PyModel> model) {
                 auto v = std::make_shared<PyGenerativeView>();
                 v->view = std::make_shared<View>(*model->model);
                 v->model = std::move(model);
                 return v;
             }),
             py::arg("model"))
        .def_readonly("model", &PyGenerativeView::model);

    py::class_<PyParticleFilter, std::shared_ptr<PyParticleFilter>>(m, "ParticleFilter",
        "A bootstrap particle filter of a simulator (a Python world, or GenerativeView): the belief is the\n"
        "histogram of the weighted particles over `bins` bins of `binning(state)` (default: the world's\n"
        "state_bin; the identity for GenerativeView). b_1 is `particles` draws of the initial state from\n"
        "stream(seed, ~0).")
        .def(py::init([](const py::object& world, std::optional<std::size_t> bins, const py::object& binning,
                         std::size_t particles, double resample_threshold, const std::string& entropy,
                         std::uint64_t seed) {
                 check_size("particles", particles, 64);
                 auto p = std::make_shared<PyParticleFilter>();
                 const ParticleFilterOptions o = pf_options(particles, resample_threshold, entropy);
                 DefaultRng g = stream(seed, ~std::uint64_t{0});
                 if (py::isinstance<PyGenerativeView>(world)) {
                     if (!binning.is_none())
                         throw config_error("ParticleFilter: a GenerativeView's particles are binned by state index "
                                            "(binning must be None)");
                     p->view = world.cast<std::shared_ptr<PyGenerativeView>>();
                     p->bins = bins.value_or(p->view->model->model->num_states());
                     p->view_filter.emplace(*p->view->view, p->bins, IdentityBinning{}, o, g);
                 } else {
                     p->py_world = std::make_shared<PyWorld>(world);
                     p->bins = bins.value_or(p->py_world->num_state_bins());
                     p->py_filter.emplace(*p->py_world, p->bins, PyBinning{p->py_world, binning}, o, g);
                 }
                 return p;
             }),
             py::arg("world"), py::arg("bins") = py::none(), py::arg("binning") = py::none(),
             py::arg("particles") = 1000, py::arg("resample_threshold") = 0.5, py::arg("entropy") = "plug_in",
             py::arg("seed") = 0)
        .def_readonly("bins", &PyParticleFilter::bins)
        .def_property_readonly("dimension", [](const PyParticleFilter& p) { return p.bins; })
        .def("initial", [](PyParticleFilter& p) {
            const FilterInUse hold(p);
            Eigen::VectorXd b;
            if (p.py_filter) p.py_filter->initial(b);
            else p.view_filter->initial(b);
            return b;
        }, "b_1: the histogram of the initial particles");
}

}  // namespace maxent::python
