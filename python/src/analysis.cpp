// python/src/analysis.cpp — the exact objective and gradient, the estimators' quality against
// it, the evaluation of a policy (and of the uniform baseline), and the kNN entropy of an
// array of points, with the GIL released (the kNN estimator polls for Ctrl-C).
#include <chrono>

#include "common.hpp"
#include "maxent/core/knn_entropy.hpp"
#include "maxent/objective/exact.hpp"
#include "maxent/optim/estimator_quality.hpp"
#include "maxent/optim/evaluate.hpp"

namespace maxent::python {

namespace {

const Filter& exact_filter(const py::object& u, const std::shared_ptr<PyModel>& world, std::optional<Filter>& own) {
    if (u.is_none()) {
        own.emplace(*world->model);
        return *own;
    }
    if (py::isinstance<PyFilter>(u)) return u.cast<PyFilter&>().filter;
    throw config_error(detail::message("the exact computations need the exact BayesFilter (deterministic), got ",
                                       std::string(py::repr(u))));
}

/// The n x d points of knn_entropy as float64, C order: a 1-D array is n points of R^1.
/// Refuses what does not hold real numbers (complex, strings, objects: TypeError) and other
/// shapes (ValueError), naming the argument, instead of converting them.
py::array_t<double, py::array::c_style> knn_points(const py::object& points) {
    const py::array a = py::array::ensure(points);
    if (!a) throw py::type_error(detail::message("knn_entropy: points = ", std::string(py::repr(points)).substr(0, 80),
                                                 " is not an array of numbers"));
    const char kind = a.dtype().kind();
    if (kind != 'f' && kind != 'i' && kind != 'u' && kind != 'b')
        throw py::type_error(detail::message(
            "knn_entropy: points has dtype ", std::string(py::str(a.dtype())),
            kind == 'c' ? " (complex: coordinates must be real; pass points.real or stack real and imaginary parts)"
                        : " (coordinates must be real numbers)"));
    if (a.ndim() != 1 && a.ndim() != 2)
        throw py::value_error(detail::message("knn_entropy: points has ", a.ndim(),
                                              " dimensions; it must be n x d (or n values: d = 1)"));
    return py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(a);
}

/// The one conversion of an Evaluation to Python, for every world (a finite model here, a
/// simulator through evaluate_generative): always the same keys; a quantity with n = 0 (not
/// computed for this world or these settings: true_entropy_knn of a finite model or of a world
/// without state_point, observation_entropy of a vector world with knn_k = 0) is None, never a
/// dict with n = 0; otherwise {mean, low, high, n}. Then the estimators used and how the kNN
/// quantities counted ties.
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

py::dict quality(const EstimatorQuality& q) {
    py::dict d;
    d["name"] = q.name;
    d["batch"] = q.batch;
    d["repetitions"] = q.repetitions;
    d["objective"] = q.objective;
    d["gradient_norm"] = q.gradient_norm;
    d["mean_estimate"] = q.mean_estimate;
    d["bias_norm"] = q.bias_norm;
    d["bias_standard_error"] = q.bias_standard_error;
    d["relative_bias"] = q.relative_bias;
    d["covariance_trace"] = q.covariance_trace;
    d["mean_cosine"] = q.mean_cosine;
    d["cosine_of_mean"] = q.cosine_of_mean;
    d["zero_fraction"] = q.zero_fraction;
    d["seconds_per_estimate"] = q.seconds_per_estimate;
    d["rollout_seconds_per_batch"] = q.rollout_seconds_per_batch;
    return d;
}

}  // namespace

void bind_analysis(py::module_& m) {
    m.def(
        "exact_objective",
        [](std::shared_ptr<PyModel> world, const PyPolicy& policy, const py::object& feedback,
           const py::object& updater, const std::string& counting, std::size_t max_leaves, std::size_t max_horizon) {
            const auto in_use = models_in_use(world, updater);
            std::optional<Filter> own;
            const Filter& filter = exact_filter(updater, world, own);
            const FeedbackBox f = to_feedback(feedback);
            ExactOptions o;
            o.counting = to_counting(counting);
            o.max_leaves = max_leaves;
            o.max_horizon = max_horizon;
            ExactResult r;
            {
                py::gil_scoped_release release;
                r = std::visit([&](const auto& p) { return exact_objective(*world->model, filter, p, f, o); }, policy.p);
            }
            py::dict d;
            d["objective"] = r.objective;
            d["gradient"] = r.gradient;
            d["leaves"] = r.leaves;
            d["leaf_bound"] = r.leaf_bound;
            d["probability"] = r.probability;
            return d;
        },
        py::arg("world"), py::arg("policy"), py::arg("feedback") = "mse", py::arg("updater") = py::none(),
        py::kw_only(), py::arg("counting") = "paper", py::arg("max_leaves") = ExactOptions{}.max_leaves,
        py::arg("max_horizon") = ExactOptions{}.max_horizon,
        "J(θ) and ∇J(θ) exactly, by enumerating every trajectory of a tiny model: {'objective', 'gradient',\n"
        "'leaves', 'leaf_bound', 'probability'}. BudgetError above max_leaves (a bound on the enumerated\n"
        "trajectories) or max_horizon (the recursion's depth: raise it only with the stack to match).");

    m.def(
        "estimator_quality",
        [](std::shared_ptr<PyModel> world, const PyPolicy& policy, const py::object& feedback,
           const py::object& estimators, const py::object& updater, std::size_t batch, std::size_t repetitions,
           std::uint64_t seed, std::size_t threads, const std::string& counting, std::size_t max_leaves) -> py::object {
            const auto in_use = models_in_use(world, updater);
            std::optional<Filter> own;
            const Filter& filter = exact_filter(updater, world, own);
            const FeedbackBox f = to_feedback(feedback);
            QualityConfig c;
            c.batch = batch;
            c.repetitions = repetitions;
            c.seed = seed;
            c.threads = threads;
            c.counting = to_counting(counting);
            c.max_leaves = max_leaves;
            const bool many = py::isinstance<py::list>(estimators) || py::isinstance<py::tuple>(estimators);
            std::vector<EstimatorBox> es;
            if (many)
                for (const py::handle e : estimators) es.push_back(to_estimator(e));
            else
                es.push_back(to_estimator(estimators));
            std::vector<EstimatorQuality> qs;
            {
                py::gil_scoped_release release;
                for (const EstimatorBox& e : es) {
                    EstimatorQuality q = std::visit(
                        [&](const auto& p) -> EstimatorQuality {
                            using P = std::decay_t<decltype(p)>;
                            if constexpr (RowSparsePolicy<P> && !policy_has_fixed_parameters<P>)
                                throw config_error("estimator_quality: the row-sparse TabularBeliefPolicy is not "
                                                   "supported (optim/estimator_quality.hpp)");
                            else
                                return estimator_quality(*world->model, filter, p, f, c, e);
                        },
                        policy.p);
                    q.name = std::string(e.name());
                    qs.push_back(std::move(q));
                }
            }
            if (!many) return quality(qs.front());
            py::list out;
            for (const auto& q : qs) out.append(quality(q));
            return out;
        },
        py::arg("world"), py::arg("policy"), py::arg("feedback"), py::arg("estimators"),
        py::arg("updater") = py::none(), py::kw_only(), py::arg("batch") = 10, py::arg("repetitions") = 1000,
        py::arg("seed") = 0, py::arg("threads") = 1, py::arg("counting") = "paper",
        py::arg("max_leaves") = ExactOptions{}.max_leaves,
        "An estimator (or a list: compare_estimators) against the exact gradient, on the same batches\n"
        "(trajectory n of repetition r draws from stream(seed, r, n)): bias, its standard error, covariance\n"
        "trace, cosines, zero estimates, times. max_leaves: the exact gradient's enumeration budget (BudgetError\n"
        "names the bound; raise it for a longer horizon at the cost of time).");

    // evaluate / evaluate_uniform: a finite Model with a bound policy runs here, with the GIL
    // released; a simulator (or ObservationFeaturePolicy) in sim_evaluate.cpp, on this thread.
    constexpr const char* evaluation_doc =
        "\n\nThe dict: episodes; true_entropy (binned), observation_entropy, believed_entropy, belief_entropy_sum,\n"
        "true_entropy_knn (each {mean, low, high, n}, or None when not computed: n would be 0) and the estimators used:\n"
        "true_entropy_estimator ('binned'), observation_entropy_estimator ('binned' for index observations or a\n"
        "world's bins, 'knn' for a simulator's raw observation vectors, 'none'), true_entropy_knn_estimator ('knn'\n"
        "for a simulator with state_point(s), else 'none'), knn_k. kNN entropies are in nats (Kozachenko-Leonenko,\n"
        "k = knn_k nearest neighbours; knn_k = 0: none). Repeated points (a robot that stays put at a wall) are\n"
        "counted at a resolution: knn_min_distance None (the default) takes 1e-12 of each episode's point-cloud\n"
        "diagonal (the scale rule: point sets without such ties are left exactly as the plain estimator has\n"
        "them), a number > 0 that resolution, 0 refuses ties (NumericError). knn_rule names it ('scale',\n"
        "'min_distance', 'refuse', or 'none' without kNN quantities), knn_resolution_low / knn_resolution_high\n"
        "give the smallest and largest resolution applied, knn_floored how many points lay closer than it to\n"
        "their k-th neighbour (summed over episodes). The keys are the same for every world and policy. A simulator\n"
        "runs on one thread.";
    const auto finite_evaluation = [](const py::object& world, const py::object& updater, const PyPolicy* policy,
                                      const EvaluateOptions& o, const char* who) {
        const auto w = world.cast<std::shared_ptr<PyModel>>();
        const auto in_use = models_in_use(w, updater);
        const Noisy u = finite_updater(updater, w, who);
        Evaluation e;
        {
            py::gil_scoped_release release;
            if (policy == nullptr) e = evaluate_uniform(*w->model, u, o);
            else e = std::visit([&](const auto& p) { return evaluate(*w->model, u, p, o); }, policy->p);
        }
        return evaluation_dict(e);
    };
    m.def(
        "evaluate",
        [finite_evaluation](const py::object& world, const py::object& updater, const py::object& policy,
                            std::size_t episodes, std::uint64_t seed, std::size_t threads, const std::string& counting,
                            std::size_t knn_k, std::optional<double> knn_min_distance) {
            if (policy.is_none())
                throw py::type_error("evaluate: policy is None (evaluate_uniform evaluates the uniform policy)");
            const EvaluateOptions o{.episodes = episodes, .seed = seed, .threads = threads,
                                    .counting = to_counting(counting),
                                    .knn = {.k = knn_k, .min_distance = knn_min_distance}};
            if (!py::isinstance<PyModel>(world) || !py::isinstance<PyPolicy>(policy))
                return evaluation_dict(evaluate_generative(world, updater, policy, episodes, seed, o.counting, o.knn));
            return finite_evaluation(world, updater, &policy.cast<const PyPolicy&>(), o, "evaluate");
        },
        py::arg("world"), py::arg("updater"), py::arg("policy"), py::kw_only(), py::arg("episodes") = 1000,
        py::arg("seed") = 0, py::arg("threads") = 1, py::arg("counting") = "paper",
        py::arg("knn_k") = KnnCounting{}.k, py::arg("knn_min_distance") = py::none(),
        (std::string("The policy's mean true-state entropy, MOE, MBE and Σ_t H(b_t) over `episodes` episodes with 95%\n"
                     "intervals (episode n draws from stream(seed, evaluation_stream_run, n)). world: a Model (updater:\n"
                     "BayesFilter, NoisyBelief or None) or a simulator written in Python (updater: its ParticleFilter; run\n"
                     "on the calling thread; a GenerativeView is evaluated through its model). policy: a Policy (index\n"
                     "actions), an ObservationFeaturePolicy for a simulator with vector observations, or a GaussianPolicy\n"
                     "for a simulator with continuous actions (action_dim), built for the world's action box.") +
         evaluation_doc).c_str());
    m.def(
        "evaluate_uniform",
        [finite_evaluation](const py::object& world, const py::object& updater, std::size_t episodes, std::uint64_t seed,
                            std::size_t threads, const std::string& counting, std::size_t knn_k,
                            std::optional<double> knn_min_distance) {
            const EvaluateOptions o{.episodes = episodes, .seed = seed, .threads = threads,
                                    .counting = to_counting(counting),
                                    .knn = {.k = knn_k, .min_distance = knn_min_distance}};
            if (!py::isinstance<PyModel>(world))
                return evaluation_dict(evaluate_generative(world, updater, py::none(), episodes, seed, o.counting, o.knn));
            return finite_evaluation(world, updater, nullptr, o, "evaluate_uniform");
        },
        py::arg("world"), py::arg("updater") = py::none(), py::kw_only(), py::arg("episodes") = 1000,
        py::arg("seed") = 0, py::arg("threads") = 1, py::arg("counting") = "paper",
        py::arg("knn_k") = KnnCounting{}.k, py::arg("knn_min_distance") = py::none(),
        (std::string("evaluate() for the uniformly random policy, on the same streams: the baseline (a simulator world\n"
                     "needs its ParticleFilter as the updater).") +
         evaluation_doc).c_str());

    m.def(
        "knn_entropy",
        [](const py::object& points, std::size_t k, std::optional<double> min_distance) {
            const auto a = knn_points(points);
            const auto n = static_cast<std::size_t>(a.shape(0));
            const std::size_t d = a.ndim() == 1 ? 1 : static_cast<std::size_t>(a.shape(1));
            KnnEntropy e(k, min_distance);
            // With the GIL released; every 100 ms of the search (the estimator polls every 2^16
            // distances) the GIL is taken to let Python see signals: Ctrl-C raises KeyboardInterrupt.
            auto last = std::chrono::steady_clock::now();
            const std::function<void()> poll = [&last] {
                const auto now = std::chrono::steady_clock::now();
                if (now - last < std::chrono::milliseconds(100)) return;
                last = now;
                py::gil_scoped_acquire acquire;
                if (PyErr_CheckSignals() != 0) throw py::error_already_set();
            };
            py::gil_scoped_release release;
            return e(std::span<const double>(a.data(), n * d), d, poll);
        },
        py::arg("points"), py::arg("k") = 4, py::arg("min_distance") = py::none(),
        "The Kozachenko–Leonenko k-nearest-neighbour entropy (nats) of n points in R^d (an n x d array of real\n"
        "numbers; n values: d = 1): the estimator of moe-knn, mse-knn and evaluate's kNN quantities. Ties (a\n"
        "point with k others at distance 0): min_distance None (the default) counts them at 1e-12 of the points'\n"
        "bounding-box diagonal (the scale rule; points without such ties get the plain estimate, bit for bit), a\n"
        "number > 0 at that resolution (within [2^-511, 2^512)), 0 refuses them (NumericError naming both\n"
        "points). ConfigError for k = 0 or k >= n; TypeError for complex, string or object arrays. Runs with the\n"
        "GIL released; Ctrl-C interrupts it.");
}

}  // namespace maxent::python
