// python/src/sim_worlds.hpp — the Python-world adapters: a generative world written in Python
// (a class with the sampling methods) as the library's GenerativePomdp, observing indices (PyWorld)
// or float vectors (PyVecWorld), the generator its methods receive (PyRng), an explicit model seen
// as a simulator (GenerativeView), and the particle filter of each (PyParticleFilter). Shared by
// the files that bind them (sim_worlds.cpp), train on them (sim_train.cpp) and evaluate on them
// (sim_evaluate.cpp); the feature maps of vector observations are in features.hpp.
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
#pragma once

#include <algorithm>
#include <cmath>
#include <cstring>
#include <ostream>
#include <vector>
#include <span>

#include "common.hpp"
#include "maxent/belief/particle_filter.hpp"
#include "maxent/model/generative_view.hpp"
#include "runtime/algorithm_simulator.hpp"
#include "runtime/simulator.hpp"

namespace maxent::python {

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

inline std::size_t to_index(const py::object& x, const char* what) {
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

/// A Python object as a simulator's state or observation handle (runtime/simulator.hpp): the
/// PyObject* and its reference count, which every copy and destruction touches (the GIL is held
/// throughout a Python world's run).
inline const programs::OpaqueValue::Ops python_object_ops{
    [](void* p) noexcept { Py_INCREF(static_cast<PyObject*>(p)); },
    [](void* p) noexcept { Py_DECREF(static_cast<PyObject*>(p)); }};
/// Takes over `o`'s reference.
inline programs::OpaqueValue opaque(py::object o) { return {o.release().ptr(), &python_object_ops}; }
/// The Python object held (borrowed).
inline py::handle object_of(const programs::OpaqueValue& v) { return py::handle(static_cast<PyObject*>(v.get())); }

/// An observation of a Python world that declares observation_dim = d: the read-only float64
/// array of shape (d,) the world's methods see (the handle), and its coordinates. Not an Eigen
/// vector: the particle filter passes the same observation to observation_likelihood once per
/// particle, and holding the Python array makes each of those calls conversion-free; a draw
/// makes one array (the Python call allocates anyway) and a copy is a reference count. The
/// array is a fresh copy, so a simulator that reuses its own buffer cannot change recorded
/// observations.
using PyObservation = programs::SimulatorObservation;

template <class What>
PyObservation make_observation(const py::handle& value, std::size_t d, const What& what) {
    py::array_t<double> a(static_cast<py::ssize_t>(d));
    read_vector(value, d, a.mutable_data(), what, "observation_dim");
    py::detail::array_proxy(a.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
    PyObservation o;
    o.x = a.data();
    o.d = d;
    o.value = opaque(std::move(a));
    return o;
}

/// What both kinds of Python world share: sizes, the state samplers and binning, the lent
/// generator, and the optional map state -> R^d (`state_point_dim`, `state_point(s)`).
/// A Python object with num_actions, horizon, num_state_bins (ints or methods),
/// sample_initial_state(rng), sample_next_state(s, a, rng), state_bin(s). Every call needs the GIL.
/// `Interface` is the runtime's simulator kind it implements (runtime/simulator.hpp), so that
/// the runtime's trainers run it (runtime/algorithm_simulator.hpp); states are the Python objects.
template <class Interface>
class PyWorldBase : public Interface {
public:
    explicit PyWorldBase(py::object env) : env_(std::move(env)) {
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

    [[nodiscard]] std::size_t horizon() const override { return T_; }
    [[nodiscard]] std::size_t num_state_bins() const override { return bins_; }
    [[nodiscard]] bool has_state_map() const { return state_dim_ > 0; }

    [[nodiscard]] programs::OpaqueValue sample_initial_state(DefaultRng& g) const override {
        Lend l(rng_ptr_, g);
        return opaque(init_(rng_));
    }
    [[nodiscard]] std::size_t state_bin(const programs::OpaqueValue& s) const override {
        return to_index(bin_(object_of(s)), "state_bin");
    }
    /// The true state as a point (kNN MSE); config_error when the world has no state_point.
    [[nodiscard]] std::size_t state_point_dimension() const override {
        if (state_dim_ == 0)
            throw config_error(detail::message("generative world ", std::string(py::repr(env_)),
                                               ": counting true states as points (mse-knn) needs state_point_dim = d "
                                               "and a method state_point(s) returning a float array of shape (d,)"));
        return state_dim_;
    }
    void state_point(const programs::OpaqueValue& s, std::span<double> out) const override {
        read_vector(point_(object_of(s)), state_dim_, out.data(), [] { return std::string("state_point(s)"); }, "state_point_dim");
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
    std::size_t T_ = 0, bins_ = 0, state_dim_ = 0;
};

/// A Python world's index actions: num_actions (int or method), sample_next_state(s, a, rng) with
/// a an int. `Interface`: the runtime's IndexSimulator or VectorSimulator.
template <class Interface>
class PyIndexWorldBase : public PyWorldBase<Interface> {
public:
    explicit PyIndexWorldBase(py::object env) : PyWorldBase<Interface>(std::move(env)) {
        A_ = this->size("num_actions");
    }
    [[nodiscard]] std::size_t num_actions() const override { return A_; }
    [[nodiscard]] programs::OpaqueValue sample_next_state(const programs::OpaqueValue& s, std::size_t a,
                                                          DefaultRng& g) const override {
        Lend l(this->rng_ptr_, g);
        return opaque(this->next_(object_of(s), a, this->rng_));
    }

protected:
    std::size_t A_ = 0;
};

/// A GenerativePomdp + ObservationLikelihood + StateBinning over a Python world observing
/// indices: num_observations (int or method), sample_initial_observation(s, rng),
/// sample_observation(a, s, rng) -> int, observation_likelihood(a, o, s).
class PyWorld final : public PyIndexWorldBase<programs::IndexSimulator> {
public:
    explicit PyWorld(py::object env) : PyIndexWorldBase(std::move(env)) {
        O_ = size("num_observations");
        if (py::hasattr(env_, "observation_likelihood")) like_ = env_.attr("observation_likelihood");
    }

    [[nodiscard]] std::size_t num_observations() const override { return O_; }
    [[nodiscard]] std::size_t sample_initial_observation(const programs::OpaqueValue& s, DefaultRng& g) const override {
        Lend l(rng_ptr_, g);
        return to_index(init_obs_(object_of(s), rng_), "sample_initial_observation");
    }
    [[nodiscard]] std::size_t sample_observation(std::size_t a, const programs::OpaqueValue& s,
                                                 DefaultRng& g) const override {
        Lend l(rng_ptr_, g);
        return to_index(obs_(a, object_of(s), rng_), "sample_observation");
    }
    [[nodiscard]] double observation_likelihood(std::size_t a, std::size_t o,
                                                const programs::OpaqueValue& s) const override {
        if (!like_) throw config_error("generative world: a particle filter needs observation_likelihood(a, o, s)");
        return to_real(like_(a, o, object_of(s)),
                       [&] { return detail::message("observation_likelihood(a=", a, ", o=", o, ", s)"); });
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
class PyVecWorld final : public PyIndexWorldBase<programs::VectorSimulator> {
public:
    explicit PyVecWorld(py::object env) : PyIndexWorldBase(std::move(env)) {
        dim_ = size("observation_dim");
        if (dim_ == 0) throw config_error("generative world: observation_dim is 0; observation vectors need >= 1 entry");
        if (py::hasattr(env_, "observation_log_likelihood")) log_like_ = env_.attr("observation_log_likelihood");
        else if (py::hasattr(env_, "observation_likelihood")) like_ = env_.attr("observation_likelihood");
    }

    [[nodiscard]] std::size_t observation_dim() const override { return dim_; }
    [[nodiscard]] PyObservation sample_initial_observation(const programs::OpaqueValue& s, DefaultRng& g) const override {
        Lend l(rng_ptr_, g);
        return make_observation(init_obs_(object_of(s), rng_), dim_,
                                [] { return std::string("sample_initial_observation(s)"); });
    }
    [[nodiscard]] PyObservation sample_observation(std::size_t a, const programs::OpaqueValue& s,
                                                   DefaultRng& g) const override {
        Lend l(rng_ptr_, g);
        return make_observation(obs_(a, object_of(s), rng_), dim_,
                                [&] { return detail::message("sample_observation(a=", a, ", s)"); });
    }
    [[nodiscard]] double observation_log_likelihood(std::size_t a, const PyObservation& o,
                                                    const programs::OpaqueValue& s) const override {
        const py::handle array = object_of(o.value);
        if (log_like_)
            return to_real(log_like_(a, array, object_of(s)),
                           [] { return std::string("observation_log_likelihood(a, o, s)"); });
        if (!like_)
            throw config_error("generative world: a particle filter needs observation_likelihood(a, o, s) or "
                               "observation_log_likelihood(a, o, s)");
        const py::object r = like_(a, array, object_of(s));
        const double x = to_real(r, [] { return std::string("observation_likelihood(a, o, s)"); });
        if (!std::isfinite(x) || x < 0.0)
            throw model_error(detail::message("ParticleFilter: observation_likelihood(a = ", a, ", o = ",
                                              std::string(py::repr(array)), ", s) returned ",
                                              std::string(py::repr(r)), "; a likelihood is finite and >= 0"));
        return std::log(x);
    }

private:
    py::object like_, log_like_;
    std::size_t dim_ = 0;
};
static_assert(require_environment<PyVecWorld>());
static_assert(has_observation_points<PyVecWorld> && has_state_points<PyVecWorld> && has_state_points<PyWorld>);

/// A simulator's kind for the policies it is offered: index observations, vector observations,
/// or continuous actions (with vector observations).
enum class SimKind { index, vector, continuous };

/// Whether a Python world declares vector observations (observation_dim).
inline bool vector_world(const py::handle& world) { return py::hasattr(world, "observation_dim"); }

/// Whether a Python world declares continuous actions (action_dim).
inline bool action_world(const py::handle& world) { return py::hasattr(world, "action_dim"); }

/// A Python world with continuous actions: `action_dim = d` (int or method) and the box
/// `action_low`, `action_high` (sequences of d finite numbers, low < high per coordinate; or
/// methods returning them). Its sample_next_state(s, a, rng), sample_observation(a, s, rng) and
/// observation_(log_)likelihood(a, o, s) receive a as a read-only float64 numpy array of shape
/// (d,). Observations are float vectors (`observation_dim`, as PyVecWorld's): a world with
/// action_dim and no observation_dim is refused, naming what to declare. The array handed to
/// the world is made once per distinct action and reused while the action stays the same (the
/// particle filter calls the world once per particle with one action), so a world may keep it.
class PyActWorld final : public PyWorldBase<programs::ContinuousSimulator> {
public:
    explicit PyActWorld(py::object env) : PyWorldBase(checked(std::move(env))) {
        const auto name = [&] { return std::string(py::repr(env_)); };
        d_ = size("action_dim");
        if (d_ == 0) throw config_error(detail::message("generative world ", name(), ": action_dim is 0; an action needs >= 1 coordinate"));
        std::vector<double> lo = bound("action_low"), hi = bound("action_high");
        box_ = ActionBox(std::move(lo), std::move(hi));
        box_.check(detail::message("generative world ", name()).c_str());
        dim_ = size("observation_dim");
        if (dim_ == 0) throw config_error("generative world: observation_dim is 0; observation vectors need >= 1 entry");
        if (py::hasattr(env_, "observation_log_likelihood")) log_like_ = env_.attr("observation_log_likelihood");
        else if (py::hasattr(env_, "observation_likelihood")) like_ = env_.attr("observation_likelihood");
    }

    [[nodiscard]] ActionBox action_box() const override { return box_; }
    [[nodiscard]] std::size_t action_dim() const { return d_; }
    [[nodiscard]] std::size_t observation_dim() const override { return dim_; }

    [[nodiscard]] programs::OpaqueValue sample_next_state(const programs::OpaqueValue& s, const Eigen::VectorXd& a,
                                                          DefaultRng& g) const override {
        const py::object& x = array_of(a);
        Lend l(rng_ptr_, g);
        return opaque(next_(object_of(s), x, rng_));
    }
    [[nodiscard]] PyObservation sample_initial_observation(const programs::OpaqueValue& s, DefaultRng& g) const override {
        Lend l(rng_ptr_, g);
        return make_observation(init_obs_(object_of(s), rng_), dim_,
                                [] { return std::string("sample_initial_observation(s)"); });
    }
    [[nodiscard]] PyObservation sample_observation(const Eigen::VectorXd& a, const programs::OpaqueValue& s,
                                                   DefaultRng& g) const override {
        const py::object& x = array_of(a);
        Lend l(rng_ptr_, g);
        return make_observation(obs_(x, object_of(s), rng_), dim_,
                                [&] { return detail::message("sample_observation(a=", std::string(py::repr(x)), ", s)"); });
    }
    [[nodiscard]] double observation_log_likelihood(const Eigen::VectorXd& a, const PyObservation& o,
                                                    const programs::OpaqueValue& s) const override {
        const py::handle array = object_of(o.value);
        const py::object& x = array_of(a);
        if (log_like_)
            return to_real(log_like_(x, array, object_of(s)),
                           [] { return std::string("observation_log_likelihood(a, o, s)"); });
        if (!like_)
            throw config_error("generative world: a particle filter needs observation_likelihood(a, o, s) or "
                               "observation_log_likelihood(a, o, s)");
        const py::object r = like_(x, array, object_of(s));
        const double v = to_real(r, [] { return std::string("observation_likelihood(a, o, s)"); });
        if (!std::isfinite(v) || v < 0.0)
            throw model_error(detail::message("ParticleFilter: observation_likelihood(a = ", std::string(py::repr(x)),
                                              ", o = ", std::string(py::repr(array)), ", s) returned ",
                                              std::string(py::repr(r)), "; a likelihood is finite and >= 0"));
        return std::log(v);
    }

private:
    /// `env`, refused first when its declarations contradict continuous actions.
    static py::object checked(py::object env) {
        const auto name = [&] { return std::string(py::repr(env)); };
        if (!py::hasattr(env, "observation_dim"))
            throw config_error(detail::message(
                "generative world ", name(), ": declares action_dim (continuous actions) but no observation_dim; a "
                "world with continuous actions observes float vectors: declare observation_dim = d and return numpy "
                "float arrays of shape (d,) from sample_initial_observation and sample_observation"));
        if (py::hasattr(env, "num_actions"))
            throw config_error(detail::message("generative world ", name(), ": declares both action_dim (continuous "
                                               "actions) and num_actions (index actions); declare one"));
        return env;
    }

    /// action_low / action_high: d finite numbers (a sequence, an array, or a method returning one).
    std::vector<double> bound(const char* name) const {
        const auto who = [&] { return detail::message("generative world ", std::string(py::repr(env_)), ": ", name); };
        if (!py::hasattr(env_, name))
            throw config_error(detail::message(who(), " is missing; a world with action_dim = ", d_,
                                               " declares action_low and action_high, sequences of ", d_,
                                               " floats (the box of its actions)"));
        py::object v = env_.attr(name);
        if (PyCallable_Check(v.ptr())) v = v();
        py::array_t<double> a;
        try {
            if (py::isinstance<py::str>(v) || py::isinstance<py::bytes>(v)) throw py::cast_error();
            a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(v);
        } catch (const py::error_already_set&) {
            a = {};
        } catch (const py::cast_error&) {
            a = {};
        }
        if (!a || a.ndim() != 1 || static_cast<std::size_t>(a.shape(0)) != d_)
            throw config_error(detail::message(who(), " is ", std::string(py::repr(v)), "; action_dim = ", d_,
                                               " asks for a sequence of ", d_, " numbers"));
        return {a.data(), a.data() + d_};
    }

    /// The action as the read-only float64 array of shape (d,) the world's methods receive:
    /// the last one made while the action is the same bits.
    const py::object& array_of(const Eigen::VectorXd& a) const {
        const auto n = static_cast<std::size_t>(a.size());
        if (last_ && n == d_ && std::equal(a.data(), a.data() + n, last_x_.data(), [](double x, double y) {
                return std::memcmp(&x, &y, sizeof x) == 0;
            }))
            return last_;
        py::array_t<double> x(static_cast<py::ssize_t>(n));
        std::copy(a.data(), a.data() + n, x.mutable_data());
        py::detail::array_proxy(x.ptr())->flags &= ~py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
        last_x_.assign(a.data(), a.data() + n);
        last_ = std::move(x);
        return last_;
    }

    ActionBox box_{{0.0}, {1.0}};
    py::object like_, log_like_;
    mutable py::object last_;
    mutable std::vector<double> last_x_;
    std::size_t d_ = 0, dim_ = 0;
};
static_assert(require_environment<PyActWorld>());
static_assert(continuous_actions<PyActWorld> && has_observation_points<PyActWorld> && has_state_points<PyActWorld>);

/// The particle filter's binning of a Python world's states: a callable `fn`, or (None) the world's state_bin.
inline programs::SimulatorBinning py_binning(std::shared_ptr<const programs::Simulator> world, py::object fn) {
    if (fn.is_none()) return {[world](const programs::OpaqueValue& s) { return world->state_bin(s); }};
    return {[fn](const programs::OpaqueValue& s) { return to_index(fn(object_of(s)), "binning"); }};
}

// The filters' types are the runtime's, whose trainers the runtime compiles (runtime/algorithm_simulator.hpp).
using View = programs::IndexPomdpView;
using PyPF = programs::IndexSimulatorFilter;
using PyVecPF = programs::VectorSimulatorFilter;
using PyActPF = programs::ContinuousSimulatorFilter;
using ViewPF = programs::IndexPomdpViewFilter;
static_assert(std::is_same_v<View, GenerativeView<Model>>);

struct PyGenerativeView {
    std::shared_ptr<PyModel> model;
    std::shared_ptr<View> view;
};

struct PyParticleFilter {
    std::shared_ptr<PyWorld> py_world;          // the Python world it filters (index observations), or
    std::shared_ptr<PyVecWorld> vec_world;      // the Python world it filters (vector observations), or
    std::shared_ptr<PyActWorld> act_world;      // the Python world it filters (continuous actions), or
    std::shared_ptr<PyGenerativeView> view;     // the GenerativeView
    std::optional<PyPF> py_filter;
    std::optional<PyVecPF> vec_filter;
    std::optional<PyActPF> act_filter;
    std::optional<ViewPF> view_filter;
    std::size_t bins = 0;
    /// A Python world's filter runs one call at a time: its world lends one generator to the
    /// Python methods, which another thread's call would re-point while this one runs Python code.
    std::atomic<bool> busy{false};
};

/// Holds a Python world's particle filter for one call; ConfigError if another thread holds it.
class FilterInUse {
public:
    explicit FilterInUse(PyParticleFilter& p) : p_(p.py_filter || p.vec_filter || p.act_filter ? &p : nullptr) {
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

/// The Python world a particle filter was built for, checked against the world given (config_error, `who` first).
void check_filter_world(const PyParticleFilter& pf, const py::object& world, const char* who);

/// The kind of world a Python world's particle filter filters (its policies: refuse_sim_policy).
inline SimKind sim_kind(const PyParticleFilter& pf) {
    return pf.act_filter ? SimKind::continuous : pf.vec_filter ? SimKind::vector : SimKind::index;
}

/// config_error (`who` first) unless the Gaussian policy's box is the world's (the same dimension
/// and bounds, bit for bit).
template <class P>
void check_policy_box(const P& policy, const PyActWorld& world, const char* who) {
    const ActionBox& a = policy.box();
    const ActionBox b = world.action_box();
    if (a.lower == b.lower && a.upper == b.upper) return;
    auto show = [](const ActionBox& x) {
        std::string t;
        for (std::size_t j = 0; j < x.dimension(); ++j)
            t += detail::message(j ? " x " : "", "[", x.lower[j], ", ", x.upper[j], "]");
        return t;
    };
    throw config_error(detail::message(who, ": the GaussianPolicy's action box is ", show(a), " (dimension ",
                                       a.dimension(), "), the world's is ", show(b), " (action_dim = ",
                                       b.dimension(), "); build the policy with the world's box"));
}

}  // namespace maxent::python
