// runtime/settings.hpp — what a study runs besides its world: the settings (Settings, the
// paper's by default), how learned-belief curves learn their model (LearningSettings, the
// learners by name), the curves (Curve: objective, belief noise σ, policy class) and the
// estimated relative cost of one run of a curve (run_cost, which orders work queues and
// balances shards).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "maxent/belief/learned/defaults.hpp"
#include "maxent/core/trajectory.hpp"

#include "choices.hpp"
#include "text.hpp"

namespace maxent::programs {

/// The `run` of the heatmap streams: episode e of seed `seed` draws from
/// stream(seed, heatmap_stream_run, e), disjoint from the training's (seed, k, n) for any
/// iteration k a run reaches, from the uniform baseline's and the learned model's data, so
/// counting changes nothing else a run computes.
inline constexpr std::uint64_t heatmap_stream_run = 0x686561746d6170ULL;  // "heatmap"

/// How the curves without a simulator learn their belief model (LearnedBeliefOptions); the
/// defaults are the library's one set (belief/learned/defaults.hpp).
struct LearningSettings {
    std::size_t latent_states = 0;  ///< L; 0 = the world's number of states S
    std::size_t warmup = learned_belief_defaults.warmup;    ///< uniform-action episodes before the first fit
    std::size_t heldout = learned_belief_defaults.heldout;  ///< uniform-action episodes only scored
    /// M iterations between warm-started refits (0 = never)
    std::size_t refit_every = learned_belief_defaults.refit_every;
    std::size_t refit_iterations = learned_belief_defaults.refit_iterations;  ///< EM steps per refit
    std::size_t window = learned_belief_defaults.window;  ///< latest training episodes in a refit's data
    std::size_t restarts = learned_belief_defaults.restarts;  ///< random restarts of the first fit
    std::size_t em_iterations = learned_belief_defaults.em_iterations;  ///< EM steps of the first fit at most
    double smoothing = learned_belief_defaults.smoothing;  ///< Dirichlet (add-α) smoothing
    bool learned_prior = learned_belief_defaults.learned_prior;  ///< b_1 = the learned μ̂ (else uniform)
    /// The selection learners' (LearnerKind::selects) doubling bound on L or the clone total;
    /// in their run keys (run_store.hpp settings_key), not in key().
    std::size_t select_max_states = selection_defaults.max_latent_states;
    /// The learners (learner_kinds' names), one learned curve per objective and learner; not in
    /// key(): the curve carries its learner (Curve::learner, run_key).
    std::vector<std::string> learners{"em"};

    /// The text of every setting, for cache keys and config.json ("L=0|warmup=500|...").
    [[nodiscard]] std::string key() const {
        return cat("L=", std::to_string(latent_states), "|warmup=", std::to_string(warmup), "|heldout=",
                   std::to_string(heldout), "|refit_every=", std::to_string(refit_every), "|refit_iterations=",
                   std::to_string(refit_iterations), "|window=", std::to_string(window), "|restarts=",
                   std::to_string(restarts), "|em_iterations=", std::to_string(em_iterations), "|smoothing=",
                   format_number(smoothing), learned_prior ? "|prior=learned" : "|prior=uniform");
    }
};

/// How a learned curve's belief model is learned, and what that assumes the agent knows
/// (runner.cpp apply_learner). "em" is the default and keeps the plain "learned-<objective>" label.
/// `oracle`: the part of the true model the learner is handed ("" for the learners that read
/// only the agent's logs); such learners are oracles, labelled so wherever they appear (curve
/// labels, --help, config.json). `given`: the parts of the truth the learner is handed besides
/// L = S (learner_given adds "number of states" wherever L is the world's S). `selects`: the
/// learner chooses L (or the clones) and its prior itself on a held-out part of the warm-up
/// episodes (runner.hpp select_learned_model), so it is given nothing and ignores --latent-states.
struct LearnerKind {
    std::string_view name;
    std::string_view knows;
    std::string_view oracle;
    std::string_view given[2];
    bool selects = false;
};
inline constexpr LearnerKind learner_kinds[] = {
    {"em", "EM on an IOHMM with L latent states; knows nothing of the world", "", {}},
    {"em-sparse", "EM with a sparse Dirichlet(0.1) prior on the transitions (each action leads to few places); "
                  "knows nothing of the world", "", {}},
    {"cloned-hmm", "a cloned HMM, L clones split equally among the observations, transition pseudo-count 1e-3, "
                   "at least 1000 EM steps in the first fit; knows nothing of the dynamics", "", {}},
    {"em-select", "EM on an IOHMM whose L (1, 2, 4, ... up to --select-max-states) and smoothing (0.001, 0.01, 0.1) "
                  "are chosen by held-out likelihood on a fifth of the warm-up episodes (one-standard-error rule); "
                  "knows nothing of the world, not even S", "", {}, true},
    {"em-spectral-select", "em-select with every candidate's EM started from the data's moments (spectral start); "
                           "knows nothing of the world, not even S", "", {}, true},
    {"cloned-hmm-select", "a cloned HMM whose clone total (O, 2 O, 4 O, ... up to --select-max-states) and "
                          "allocation (even or by observation frequency) are chosen by held-out likelihood on a fifth "
                          "of the warm-up episodes; cloned-hmm's prior and EM steps; knows nothing of the world, not "
                          "even S", "", {}, true},
    {"em-known-motion", "oracle: EM with the transitions held at the world's (known odometry, L = S): learns the sensor",
     "true motion", {"transitions", "state identities"}},
    {"em-known-sensor", "oracle: EM with the emissions held at the world's (a known sensor, L = S): learns the dynamics",
     "true sensor", {"emissions"}}};

/// The learner called `name`, or null.
[[nodiscard]] const LearnerKind* find_learner(std::string_view name);

/// The marker an oracle learner's curve label ends its learner part with (CSV- and file-safe:
/// no comma, quote, space or slash): "learned-reg-mbe+em-known-motion(oracle)".
inline constexpr std::string_view oracle_label_marker = "(oracle)";

/// The label part of a learned curve's learner: "" for em, "+<name>" for the other log-only
/// learners, "+<name>(oracle)" for the oracles.
[[nodiscard]] std::string learner_label(std::string_view name);

/// Whether the learner called `name` chooses its own size (LearnerKind::selects).
[[nodiscard]] bool learner_selects(std::string_view name);

/// The learners' names, comma-separated (for messages and --help).
[[nodiscard]] std::string learner_names();

/// The parts of the true model a learner is handed under the settings `l`: "number of states"
/// when L is the world's S (every oracle; the others, except those that select their size,
/// when --latent-states is not given), then
/// the learner's own (LearnerKind::given). Empty: it reads only the agent's logs.
[[nodiscard]] std::vector<std::string> learner_given(std::string_view name, const LearningSettings& l);

/// "; oracles, given parts of the true model: em-known-motion (true motion), ..." for the
/// oracle learners among l.learners; "" without one.
[[nodiscard]] std::string oracles_summary(const LearningSettings& l);

/// "; em-select, ... choose L (or the clones) and the prior on a held-out fifth of the warm-up
/// episodes, L up to <bound>, one restart per candidate" for the selection learners among
/// l.learners; "" without one.
[[nodiscard]] std::string selection_summary(const LearningSettings& l);

/// What each of l.learners trains with as its number of latent states L, learners that read
/// the same grouped: "L = S latent states" (one description: no names), or e.g. "L = S latent
/// states for em, em-known-motion; L = 6 clones split evenly among the observations
/// (--latent-states) for cloned-hmm; L chosen per run by held-out likelihood, at most 64, for
/// em-select". The oracles always have L = S (apply_learner refuses another L).
[[nodiscard]] std::string latent_states_summary(const LearningSettings& l);

/// " (at most 1000 EM steps for cloned-hmm; smoothing chosen per run for em-select)": where a
/// learner's first fit departs from the flags (apply_learner: the cloned HMMs take at least 1000
/// EM steps; select_learned_model); "" if none.
[[nodiscard]] std::string first_fit_exceptions(const LearningSettings& l);

/// One line on how the learned-belief curves learn their model and start their filter, and
/// what their heatmaps evaluate (maxent-paper and maxent-explore print it for runs with such
/// curves; `heatmaps`: whether the program draws heatmaps, which maxent-explore does not).
[[nodiscard]] std::string learning_summary(const LearningSettings& l, bool heatmaps = true);

/// The learned-belief settings that are counts, by name: the keys of the Python module's
/// `learning` dict and, where `flag`, maxent-paper's flags ("--" and the name with '-' for
/// '_'), with the least value each takes. Both read them through this one table.
struct LearningCount {
    std::string_view name;
    std::size_t least;
    std::size_t LearningSettings::*field;
    bool flag;
};
inline constexpr LearningCount learning_counts[] = {
    {"latent_states", 1, &LearningSettings::latent_states, true},
    {"warmup", 1, &LearningSettings::warmup, true},
    {"heldout", 0, &LearningSettings::heldout, false},
    {"refit_every", 0, &LearningSettings::refit_every, true},
    {"refit_iterations", 1, &LearningSettings::refit_iterations, true},
    {"window", 1, &LearningSettings::window, true},
    {"restarts", 1, &LearningSettings::restarts, true},
    {"em_iterations", 1, &LearningSettings::em_iterations, true},
    {"select_max_states", 1, &LearningSettings::select_max_states, true}};

/// The entry of maxent-paper's flag `flag` ("--refit-every"), or null.
[[nodiscard]] const LearningCount* learning_flag(std::string_view flag);

/// Everything that is not the experiment itself; the defaults are the paper's settings.
struct Settings {
    std::vector<std::uint64_t> seeds = [] {
        std::vector<std::uint64_t> s;
        for (std::uint64_t i = 0; i < 16; ++i) s.push_back(i);
        return s;
    }();
    std::size_t iterations = 12000;  ///< K
    std::size_t batch = 10;          ///< N
    std::optional<double> alpha;     ///< step size; default 0.3 (constant) or 0.05 (adam, lazy-adam)
    double rho = 0.02;               ///< Reg-MBE weight
    EstimatorKind estimator = EstimatorKind::batch_mean;
    StepKind step = StepKind::constant;
    StateCounting counting = StateCounting::paper;
    std::optional<std::vector<Objective>> objectives;  ///< override of the experiment's objectives
    std::optional<std::vector<double>> noises;         ///< override of the belief-noise σ list
    std::optional<std::vector<PolicyClass>> policies;  ///< override of the policy classes
    std::optional<std::vector<Objective>> learned;     ///< override of the learned-belief objectives
    LearningSettings learning;                         ///< read by learned-belief curves only
    /// E: episodes of each run's final policy whose true states are counted for the heatmaps
    /// (results.hpp count_visits); 0 = no heatmaps. maxent-paper's default is
    /// default_heatmap_episodes (cli.hpp); 0 here so that other programs count nothing.
    std::size_t heatmap_episodes = 0;

    [[nodiscard]] double effective_alpha() const { return alpha.value_or(step == StepKind::constant ? 0.3 : 0.05); }
};

/// One learning curve: an objective, a belief-noise σ and a policy class; its label is the
/// `objective` column of the CSV files ("mse", "mbe@0.01", "mse/BA").
struct Curve {
    Objective objective = Objective::mse;
    double noise = 0.0;
    PolicyClass policy = PolicyClass::belief_averaged;
    std::string label;
    bool learned = false;  ///< beliefs from a learned model (Experiment::learned_objectives)
    std::string learner = "em";  ///< learned curves: how the model is learned (learner_kinds)
};

/// The estimated relative cost of one run of a curve. Every run of a study has the same K, N,
/// S and T, so only the policy class counts; measured on fig2a (5 x 5, K = 1500, one
/// thread): O, BA and S take about the same time, the mixture form BM about twice as long
/// (S softmax rows per step), the belief-state table B about 1.6 times (its row lookup).
[[nodiscard]] std::uint64_t run_cost(const Curve& c);

}  // namespace maxent::programs
