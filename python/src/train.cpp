// python/src/train.cpp — train() on finite models, train_learned() (Algorithm 1 with a belief
// model learned from the agent's own data) and the paper's experiments by name.
//
// Runs go through the runtime's run_algorithm1 (runtime/algorithm.hpp), which compiles the
// trainers of the module's Model (runtime/algorithm_finite.hpp) with the runtime's boxes and
// NoisyBelief<BayesFilter<Model>> (σ = 0 is the exact filter bit for bit), so a run is the same
// arithmetic as maxent-paper's (tests/test_bit_identity.py); this file compiles no trainer.
//
// Learned beliefs: the four policy classes the programs' runner offers with a learned model:
// ObservationPolicy over the world's observations, BeliefAveragedPolicy, BelievedStatePolicy
// and BeliefMixturePolicy over the L latent states; the belief-state class B is refused
// (runtime/policy_classes.hpp).
// run_experiment is the programs' own (runtime/runner.hpp), on the grid world itself.
#include <cmath>
#include <sstream>

#include "common.hpp"
#include "results.hpp"
#include "maxent/optim/evaluate.hpp"
#include "maxent/belief/learned/defaults.hpp"
#include "maxent/belief/learned/score.hpp"
#include "maxent/belief/learned/select.hpp"
#include "maxent/belief/learned/sequences.hpp"
#include "maxent/optim/learned_belief.hpp"
#include "runtime/algorithm_finite.hpp"
#include "runtime/cli.hpp"
#include "runtime/policy_classes.hpp"
#include "runtime/runner.hpp"

namespace maxent::python {

namespace {

/// Everything one finite run needs.
struct FiniteJob {
    std::shared_ptr<PyModel> world;
    Noisy updater;
    PolicyVariant policy;
    FeedbackBox feedback;
    EstimatorBox estimator;
    StepBox step;
    TrainerConfig config;
    const Progress* progress = nullptr;
};

/// A run's result as Python sees it: θ, the history, and the trained policy (of the class of
/// the policy given, `name`).
PyTrainResult finish(programs::Algorithm1Run&& r, std::uint64_t seed, const char* name) {
    PyTrainResult out;
    out.seed = seed;
    out.parameters = std::move(r.trained.parameters);
    out.history = std::move(r.trained.history);
    out.stopped_early = r.trained.stopped_early;
    out.policy = bound_policy(std::move(*r.policy));
    out.policy_class = name;
    return out;
}

/// The run-time choices of a job (the policy as the runtime's AnyPolicy).
programs::RunChoices run_choices(const PolicyVariant& policy, const FeedbackBox& feedback,
                                 const EstimatorBox& estimator, const StepBox& step, const TrainerConfig& config) {
    return {std::visit([](const auto& p) -> programs::AnyPolicy { return p; }, policy), feedback, estimator, step,
            config};
}

/// Stops after an iteration when `stop` is set or the progress callback says so.
programs::RunControl run_control(const std::atomic<bool>& stop, const Progress& progress, std::uint64_t seed) {
    programs::RunControl control;
    control.after_iteration = [&stop, &progress, seed](const IterationMetrics& m) {
        return !stop.load(std::memory_order_relaxed) && progress(seed, m);
    };
    return control;
}

/// Trains with the runtime's run_algorithm1 (runtime/algorithm.hpp), which compiles the trainers.
PyTrainResult run_finite(const FiniteJob& j, const std::atomic<bool>& stop) {
    programs::Algorithm1Run r =
        programs::run_algorithm1(*j.world->model, j.updater, run_choices(j.policy, j.feedback, j.estimator, j.step, j.config),
                                 run_control(stop, *j.progress, j.config.seed));
    return finish(std::move(r), j.config.seed, PyPolicy{j.policy}.class_name());
}

/// A learned-belief run: ObservationPolicy (over the world's observations), BeliefAveragedPolicy,
/// BelievedStatePolicy or BeliefMixturePolicy (over the learned model's L latent states).
/// TabularBeliefPolicy is refused before a job is made (refuse_learned_class_b).
/// A learner that selects its size (`selects`; empty for the others) chooses L per run
/// before the policy is sized: a policy over the latent states is then made anew with the
/// chosen L rows (θ = 0), as maxent-paper's runner makes it.
struct LearnedJob {
    std::shared_ptr<PyModel> world;
    PolicyVariant policy;
    FeedbackBox feedback;
    EstimatorBox estimator;
    StepBox step;
    TrainerConfig config;
    LearnedBeliefOptions options;
    const Progress* progress = nullptr;
    std::string selects;                  ///< the selecting learner's name, or "" (L given)
    programs::LearningSettings settings;  ///< read by a selection: select_max_states
};

/// What a learned-belief run hands back besides its TrainResult (read by train_learned).
struct LearnedOut {
    std::vector<FitRecord> fits;
    std::optional<programs::SelectedModel> selected;  ///< a selecting learner's choice
    std::vector<std::size_t> clones;                  ///< cloned-hmm-select: the chosen clones per observation
    double smoothing = 0.0;                           ///< the chosen fit's smoothing
};

/// `p` with `rows` rows and θ = 0 when it is a policy over the latent states; unchanged when it
/// is an ObservationPolicy (its rows are the world's observations).
PolicyVariant sized_policy(const PolicyVariant& p, std::size_t rows) {
    return std::visit([rows](const auto& x) -> PolicyVariant {
        using P = std::decay_t<decltype(x)>;
        if constexpr (std::is_same_v<P, ObservationPolicy> || std::is_same_v<P, TabularBeliefPolicy>) return x;
        else return P(rows, static_cast<std::size_t>(x.parameters().cols()));
    }, p);
}

PyTrainResult run_learned(const LearnedJob& j, const std::atomic<bool>& stop, LearnedOut& extra) {
    programs::LearnedBelief belief{j.options};
    PolicyVariant policy = j.policy;
    if (!j.selects.empty()) {  // L (or the clones) chosen on the trainer's own warm-up episodes (runner.hpp)
        bool stopped = false;
        extra.selected = programs::select_learned_model_for_run(*j.world->model, belief.options, j.selects,
                                                                j.settings, j.config, &stop, stopped);
        if (stopped) {  // Ctrl-C during the selection: no run (run_jobs raises KeyboardInterrupt)
            if (!stop.load())
                throw config_error(detail::message("train_learned: the selection of '", j.selects, "' chose nothing"));
            extra.selected.reset();
            PyTrainResult none;
            none.seed = j.config.seed;
            return none;
        }
        extra.clones = belief.options.clones;
        extra.smoothing = belief.options.fit.smoothing;
        policy = sized_policy(policy, belief.options.fit.latent_states);
    }
    belief.options.fit.stop = &stop;  // Ctrl-C also cuts an EM fit short, between its iterations
    programs::Algorithm1Run r =
        programs::run_algorithm1(*j.world->model, belief, run_choices(policy, j.feedback, j.estimator, j.step, j.config),
                                 run_control(stop, *j.progress, j.config.seed));
    extra.fits = std::move(r.fits);
    std::optional<IohmmModel> learned = std::move(r.learned_model);
    const bool learned_prior = r.learned_prior;
    std::vector<ActionObservationSequence> heldout = std::move(r.heldout);
    PyTrainResult out = finish(std::move(r), j.config.seed, PyPolicy{policy}.class_name());
    // The final learned model (the one the agent's filter ends with) and the held-out episodes.
    out.learned = std::move(learned);
    out.learned_horizon = j.world->model->horizon();
    out.learned_prior = learned_prior;
    out.heldout = std::move(heldout);
    return out;
}

/// The learned model of a learned-belief run as the agent's Model and its filter (the prior
/// it trained with); with the GIL held.
void attach_belief_model(PyTrainResult& r) {
    if (!r.learned) return;
    const IohmmModel& m = *r.learned;
    r.belief_model = wrap_model(to_finite_pomdp(m, r.learned_horizon), index_labels(m.num_latent_states()),
                                index_labels(m.num_actions()), index_labels(m.num_observations()),
                                "learned belief model");
    const Model& agent = *r.belief_model->model;
    r.belief_filter = std::make_shared<PyFilter>(
        PyFilter{r.belief_model, r.learned_prior ? Filter(agent, model_prior) : Filter(agent)});
}

py::dict fit_dict(const FitRecord& f) {
    py::dict d;
    d["iteration"] = f.iteration;
    d["episodes"] = f.episodes;
    d["em_iterations"] = f.em_iterations;
    d["converged"] = f.converged;
    d["train_log_likelihood"] = f.train_log_likelihood;
    d["heldout_log_likelihood"] = f.heldout_log_likelihood;
    return d;
}

/// One metric of a run's history as a numpy array.
py::array_t<double> history_of(const PyTrainResult& r, double IterationMetrics::*field) {
    py::array_t<double> a(static_cast<py::ssize_t>(r.history.size()));
    double* out = a.mutable_data();
    for (const IterationMetrics& h : r.history) *out++ = h.*field;
    return a;
}

/// An index >= 0 from a Python int (or numpy integer); TypeError/ValueError naming `what` otherwise.
std::size_t index_from(const py::handle& x, const std::string& what) {
    if (py::isinstance<py::bool_>(x) || (numpy_bool_type != nullptr && PyObject_IsInstance(x.ptr(), numpy_bool_type) == 1) ||
        !PyIndex_Check(x.ptr()))
        throw py::type_error(detail::message(what, " is ", std::string(py::repr(x)), ", not an integer index"));
    const py::object i = py::reinterpret_steal<py::object>(PyNumber_Index(x.ptr()));
    if (!i) throw py::error_already_set();
    int overflow = 0;
    const long long v = PyLong_AsLongLongAndOverflow(i.ptr(), &overflow);
    if (overflow != 0 || v < 0)
        throw py::value_error(detail::message(what, " is ", std::string(py::repr(x)), ", not an index in [0, 2^63)"));
    return static_cast<std::size_t>(v);
}

/// A 1-d sequence of indices (a list or a 1-d array), entries checked by index_from.
std::vector<std::size_t> indices_from(const py::handle& x, const std::string& what) {
    if (py::isinstance<py::str>(x) || !py::hasattr(x, "__iter__"))
        throw py::type_error(detail::message(what, " is ", std::string(py::repr(x)), ", not a sequence of indices"));
    std::vector<std::size_t> out;
    std::size_t i = 0;
    for (const py::handle e : py::reinterpret_borrow<py::iterable>(x))
        out.push_back(index_from(e, detail::message(what, "[", i++, "]")));
    return out;
}

/// (actions, observations) pairs from Python; `who` names the call in messages.
std::vector<ActionObservationSequence> sequences_from(const py::iterable& data, const char* who) {
    std::vector<ActionObservationSequence> out;
    for (const py::handle item : data) {
        // Converting millions of entries takes seconds: let Ctrl-C through every 16 sequences.
        if (out.size() % 16 == 15 && PyErr_CheckSignals() != 0) throw py::error_already_set();
        const bool pair_like = (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) && py::len(item) == 2;
        if (!pair_like)
            throw py::type_error(detail::message(who, ": sequence ", out.size(), " is ", std::string(py::repr(item)),
                                                 ", not an (actions, observations) pair"));
        const auto pair = py::reinterpret_borrow<py::sequence>(item);
        ActionObservationSequence s;
        s.actions = indices_from(pair[0], detail::message(who, ": sequence ", out.size(), ": actions"));
        s.observations = indices_from(pair[1], detail::message(who, ": sequence ", out.size(), ": observations"));
        out.push_back(std::move(s));
    }
    return out;
}

py::list sequences_to_python(const std::vector<ActionObservationSequence>& seqs, bool with_ids) {
    py::list out;
    for (const ActionObservationSequence& q : seqs) {
        if (with_ids) out.append(py::make_tuple(q.id, to_array(q.actions), to_array(q.observations)));
        else out.append(py::make_tuple(to_array(q.actions), to_array(q.observations)));
    }
    return out;
}

/// The memory checks maxent-paper makes before a learned-belief run (examples/paper/main.cpp),
/// naming the Python arguments: the fit of L latent states on a world of A actions, O
/// observations and horizon T, and the warmup + window + heldout recorded episodes.
void require_learned_memory(const char* who, std::size_t latent_states, std::size_t S, std::size_t A, std::size_t O,
                            std::size_t T, std::size_t warmup, std::size_t window, std::size_t heldout) {
    const std::size_t L = latent_states == 0 ? S : latent_states;
    require_memory(detail::message(who, ": latent_states = ", L, latent_states == 0 ? " (the world's S)" : ""),
                   detail::message("the learned model and its fit (on the world's ", A, " actions, ", O,
                                   " observations and horizon ", T, ")"),
                   programs::iohmm_fit_bytes(static_cast<double>(L), static_cast<double>(A), static_cast<double>(O),
                                             static_cast<double>(T)));
    require_memory(detail::message(who, ": warmup = ", warmup, ", window = ", window, ", heldout = ", heldout),
                   detail::message("the recorded episodes (of the world's horizon ", T, ")"),
                   programs::episodes_bytes(static_cast<double>(warmup) + static_cast<double>(window) +
                                                static_cast<double>(heldout),
                                            static_cast<double>(T)));
}

/// maxent-paper's learned-belief flags from a dict (run_experiment's `learning`); an unknown key
/// or a value of the wrong type is a config_error naming it.
void set_learning(const py::dict& d, bool latent_states_given, programs::LearningSettings& ls) {
    for (const auto& item : d) {
        const std::string key = py::str(item.first);
        const py::handle v = item.second;  // named: Clang 14 cannot capture a structured binding in a lambda
        // The bounds of maxent-paper's flags (programs::learning_counts).
        auto count = [&](std::size_t& field, std::size_t least = 0) {
            const bool integer = py::isinstance<py::int_>(v) && !py::isinstance<py::bool_>(v);
            int overflow = 0;
            const long long x = integer ? PyLong_AsLongLongAndOverflow(v.ptr(), &overflow) : -1;
            if (!integer || (overflow == 0 && x < static_cast<long long>(least)))
                throw config_error(detail::message("run_experiment: learning['", key, "'] must be an integer >= ", least,
                                                   ", got ", std::string(py::repr(v))));
            // maxent-paper's bound on its counts (cli.hpp: at most 10^8)
            if (overflow != 0 || x > 100'000'000LL)
                throw config_error(detail::message("run_experiment: learning['", key, "'] must be an integer in [",
                                                   least, ", 100000000], got ", std::string(py::repr(v))));
            field = static_cast<std::size_t>(x);
        };
        if (key == "latent_states" && latent_states_given)
            throw config_error("run_experiment: latent_states is given twice (the argument and learning['latent_states'])");
        const programs::LearningCount* known = nullptr;
        for (const programs::LearningCount& c : programs::learning_counts)
            if (key == c.name) known = &c;
        if (known != nullptr) count(ls.*known->field, known->least);
        else if (key == "smoothing") {
            const bool number = (py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v)) &&
                                !py::isinstance<py::bool_>(v);
            const double x = number ? v.cast<double>() : -1.0;
            if (!number || !std::isfinite(x) || x < 0.0)
                throw config_error(detail::message("run_experiment: learning['smoothing'] must be a finite number >= 0, ",
                                                   "got ", std::string(py::repr(v))));
            ls.smoothing = x;
        } else if (key == "learned_prior") {
            if (!py::isinstance<py::bool_>(v))
                throw config_error(detail::message("run_experiment: learning['learned_prior'] must be True or False, got ",
                                                   std::string(py::repr(v))));
            ls.learned_prior = v.cast<bool>();
        } else {
            throw config_error(detail::message("run_experiment: unknown learning setting '", key,
                                               "' (known: latent_states, warmup, heldout, refit_every, refit_iterations, "
                                               "window, restarts, em_iterations, select_max_states, smoothing, learned_prior)"));
        }
    }
}

/// fit_belief_model's learners: the runtime's (learner_kinds, set by apply_learner) and the
/// log-only selections and spectral start of the learned-belief diagnosis
/// (examples/learned_diagnosis/main.cpp; belief/learned/select.hpp, spectral.hpp).
constexpr const char* extra_learners[] = {"em-spectral", "em-select", "em-spectral-select", "cloned-hmm-select"};

std::string known_learners() {
    std::string out;
    for (const programs::LearnerKind& k : programs::learner_kinds)
        if (!k.selects) out += (out.empty() ? "" : ", ") + std::string(k.name);  // the selections: extra_learners
    for (const char* n : extra_learners) out += std::string(", ") + n;
    return out;
}

bool oracle_learner(const std::string& learner) { return learner == "em-known-motion" || learner == "em-known-sensor"; }

/// What an oracle learner is given of the world besides the logs ([] for the others).
py::list learner_given(const std::string& learner) {
    py::list g;
    if (learner == "em-known-motion") g.append("transitions");
    if (learner == "em-known-sensor") g.append("emissions");
    if (oracle_learner(learner)) g.append("number of states");
    return g;
}

/// A finite number from Python (not a bool); config_error naming `what` otherwise.
double number_from(const py::handle& v, const std::string& what) {
    const bool number = (py::isinstance<py::float_>(v) || py::isinstance<py::int_>(v)) && !py::isinstance<py::bool_>(v);
    const double x = number ? v.cast<double>() : std::nan("");
    if (!std::isfinite(x))
        throw config_error(detail::message(what, " must be a finite number, got ", std::string(py::repr(v))));
    return x;
}

/// IohmmPrior's fields (initial, transitions, emissions, floor) from a dict, over `p`.
void set_prior(const py::dict& d, IohmmPrior& p) {
    for (const auto& [k, v] : d) {
        const std::string key = py::str(k);
        const std::string what = detail::message("fit_belief_model: prior['", key, "']");
        if (key == "initial") p.initial = number_from(v, what);
        else if (key == "transitions") p.transitions = number_from(v, what);
        else if (key == "emissions") p.emissions = number_from(v, what);
        else if (key == "floor") p.floor = number_from(v, what);
        else
            throw config_error(detail::message("fit_belief_model: unknown prior setting '", key,
                                               "' (known: initial, transitions, emissions, floor)"));
    }
}

/// SelectionOptions' fields from a dict, over `s`.
void set_selection(const py::dict& d, SelectionOptions& s) {
    for (const auto& [k, v] : d) {
        const std::string key = py::str(k);
        const std::string what = detail::message("fit_belief_model: selection['", key, "']");
        if (key == "latent_states") s.latent_states = indices_from(v, what);
        else if (key == "max_latent_states") s.max_latent_states = index_from(v, what);
        else if (key == "split_seed") s.split_seed = static_cast<std::uint64_t>(index_from(v, what));
        else if (key == "heldout_fraction") s.heldout_fraction = number_from(v, what);
        else if (key == "standard_errors") s.standard_errors = number_from(v, what);
        else if (key == "pseudo_counts") {
            if (py::isinstance<py::str>(v) || !py::hasattr(v, "__iter__"))
                throw config_error(detail::message(what, " must be a list of numbers, got ", std::string(py::repr(v))));
            s.pseudo_counts.clear();
            for (const py::handle x : py::reinterpret_borrow<py::iterable>(v))
                s.pseudo_counts.push_back(number_from(x, detail::message(what, "[", s.pseudo_counts.size(), "]")));
        } else if (key == "refit") {
            if (!py::isinstance<py::bool_>(v))
                throw config_error(detail::message(what, " must be True or False, got ", std::string(py::repr(v))));
            s.refit = v.cast<bool>();
        } else {
            throw config_error(detail::message("fit_belief_model: unknown selection setting '", key,
                                               "' (known: latent_states, max_latent_states, pseudo_counts, "
                                               "heldout_fraction, standard_errors, refit, split_seed)"));
        }
    }
}

py::list candidates_to_python(const SelectionReport& r) {
    py::list out;
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        const SelectionCandidate& c = r.candidates[i];
        py::dict d;
        d["latent_states"] = c.latent_states;
        d["pseudo_count"] = c.pseudo_count;
        d["allocation"] = std::string(name_of(c.allocation));
        d["clones"] = c.clones;
        d["heldout_per_observation"] = c.heldout_per_observation;
        d["train_per_observation"] = c.train_per_observation;
        d["gap_per_observation"] = c.gap_per_observation;
        d["gap_standard_error"] = c.gap_standard_error;
        d["iterations"] = c.iterations;
        d["converged"] = c.converged;
        d["chosen"] = i == r.chosen;
        out.append(d);
    }
    return out;
}

}  // namespace

void bind_train(py::module_& m) {
    py::class_<PyTrainResult>(m, "TrainResult", "One training run: θ and the per-iteration history as numpy arrays.")
        .def_readonly("seed", &PyTrainResult::seed)
        .def_readonly("parameters", &PyTrainResult::parameters)
        .def_readonly("stopped_early", &PyTrainResult::stopped_early)
        .def_readonly("policy_class", &PyTrainResult::policy_class,
                      "the trained policy's class name (policy.class_name; the repr shows it): 'ObservationPolicy', "
                      "'BeliefAveragedPolicy', 'BelievedStatePolicy', 'BeliefMixturePolicy', 'TabularBeliefPolicy', "
                      "'ObservationFeaturePolicy' or 'GaussianPolicy'")
        .def_readonly("fits", &PyTrainResult::fits, "learned-belief runs: every fit of the belief model")
        // std::optional returns: the docstrings' signatures (and so the stubs) read Optional[...].
        .def_property_readonly("belief_model", [](const PyTrainResult& r) -> std::optional<std::shared_ptr<PyModel>> {
            if (!r.belief_model) return std::nullopt;
            return r.belief_model;
        }, "learned-belief runs: the final learned model as the agent's Model over its latent states (else None)")
        .def_property_readonly("belief_filter", [](const PyTrainResult& r) -> std::optional<std::shared_ptr<PyFilter>> {
            if (!r.belief_filter) return std::nullopt;
            return r.belief_filter;
        }, "learned-belief runs: the agent's BayesFilter on belief_model, with the b_1 it trained with (else None)")
        .def_property_readonly("prior", [](const PyTrainResult& r) -> std::optional<std::string> {
            if (!r.learned) return std::nullopt;
            return std::string(r.learned_prior ? "learned" : "uniform");
        }, "learned-belief runs: the filter's b_1, 'learned' (the learned μ̂) or 'uniform' (else None)")
        .def_property_readonly("selection", [](const PyTrainResult& r) -> std::optional<py::dict> {
            if (!r.selection || r.selection.is_none()) return std::nullopt;
            return py::reinterpret_borrow<py::dict>(r.selection);
        }, "train_learned with a learner that selects its size: what this run chose, a dict (learner, latent_states,\n"
           "pseudo_count, smoothing, allocation, clones, candidates, max_latent_states); None otherwise")
        .def_property_readonly("heldout_episodes", [](const PyTrainResult& r) { return sequences_to_python(r.heldout, false); },
                               "learned-belief runs: the held-out (actions, observations) episodes the fits were scored on")
        .def_property_readonly("iterations", [](const PyTrainResult& r) { return r.history.size(); })
        .def_property_readonly("policy", [](const PyTrainResult& r) -> py::object {
            if (r.feature_policy.obj) return r.feature_policy.get().attr("copy")();
            return py::cast(PyPolicy{*r.policy});
        }, "a copy of the policy with the trained θ (an ObservationFeaturePolicy for one)")
        .def_property_readonly("true_entropy",
                               [](const PyTrainResult& r) { return history_of(r, &IterationMetrics::true_entropy); },
                               "per iteration: the batch mean of H(d(τ_S)), what the paper plots")
        .def_property_readonly("feedback",
                               [](const PyTrainResult& r) { return history_of(r, &IterationMetrics::feedback); })
        .def_property_readonly("belief_entropy_sum", [](const PyTrainResult& r) {
            return history_of(r, &IterationMetrics::belief_entropy_sum);
        })
        .def_property_readonly("gradient_norm",
                               [](const PyTrainResult& r) { return history_of(r, &IterationMetrics::gradient_norm); })
        .def("windowed_means", [](const PyTrainResult& r, std::size_t window, const std::string& metric) {
            double IterationMetrics::*field = &IterationMetrics::true_entropy;
            if (metric == "feedback") field = &IterationMetrics::feedback;
            else if (metric == "belief_entropy_sum") field = &IterationMetrics::belief_entropy_sum;
            else if (metric == "gradient_norm") field = &IterationMetrics::gradient_norm;
            else if (metric != "true_entropy")
                throw config_error(detail::message("windowed_means: unknown metric '", metric,
                                                   "' (known: true_entropy, feedback, belief_entropy_sum, gradient_norm)"));
            py::list out;
            for (const HistoryWindow& w : windowed_means(r.history, window, field)) {
                py::dict d;
                d["first"] = w.first;
                d["count"] = w.count;
                d["mean"] = w.value.mean;
                d["low"] = w.value.low;
                d["high"] = w.value.high;
                out.append(d);
            }
            return out;
        }, py::arg("window"), py::arg("metric") = "true_entropy",
           "The history in windows of `window` iterations, each with its mean and 95% interval.")
        .def(py::pickle(
            [](const PyTrainResult& r) {
                // (seed, parameters, iteration numbers, metrics (n x 4), stopped_early, class, policy, fits)
                const std::size_t n = r.history.size();
                py::array_t<std::uint64_t> its(static_cast<py::ssize_t>(n));
                py::array_t<double> metrics({n, std::size_t{4}});
                for (std::size_t i = 0; i < n; ++i) {
                    const IterationMetrics& h = r.history[i];
                    its.mutable_at(i) = h.iteration;
                    metrics.mutable_at(i, 0) = h.true_entropy;
                    metrics.mutable_at(i, 1) = h.feedback;
                    metrics.mutable_at(i, 2) = h.belief_entropy_sum;
                    metrics.mutable_at(i, 3) = h.gradient_norm;
                }
                py::list fits;
                for (const py::dict& f : r.fits) fits.append(f);
                py::object learned = py::none();
                if (r.learned) {
                    const IohmmModel& lm = *r.learned;
                    learned = py::make_tuple(lm.emission_model == EmissionModel::shared ? 0 : 1, lm.initial,
                                             lm.transitions, lm.emissions, lm.initial_emission, r.learned_horizon,
                                             r.learned_prior,
                                             sequences_to_python(r.heldout, false));
                }
                return py::make_tuple(r.seed, r.parameters, its, metrics, r.stopped_early, r.policy_class,
                                      r.policy                ? py::cast(PyPolicy{*r.policy})
                                      : r.feature_policy.obj ? r.feature_policy.get()
                                                              : py::none(),
                                      fits, learned, r.selection ? r.selection : py::object(py::none()));
            },
            [](const py::tuple& t) {
                if (t.size() < 8 || t.size() > 10)
                    throw py::value_error("TrainResult.__setstate__: expected a tuple of 8, 9 or 10 entries");
                PyTrainResult r;
                r.seed = t[0].cast<std::uint64_t>();
                r.parameters = t[1].cast<Eigen::MatrixXd>();
                const auto its = t[2].cast<py::array_t<std::uint64_t, py::array::c_style | py::array::forcecast>>();
                const auto metrics = t[3].cast<py::array_t<double, py::array::c_style | py::array::forcecast>>();
                const auto n = static_cast<std::size_t>(its.size());
                if (metrics.ndim() != 2 || static_cast<std::size_t>(metrics.shape(0)) != n || metrics.shape(1) != 4)
                    throw py::value_error("TrainResult.__setstate__: metrics must be an n x 4 array");
                for (std::size_t i = 0; i < n; ++i)
                    r.history.push_back({static_cast<std::size_t>(its.at(i)), metrics.at(i, 0), metrics.at(i, 1),
                                         metrics.at(i, 2), metrics.at(i, 3)});
                r.stopped_early = t[4].cast<bool>();
                r.policy_class = t[5].cast<std::string>();
                if (py::isinstance<PyPolicy>(t[6])) {
                    r.policy = t[6].cast<PyPolicy>().p;
                } else if (!t[6].is_none()) {  // an ObservationFeaturePolicy's or GaussianPolicy's run (sim_train.cpp)
                    const std::string c =
                        py::hasattr(t[6], "class_name") ? py::str(t[6].attr("class_name")).cast<std::string>() : "";
                    if (c != "ObservationFeaturePolicy" && c != "GaussianPolicy")
                        throw py::value_error("TrainResult.__setstate__: the policy must be a Policy, an "
                                              "ObservationFeaturePolicy, a GaussianPolicy or None");
                    r.feature_policy = PyRef(t[6].attr("copy")());
                }
                for (const py::handle f : t[7]) r.fits.push_back(py::reinterpret_borrow<py::dict>(f));
                if (t.size() >= 9 && !t[8].is_none()) {
                    const auto l = t[8].cast<py::tuple>();
                    if (l.size() != 8) throw py::value_error("TrainResult.__setstate__: the learned model needs 8 entries");
                    IohmmModel lm;
                    lm.emission_model = l[0].cast<int>() == 0 ? EmissionModel::shared : EmissionModel::per_action;
                    lm.initial = l[1].cast<Eigen::VectorXd>();
                    lm.transitions = l[2].cast<std::vector<Eigen::MatrixXd>>();
                    lm.emissions = l[3].cast<std::vector<Eigen::MatrixXd>>();
                    lm.initial_emission = l[4].cast<Eigen::MatrixXd>();
                    r.learned = std::move(lm);
                    r.learned_horizon = l[5].cast<std::size_t>();
                    r.learned_prior = l[6].cast<bool>();
                    r.heldout = sequences_from(l[7].cast<py::iterable>(), "TrainResult.__setstate__");
                    attach_belief_model(r);
                }
                if (t.size() == 10 && !t[9].is_none()) {
                    if (!py::isinstance<py::dict>(t[9]))
                        throw py::value_error("TrainResult.__setstate__: the selection must be a dict or None");
                    r.selection = py::reinterpret_borrow<py::dict>(t[9]);
                }
                return r;
            }))
        .def("__repr__", [](const PyTrainResult& r) {
            return detail::message("maxent.TrainResult(seed=", r.seed, ", iterations=", r.history.size(), ", ",
                                   r.policy_class, ")");
        });

    m.def(
        "train",
        [](const py::object& world, const py::object& updater, const PyPolicy& policy, const py::object& feedback,
           const py::object& estimator, const py::object& step, std::size_t iterations, std::size_t batch,
           std::uint64_t seed, std::optional<std::vector<std::uint64_t>> seeds, const std::string& counting,
           bool track_belief_entropy, std::size_t threads, const py::object& progress,
           std::size_t progress_every) -> py::object {
            const TrainOptions o = train_options(iterations, batch, seed, std::move(seeds), counting,
                                                 track_belief_entropy, threads, progress, progress_every);
            const FeedbackBox f = to_feedback(feedback);
            const EstimatorBox e = to_estimator(estimator);
            const StepBox r = to_step(step);
            if (!py::isinstance<PyModel>(world)) return train_generative(world, updater, policy, f, e, r, o);
            const auto w = world.cast<std::shared_ptr<PyModel>>();
            const auto in_use = models_in_use(w, updater);
            const std::vector<std::uint64_t> all = seeds_of(o);
            std::vector<FiniteJob> jobs;
            for (const std::uint64_t s : all) {
                FiniteJob j{w, finite_updater(updater, w, "train"), policy.p, f, e, r, o.config, &o.progress};
                j.config.seed = s;
                jobs.push_back(std::move(j));
            }
            // `updater` (an argument, alive for the call) keeps the agent model its filter refers to.
            std::vector<PyTrainResult> out(jobs.size());
            std::atomic<bool> stop{false};
            run_jobs(jobs.size(), o.threads, [&](std::size_t i) { out[i] = run_finite(jobs[i], stop); }, stop);
            return results(std::move(out), o);
        },
        py::arg("world"), py::arg("updater") = py::none(), py::arg("policy"), py::arg("feedback") = "mse",
        py::arg("estimator") = "batch-mean", py::arg("step") = "constant", py::kw_only(),
        py::arg("iterations") = 1000, py::arg("batch") = 10, py::arg("seed") = 0, py::arg("seeds") = py::none(),
        py::arg("counting") = "paper", py::arg("track_belief_entropy") = true, py::arg("threads") = 0,
        py::arg("progress") = py::none(), py::arg("progress_every") = 1,
        "Algorithm 1: K iterations of N trajectories from the policy's θ. world: a Model (updater: BayesFilter,\n"
        "NoisyBelief, or None for the world's exact filter) with any policy class, or a simulator (a Python object\n"
        "with the sampling methods, or GenerativeView) with a ParticleFilter and an ObservationPolicy (over the\n"
        "world's observations), BeliefAveragedPolicy, BelievedStatePolicy or BeliefMixturePolicy (over the\n"
        "filter's bins); TabularBeliefPolicy is refused there (a particle filter's beliefs are random: the same\n"
        "history gives a new belief, so its table would add a row at nearly every step). Returns a TrainResult,\n"
        "or one per seed (run on `threads` threads, 0 = all) when `seeds` (distinct) is given. The GIL is released;\n"
        "Ctrl-C raises KeyboardInterrupt. progress: fn(info: dict) after every `progress_every`-th iteration and\n"
        "the last (seed, iteration, iterations and the metrics), or True (maxent.train: a one-line progress bar);\n"
        "fn returns None or True (a bool or numpy.bool_) to go on, False to stop that run early (stopped_early);\n"
        "any other return value is a TypeError naming it.");

    m.def(
        "train_learned",
        [](std::shared_ptr<PyModel> world, const PyPolicy& policy, const py::object& feedback,
           const py::object& estimator, const py::object& step, std::size_t latent_states, std::size_t warmup,
           std::size_t heldout, std::size_t refit_every, std::size_t refit_iterations, std::size_t window,
           std::size_t restarts, std::size_t em_iterations, double smoothing, bool learned_prior,
           std::size_t iterations, std::size_t batch, std::uint64_t seed,
           std::optional<std::vector<std::uint64_t>> seeds, const std::string& counting, std::size_t threads,
           const py::object& progress, std::size_t progress_every, const std::string& learner,
           std::optional<std::size_t> select_max_states) {
            const TrainOptions o = train_options(iterations, batch, seed, std::move(seeds), counting, true, threads,
                                                 progress, progress_every);
            if (programs::find_learner(learner) == nullptr) {
                if (learner == "em-spectral")
                    throw config_error(detail::message("train_learned: learner 'em-spectral' is fit_belief_model's only "
                                                       "(the runtime's learned-belief runs offer ",
                                                       programs::learner_names(), ")"));
                throw config_error(detail::message("train_learned: unknown learner '", learner, "' (known: ",
                                                   programs::learner_names(), ")"));
            }
            const bool select = programs::learner_selects(learner);
            if (select_max_states && !select)
                throw config_error(detail::message("train_learned: select_max_states is read by the learners that "
                                                   "select their size only (em-select, em-spectral-select, "
                                                   "cloned-hmm-select), not by '", learner, "'"));
            if (select_max_states && (*select_max_states < 1 || *select_max_states > 100'000'000))
                throw config_error(detail::message("train_learned: select_max_states must be in [1, 100000000] (",
                                                   "maxent-paper's --select-max-states), got ", *select_max_states));
            if (select && latent_states != 0)
                throw config_error(detail::message("train_learned: learner '", learner, "' chooses L (or the clone "
                                                   "total) itself, so latent_states must be 0, got ", latent_states));
            if (std::holds_alternative<TabularBeliefPolicy>(policy.p))
                programs::refuse_learned_class_b(programs::PolicyClass::belief_state, "train_learned: TabularBeliefPolicy");
            programs::LearningSettings ls;
            ls.latent_states = latent_states;
            ls.warmup = warmup;
            ls.heldout = heldout;
            ls.refit_every = refit_every;
            ls.refit_iterations = refit_iterations;
            ls.window = window;
            ls.restarts = restarts;
            ls.em_iterations = em_iterations;
            ls.smoothing = smoothing;
            ls.learned_prior = learned_prior;
            if (select_max_states) ls.select_max_states = *select_max_states;
            const Model& w = *world->model;
            // A selection's largest candidate is at most select_max_states latent states (or clones).
            require_learned_memory(select ? "train_learned (the selection's largest candidate, select_max_states)"
                                          : "train_learned",
                                   select ? ls.select_max_states : latent_states, w.num_states(), w.num_actions(),
                                   w.num_observations(), w.horizon(), warmup, window, heldout);
            LearnedBeliefOptions lo = programs::learned_options(ls, world->model->num_states());
            // The learner's settings, as maxent-paper's learned curves apply them (train_seed.hpp).
            if (learner != "em") programs::apply_learner(lo, learner, to_iohmm(*world->model));
            lo.validate();  // the library's checks (smoothing, ...), before any episode is drawn
            const auto in_use = models_in_use(world, py::none());
            // The policy against the agent the trainer will build (L latent states, the world's actions and
            // observations): the library's message, before the warm-up episodes and the first fit. A
            // selecting learner's L is chosen per run: a policy over the latent states is made anew with
            // the chosen L rows and θ = 0 (as maxent-paper's runner makes it), so its rows are not read and
            // a θ other than 0 (which would be dropped) is refused.
            const Model& model = *world->model;
            const bool over_latent = !std::holds_alternative<ObservationPolicy>(policy.p);
            const Eigen::MatrixXd& theta =
                std::visit([](const auto& p) -> const Eigen::MatrixXd& { return p.parameters(); }, policy.p);
            if (select && over_latent && !(theta.array() == 0.0).all())
                throw config_error(detail::message(
                    "train_learned: learner '", learner, "' chooses L per run, and the ", PyPolicy{policy.p}.class_name(),
                    " over the latent states is made anew with the chosen L rows and θ = 0; this one's θ is not 0 "
                    "(pass a fresh ", PyPolicy{policy.p}.class_name(), "(1, A), or an ObservationPolicy)"));
            const std::size_t agent_rows =
                select && over_latent ? static_cast<std::size_t>(theta.rows()) : lo.fit.latent_states;
            const AgentDimensions agent{agent_rows, model.num_actions(), model.num_observations()};
            std::visit([&](const auto& p) { p.check_dimensions(agent); }, policy.p);
            const std::vector<std::uint64_t> all = seeds_of(o);
            std::vector<LearnedJob> jobs;
            for (const std::uint64_t s : all) {
                LearnedJob j{world, policy.p, to_feedback(feedback), to_estimator(estimator), to_step(step), o.config,
                             lo, &o.progress, select ? learner : std::string(), ls};
                j.config.seed = s;
                jobs.push_back(std::move(j));
            }
            std::vector<PyTrainResult> out(jobs.size());
            std::vector<LearnedOut> extra(jobs.size());
            std::atomic<bool> stop{false};
            run_jobs(jobs.size(), o.threads, [&](std::size_t i) { out[i] = run_learned(jobs[i], stop, extra[i]); }, stop);
            for (std::size_t i = 0; i < out.size(); ++i) {
                for (const FitRecord& f : extra[i].fits) out[i].fits.push_back(fit_dict(f));
                if (const auto& c = extra[i].selected) {
                    py::dict d;
                    d["learner"] = learner;
                    d["latent_states"] = c->latent_states;
                    d["pseudo_count"] = c->pseudo_count;
                    d["smoothing"] = extra[i].smoothing;
                    d["allocation"] = c->allocation;
                    d["clones"] = extra[i].clones.empty() ? py::object(py::none()) : py::object(py::cast(extra[i].clones));
                    d["candidates"] = c->candidates;
                    d["max_latent_states"] = ls.select_max_states;
                    out[i].selection = d;
                }
                attach_belief_model(out[i]);
            }
            return results(std::move(out), o);
        },
        py::arg("world"), py::arg("policy"), py::arg("feedback") = "reg-mbe", py::arg("estimator") = "batch-mean",
        py::arg("step") = "constant", py::kw_only(), py::arg("latent_states") = 0,
        py::arg("warmup") = learned_belief_defaults.warmup, py::arg("heldout") = learned_belief_defaults.heldout,
        py::arg("refit_every") = learned_belief_defaults.refit_every,
        py::arg("refit_iterations") = learned_belief_defaults.refit_iterations,
        py::arg("window") = learned_belief_defaults.window, py::arg("restarts") = learned_belief_defaults.restarts,
        py::arg("em_iterations") = learned_belief_defaults.em_iterations,
        py::arg("smoothing") = learned_belief_defaults.smoothing,
        py::arg("learned_prior") = learned_belief_defaults.learned_prior, py::arg("iterations") = 1000, py::arg("batch") = 10, py::arg("seed") = 0,
        py::arg("seeds") = py::none(), py::arg("counting") = "paper", py::arg("threads") = 0,
        py::arg("progress") = py::none(), py::arg("progress_every") = 1, py::arg("learner") = "em",
        py::arg("select_max_states") = py::none(),
        "Algorithm 1 without a simulator (Section 5): the agent's belief model is an IOHMM with `latent_states`\n"
        "states (0 = the world's S) fitted to uniform warm-up episodes and refitted every `refit_every`\n"
        "iterations; the world is touched only through actions and observations. The policy, as in maxent-paper:\n"
        "ObservationPolicy(O, A) over the world's observations, or BeliefAveragedPolicy, BelievedStatePolicy or\n"
        "BeliefMixturePolicy (L, A) over the L latent states; TabularBeliefPolicy (class B) is refused (its rows\n"
        "are beliefs, which change meaning at every refit). The result's `fits` lists every fit; `belief_model`\n"
        "and `belief_filter` are the final learned model and the agent's filter on it (b_1 = its μ̂ unless\n"
        "learned_prior=False: the paper's uniform b_1; `prior` says which), so evaluate(world, r.belief_filter,\n"
        "r.policy) evaluates the learned policy on fresh episodes; `heldout_episodes` are the episodes the fits'\n"
        "held-out values score (score_sequences). Defaults: maxent.learned_belief_defaults(). Settings the\n"
        "library refuses (LearnedBeliefOptions::validate, e.g. smoothing 0) are refused before any episode;\n"
        "progress and progress_every as in train(). learner: how the model is learned, maxent-paper's --learners\n"
        "(runtime learner_kinds): 'em', 'em-sparse', 'cloned-hmm' (L clones split evenly), the oracle ablations\n"
        "'em-known-motion' / 'em-known-sensor' (given the world's transitions / emissions and L = its S), and\n"
        "'em-select', 'em-spectral-select', 'cloned-hmm-select' (latent_states = 0): each run chooses L (or the\n"
        "clone total and allocation) and the prior by held-out likelihood on a fifth of its own warm-up episodes,\n"
        "doubling up to select_max_states (None: maxent-paper's default, --select-max-states), before its policy\n"
        "is sized, exactly as maxent-paper's and maxent-explore's runs do (runtime select_learned_model_for_run);\n"
        "a policy over the latent states is then made anew with the chosen L rows and θ = 0 (pass e.g.\n"
        "BeliefAveragedPolicy(1, A); a θ other than 0 is refused), and the result's `selection` says what was\n"
        "chosen (latent_states, pseudo_count, smoothing, allocation, clones, candidates). em-spectral is\n"
        "fit_belief_model's only.");

    // --- learned belief models (fit_iohmm) -------------------------------------------------------------
    m.def(
        "uniform_episodes",
        [](std::shared_ptr<PyModel> world, std::size_t episodes, std::uint64_t seed, const std::string& counting) {
            const std::size_t K = Trajectory::actions_for(to_counting(counting), world->model->horizon());
            // The episodes' indices and, per episode, a tuple and two numpy arrays (about 300 bytes).
            require_memory(detail::message("uniform_episodes: episodes = ", episodes, " of ", K,
                                           " actions (the world's horizon ", world->model->horizon(), ")"),
                           "the list of episodes",
                           static_cast<double>(episodes) * (programs::episodes_bytes(1.0, static_cast<double>(K)) + 300.0));
            py::list out;
            ActionObservationSequence s;
            for (std::size_t e = 0; e < episodes; ++e) {
                DefaultRng g = stream(seed, 0, e);
                detail::uniform_episode(*world->model, K, g, s);
                out.append(py::make_tuple(to_array(s.actions), to_array(s.observations)));
            }
            return out;
        },
        py::arg("world"), py::arg("episodes"), py::arg("seed") = 0, py::arg("counting") = "paper",
        "Episodes of uniformly random actions as (actions, observations) pairs; episode e draws from stream(seed, 0, e).");
    m.def(
        "read_sequences_csv",
        [](const std::string& path, bool with_ids) {
            return sequences_to_python(read_sequences_csv_file(path), with_ids);
        },
        py::arg("path"), py::arg("with_ids") = false,
        "Recorded (actions, observations) sequences from a CSV file (columns sequence,step,action,observation;\n"
        "docs/reference.md): a list of (actions, observations) numpy pairs for fit_belief_model, or of\n"
        "(id, actions, observations) with with_ids=True. ParseError naming file:line:column.");
    m.def(
        "parse_sequences_csv",
        [](const std::string& text, bool with_ids) {
            std::istringstream in(text);
            return sequences_to_python(read_sequences_csv(in, "<text>"), with_ids);
        },
        py::arg("text"), py::arg("with_ids") = false, "read_sequences_csv on CSV text.");
    m.def(
        "fit_belief_model",
        [](const py::iterable& data, std::size_t latent_states, std::size_t num_actions, std::size_t num_observations,
           std::size_t horizon, double smoothing, std::size_t restarts, std::size_t max_iterations, double tolerance,
           std::uint64_t seed, std::size_t threads, const std::optional<py::iterable>& heldout,
           const std::string& emission, const std::string& learner, const std::shared_ptr<PyModel>& world,
           const py::object& clones, const std::optional<py::dict>& prior, const std::optional<py::dict>& selection) {
            constexpr const char* who = "fit_belief_model";
            bool extra = false;
            for (const char* n : extra_learners) extra = extra || learner == n;
            if (programs::find_learner(learner) == nullptr && !extra)
                throw config_error(detail::message(who, ": unknown learner '", learner, "' (known: ", known_learners(), ")"));
            const bool oracle = oracle_learner(learner), select = learner.ends_with("-select");
            const bool cloned = learner == "cloned-hmm" || learner == "cloned-hmm-select";
            if (oracle && !world)
                throw config_error(detail::message(
                    who, ": learner '", learner, "' is an oracle ablation: it is given the world's ",
                    learner == "em-known-motion" ? "transitions" : "emissions",
                    " and its number of states; pass the true model as world="));
            if (!oracle && world)
                throw config_error(detail::message(who, ": learner '", learner, "' learns from the logs only; world= is "
                                                        "for the oracle ablations em-known-motion and em-known-sensor"));
            if (!select && selection)
                throw config_error(detail::message(who, ": selection= is read by the -select learners only, not by '",
                                                   learner, "'"));
            if (!cloned && !clones.is_none())
                throw config_error(detail::message(who, ": clones= is read by the cloned-hmm learner only, not by '",
                                                   learner, "'"));
            if (select && latent_states != 0)
                throw config_error(detail::message(who, ": learner '", learner, "' chooses the number of latent states "
                                                        "from the logs: latent_states must be 0, got ", latent_states));
            if (select && heldout)
                throw config_error(detail::message(who, ": learner '", learner, "' holds out its own part of the "
                                                        "sequences (selection['heldout_fraction']); heldout= is not read"));
            if (cloned && emission != "shared")
                throw config_error(detail::message(who, ": learner '", learner, "' has shared emissions, got emission '",
                                                   emission, "'"));
            if (emission != "shared" && emission != "per_action")
                throw config_error(detail::message(who, ": emission '", emission, "' (known: shared, per_action)"));
            IohmmModel truth;
            if (world) {
                const Model& w = *world->model;
                if (w.num_actions() != num_actions || w.num_observations() != num_observations)
                    throw config_error(detail::message(who, ": world= has ", w.num_actions(), " actions and ",
                                                       w.num_observations(), " observations, but num_actions = ",
                                                       num_actions, " and num_observations = ", num_observations));
                truth = to_iohmm(w);
                if (latent_states == 0) latent_states = w.num_states();
            }
            LearnedBeliefOptions lo;
            IohmmOptions& o = lo.fit;
            o.latent_states = latent_states;
            o.num_actions = num_actions;
            o.num_observations = num_observations;
            o.smoothing = smoothing;
            o.restarts = restarts;
            o.max_iterations = max_iterations;
            o.tolerance = tolerance;
            o.seed = seed;
            o.threads = threads;
            if (emission == "per_action") o.emission = EmissionModel::per_action;
            // The runtime's settings of each learner (runner.cpp apply_learner); the -select and
            // -spectral learners on em's or cloned-hmm's, as the diagnosis program sets them.
            if (learner == "cloned-hmm-select") programs::apply_learner(lo, "cloned-hmm", truth);
            else if (programs::find_learner(learner) != nullptr) programs::apply_learner(lo, learner, truth);
            o.spectral = learner == "em-spectral" || learner == "em-spectral-select";
            if (prior) set_prior(*prior, o.prior);
            std::vector<std::size_t> clone_counts;
            if (!clones.is_none()) {
                if (py::isinstance<py::int_>(clones) && !py::isinstance<py::bool_>(clones)) {
                    const std::size_t total = index_from(clones, "fit_belief_model: clones");
                    if (latent_states != 0 && latent_states != total)
                        throw config_error(detail::message(who, ": clones = ", total, " (a total) but latent_states = ",
                                                           latent_states, "; give one of them or the same number"));
                    clone_counts = equal_clones(total, num_observations);
                } else {
                    clone_counts = indices_from(clones, "fit_belief_model: clones");
                }
            }
            SelectionOptions so;
            so.split_seed = seed;
            if (selection) set_selection(*selection, so);
            const auto train = sequences_from(data, who);
            const auto held = heldout ? sequences_from(*heldout, "fit_belief_model (heldout)") : std::vector<ActionObservationSequence>{};
            std::size_t longest = 0;  // the forward-backward variables are per step of a sequence
            for (const auto* set : {&train, &held})
                for (const ActionObservationSequence& q : *set) longest = std::max(longest, q.observations.size());
            // The largest model fitted: L, the clones' sum, or a selection's largest candidate.
            std::size_t largest = o.latent_states;
            if (!clone_counts.empty()) {
                largest = 0;
                for (const std::size_t c : clone_counts) largest += c;
            }
            if (select) {
                largest = so.max_latent_states;
                for (const std::size_t c : so.latent_states) largest = std::max(largest, c);
            }
            const double emission_columns = static_cast<double>(num_observations) *
                                            (o.emission == EmissionModel::per_action ? static_cast<double>(num_actions) : 1.0);
            require_memory(detail::message("fit_belief_model: latent_states = ", largest, ", num_actions = ",
                                           num_actions, ", num_observations = ", num_observations,
                                           o.emission == EmissionModel::per_action ? " (per action)" : "",
                                           ", the longest sequence's length = ", longest),
                           "the model and its fit",
                           programs::iohmm_fit_bytes(static_cast<double>(largest), static_cast<double>(num_actions),
                                                     emission_columns, static_cast<double>(longest)));
            IohmmFit fit;
            std::optional<SelectionReport> report;
            // Off the GIL on a worker; this thread checks signals every 100 ms and on Ctrl-C sets
            // `stop`, which EM reads every iteration (then KeyboardInterrupt is raised).
            std::atomic<bool> stop{false};
            o.stop = &stop;
            run_jobs(1, 1, [&](std::size_t) {
                if (learner == "cloned-hmm-select") report = select_cloned_hmm(train, o, so);
                else if (select) report = select_iohmm(train, o, so);
                else if (cloned) fit = fit_cloned_hmm(train, o, clone_counts, held);
                else fit = fit_iohmm(train, o, held);
                if (report) fit = std::move(report->fit);
            }, stop);
            py::dict info;
            info["log_likelihood"] = to_array(fit.log_likelihood);
            info["heldout_log_likelihood"] = to_array(fit.heldout_log_likelihood);
            info["restart_log_likelihood"] = to_array(fit.restart_log_likelihood);
            info["iterations"] = fit.iterations;
            info["restart"] = fit.restart;
            info["converged"] = fit.converged;
            info["learner"] = learner;
            info["given"] = learner_given(learner);
            if (report) {
                info["candidates"] = candidates_to_python(*report);
                info["chosen"] = report->chosen;
                info["highest"] = report->highest;
                if (!report->clones.empty()) info["clones"] = report->clones;
            } else if (cloned) {
                info["clones"] = clone_counts.empty() ? equal_clones(o.latent_states, num_observations) : clone_counts;
            }
            const std::size_t L = fit.model.num_latent_states();
            auto model = wrap_model(to_finite_pomdp(fit.model, horizon), index_labels(L), index_labels(num_actions),
                                    index_labels(num_observations), "learned belief model");
            return py::make_tuple(model, info);
        },
        py::arg("sequences"), py::arg("latent_states"), py::arg("num_actions"), py::arg("num_observations"),
        py::arg("horizon"), py::arg("smoothing") = learned_belief_defaults.smoothing,
        py::arg("restarts") = learned_belief_defaults.restarts,
        py::arg("max_iterations") = learned_belief_defaults.em_iterations,
        py::arg("tolerance") = 1e-6, py::arg("seed") = 0, py::arg("threads") = 1, py::arg("heldout") = py::none(),
        py::arg("emission") = "shared", py::kw_only(), py::arg("learner") = "em", py::arg("world") = py::none(),
        py::arg("clones") = py::none(), py::arg("prior") = py::none(), py::arg("selection") = py::none(),
        "An input-output HMM with `latent_states` states fitted by EM to (actions, observations) sequences;\n"
        "returns (model, info): the agent's finite model over its latent states (for BayesFilter) and the fit's\n"
        "log-likelihoods. learner (the C++ names; info['learner'], and info['given']: what it is given of the\n"
        "world besides the logs):\n"
        "  'em' plain EM; 'em-sparse' a sparse Dirichlet(0.1) prior on the transitions; 'em-spectral' restart 0\n"
        "  from the spectral start (IohmmOptions::spectral); 'cloned-hmm' a cloned HMM (fit_cloned_hmm): clones=\n"
        "  per-observation clone counts or a total split evenly (None: latent_states split evenly), transition\n"
        "  pseudo-count 1e-3, at least 1000 EM steps; info['clones'];\n"
        "  'em-known-motion', 'em-known-sensor': ORACLE ABLATIONS, given the true world= (a Model): its\n"
        "  transitions (resp. emissions, with its emission model) are held fixed, and its number of states\n"
        "  (latent_states 0 or S); refused without world=;\n"
        "  'em-select', 'em-spectral-select', 'cloned-hmm-select': logs only, latent_states = 0: L (or the clone\n"
        "  total and allocation) and the pseudo-count chosen on held-out sequences by the one-standard-error rule\n"
        "  (select_iohmm / select_cloned_hmm), then refitted on all; selection= a dict of SelectionOptions\n"
        "  (latent_states, max_latent_states, pseudo_counts, heldout_fraction, standard_errors, refit, split_seed =\n"
        "  seed); info['candidates'] (a dict per candidate: latent_states, pseudo_count, allocation, clones,\n"
        "  heldout_per_observation, ..., chosen) and info['chosen'] (its index).\n"
        "prior= a dict of IohmmPrior (initial, transitions, emissions: Dirichlet concentrations c = 1 + pseudo-count;\n"
        "floor) over the learner's.");
    m.def(
        "score_sequences",
        [](const std::shared_ptr<PyModel>& model, const py::iterable& sequences, bool per_observation,
           std::size_t threads, std::size_t block_size) {
            const auto data = sequences_from(sequences, "score_sequences");
            SequenceScore sc;
            std::atomic<bool> stop{false};  // set on Ctrl-C (run_jobs), read every block of sequences
            run_jobs(1, 1, [&](std::size_t) { sc = score_sequences(*model->model, data, threads, block_size, &stop); },
                     stop);
            return per_observation ? sc.per_observation : sc.log_likelihood;
        },
        py::arg("model"), py::arg("sequences"), py::kw_only(), py::arg("per_observation") = true,
        py::arg("threads") = 1, py::arg("block_size") = 32,
        "The log-likelihood of (actions, observations) sequences under a finite Model (the world's, a model\n"
        "file's, or a learned one: TrainResult.belief_model, fit_belief_model's), per observation (or in total\n"
        "with per_observation=False): the forward pass the learned-belief trainer scores its held-out episodes\n"
        "with, so score_sequences(r.belief_model, r.heldout_episodes) is r.fits[-1]['heldout_log_likelihood'].\n"
        "-inf when a sequence is impossible under the model; actions and observations are indices.");
    m.def("learned_belief_defaults", [] {
        const LearnedBeliefDefaults& d = learned_belief_defaults;
        py::dict defaults;
        defaults["smoothing"] = d.smoothing;
        defaults["restarts"] = d.restarts;
        defaults["em_iterations"] = d.em_iterations;
        defaults["warmup"] = d.warmup;
        defaults["heldout"] = d.heldout;
        defaults["refit_every"] = d.refit_every;
        defaults["refit_iterations"] = d.refit_iterations;
        defaults["window"] = d.window;
        defaults["learned_prior"] = d.learned_prior;
        return defaults;
    }, "The one set of learned-belief defaults (C++ maxent::learned_belief_defaults) that train_learned,\n"
       "fit_belief_model, run_experiment and maxent-paper use: smoothing, restarts and em_iterations of a\n"
       "first fit, warmup, heldout, refit_every, refit_iterations, window and learned_prior (the filter's b_1).");
    // --- the paper's experiments by name --------------------------------------------------
    m.def("experiments", [] {
        py::list out;
        for (const programs::Experiment& e : programs::experiments()) {
            py::dict d;
            d["name"] = e.name;
            d["figure"] = e.figure;
            d["what"] = e.what;
            d["environment"] = e.env.describe();
            d["paper"] = e.paper;
            py::list curves;
            for (const programs::Curve& c : programs::make_curves(e, programs::Settings{})) curves.append(c.label);
            d["curves"] = curves;
            out.append(d);
        }
        return out;
    }, "The registry of the paper's experiments (maxent-paper --list).");
    m.def("experiment_environment", [](const std::string& name) {
        const programs::Experiment* e = programs::find_experiment(name);
        if (e == nullptr) throw config_error(detail::message("unknown experiment '", name, "'"));
        return grid_model(e->env.build(), e->env.describe());
    }, py::arg("name"), "The grid world of an experiment.");

    m.def(
        "run_experiment",
        [](const std::string& name, std::optional<std::size_t> iterations, std::optional<std::size_t> batch,
           std::optional<std::vector<std::uint64_t>> seeds, std::optional<std::vector<std::string>> objectives,
           std::optional<std::vector<double>> noises, std::optional<std::vector<std::string>> policies,
           std::optional<std::vector<std::string>> learned, std::optional<std::string> estimator,
           std::optional<std::string> step, std::optional<double> alpha, std::optional<double> rho,
           std::optional<std::string> counting, std::optional<std::size_t> latent_states,
           const std::optional<py::dict>& learning, std::size_t threads) {
            using namespace programs;
            const Experiment* e = find_experiment(name);
            if (e == nullptr)
                throw config_error(maxent::detail::message("unknown experiment '", name, "' (see maxent.experiments())"));
            Settings s;
            if (iterations) s.iterations = *iterations;
            if (batch) s.batch = *batch;
            if (seeds) s.seeds = *seeds;
            auto parse_list = [](const std::vector<std::string>& names, auto parse, const char* what) {
                std::vector<std::decay_t<decltype(*parse(std::string_view{}))>> out;
                for (const std::string& n : names) {
                    const auto v = parse(n);
                    if (!v) throw config_error(maxent::detail::message("run_experiment: unknown ", what, " '", n, "'"));
                    out.push_back(*v);
                }
                return out;
            };
            if (objectives) s.objectives = parse_list(*objectives, parse_objective, "objective");
            if (learned) s.learned = parse_list(*learned, parse_objective, "objective");
            if (policies) s.policies = parse_list(*policies, parse_policy_class, "policy class");
            if (noises) s.noises = *noises;
            if (estimator) s.estimator = parse_list({*estimator}, parse_estimator, "estimator").front();
            if (step) s.step = parse_list({*step}, parse_step, "step rule").front();
            if (counting) s.counting = parse_list({*counting}, parse_counting, "counting").front();
            if (alpha) s.alpha = *alpha;
            if (rho) s.rho = *rho;
            if (latent_states) s.learning.latent_states = *latent_states;
            if (learning) set_learning(*learning, latent_states.has_value(), s.learning);
            validate_settings(*e, s);  // the programs' checks, before any run (run_experiment repeats them)
            for (const Curve& c : make_curves(*e, s)) {
                if (!c.learned) continue;
                const GridPomdp g = e->env.build();
                const LearningSettings& l = s.learning;
                require_learned_memory("run_experiment", l.latent_states, g.num_states(), g.num_actions(),
                                       g.num_observations(), g.horizon(), l.warmup, l.window, l.heldout);
                break;
            }

            ExperimentResult r;
            std::atomic<bool> stop{false};
            run_jobs(1, 1, [&](std::size_t) { r = programs::run_experiment(*e, s, threads, &stop); }, stop);

            py::dict result, by_curve;
            result["name"] = e->name;
            result["figure"] = e->figure;
            result["environment"] = e->env.describe();
            result["plotted"] = std::string(name_of(e->plotted));
            const std::size_t K = s.iterations, n = s.seeds.size();
            for (const CurveRuns& c : r.curves) {
                py::array_t<double> te({n, K}), fb({n, K}), be({n, K});
                for (std::size_t i = 0; i < n; ++i)
                    for (std::size_t k = 0; k < K; ++k) {
                        const IterationRecord& x = c.runs[i].records[k];
                        te.mutable_at(i, k) = x.true_entropy;
                        fb.mutable_at(i, k) = x.feedback;
                        be.mutable_at(i, k) = x.belief_entropy_sum;
                    }
                py::dict d;
                d["seeds"] = s.seeds;
                d["true_entropy"] = te;
                d["feedback"] = fb;
                d["belief_entropy_sum"] = be;
                d["learned"] = c.curve.learned;
                if (c.curve.learned) {
                    py::list f;
                    for (const SeedRun& run : c.runs) {
                        py::list per_seed;
                        for (const FitRecord& x : run.fits) per_seed.append(fit_dict(x));
                        f.append(per_seed);
                    }
                    d["fits"] = f;
                }
                by_curve[py::str(c.curve.label)] = d;
            }
            result["curves"] = by_curve;
            return result;
        },
        py::arg("name"), py::kw_only(), py::arg("iterations") = py::none(), py::arg("batch") = py::none(),
        py::arg("seeds") = py::none(), py::arg("objectives") = py::none(), py::arg("noises") = py::none(),
        py::arg("policies") = py::none(), py::arg("learned") = py::none(), py::arg("estimator") = py::none(),
        py::arg("step") = py::none(), py::arg("alpha") = py::none(), py::arg("rho") = py::none(),
        py::arg("counting") = py::none(), py::arg("latent_states") = py::none(), py::arg("learning") = py::none(),
        py::arg("threads") = 0,
        "One of the paper's experiments by name (maxent-paper's registry: fig2a ... fig5b, nosim2b ..., room80),\n"
        "with the same overrides as the program's flags (`learning`: a dict of the learned-belief flags,\n"
        "{'latent_states', 'warmup', 'heldout', 'refit_every', 'refit_iterations', 'window', 'restarts',\n"
        "'em_iterations', 'smoothing', 'learned_prior'}: --latent-states ... --learned-prior); returns {'curves': {label: {'true_entropy': seeds x K\n"
        "array, 'feedback': ..., 'belief_entropy_sum': ...}}, ...}: the numbers maxent-paper writes to runs.csv.\n"
        "Learned-belief curves ('learned-mbe', ...) train every policy class but B, as the program does.");
}

}  // namespace maxent::python
