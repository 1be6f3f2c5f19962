// python/src/sequences.cpp — filter_sequence: what a finite Model (the world's, a model
// file's, or a learned one) believes along one recorded (actions, observations) sequence, with
// the log-likelihood of each observation (C++: belief/filter_sequence.hpp).
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "bind.hpp"
#include "common.hpp"
#include "maxent/belief/filter_sequence.hpp"

namespace maxent::python {

namespace {

/// The description fit_belief_model and train_learned give the models they learn.
constexpr const char* learned_description = "learned belief model";

/// The prior asked for: the default, uniform, the model's μ, or a vector (read with the GIL).
struct PriorChoice {
    enum { automatic, uniform, model, given } kind = automatic;
    Eigen::VectorXd vector;
};

PriorChoice prior_choice(const py::object& prior, std::size_t S) {
    if (prior.is_none()) return {};
    if (py::isinstance<py::str>(prior)) {
        const std::string name = prior.cast<std::string>();
        if (name == "uniform") return {PriorChoice::uniform, {}};
        if (name == "model") return {PriorChoice::model, {}};
        throw config_error(detail::message("filter_sequence: prior '", name,
                                           "' (give None: the default, 'uniform', 'model': the model's μ, or a vector)"));
    }
    const py::object v = py::module_::import("numpy").attr("asanyarray")(prior);
    if (v.attr("ndim").cast<int>() != 1 || py::len(v) != S)
        throw config_error(detail::message("filter_sequence: the prior must be a vector of ", S,
                                           " entries (one per state), got an array of shape ",
                                           std::string(py::str(v.attr("shape")))));
    const Eigen::MatrixXd p = real_matrix(v.attr("reshape")(-1, 1), "filter_sequence: prior",
                                          static_cast<Eigen::Index>(S), 1);
    return {PriorChoice::given, p.col(0)};
}

/// filter_sequence with the prior chosen; a learned model's μ is reported as "learned".
FilteredSequence filter_with(const Model& model, bool learned, const ActionObservationSequence& s,
                             const PriorChoice& prior, FirstObservation first) {
    switch (prior.kind) {
        case PriorChoice::uniform: return filter_sequence(model, s, first);
        case PriorChoice::given: return filter_sequence(model, s, prior.vector, first);
        case PriorChoice::automatic:
            if (!learned) return filter_sequence(model, s, first);
            [[fallthrough]];
        case PriorChoice::model: break;
    }
    FilteredSequence r = filter_sequence(model, s, model_prior, first);
    if (learned) r.prior_kind = SequencePrior::learned;
    return r;
}

}  // namespace

void bind_sequences(py::module_& m) {
    m.def(
        "filter_sequence",
        [](const std::shared_ptr<PyModel>& model, std::vector<std::size_t> actions,
           std::vector<std::size_t> observations, const py::object& prior, const std::string& first_observation) {
            FirstObservation first = FirstObservation::not_filtered;
            if (first_observation == "filtered") first = FirstObservation::filtered;
            else if (first_observation != "not_filtered")
                throw config_error(detail::message("filter_sequence: first_observation '", first_observation,
                                                   "' (known: not_filtered, filtered)"));
            const Model& agent = *model->model;
            require_memory(detail::message("filter_sequence: ", observations.size(), " observations of a model with ",
                                           agent.num_states(), " states"),
                           "the beliefs (one row of 8-byte entries per observation)",
                           8.0 * static_cast<double>(observations.size()) * static_cast<double>(agent.num_states()));
            const ActionObservationSequence s{std::move(actions), std::move(observations), {}};
            const bool learned = model->description == learned_description;
            const PriorChoice choice = prior_choice(prior, agent.num_states());
            FilteredSequence r;
            {
                ModelInUse use(model);  // O(T (S + nnz)): off the GIL
                py::gil_scoped_release nogil;
                r = filter_with(agent, learned, s, choice, first);
            }
            py::dict out;
            out["beliefs"] = py::cast(std::move(r.beliefs));
            out["log_likelihood"] = py::cast(std::move(r.log_likelihood));
            out["prior"] = to_string(r.prior_kind);
            out["prior_belief"] = py::cast(std::move(r.prior));
            out["first_observation"] = first_observation;
            return out;
        },
        py::arg("model"), py::arg("actions"), py::arg("observations"), py::arg("prior") = py::none(), py::kw_only(),
        py::arg("first_observation") = "not_filtered",
        "What a finite Model believes along one recorded sequence: actions a_1..a_K and observations o_1..o_T\n"
        "(T = K + 1, indices, as uniform_episodes and read_sequences_csv give them). Returns a dict:\n"
        "  beliefs: T x S array, row t-1 = b_t; log_likelihood: T values, entry t-1 = log P(o_t | the belief\n"
        "  before o_t, a_{t-1}); prior: 'uniform', 'model', 'learned' or 'given' (which b before o_1 was used);\n"
        "  prior_belief: that vector; first_observation: as given.\n"
        "prior None: the paper's uniform b_1 for a known model, the learned μ̂ for a model fit_belief_model or\n"
        "train_learned made (description 'learned belief model'); 'uniform'; 'model': the model's μ; or a vector.\n"
        "first_observation 'not_filtered': b_1 = the prior, as the agent's filter holds it in a rollout (the paper\n"
        "does not condition b_1 on o_1), then b_{t+1} = BayesFilter.update(b_t, a_t, o_{t+1}); 'filtered': b_1 ∝\n"
        "prior · P(o_1 | s), the model's forward pass: from the model's μ, sum(log_likelihood) is\n"
        "score_sequences(model, [(actions, observations)], per_observation=False) (to rounding).\n"
        "ConfigError names the step and the value of an action or observation out of range; ZeroLikelihoodError\n"
        "names the step of an observation the model cannot emit there.");
}

}  // namespace maxent::python
