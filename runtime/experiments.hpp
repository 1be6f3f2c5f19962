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
    [[nodiscard]] std::string roman() const;

    /// e.g. "Env. i: 5x5 single room, deterministic, obs. variance 0.1 (k = 10)".
    [[nodiscard]] std::string describe() const;

    [[nodiscard]] ObservationSpec observation_spec() const;

    /// The map: cells and thin walls (what the heatmaps draw).
    [[nodiscard]] GridLayout grid_layout() const;

    /// The grid world: start (0, 0), horizon T = `horizon`, or S when it is 0.
    [[nodiscard]] GridPomdp build() const;
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
std::vector<Experiment> make_registry();
}  // namespace detail

/// Every experiment, in the order of the paper.
[[nodiscard]] const std::vector<Experiment>& experiments();

/// The experiment called `name` (case-insensitive), or nullptr.
[[nodiscard]] const Experiment* find_experiment(std::string_view name);

/// The experiments a command-line name stands for: one experiment, a whole figure ("fig2",
/// "fig3", "fig4", "fig5"), "all" (the paper's panels only) or "nosim" (the experiments
/// without a simulator). Empty when the name is unknown.
[[nodiscard]] std::vector<const Experiment*> expand_experiment_name(std::string_view name);

/// The curves of an experiment under the settings' overrides, in a fixed order: objective
/// major, then noise, then policy class; then the learned-belief curves (objective major). Labels carry "@σ" when the experiment compares
/// noise levels or more than one σ is run, and "/class" likewise for policy classes.
[[nodiscard]] std::vector<Curve> make_curves(const Experiment& e, const Settings& s);

}  // namespace maxent::programs
