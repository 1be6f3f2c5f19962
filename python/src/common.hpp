// python/src/common.hpp — what the source files of the module `maxent` share.
//
// One model type is bound: `Model` = FinitePomdp<std::size_t, std::size_t, std::size_t>
// (the learned belief model's type too). Grid worlds and POMDP files are converted to it
// (the same sparse matrices, so the same bits); their labels live on the Python side
// (PyModel::states/actions/observations). Run-time choices (feedback, estimator, step rule,
// policy class) are the runtime's variant boxes (runtime/components.hpp, algorithm.hpp), and
// every run goes through the runtime's run_algorithm1, which compiles each trainer once.
//
// The GIL: C++ training runs with the GIL released on worker threads; the calling thread
// waits, taking the GIL every 100 ms to check signals (run_jobs). A feedback, binning or
// world written in Python is called with the GIL taken (py::gil_scoped_acquire).
//
// The files, one job each, call only the files below them; python/CMakeLists.txt compiles
// them and the runtime's sources as one unit (unnamed-namespace helpers must differ in name):
//   module.cpp        the module: calls the bind_* functions in order (bind.hpp)
//   train.cpp         train, train_learned, experiments -> sim_train, models, runs, components, checks
//   analysis.cpp      exact objective, quality, evaluate -> sim_evaluate, components, checks
//   sim_train.cpp     training on a simulator   -> features, sim_worlds, models, runs, components, checks
//   sim_evaluate.cpp  evaluation on a simulator -> features, sim_worlds, models, checks
//   features.cpp/.hpp observation features, ObservationFeaturePolicy -> sim_actions, sim_worlds.hpp, checks
//   sim_actions.cpp   ActionBox, GaussianPolicy (continuous actions) -> checks
//   sim_worlds.cpp/.hpp Python worlds, Rng, GenerativeView, ParticleFilter -> checks
//   models.cpp        models, filters, policies -> checks
//   components.cpp    feedbacks, estimators, step rules -> runs (PyRef), checks
//   runs.cpp          train options, run_jobs, signals, progress, results -> checks
//   errors.cpp        exceptions, the pickling refusal
//   checks.cpp        argument checks and conversions
// This header declares what crosses files (bind.hpp the bind_* functions); sim_worlds.hpp and
// features.hpp the simulator types; results.hpp a runtime run's result as Python sees it.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <pybind11/eigen.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned/iohmm.hpp"
#include "maxent/belief/learned/sequences.hpp"
#include "maxent/belief/noisy_belief.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"
#include "maxent/core/trajectory.hpp"
#include "maxent/model/finite_pomdp.hpp"
#include "maxent/model/grid_world.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/optim/step_rules.hpp"
#include "maxent/optim/trainer.hpp"
#include "maxent/policy/policies.hpp"
#include "maxent/policy/tabular_belief_policy.hpp"

#include "runtime/components.hpp"

#include "bind.hpp"

namespace maxent::python {
/// numpy.bool_ and numpy.ma.MaskedArray (set when the module is imported: init_argument_checks).
extern PyObject* numpy_bool_type;
extern PyObject* masked_array_type;
/// Whether `x` is a masked array with at least one masked entry (numpy.ma.masked included).
bool has_masked_entry(PyObject* x);
}  // namespace maxent::python

// Every std::size_t (and std::uint64_t) argument of the module: an integer, strictly: a Python
// int, a numpy integer, a 0-d integer array or an object with __index__; not a bool (Python's,
// numpy.bool_ or a bool array: True is no size), not a float of any type (3.7 is not read as 3),
// not an array of one element, and not a masked array with a masked entry (numpy.ma.masked); a
// 0-d masked array with nothing masked reads as its data. A refused value makes the call's
// arguments incompatible: pybind11's TypeError, which shows the value. Python ints take the
// fast path (a Python world's state_bin is read through this once per particle).
namespace pybind11::detail {
template <>
struct type_caster<std::size_t> {
    /// The other 64-bit unsigned type, whose stock caster does the reading.
    using Other = std::conditional_t<std::is_same_v<std::size_t, unsigned long>, unsigned long long, unsigned long>;
    static_assert(sizeof(Other) == sizeof(std::size_t) && !std::is_same_v<Other, std::size_t>);
    PYBIND11_TYPE_CASTER(std::size_t, const_name("int"));

    bool load(handle src, bool /*convert: never from a float or a one-element array*/) {
        if (!src) return false;
        object held;  // a masked array's data, then the index
        if (!PyLong_CheckExact(src.ptr())) {
            if (PyBool_Check(src.ptr())) return false;
            using maxent::python::numpy_bool_type;
            if (numpy_bool_type != nullptr && PyObject_IsInstance(src.ptr(), numpy_bool_type) == 1) return false;
            if (npy_api::get().PyArray_Check_(src.ptr())) {
                if (maxent::python::has_masked_entry(src.ptr())) return false;
                if (PyObject_IsInstance(src.ptr(), maxent::python::masked_array_type) == 1) {
                    held = src.attr("data");
                    src = held;
                }
                const auto a = reinterpret_borrow<array>(src);
                if (a.ndim() != 0 || (a.dtype().kind() != 'i' && a.dtype().kind() != 'u')) return false;
            } else if (!PyLong_Check(src.ptr()) && !PyIndex_Check(src.ptr())) {
                return false;
            }
            // numpy integers, 0-d integer arrays, __index__: as the Python int they stand for
            held = reinterpret_steal<object>(PyNumber_Index(src.ptr()));
            if (!held) {
                PyErr_Clear();
                return false;
            }
            src = held;
        }
        make_caster<Other> inner;
        if (!inner.load(src, false)) return false;
        value = static_cast<std::size_t>(cast_op<Other>(inner));
        return true;
    }
    static handle cast(std::size_t src, return_value_policy policy, handle parent) {
        return make_caster<Other>::cast(static_cast<Other>(src), policy, parent);
    }
};
}  // namespace pybind11::detail

namespace maxent::python {

namespace py = pybind11;

using Model = FinitePomdp<std::size_t, std::size_t, std::size_t>;
using Filter = BayesFilter<Model>;
using Noisy = NoisyBelief<Filter>;

/// A finite model with its labels (Python objects: ints, strings, tuples).
struct PyModel {
    std::shared_ptr<Model> model;
    py::list states, actions, observations;
    std::string description;  ///< e.g. the grid's spec, or the sizes and matrices of a model from arrays
    /// Calls running with the GIL released that read the model (train, evaluate, ...): while
    /// any runs, setting the horizon is refused (it would change the model under them).
    std::atomic<int> users{0};

    /// Index of `x` in `labels` (a label first, else an int index in range); unknown_label_error naming it.
    std::size_t index(const py::list& labels, const py::handle& x, const char* what) const;
    std::size_t state(const py::handle& x) const { return index(states, x, "state"); }
    std::size_t action(const py::handle& x) const { return index(actions, x, "action"); }
    std::size_t observation(const py::handle& x) const { return index(observations, x, "observation"); }
};
/// Marks a model as read by a call that releases the GIL, for the call's duration (PyModel::users).
class ModelInUse {
public:
    ModelInUse() = default;
    explicit ModelInUse(std::shared_ptr<PyModel> m) : m_(std::move(m)) {
        if (m_) ++m_->users;
    }
    ModelInUse(const ModelInUse&) = delete;
    ModelInUse& operator=(const ModelInUse&) = delete;
    ModelInUse(ModelInUse&& o) noexcept : m_(std::move(o.m_)) {}
    ModelInUse& operator=(ModelInUse&&) = delete;
    ~ModelInUse() {
        if (m_) --m_->users;
    }

private:
    std::shared_ptr<PyModel> m_;
};
/// The models a call reads: the world and, if `updater` is a BayesFilter or NoisyBelief, its agent model.
std::vector<ModelInUse> models_in_use(const std::shared_ptr<PyModel>& world, const py::handle& updater);

/// Refuses a size whose `bytes_each`-byte elements would not fit in memory (ValueError naming
/// `what` and `n`), instead of a bare MemoryError; `n_other` multiplies n (rows x columns).
void check_size(const char* what, std::size_t n, std::size_t bytes_each, std::size_t n_other = 1);

/// Refuses (ConfigError, a ValueError) a setting whose allocations would take at least `bytes` of
/// memory, more than this machine has (2^46 bytes where the system does not say), before anything
/// is allocated: "`setting`: `what` would take at least N bytes (G GiB) of memory, more than this
/// machine's M GiB", as the programs' require_memory (runtime/cli.hpp) words it.
void require_memory(const std::string& setting, const std::string& what, double bytes);

/// A real matrix from Python (a numpy array or nested lists of ints or floats): exactly 2-d,
/// `rows` x `cols` where those are >= 0 (-1: any), every entry finite; a masked array only when
/// nothing is masked (its data). Otherwise ConfigError / NumericError (non-finite entry) naming
/// `who`, the shape or the entry and its value; TypeError for a non-real dtype.
Eigen::MatrixXd real_matrix(const py::handle& x, const std::string& who, Eigen::Index rows = -1,
                            Eigen::Index cols = -1);


/// Labels 0..n-1.
py::list index_labels(std::size_t n);
/// A model with its labels and a description.
std::shared_ptr<PyModel> wrap_model(Model m, py::list states, py::list actions, py::list observations, std::string d);
/// A grid world as the bound model type (the same matrices; labels (x, y), up/down/left/right).
std::shared_ptr<PyModel> grid_model(const GridPomdp& g, std::string description);

// ---------------------------------------------------------------------------------------
// Belief updaters over finite models
// ---------------------------------------------------------------------------------------

/// The exact Bayes filter of an agent model (the world's or another), with its prior.
struct PyFilter {
    std::shared_ptr<PyModel> agent;  ///< keeps the model alive
    Filter filter;
};
/// The noisy belief oracle over an exact filter (σ = 0 is the exact filter, bit for bit).
struct PyNoisy {
    std::shared_ptr<PyFilter> inner;
    double sigma = 0.0;
    [[nodiscard]] Noisy make() const { return Noisy(inner->filter, sigma); }
};

// ---------------------------------------------------------------------------------------
// Policies: one box, five Python classes
// ---------------------------------------------------------------------------------------

using PolicyVariant = std::variant<ObservationPolicy, BeliefAveragedPolicy, BelievedStatePolicy, BeliefMixturePolicy,
                                   TabularBeliefPolicy>;
struct PyPolicy {
    PolicyVariant p;
    [[nodiscard]] const char* class_name() const;
};

// ---------------------------------------------------------------------------------------
// Feedbacks: the four of the paper, PartitionEntropy, and a Python callable
// ---------------------------------------------------------------------------------------

/// A Python object held without touching its reference count off the GIL: copies share it,
/// and the last one releases it with the GIL taken.
struct PyRef {
    std::shared_ptr<py::object> obj;
    PyRef() = default;
    explicit PyRef(py::object o);
    [[nodiscard]] const py::object& get() const { return *obj; }
};

/// A read-only view of one trajectory handed to a Python feedback (valid during the call).
struct TrajectoryView {
    const Trajectory* t = nullptr;
    [[nodiscard]] const Trajectory& get() const;
};

/// A feedback written in Python: fn(view) -> float.
struct PythonFeedback {
    PyRef fn;
    RolloutNeeds needs{};
    std::string name;
    double call(const Trajectory& t) const;
};

/// The runtime's feedback box (runtime/components.hpp): the four of the paper,
/// PartitionEntropy, or a callable (a PythonFeedback, through python_feedback).
using FeedbackBox = programs::AnyFeedback;
/// A feedback written in Python, in the box.
FeedbackBox python_feedback(PythonFeedback p);

// ---------------------------------------------------------------------------------------
// Estimators and step rules
// ---------------------------------------------------------------------------------------

/// The programs' run-time boxes (runtime/components.hpp): the five estimators
/// (PerStepBaseline records per-step scores only when chosen) and ConstantStep, Adam,
/// LazyAdam, so each trainer is instantiated once for all of them.
using EstimatorBox = programs::AnyEstimator;
using StepBox = programs::AnyStep;

/// Feedback, estimator and step rule from Python: objects of the bound classes, or names
/// ("mse", "batch-mean", "constant"); callables become PythonFeedback.
FeedbackBox to_feedback(const py::handle& x);
EstimatorBox to_estimator(const py::handle& x);
StepBox to_step(const py::handle& x, std::optional<double> alpha = std::nullopt);
StateCounting to_counting(const std::string& s);

// ---------------------------------------------------------------------------------------
// Results and jobs
// ---------------------------------------------------------------------------------------

/// One training run, as Python sees it.
struct PyTrainResult {
    std::uint64_t seed = 0;
    Eigen::MatrixXd parameters;
    std::vector<IterationMetrics> history;
    bool stopped_early = false;
    std::string policy_class;
    std::optional<PolicyVariant> policy;  ///< the trained policy (θ = parameters)
    /// ObservationFeaturePolicy runs (a simulator's vector observations): the trained policy as
    /// its Python object (set with the GIL held; `policy` stays empty).
    PyRef feature_policy;
    std::vector<py::dict> fits;  ///< learned-belief runs: every fit of the belief model
    /// train_learned with a learner that selects its size: what it chose (a dict, set with the
    /// GIL held); null (None) otherwise.
    py::object selection;
    /// Learned-belief runs: the final learned model (the last fit's), its horizon, whether the
    /// agent's filter started from its μ̂, and the held-out episodes the fits were scored on.
    std::optional<IohmmModel> learned;
    std::size_t learned_horizon = 0;
    bool learned_prior = false;
    std::vector<ActionObservationSequence> heldout;
    std::shared_ptr<PyModel> belief_model;    ///< the learned model as the agent's Model (null: not learned)
    std::shared_ptr<PyFilter> belief_filter;  ///< the agent's filter on it, with the prior it trained with
};

/// Runs `count` independent jobs on up to `threads` worker threads (0: all) with the GIL
/// released, results in index order; the calling thread waits, checking for signals every
/// 100 ms: on Ctrl-C `stop` is set, the jobs end after their current iteration and
/// KeyboardInterrupt is raised. The first exception of a job stops the others and is rethrown.
void run_jobs(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& job,
              std::atomic<bool>& stop);

/// The run(callback) of a trainer on the calling thread while it holds the GIL (worlds,
/// feedbacks written in Python): checks signals every 100 ms and stops on one (the caller
/// then raises).
struct SignalPoll {
    std::int64_t last_ns = 0;
    bool interrupted = false;
    bool operator()(const IterationMetrics&);
};

/// train(progress=fn, progress_every=k): fn(info) after every k-th iteration and the last, with
/// the GIL taken; info is a dict (seed, iteration, iterations, and the iteration's metrics). The
/// return value: None or a true bool (Python's or numpy's) goes on, a false one stops the run
/// (stopped_early); anything else is a TypeError naming it, as is an exception from fn.
struct Progress {
    PyRef fn;  ///< empty: no progress
    std::size_t every = 1;
    std::size_t iterations = 0;
    /// Whether training goes on after iteration m of the run with `seed`.
    bool operator()(std::uint64_t seed, const IterationMetrics& m) const;
};

/// Shared options of every train call (finite or generative world).
struct TrainOptions {
    TrainerConfig config;
    Progress progress;
    std::optional<std::vector<std::uint64_t>> seeds;  ///< several runs (threads) instead of config.seed
    std::size_t threads = 0;
};
/// A train call's options from its Python arguments (Config validated; seeds, when given,
/// not empty; progress a callable or None, progress_every >= 1), each refusal named.
TrainOptions train_options(std::size_t iterations, std::size_t batch, std::uint64_t seed,
                           std::optional<std::vector<std::uint64_t>> seeds, const std::string& counting,
                           bool track, std::size_t threads, const py::object& progress, std::size_t every);
/// The seeds of a train call: options.seeds, or the one config.seed.
std::vector<std::uint64_t> seeds_of(const TrainOptions& options);
/// What a train call returns: one TrainResult, or a list of them when seeds were given.
py::object results(std::vector<PyTrainResult> runs, const TrainOptions& options);
/// The updater of a finite world: None (the world's exact filter), a BayesFilter (σ = 0) or a
/// NoisyBelief, as the trainers' NoisyBelief; otherwise config_error, `who` first.
Noisy finite_updater(const py::object& u, const std::shared_ptr<PyModel>& world, const char* who);

/// A numpy copy of a vector.
template <class T>
py::array_t<T> to_array(const std::vector<T>& v) {
    py::array_t<T> a(static_cast<py::ssize_t>(v.size()));
    std::copy(v.begin(), v.end(), a.mutable_data());
    return a;
}

// ---------------------------------------------------------------------------------------
// Simulators: what train.cpp and analysis.cpp hand to the simulator files
// ---------------------------------------------------------------------------------------

/// train() with a world that is not a finite Model: a Python simulator or GenerativeView, with a
/// ParticleFilter (sim_train.cpp).
py::object train_generative(const py::object& world, const py::object& updater, const PyPolicy& policy,
                            const FeedbackBox& feedback, const EstimatorBox& estimator, const StepBox& step,
                            const TrainOptions& options);
/// evaluate() (a policy) or evaluate_uniform() (policy None) with a world that is not a finite
/// Model (a Python simulator with its ParticleFilter, run on the calling thread) or a policy
/// that is not a bound Policy (ObservationFeaturePolicy) (sim_evaluate.cpp); analysis.cpp
/// converts it as it converts a finite model's.
Evaluation evaluate_generative(const py::object& world, const py::object& updater, const py::object& policy,
                               std::size_t episodes, std::uint64_t seed, StateCounting counting,
                               const KnnCounting& knn);

}  // namespace maxent::python
