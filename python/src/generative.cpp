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
// A Python world observes indices, or float vectors when it declares `observation_dim = d`
// (PyVecWorld: o is a read-only float64 array of shape (d,), weighed by observation_likelihood
// or observation_log_likelihood; kNN MOE and ObservationFeaturePolicy read it as a point). Such a
// world trains with BeliefAveragedPolicy or ObservationFeaturePolicy (the two instantiated for it).
// Either kind may give its true states as points (`state_point_dim = d`, `state_point(s)`) for kNN
// MSE and evaluate's kNN true-state entropy.
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
#include "maxent/objective/knn_feedbacks.hpp"
#include "maxent/policy/observation_features.hpp"
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

/// A Python value that must be a real number (a float, an int or a numpy scalar; not a bool,
/// a complex, a string or None), as a double; what() names the call in the TypeError (built
/// only on error: this runs once per particle).
template <class What>
double to_real(const py::object& r, const What& what) {
    const bool real = !py::isinstance<py::bool_>(r) && !PyComplex_Check(r.ptr()) &&
                      (PyFloat_Check(r.ptr()) || PyLong_Check(r.ptr()) ||
                       (py::hasattr(r, "dtype") && PyNumber_Check(r.ptr()) &&
                        py::str(r.attr("dtype").attr("kind")).cast<std::string>().find_first_of("fiu") == 0));
    if (!real) throw py::type_error(detail::message(what(), " returned ", std::string(py::repr(r)), ", not a real number"));
    const double x = PyFloat_AsDouble(r.ptr());
    if (x == -1.0 && PyErr_Occurred()) {
        PyErr_Clear();
        throw py::value_error(detail::message(what(), " returned ", std::string(py::repr(r)),
                                              ", which is not a finite double"));
    }
    return x;
}

/// Reads a Python float vector of length d into out (d doubles): a numpy array of a float
/// dtype and shape (d,), or for d = 1 also a float (Python or numpy) or a 0-d float array.
/// Anything else (ints, lists, bools, another shape, a NaN or infinite entry) is a
/// model_error naming the value: nothing is converted silently.
/// what() names the call (built only on error).
template <class What>
void read_vector(const py::handle& x, std::size_t d, double* out, const What& what, const char* declared) {
    auto refuse = [&](const std::string& why) {
        throw model_error(detail::message(what(), " returned ", std::string(py::repr(x)), ": ", why, "; ", declared,
                                          " = ", d, " asks for a numpy float array of shape (", d, ",)",
                                          d == 1 ? " or a float" : ""));
    };
    if (PyFloat_Check(x.ptr())) {  // a Python float or numpy.float64
        if (d != 1) refuse("a single float");
        out[0] = PyFloat_AsDouble(x.ptr());
    } else if (py::isinstance<py::array>(x)) {
        const auto a = py::reinterpret_borrow<py::array>(x);
        if (a.dtype().kind() != 'f') refuse(detail::message("an array of dtype ", std::string(py::str(a.dtype())),
                                                            ", not a float dtype"));
        const bool shape_ok = (a.ndim() == 1 && static_cast<std::size_t>(a.shape(0)) == d) || (a.ndim() == 0 && d == 1);
        if (!shape_ok) {
            std::string shape = "(";
            for (py::ssize_t i = 0; i < a.ndim(); ++i) shape += std::to_string(a.shape(i)) + (a.ndim() == 1 ? ",": i + 1 < a.ndim() ? ", " : "");
            refuse("an array of shape " + shape + ")");
        }
        const auto c = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
        if (!c) throw py::error_already_set();
        std::copy(c.data(), c.data() + d, out);
    } else if (!py::isinstance<py::bool_>(x) && !PyLong_Check(x.ptr()) && py::hasattr(x, "dtype") &&
               py::str(x.attr("dtype").attr("kind")).cast<std::string>() == "f") {  // numpy.float32 etc.
        if (d != 1) refuse("a single float");
        out[0] = PyFloat_AsDouble(x.ptr());
        if (out[0] == -1.0 && PyErr_Occurred()) throw py::error_already_set();
    } else {
        refuse(PyLong_Check(x.ptr()) ? "an int, not a float" : "not a float array");
    }
    for (std::size_t j = 0; j < d; ++j)
        if (!std::isfinite(out[j])) refuse(detail::message("entry ", j, " is ", out[j], ", not finite"));
}

/// An observation of a Python world that declares observation_dim = d: the read-only float64
/// array of shape (d,) the world's methods see, and its coordinates. Not an Eigen vector: the
/// particle filter passes the same observation to observation_likelihood once per particle,
/// and holding the Python array makes each of those calls conversion-free; a draw makes one
/// array (the Python call allocates anyway) and a copy is a reference count (the GIL is held
/// throughout a Python world's run). The array is a fresh copy, so a simulator that reuses
/// its own buffer cannot change recorded observations.
struct PyObservation {
    py::object array;
    const double* x = nullptr;
    std::size_t d = 0;
    /// As messages show it: its coordinates.
    friend std::ostream& operator<<(std::ostream& os, const PyObservation& o) {
        os << '(';
        for (std::size_t j = 0; j < o.d; ++j) os << (j ? ", " : "") << o.x[j];
        return os << ')';
    }
};

template <class What>
PyObservation make_observation(const py::handle& value, std::size_t d, const What& what) {
    py::array_t<double> a(static_cast<py::ssize_t>(d));
    read_vector(value, d, a.mutable_data(), what, "observation_dim");
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    PyObservation o;
    o.x = a.data();
    o.d = d;
    o.array = std::move(a);
    return o;
}

/// What both kinds of Python world share: sizes, the state samplers and binning, the lent
/// generator, and the optional map state -> R^d (`state_point_dim`, `state_point(s)`).
/// A Python object with num_actions, horizon, num_state_bins (ints or methods),
/// sample_initial_state(rng), sample_next_state(s, a, rng), state_bin(s). Every call needs the GIL.
class PyWorldBase {
public:
    using state_type = py::object;

    explicit PyWorldBase(py::object env) : env_(std::move(env)) {
        A_ = size("num_actions");
        T_ = size("horizon");
        bins_ = size("num_state_bins");
        init_ = method("sample_initial_state");
        init_obs_ = method("sample_initial_observation");
        next_ = method("sample_next_state");
        obs_ = method("sample_observation");
        bin_ = method("state_bin");
        const bool has_map = py::hasattr(env_, "state_point"), has_dim = py::hasattr(env_, "state_point_dim");
        if (has_map != has_dim)
            throw config_error(detail::message("generative world ", std::string(py::repr(env_)),
                                               has_map ? ": state_point(s) needs state_point_dim (the length of its "
                                                         "vectors)"
                                                       : ": state_point_dim needs the method state_point(s)"));
        if (has_map) {
            state_dim_ = size("state_point_dim");
            if (state_dim_ == 0) throw config_error("generative world: state_point_dim is 0; points need >= 1 coordinate");
            point_ = env_.attr("state_point");
        }
        PyRng lent;
        lent.lent = true;
        rng_ = py::cast(std::move(lent));
        rng_ptr_ = rng_.cast<PyRng*>();
    }

    [[nodiscard]] std::size_t num_actions() const { return A_; }
    [[nodiscard]] std::size_t horizon() const { return T_; }
    [[nodiscard]] std::size_t num_state_bins() const { return bins_; }
    [[nodiscard]] bool has_state_map() const { return state_dim_ > 0; }

    [[nodiscard]] py::object sample_initial_state(DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return init_(rng_);
    }
    [[nodiscard]] py::object sample_next_state(const py::object& s, std::size_t a, DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return next_(s, a, rng_);
    }
    [[nodiscard]] std::size_t state_bin(const py::object& s) const { return to_index(bin_(s), "state_bin"); }
    /// The true state as a point (kNN MSE); config_error when the world has no state_point.
    [[nodiscard]] std::size_t state_point_dimension() const {
        if (state_dim_ == 0)
            throw config_error(detail::message("generative world ", std::string(py::repr(env_)),
                                               ": counting true states as points (mse-knn) needs state_point_dim = d "
                                               "and a method state_point(s) returning a float array of shape (d,)"));
        return state_dim_;
    }
    void state_point(const py::object& s, std::span<double> out) const {
        read_vector(point_(s), state_dim_, out.data(), [] { return std::string("state_point(s)"); }, "state_point_dim");
    }
    [[nodiscard]] const py::object& object() const { return env_; }

protected:
    std::size_t size(const char* name) const {
        if (!py::hasattr(env_, name))
            throw config_error(detail::message("generative world ", std::string(py::repr(env_)), ": missing ", name));
        py::object v = env_.attr(name);
        if (PyCallable_Check(v.ptr())) v = v();
        return to_index(v, name);
    }
    py::object method(const char* name) const {
        if (!py::hasattr(env_, name))
            throw config_error(detail::message("generative world ", std::string(py::repr(env_)), ": missing method ",
                                               name));
        return env_.attr(name);
    }

    py::object env_, init_, init_obs_, next_, obs_, bin_, point_, rng_;
    PyRng* rng_ptr_ = nullptr;
    std::size_t A_ = 0, T_ = 0, bins_ = 0, state_dim_ = 0;
};

/// A GenerativePomdp + ObservationLikelihood + StateBinning over a Python world observing
/// indices: num_observations (int or method), sample_initial_observation(s, rng),
/// sample_observation(a, s, rng) -> int, observation_likelihood(a, o, s).
class PyWorld : public PyWorldBase {
public:
    explicit PyWorld(py::object env) : PyWorldBase(std::move(env)) {
        O_ = size("num_observations");
        if (py::hasattr(env_, "observation_likelihood")) like_ = env_.attr("observation_likelihood");
    }

    [[nodiscard]] std::size_t num_observations() const { return O_; }
    [[nodiscard]] std::size_t sample_initial_observation(const py::object& s, DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return to_index(init_obs_(s, rng_), "sample_initial_observation");
    }
    [[nodiscard]] std::size_t sample_observation(std::size_t a, const py::object& s, DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return to_index(obs_(a, s, rng_), "sample_observation");
    }
    [[nodiscard]] double observation_likelihood(std::size_t a, std::size_t o, const py::object& s) const {
        if (!like_) throw config_error("generative world: a particle filter needs observation_likelihood(a, o, s)");
        return to_real(like_(a, o, s), [&] { return detail::message("observation_likelihood(a=", a, ", o=", o, ", s)"); });
    }

private:
    py::object like_;
    std::size_t O_ = 0;
};
static_assert(require_environment<PyWorld>());

/// A Python world whose observations are float vectors: `observation_dim = d` (int or method),
/// sample_initial_observation(s, rng) and sample_observation(a, s, rng) returning a numpy float
/// array of shape (d,) (or a float when d = 1), and observation_likelihood(a, o, s) or
/// observation_log_likelihood(a, o, s) (the log form for densities that underflow; it wins
/// when both are given). The particle filter always weighs in logs here: a likelihood ℓ is
/// checked (NaN, negative or infinite: model_error naming it) and passed as log ℓ.
class PyVecWorld : public PyWorldBase {
public:
    using observation_type = PyObservation;

    explicit PyVecWorld(py::object env) : PyWorldBase(std::move(env)) {
        dim_ = size("observation_dim");
        if (dim_ == 0) throw config_error("generative world: observation_dim is 0; observation vectors need >= 1 entry");
        if (py::hasattr(env_, "observation_log_likelihood")) log_like_ = env_.attr("observation_log_likelihood");
        else if (py::hasattr(env_, "observation_likelihood")) like_ = env_.attr("observation_likelihood");
    }

    [[nodiscard]] std::size_t observation_dim() const { return dim_; }
    [[nodiscard]] PyObservation sample_initial_observation(const py::object& s, DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return make_observation(init_obs_(s, rng_), dim_, [] { return std::string("sample_initial_observation(s)"); });
    }
    [[nodiscard]] PyObservation sample_observation(std::size_t a, const py::object& s, DefaultRng& g) const {
        Lend l(rng_ptr_, g);
        return make_observation(obs_(a, s, rng_), dim_, [&] { return detail::message("sample_observation(a=", a, ", s)"); });
    }
    [[nodiscard]] double observation_log_likelihood(std::size_t a, const PyObservation& o, const py::object& s) const {
        if (log_like_)
            return to_real(log_like_(a, o.array, s), [] { return std::string("observation_log_likelihood(a, o, s)"); });
        if (!like_)
            throw config_error("generative world: a particle filter needs observation_likelihood(a, o, s) or "
                               "observation_log_likelihood(a, o, s)");
        const py::object r = like_(a, o.array, s);
        const double x = to_real(r, [] { return std::string("observation_likelihood(a, o, s)"); });
        if (!std::isfinite(x) || x < 0.0)
            throw model_error(detail::message("ParticleFilter: observation_likelihood(a = ", a, ", o = ",
                                              std::string(py::repr(o.array)), ", s) returned ",
                                              std::string(py::repr(r)), "; a likelihood is finite and >= 0"));
        return std::log(x);
    }
    [[nodiscard]] std::size_t observation_point_dimension() const { return dim_; }
    void observation_point(const PyObservation& o, std::span<double> out) const {
        std::copy(o.x, o.x + o.d, out.begin());
    }

private:
    py::object like_, log_like_;
    std::size_t dim_ = 0;
};
static_assert(require_environment<PyVecWorld>());
static_assert(has_observation_points<PyVecWorld> && has_state_points<PyVecWorld> && has_state_points<PyWorld>);

/// Whether a Python world declares vector observations (observation_dim).
bool vector_world(const py::handle& world) { return py::hasattr(world, "observation_dim"); }

/// The particle filter's binning of a Python world's states: a callable, or the world's state_bin.
struct PyBinning {
    std::shared_ptr<const PyWorldBase> world;
    py::object fn;  // None: world->state_bin
    std::size_t operator()(const py::object& s) const {
        if (fn.is_none()) return world->state_bin(s);
        return to_index(fn(s), "binning");
    }
};

using View = GenerativeView<Model>;
using PyPF = ParticleFilter<PyWorld, PyBinning>;
using PyVecPF = ParticleFilter<PyVecWorld, PyBinning>;
using ViewPF = ParticleFilter<View, IdentityBinning>;

struct PyGenerativeView {
    std::shared_ptr<PyModel> model;
    std::shared_ptr<View> view;
};

struct PyParticleFilter {
    std::shared_ptr<PyWorld> py_world;          // the Python world it filters (index observations), or
    std::shared_ptr<PyVecWorld> vec_world;      // the Python world it filters (vector observations), or
    std::shared_ptr<PyGenerativeView> view;     // the GenerativeView
    std::optional<PyPF> py_filter;
    std::optional<PyVecPF> vec_filter;
    std::optional<ViewPF> view_filter;
    std::size_t bins = 0;
    /// A Python world's filter runs one call at a time: its world lends one generator to the
    /// Python methods, which another thread's call would re-point while this one runs Python code.
    std::atomic<bool> busy{false};
};

/// Holds a Python world's particle filter for one call; ConfigError if another thread holds it.
class FilterInUse {
public:
    explicit FilterInUse(PyParticleFilter& p) : p_(p.py_filter || p.vec_filter ? &p : nullptr) {
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

/// A Python world's num_state_bins as the particle filter's belief length (require_memory).
void world_bins_memory(std::size_t bins) {
    require_memory(detail::message("ParticleFilter: the world's num_state_bins = ", bins), "its belief vector",
                   8.0 * static_cast<double>(bins));
}

ParticleFilterOptions pf_options(std::size_t particles, double threshold, const std::string& entropy) {
    ParticleFilterOptions o;
    o.particles = particles;
    o.resample_threshold = threshold;
    if (entropy == "miller_madow" || entropy == "miller-madow") o.entropy = ParticleEntropy::miller_madow;
    else if (entropy != "plug_in" && entropy != "plug-in")
        throw config_error(detail::message("ParticleFilter: unknown entropy '", entropy, "' (known: plug_in, miller_madow)"));
    return o;
}

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

SimPolicy sim_policy(const py::handle& policy) {
    if (py::isinstance<PyFeaturePolicy>(policy)) return &policy.cast<const PyFeaturePolicy&>();
    if (py::isinstance<PyPolicy>(policy)) return &policy.cast<const PyPolicy&>();
    throw config_error(detail::message("not a policy: ", std::string(py::repr(policy))));
}

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

/// The Python world a particle filter was built for, checked against the world given.
void check_filter_world(const PyParticleFilter& pf, const py::object& world, const char* who) {
    if (pf.view_filter)
        throw config_error(detail::message(who, ": the ParticleFilter was built for a GenerativeView, not a Python "
                                           "world"));
    const bool vec = pf.vec_filter.has_value();
    if (vec != vector_world(world))
        throw config_error(detail::message(who, ": the ParticleFilter was built for a world with ",
                                           vec ? "vector" : "index", " observations, and ",
                                           std::string(py::repr(world)), vec ? " observes indices" :
                                           " declares observation_dim (vectors)"));
}

}  // namespace

/// Evaluation as Python sees it: per quantity mean, low, high, n (None when not computed),
/// the estimators used, and how the kNN quantities counted ties.
py::dict evaluation_dict(const Evaluation& e) {
    auto interval = [](const MeanInterval& x) -> py::object {
        if (x.n == 0) return py::none();
        py::dict d;
        d["mean"] = x.mean;
        d["low"] = x.low;
        d["high"] = x.high;
        d["n"] = x.n;
        return d;
    };
    py::dict d;
    d["episodes"] = e.episodes;
    d["true_entropy"] = interval(e.true_entropy);
    d["observation_entropy"] = interval(e.observation_entropy);
    d["believed_entropy"] = interval(e.believed_entropy);
    d["belief_entropy_sum"] = interval(e.belief_entropy_sum);
    d["true_entropy_knn"] = interval(e.true_entropy_knn);
    d["true_entropy_estimator"] = "binned";
    d["observation_entropy_estimator"] = std::string(e.observation_entropy_estimator);
    d["true_entropy_knn_estimator"] = std::string(e.true_entropy_knn_estimator);
    d["knn_k"] = e.knn_k;
    d["knn_rule"] = std::string(e.knn_rule);
    d["knn_resolution_low"] = e.knn_resolution_low;
    d["knn_resolution_high"] = e.knn_resolution_high;
    d["knn_floored"] = e.knn_floored;
    return d;
}

py::object train_simulator(const py::object& world, const py::object& updater, const SimPolicy& policy,
                           const FeedbackBox& feedback, const EstimatorBox& estimator, const StepBox& step,
                           const TrainOptions& options) {
    if (py::isinstance<PyModel>(world))
        throw config_error("train: ObservationFeaturePolicy reads observations as vectors; a finite Model observes "
                           "indices (use a simulator that declares observation_dim)");
    if (!py::isinstance<PyParticleFilter>(updater))
        throw config_error(detail::message("train: a simulator world needs a ParticleFilter as its updater, got ",
                                           std::string(py::repr(updater))));
    if (const auto* const* pp = std::get_if<const PyPolicy*>(&policy))
        if (const auto* b = std::get_if<TabularBeliefPolicy>(&(*pp)->p)) {
            char tolerance[32];  // the shortest text that reads back as the tolerance ("1e-09", not 17 digits)
            const auto printed = std::to_chars(tolerance, tolerance + sizeof tolerance, b->tolerance());
            throw config_error(detail::message(
                "train: TabularBeliefPolicy (class B) is not offered with a particle filter: its table has one row "
                "per distinct belief (equal within tolerance ", std::string_view(tolerance, printed.ptr),
                "), and a particle filter's belief is a random histogram of freshly drawn particles, not a function "
                "of the actions and observations: the same history gives a different belief in every episode, so "
                "rows other than b_1's would almost never be visited twice and the table would add a row at nearly "
                "every step; use ObservationPolicy, BeliefAveragedPolicy, BelievedStatePolicy or "
                "BeliefMixturePolicy"));
        }
    const auto pf = updater.cast<std::shared_ptr<PyParticleFilter>>();
    const std::vector<std::uint64_t> seeds = seeds_of(options);
    std::vector<PyTrainResult> out(seeds.size());
    // Run i with a trainer of world W and updater U for the policy's class.
    auto run = [&](std::size_t i, const auto& world_ref, const auto& filter, auto&& callback) {
        using W = std::decay_t<decltype(world_ref)>;
        using U = std::decay_t<decltype(filter)>;
        with_policy<W>(policy, "train", [&](const auto& p) {
            using P = std::decay_t<decltype(p)>;
            TrainerConfig c = options.config;
            c.seed = seeds[i];
            Trainer<W, U, P, FeedbackBox, EstimatorBox, StepBox> t(world_ref, filter, p, feedback, estimator, step, c);
            TrainResult r = t.run(callback);
            out[i].seed = seeds[i];
            out[i].parameters = std::move(r.parameters);
            out[i].history = std::move(r.history);
            out[i].stopped_early = r.stopped_early;
            if constexpr (std::is_same_v<P, FeaturePolicy>) {
                out[i].policy_class = "ObservationFeaturePolicy";  // result.policy: None (θ is `parameters`)
            } else {
                out[i].policy = t.policy();
                out[i].policy_class = PyPolicy{*out[i].policy}.class_name();
            }
        });
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
        check_filter_world(*pf, world, "train");
        const FilterInUse hold(*pf);
        // A Python world runs on the calling thread with the GIL held; signals are polled.
        auto each = [&](const auto& w, const auto& filter) {
            for (std::size_t i = 0; i < seeds.size(); ++i) {
                SignalPoll poll;
                poll.last_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::steady_clock::now().time_since_epoch()).count();
                run(i, w, filter, [&](const IterationMetrics& m) { return poll(m) && options.progress(seeds[i], m); });
                if (poll.interrupted) throw py::error_already_set();
            }
        };
        if (pf->vec_filter) each(PyVecWorld(world), *pf->vec_filter);
        else each(PyWorld(world), *pf->py_filter);
    }
    return results(std::move(out), options);
}

py::object train_generative(const py::object& world, const py::object& updater, const PyPolicy& policy,
                            const FeedbackBox& feedback, const EstimatorBox& estimator, const StepBox& step,
                            const TrainOptions& options) {
    return train_simulator(world, updater, SimPolicy{&policy}, feedback, estimator, step, options);
}

namespace {

Evaluation evaluate_simulator(const py::object& world, const py::object& updater, const SimPolicy* policy,
                              std::size_t episodes, std::uint64_t seed, StateCounting counting, KnnCounting knn) {
    const char* who = policy != nullptr ? "evaluate" : "evaluate_uniform";
    if (py::isinstance<PyModel>(world))
        throw config_error(detail::message(who, ": ObservationFeaturePolicy reads observations as vectors; a finite "
                                           "Model observes indices"));
    if (!py::isinstance<PyParticleFilter>(updater))
        throw config_error(detail::message(who, ": a simulator world needs a ParticleFilter as its updater, got ",
                                           std::string(py::repr(updater))));
    const auto pf = updater.cast<std::shared_ptr<PyParticleFilter>>();
    // A GenerativeView is refused: its model is evaluated as a Model (each world type here
    // instantiates the evaluation for every policy class, compile time the module pays).
    if (py::isinstance<PyGenerativeView>(world))
        throw config_error(detail::message(who, ": a GenerativeView is evaluated through its finite model: ", who,
                                           "(view.model, updater, ...) with a BayesFilter or NoisyBelief"));
    check_filter_world(*pf, world, who);
    const FilterInUse hold(*pf);
    // A Python world runs on this thread, with the GIL (the results do not depend on the thread count).
    auto run = [&](const auto& w, const auto& filter) -> Evaluation {
        using W = std::decay_t<decltype(w)>;
        knn.state_points = w.has_state_map();
        // The uniform policy as the θ = 0 belief-averaged policy, which evaluate_uniform equals bit
        // for bit (optim/evaluate.hpp): one rollout instantiation fewer per world type.
        if (policy == nullptr)
            return evaluate(w, filter, BeliefAveragedPolicy(filter.dimension(), w.num_actions()), episodes, seed, 1,
                            counting, knn);
        return with_policy<W>(*policy, who, [&](const auto& p) {
            return evaluate(w, filter, p, episodes, seed, 1, counting, knn);
        });
    };
    try {
        if (pf->vec_filter) return run(PyVecWorld(world), *pf->vec_filter);
        return run(PyWorld(world), *pf->py_filter);
    } catch (const numeric_error& e) {
        if (std::string_view(e.what()).find("knn_entropy") == std::string_view::npos) throw;
        throw numeric_error(detail::message(e.what(), " (", who, ": leave knn_min_distance None for the scale rule, "
                                            "pass a resolution > 0 in the points' units, or knn_k = 0 for no kNN "
                                            "quantity)"));
    }
}

}  // namespace

py::dict evaluate_generative(const py::object& world, const py::object& updater, const py::object& policy,
                             std::size_t episodes, std::uint64_t seed, StateCounting counting, const KnnCounting& knn) {
    if (policy.is_none()) return evaluation_dict(evaluate_simulator(world, updater, nullptr, episodes, seed, counting, knn));
    const SimPolicy p = sim_policy(policy);
    return evaluation_dict(evaluate_simulator(world, updater, &p, episodes, seed, counting, knn));
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
        "stream(seed, ~0). A world that declares observation_dim = d observes float vectors, weighed by\n"
        "observation_likelihood(a, o, s) or observation_log_likelihood(a, o, s) (o: a read-only float64 array).")
        .def(py::init([](const py::object& world, std::optional<std::size_t> bins, const py::object& binning,
                         std::size_t particles, double resample_threshold, const std::string& entropy,
                         std::uint64_t seed) {
                 check_size("particles", particles, 64);
                 require_memory(detail::message("ParticleFilter: particles = ", particles), "its particles and weights",
                                64.0 * static_cast<double>(particles));
                 if (bins)  // the belief (and each policy row over it) holds `bins` doubles
                     require_memory(detail::message("ParticleFilter: bins = ", *bins), "its belief vector",
                                    8.0 * static_cast<double>(*bins));
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
                 } else if (vector_world(world)) {
                     p->vec_world = std::make_shared<PyVecWorld>(world);
                     p->bins = bins.value_or(p->vec_world->num_state_bins());
                     if (!bins) world_bins_memory(p->bins);
                     p->vec_filter.emplace(*p->vec_world, p->bins, PyBinning{p->vec_world, binning}, o, g);
                 } else {
                     p->py_world = std::make_shared<PyWorld>(world);
                     p->bins = bins.value_or(p->py_world->num_state_bins());
                     if (!bins) world_bins_memory(p->bins);
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
            else if (p.vec_filter) p.vec_filter->initial(b);
            else p.view_filter->initial(b);
            return b;
        }, "b_1: the histogram of the initial particles");

    // --- vector observations: kNN feedbacks, observation features, evaluation ------------
    py::class_<PyFeatureMap>(m, "ObservationFeatures",
        "A feature map ψ of a vector observation, for ObservationFeaturePolicy: RawObservationFeatures,\n"
        "RbfObservationFeatures, ObservationTiles or UserObservationFeatures (a Python callable).")
        .def_property_readonly("dimension", &PyFeatureMap::dimension, "F, the number of features")
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
              return PyFeatureMap(RawObservationFeatures(d));
          },
          py::arg("observation_dim"), "ψ(o) = (o_1, .., o_d, 1): the raw vector and a bias.");
    m.def("RbfObservationFeatures",
          [](const py::object& centres, double width) {
              // Exactly 2-d: a 1-d array is refused, not read as m centres of one coordinate.
              return PyFeatureMap(RbfObservationFeatures(real_matrix(centres, "RbfObservationFeatures: centres"), width));
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
              return PyFeatureMap(ObservationTiles(d, low, high, tiles, tilings));
          },
          py::arg("observation_dim"), py::arg("low"), py::arg("high"), py::arg("tiles"), py::arg("tilings") = 1,
          "Tile coding of [low, high]^d: `tilings` offset grids of `tiles` cells per axis, one 1 per tiling.");
    m.def("UserObservationFeatures",
          [feature_memory](py::function fn, std::size_t dimension) {
              if (dimension == 0) throw config_error("UserObservationFeatures: dimension 0; ψ needs >= 1 feature");
              feature_memory("UserObservationFeatures: dimension = ", dimension);
              return PyFeatureMap(PyUserFeatures{std::move(fn), dimension});
          },
          py::arg("fn"), py::arg("dimension"),
          "ψ written in Python: fn(o) -> a float array of shape (dimension,), o a read-only float64 array.");

    py::class_<PyFeaturePolicy>(m, "ObservationFeaturePolicy",
        "softmax(θᵀ ψ(o)) over a vector observation o (worlds that declare observation_dim), θ: F x A, zero at\n"
        "the start. features: an ObservationFeatures, or a Python callable o -> float array with `dimension`\n"
        "given. train() returns its θ as result.parameters (result.policy is None: set policy.parameters).")
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
                 return PyFeaturePolicy{FeaturePolicy(PyFeatureMap(PyUserFeatures{features, *dimension}), num_actions)};
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

    m.def(
        "_train_simulator",
        [](const py::object& world, const py::object& updater, const py::object& policy, const py::object& feedback,
           const py::object& estimator, const py::object& step, std::size_t iterations, std::size_t batch,
           std::uint64_t seed, std::optional<std::vector<std::uint64_t>> seeds, const std::string& counting,
           bool track_belief_entropy, std::size_t threads, const py::object& progress, std::size_t progress_every) {
            const TrainOptions o = train_options(iterations, batch, seed, std::move(seeds), counting,
                                                 track_belief_entropy, threads, progress, progress_every);
            return train_simulator(world, updater, sim_policy(policy), to_feedback(feedback), to_estimator(estimator),
                                   to_step(step), o);
        },
        py::arg("world"), py::arg("updater"), py::arg("policy"), py::arg("feedback") = "mse",
        py::arg("estimator") = "batch-mean", py::arg("step") = "constant", py::kw_only(),
        py::arg("iterations") = 1000, py::arg("batch") = 10, py::arg("seed") = 0, py::arg("seeds") = py::none(),
        py::arg("counting") = "paper", py::arg("track_belief_entropy") = true, py::arg("threads") = 0,
        py::arg("progress") = py::none(), py::arg("progress_every") = 1,
        "train() on a simulator with any policy it is offered with, ObservationFeaturePolicy included (maxent.train\n"
        "calls it for that policy).");
}

}  // namespace maxent::python
