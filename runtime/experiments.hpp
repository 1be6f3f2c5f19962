// runtime/experiments.hpp — the registry of the paper's experiments (Figures 2–5): their
// grid worlds (EnvironmentSpec), their default curves, lookup by name, and the curves an
// experiment runs under a study's settings (make_curves; the settings are settings.hpp's).
//
// Paper, Section 6 (Figures 2 and 3) and Appendix D (Figures 4 and 5), with docs/reference.md
// "The figures" and "Algorithm 1 as run for the figures". An experiment is an environment
// (grid, slip probability, observation model) and a set of curves; a curve is one
// (objective, belief-noise σ, policy class) triple trained with Algorithm 1 on every seed.
//   fig2a..fig2h  MSE, MOE, MBE, Reg-MBE with the BA policy on environments i–iv
//                 (fig2f / fig2h plot the regulariser Σ_t H(b_t) of the runs of fig2e / fig2g)
//   fig3a..fig3d  MBE and Reg-MBE under belief noise σ ∈ {0, 0.01, 0.03, 0.04}; curves "mbe@0.01"
//   fig4a..fig4f  the four feedbacks with policy classes O, BA, S (S̃); curves "mse/BA"
//   fig5a, fig5b  MSE and MBE with BA and with the belief-state class B (one softmax row per
//                 distinct belief, allocated lazily: policy/tabular_belief_policy.hpp) on 3 x 3
//                 and 4 x 4 rooms, observation variance 0.2; curves "mse/BA", "mse/B"; B's
//                 table size per run is reported (config.json, stderr)
// Belief noise σ is a STANDARD DEVIATION (belief/noisy_belief.hpp): the paper calls its levels
// {0, 0.01, 0.03, 0.04} a variance s², the authors' code uses them as σ; so do we.
// The paper's settings are the defaults of `Settings` (settings.hpp): α = 0.3, N = 10,
// K = 12000, ρ = 0.02, seeds 0..15, T = S, batch-mean baseline, constant step, the paper's
// state counting.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "maxent/core/error.hpp"
#include "maxent/model/grid_world.hpp"

#include "choices.hpp"
#include "settings.hpp"
#include "text.hpp"

namespace maxent::programs {

/// The `run` of the heatmap streams (results.hpp count_visits, algorithm.hpp's visit counts):
/// episode e of seed `seed` draws from stream(seed, heatmap_stream_run, e), disjoint from the
/// training's (seed, k, n) for any iteration k a run reaches, from the uniform baseline's and
/// the learned model's data, so counting changes nothing else a run computes.
inline constexpr std::uint64_t heatmap_stream_run = 0x686561746d6170ULL;  // "heatmap"

// ---------------------------------------------------------------------------------------
// Environments
// ---------------------------------------------------------------------------------------

/// One grid world of the paper (Section 6.1): layout, slip and observation model.
struct EnvironmentSpec {
    enum class Layout { single_room, four_rooms };
    enum class Observation { gaussian, room_id, side };

    Layout layout = Layout::single_room;
    std::size_t width = 5;
    std::size_t height = 5;
    double slip = 0.0;                       ///< 0 deterministic, 0.1 stochastic
    Observation observation = Observation::gaussian;
    double variance = 0.1;                   ///< the paper's "observation variance" (k = 1 / v); Gaussian only
    std::size_t horizon = 0;                 ///< T; 0 = S (the paper's choice)

    [[nodiscard]] std::size_t num_states() const noexcept { return width * height; }

    /// The paper's name of the environment: "i", "ii", "iii", "iv" (or "(a)" sizes for Figure 5).
    [[nodiscard]] std::string roman() const {
        if (layout == Layout::single_room) return "i";
        switch (observation) {
            case Observation::gaussian: return "ii";
            case Observation::room_id: return "iii";
            case Observation::side: return "iv";
        }
        return "?";
    }

    /// e.g. "Env. i: 5x5 single room, deterministic, obs. variance 0.1 (k = 10)".
    [[nodiscard]] std::string describe() const {
        std::string out = cat("Env. ", roman(), ": ", std::to_string(width), "x", std::to_string(height),
                              layout == Layout::single_room ? " single room" : " four rooms");
        out += slip == 0.0 ? std::string(", deterministic") : cat(", stochastic (p = ", format_number(slip), ")");
        switch (observation) {
            case Observation::gaussian:
                out += cat(", obs. variance ", format_number(variance), " (k = ", format_number(1.0 / variance), ")");
                break;
            case Observation::room_id: out += ", 4 room-id observations"; break;
            case Observation::side: out += ", 2 side observations"; break;
        }
        if (horizon != 0) out += cat(", T = ", std::to_string(horizon));
        return out;
    }

    [[nodiscard]] ObservationSpec observation_spec() const {
        switch (observation) {
            case Observation::gaussian: return observe::gaussian_variance(variance);
            case Observation::room_id: return observe::room_id();
            case Observation::side: return observe::side();
        }
        throw config_error("EnvironmentSpec: unknown observation model");
    }

    /// The map: cells and thin walls (what the heatmaps draw).
    [[nodiscard]] GridLayout grid_layout() const {
        return layout == Layout::single_room ? GridLayout::single_room(width, height)
                                             : GridLayout::four_rooms(width, height);
    }

    /// The grid world: start (0, 0), horizon T = `horizon`, or S when it is 0.
    [[nodiscard]] GridPomdp build() const {
        return make_grid_world({.layout = grid_layout(),
                                .slip = slip,
                                .observation = observation_spec(),
                                .horizon = horizon == 0 ? std::optional<std::size_t>{} : std::optional{horizon}});
    }
};

// ---------------------------------------------------------------------------------------
// Experiments
// ---------------------------------------------------------------------------------------

/// One named experiment (a panel of a figure) with its default curves.
struct Experiment {
    std::string name;        ///< "fig2a"
    std::string figure;      ///< "Figure 2(a)"
    std::string what;        ///< one line for --list
    EnvironmentSpec env;
    std::vector<Objective> objectives;  ///< default objectives
    std::vector<double> noises{0.0};    ///< default belief-noise standard deviations σ
    std::vector<PolicyClass> policies{PolicyClass::belief_averaged};
    Plotted plotted = Plotted::true_entropy;
    bool label_noise = false;   ///< curve labels always carry "@σ" (Figure 3)
    bool label_policy = false;  ///< curve labels always carry "/class" (Figures 4 and 5)
    std::string note;           ///< printed and stored in config.json when not empty
    bool paper = true;          ///< one of the paper's panels (in "all" and the figure groups)
    /// Objectives trained again with a belief model learned from the agent's own actions and
    /// observations (optim/learned_belief.hpp; Section 5 without a simulator), after the
    /// curves above; labels "learned-mbe", "learned-reg-mbe".
    std::vector<Objective> learned_objectives{};
};

namespace detail {
inline EnvironmentSpec env_i(double slip, double variance) {
    return {EnvironmentSpec::Layout::single_room, 5, 5, slip, EnvironmentSpec::Observation::gaussian, variance};
}
inline EnvironmentSpec env_ii(double variance) {
    return {EnvironmentSpec::Layout::four_rooms, 6, 6, 0.0, EnvironmentSpec::Observation::gaussian, variance};
}
inline EnvironmentSpec env_iii() {
    return {EnvironmentSpec::Layout::four_rooms, 6, 6, 0.0, EnvironmentSpec::Observation::room_id, 0.0};
}
inline EnvironmentSpec env_iv() {
    return {EnvironmentSpec::Layout::four_rooms, 6, 6, 0.0, EnvironmentSpec::Observation::side, 0.0};
}
inline std::vector<Experiment> make_registry() {
    const std::vector<Objective> all{Objective::mse, Objective::moe, Objective::mbe, Objective::reg_mbe};
    const std::vector<Objective> mbes{Objective::mbe, Objective::reg_mbe};
    const std::vector<double> fig3_noise{0.0, 0.01, 0.03, 0.04};
    const std::vector<PolicyClass> fig4_classes{PolicyClass::observation, PolicyClass::belief_averaged,
                                                PolicyClass::believed_state};
    std::vector<Experiment> r;
    // An experiment's name, figure, description and world; the groups below add the rest.
    auto experiment = [](const char* name, const char* fig, const char* what, const EnvironmentSpec& env) {
        Experiment e;
        e.name = name;
        e.figure = fig;
        e.what = what;
        e.env = env;
        return e;
    };
    auto fig2 = [&](const char* name, const char* fig, const char* what, EnvironmentSpec env,
                    Plotted plotted = Plotted::true_entropy) {
        Experiment e = experiment(name, fig, what, env);
        e.objectives = all;
        e.plotted = plotted;
        r.push_back(e);
    };
    fig2("fig2a", "Figure 2(a)", "single room 5x5, deterministic, obs. variance 0.1", env_i(0.0, 0.1));
    fig2("fig2b", "Figure 2(b)", "single room 5x5, deterministic, obs. variance 10", env_i(0.0, 10.0));
    fig2("fig2c", "Figure 2(c)", "four rooms 6x6, deterministic, obs. variance 10", env_ii(10.0));
    fig2("fig2d", "Figure 2(d)", "four rooms 6x6, 4 room-id observations, deterministic", env_iii());
    fig2("fig2e", "Figure 2(e)", "single room 5x5, stochastic (p = 0.1), obs. variance 10", env_i(0.1, 10.0));
    fig2("fig2f", "Figure 2(f)", "the regulariser sum_t H(b_t) of fig2e (same runs)", env_i(0.1, 10.0),
         Plotted::belief_entropy_sum);
    fig2("fig2g", "Figure 2(g)", "four rooms 6x6, 2 side observations, deterministic", env_iv());
    fig2("fig2h", "Figure 2(h)", "the regulariser sum_t H(b_t) of fig2g (same runs)", env_iv(),
         Plotted::belief_entropy_sum);

    auto fig3 = [&](const char* name, const char* fig, const char* what, EnvironmentSpec env) {
        Experiment e = experiment(name, fig, what, env);
        e.objectives = mbes;
        e.noises = fig3_noise;
        e.label_noise = true;
        r.push_back(e);
    };
    fig3("fig3a", "Figure 3(a)", "MBE/Reg-MBE x belief noise; single room, deterministic, obs. variance 10",
         env_i(0.0, 10.0));
    fig3("fig3b", "Figure 3(b)", "MBE/Reg-MBE x belief noise; single room, stochastic, obs. variance 10",
         env_i(0.1, 10.0));
    fig3("fig3c", "Figure 3(c)", "MBE/Reg-MBE x belief noise; four rooms, 4 room-id observations", env_iii());
    fig3("fig3d", "Figure 3(d)", "MBE/Reg-MBE x belief noise; four rooms, 2 side observations", env_iv());

    auto fig4 = [&](const char* name, const char* fig, const char* what, EnvironmentSpec env) {
        Experiment e = experiment(name, fig, what, env);
        e.objectives = all;
        e.policies = fig4_classes;
        e.label_policy = true;
        r.push_back(e);
    };
    fig4("fig4a", "Figure 4(a)", "policy classes O/BA/S; single room, deterministic, obs. variance 0.1",
         env_i(0.0, 0.1));
    fig4("fig4b", "Figure 4(b)", "policy classes O/BA/S; single room, deterministic, obs. variance 10",
         env_i(0.0, 10.0));
    fig4("fig4c", "Figure 4(c)", "policy classes O/BA/S; four rooms, deterministic, obs. variance 10",
         env_ii(10.0));
    fig4("fig4d", "Figure 4(d)", "policy classes O/BA/S; four rooms, 4 room-id observations", env_iii());
    fig4("fig4e", "Figure 4(e)", "policy classes O/BA/S; single room, stochastic, obs. variance 10",
         env_i(0.1, 10.0));
    fig4("fig4f", "Figure 4(f)", "policy classes O/BA/S; four rooms, 2 side observations", env_iv());

    const std::string fig5_note =
        "Class B keeps one softmax row per distinct belief visited (allocated lazily; beliefs within 1e-9 in "
        "L-infinity share a row); its table size per run (rows, bytes) is in config.json and on stderr.";
    for (const std::size_t size : {std::size_t{3}, std::size_t{4}}) {
        Experiment e;
        e.name = size == 3 ? "fig5a" : "fig5b";
        e.figure = size == 3 ? "Figure 5(a)" : "Figure 5(b)";
        e.what = cat(std::to_string(size), "x", std::to_string(size),
                     " single room, deterministic, obs. variance 0.2; BA vs. belief-state class B");
        e.env = {EnvironmentSpec::Layout::single_room, size, size, 0.0, EnvironmentSpec::Observation::gaussian, 0.2};
        e.objectives = {Objective::mse, Objective::mbe};
        e.policies = {PolicyClass::belief_averaged, PolicyClass::belief_state};
        e.label_policy = true;
        e.note = fig5_note;
        r.push_back(e);
    }

    // Section 5 for real: the environments where MOE fails (Figure 2(b), (c), (d), (g)), with
    // the agent's belief model learned from its own actions and observations. Not in "all";
    // the group name "nosim" runs the four.
    auto nosim = [&](const char* name, const char* fig, const char* what, EnvironmentSpec env) {
        Experiment e = experiment(name, fig, what, env);
        e.objectives = {Objective::mse, Objective::moe, Objective::reg_mbe};
        e.learned_objectives = mbes;
        e.paper = false;
        e.note =
            "Without a simulator: 'learned-mbe' and 'learned-reg-mbe' train with a Bayes filter on an IOHMM over L "
            "latent states fitted by EM to the agent's own actions and observations (uniform-action warm-up "
            "episodes, then a warm-started refit every M iterations on the warm-up plus the latest episodes); "
            "'reg-mbe' is the paper's oracle (exact beliefs), 'mse' needs true states, 'moe' is model-free. "
            "learning.csv lists every fit with its held-out log-likelihood per observation next to the true "
            "model's.";
        r.push_back(e);
    };
    nosim("nosim2b", "Section 5, env. of Figure 2(b)", "without a simulator: single room 5x5, obs. variance 10",
          env_i(0.0, 10.0));
    nosim("nosim2c", "Section 5, env. of Figure 2(c)", "without a simulator: four rooms 6x6, obs. variance 10",
          env_ii(10.0));
    nosim("nosim2d", "Section 5, env. of Figure 2(d)", "without a simulator: four rooms 6x6, 4 room-id observations",
          env_iii());
    nosim("nosim2g", "Section 5, env. of Figure 2(g)", "without a simulator: four rooms 6x6, 2 side observations",
          env_iv());

    // Beyond the paper: a large map, where the belief support path matters (one step costs
    // O(|support|), not O(S)). Not part of "all".
    Experiment big;
    big.name = "room80";
    big.figure = "beyond the paper";
    big.what = "single room 80x80 (6400 cells), deterministic, obs. variance 0.1, T = 6400; MSE and MBE with BA";
    big.env = {EnvironmentSpec::Layout::single_room, 80, 80, 0.0, EnvironmentSpec::Observation::gaussian, 0.1};
    big.objectives = {Objective::mse, Objective::mbe};
    big.paper = false;
    r.push_back(big);

    // A rescue site at scale: 40,000 cells, four rooms joined by doors, a sensor that places
    // the robot within a few cells, episodes far too short to visit every cell. The belief
    // stays on ~20 cells and the row-sparse scores train only the rows it touched, so an
    // iteration costs what the beliefs touch (docs/performance.md). Not part of "all".
    Experiment rooms;
    rooms.name = "rooms200";
    rooms.figure = "beyond the paper";
    rooms.what = "four rooms 200x200 (40,000 cells), deterministic, obs. variance 0.1, T = 1000; MSE, MBE, Reg-MBE with BA";
    rooms.env = {EnvironmentSpec::Layout::four_rooms, 200, 200, 0.0, EnvironmentSpec::Observation::gaussian, 0.1, 1000};
    rooms.objectives = {Objective::mse, Objective::mbe, Objective::reg_mbe};
    rooms.paper = false;
    rooms.note =
        "T = 1000 steps cannot reach most of the 40,000 cells: log 1000 = 6.91 bounds the true-state entropy. Each "
        "cell's row of theta learns only when a belief touches it, so constant steps of 0.3 learn slowly; "
        "--step adam is the setting the README reports (--seeds 0-3 --iterations 1500).";
    r.push_back(rooms);
    return r;
}
}  // namespace detail

/// Every experiment, in the order of the paper.
[[nodiscard]] inline const std::vector<Experiment>& experiments() {
    static const std::vector<Experiment> registry = detail::make_registry();
    return registry;
}

/// The experiment called `name` (case-insensitive), or nullptr.
[[nodiscard]] inline const Experiment* find_experiment(std::string_view name) {
    for (const Experiment& e : experiments())
        if (iequals(e.name, name)) return &e;
    return nullptr;
}

/// The experiments a command-line name stands for: one experiment, a whole figure ("fig2",
/// "fig3", "fig4", "fig5"), "all" (the paper's panels only) or "nosim" (the experiments
/// without a simulator). Empty when the name is unknown.
[[nodiscard]] inline std::vector<const Experiment*> expand_experiment_name(std::string_view name) {
    std::vector<const Experiment*> out;
    if (const Experiment* e = find_experiment(name)) {
        out.push_back(e);
        return out;
    }
    const bool all = iequals(name, "all");
    for (const Experiment& e : experiments())
        if (e.paper && (all || iequals(std::string_view(e.name).substr(0, 4), name))) out.push_back(&e);
    if (iequals(name, "nosim"))
        for (const Experiment& e : experiments())
            if (!e.learned_objectives.empty()) out.push_back(&e);
    return out;
}

/// The curves of an experiment under the settings' overrides, in a fixed order: objective
/// major, then noise, then policy class; then the learned-belief curves (objective major). Labels carry "@σ" when the experiment compares
/// noise levels or more than one σ is run, and "/class" likewise for policy classes.
[[nodiscard]] inline std::vector<Curve> make_curves(const Experiment& e, const Settings& s) {
    const std::vector<Objective>& objectives = s.objectives ? *s.objectives : e.objectives;
    const std::vector<double>& noises = s.noises ? *s.noises : e.noises;
    const std::vector<PolicyClass>& policies = s.policies ? *s.policies : e.policies;
    const bool with_noise = e.label_noise || noises.size() > 1 || (noises.size() == 1 && noises[0] != 0.0);
    const bool with_policy = e.label_policy || policies.size() > 1 ||
                             (policies.size() == 1 && policies[0] != PolicyClass::belief_averaged);
    std::vector<Curve> out;
    for (const Objective o : objectives)
        for (const double n : noises)
            for (const PolicyClass p : policies) {
                Curve c{o, n, p, std::string(name_of(o))};
                if (with_policy) c.label += cat("/", name_of(p));
                if (with_noise) c.label += cat("@", format_number(n));
                out.push_back(std::move(c));
            }
    const std::vector<Objective>& learned = s.learned ? *s.learned : e.learned_objectives;
    for (const Objective o : learned)
        for (const std::string& learner : s.learning.learners)
            for (const PolicyClass p : policies) {
                Curve c{o, 0.0, p, cat("learned-", name_of(o)), true, learner};
                if (learner != "em") c.label += cat("+", learner);
                if (with_policy) c.label += cat("/", name_of(p));
                out.push_back(std::move(c));
            }
    return out;
}

}  // namespace maxent::programs
