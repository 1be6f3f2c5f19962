// runtime/experiments.cpp — the bodies of experiments.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "experiments.hpp"

namespace maxent::programs {
namespace detail {

std::vector<Experiment> make_registry() {
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
}  // namespace maxent::programs

namespace maxent::programs {

const std::vector<Experiment>& experiments() {
    static const std::vector<Experiment> registry = detail::make_registry();
    return registry;
}

const Experiment* find_experiment(std::string_view name) {
    for (const Experiment& e : experiments())
        if (iequals(e.name, name)) return &e;
    return nullptr;
}

std::vector<const Experiment*> expand_experiment_name(std::string_view name) {
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

std::vector<Curve> make_curves(const Experiment& e, const Settings& s) {
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
                c.label += learner_label(learner);
                if (with_policy) c.label += cat("/", name_of(p));
                out.push_back(std::move(c));
            }
    return out;
}

}  // namespace maxent::programs
namespace maxent::programs {

std::string EnvironmentSpec::roman() const {
    if (layout == Layout::single_room) return "i";
    switch (observation) {
        case Observation::gaussian: return "ii";
        case Observation::room_id: return "iii";
        case Observation::side: return "iv";
    }
    return "?";
}

std::string EnvironmentSpec::describe() const {
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

ObservationSpec EnvironmentSpec::observation_spec() const {
    switch (observation) {
        case Observation::gaussian: return observe::gaussian_variance(variance);
        case Observation::room_id: return observe::room_id();
        case Observation::side: return observe::side();
    }
    throw config_error("EnvironmentSpec: unknown observation model");
}

GridLayout EnvironmentSpec::grid_layout() const {
    return layout == Layout::single_room ? GridLayout::single_room(width, height)
                                         : GridLayout::four_rooms(width, height);
}

GridPomdp EnvironmentSpec::build() const {
    return make_grid_world({.layout = grid_layout(),
                            .slip = slip,
                            .observation = observation_spec(),
                            .horizon = horizon == 0 ? std::optional<std::size_t>{} : std::optional{horizon}});
}

}  // namespace maxent::programs
