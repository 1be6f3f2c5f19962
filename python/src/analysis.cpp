// python/src/analysis.cpp — the exact objective and gradient, the estimators' quality against
// it, and the evaluation of a policy (and of the uniform baseline), with the GIL released.
#include "common.hpp"
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

py::dict interval(const MeanInterval& x) {
    py::dict d;
    d["mean"] = x.mean;
    d["low"] = x.low;
    d["high"] = x.high;
    d["n"] = x.n;
    return d;
}

py::dict evaluation(const Evaluation& e) {
    py::dict d;
    d["episodes"] = e.episodes;
    d["true_entropy"] = interval(e.true_entropy);
    d["observation_entropy"] = interval(e.observation_entropy);
    d["believed_entropy"] = interval(e.believed_entropy);
    d["belief_entropy_sum"] = interval(e.belief_entropy_sum);
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

    m.def(
        "evaluate",
        [](const py::object& world, const py::object& updater, const PyPolicy& policy, std::size_t episodes,
           std::uint64_t seed, std::size_t threads, const std::string& counting) {
            const StateCounting c = to_counting(counting);
            if (!py::isinstance<PyModel>(world))
                return evaluation(evaluate_generative(world, updater, &policy, episodes, seed, threads, c));
            const auto w = world.cast<std::shared_ptr<PyModel>>();
            const auto in_use = models_in_use(w, updater);
            const Noisy u = finite_updater(updater, w, "evaluate");
            Evaluation e;
            {
                py::gil_scoped_release release;
                e = std::visit([&](const auto& p) { return evaluate(*w->model, u, p, episodes, seed, threads, c); },
                               policy.p);
            }
            return evaluation(e);
        },
        py::arg("world"), py::arg("updater"), py::arg("policy"), py::kw_only(), py::arg("episodes") = 1000,
        py::arg("seed") = 0, py::arg("threads") = 1, py::arg("counting") = "paper",
        "The policy's mean true-state entropy, MOE, MBE and Σ_t H(b_t) over `episodes` episodes with 95%\n"
        "intervals (episode n draws from stream(seed, evaluation_stream_run, n)). world: a Model (updater:\n"
        "BayesFilter, NoisyBelief or None) or a simulator written in Python (updater: its ParticleFilter; run\n"
        "on the calling thread; a GenerativeView is evaluated through its model).");
    m.def(
        "evaluate_uniform",
        [](const py::object& world, const py::object& updater, std::size_t episodes, std::uint64_t seed,
           std::size_t threads, const std::string& counting) {
            const StateCounting c = to_counting(counting);
            if (!py::isinstance<PyModel>(world))
                return evaluation(evaluate_generative(world, updater, nullptr, episodes, seed, threads, c));
            const auto w = world.cast<std::shared_ptr<PyModel>>();
            const auto in_use = models_in_use(w, updater);
            const Noisy u = finite_updater(updater, w, "evaluate_uniform");
            Evaluation e;
            {
                py::gil_scoped_release release;
                e = evaluate_uniform(*w->model, u, episodes, seed, threads, c);
            }
            return evaluation(e);
        },
        py::arg("world"), py::arg("updater") = py::none(), py::kw_only(), py::arg("episodes") = 1000,
        py::arg("seed") = 0, py::arg("threads") = 1, py::arg("counting") = "paper",
        "evaluate() for the uniformly random policy, on the same streams: the baseline (a simulator world\n"
        "needs its ParticleFilter as the updater).");
}

}  // namespace maxent::python
