// runtime/choices.hpp — the names of the components a run is made of (objective, policy
// class, gradient estimator, step rule, state counting) and of what a figure plots: the
// enums, their names (name_of) and the parsers of the command lines and the bindings
// (parse_*, case-insensitive), which read exactly the names name_of writes (and a few aliases).
#pragma once

#include <optional>
#include <string_view>

#include "maxent/core/trajectory.hpp"
#include "maxent/objective/feedbacks.hpp"
#include "maxent/optim/estimators.hpp"
#include "maxent/optim/step_rules.hpp"

#include "text.hpp"

namespace maxent::programs {

enum class Objective { mse, moe, mbe, reg_mbe };
enum class PolicyClass {
    observation,      ///< O: softmax(θ[o_t])
    belief_averaged,  ///< BA: softmax(θᵀ b_t) (the paper's main class)
    believed_state,   ///< S (S̃): s̃_t ~ b_t, softmax(θ[s̃_t])
    belief_mixture,   ///< BM: Σ_s b_t(s) softmax(θ_s) (the mixture reading of BA)
    belief_state      ///< B: softmax(θ[row(b_t)]), one row per distinct belief (lazy table)
};
/// The gradient estimators and step rules by name (components.hpp holds them; the order is
/// that of its variants).
enum class EstimatorKind { reinforce, batch_mean, leave_one_out, optimal, per_step };
enum class StepKind { constant, adam, lazy_adam };
/// The names the command lines and the bindings accept, for their messages.
inline constexpr std::string_view estimator_names = "reinforce, batch-mean, leave-one-out, optimal, per-step";
inline constexpr std::string_view step_names = "constant, adam, lazy-adam";
/// What a figure plots: the batch-mean true-state entropy, or the regulariser Σ_t H(b_t).
enum class Plotted { true_entropy, belief_entropy_sum };

[[nodiscard]] inline std::string_view name_of(Objective o) {
    switch (o) {
        case Objective::mse: return MSE::name();
        case Objective::moe: return MOE::name();
        case Objective::mbe: return MBE::name();
        case Objective::reg_mbe: return RegMBE::name();
    }
    return "?";
}
[[nodiscard]] inline std::string_view name_of(PolicyClass p) {
    switch (p) {
        case PolicyClass::observation: return "O";
        case PolicyClass::belief_averaged: return "BA";
        case PolicyClass::believed_state: return "S";
        case PolicyClass::belief_mixture: return "BM";
        case PolicyClass::belief_state: return "B";
    }
    return "?";
}
[[nodiscard]] inline std::string_view name_of(EstimatorKind e) {
    switch (e) {
        case EstimatorKind::reinforce: return Reinforce::name();
        case EstimatorKind::batch_mean: return BatchMeanBaseline::name();
        case EstimatorKind::leave_one_out: return LeaveOneOutBaseline::name();
        case EstimatorKind::optimal: return OptimalBaseline::name();
        case EstimatorKind::per_step: return PerStepBaseline::name();
    }
    return "?";
}
[[nodiscard]] inline std::string_view name_of(StepKind s) {
    switch (s) {
        case StepKind::constant: return ConstantStep::name();
        case StepKind::adam: return Adam::name();
        case StepKind::lazy_adam: return LazyAdam::name();
    }
    return "?";
}
[[nodiscard]] inline std::string_view name_of(StateCounting c) {
    return c == StateCounting::paper ? "paper" : "authors";
}
[[nodiscard]] inline std::string_view name_of(Plotted p) {
    return p == Plotted::true_entropy ? "true_entropy" : "belief_entropy_sum";
}

[[nodiscard]] inline std::optional<Objective> parse_objective(std::string_view s) {
    for (const Objective o : {Objective::mse, Objective::moe, Objective::mbe, Objective::reg_mbe})
        if (iequals(s, name_of(o))) return o;
    if (iequals(s, "regmbe") || iequals(s, "reg_mbe") || iequals(s, "mbe-reg")) return Objective::reg_mbe;
    return std::nullopt;
}
[[nodiscard]] inline std::optional<PolicyClass> parse_policy_class(std::string_view s) {
    for (const PolicyClass p : {PolicyClass::observation, PolicyClass::belief_averaged, PolicyClass::believed_state,
                                PolicyClass::belief_mixture, PolicyClass::belief_state})
        if (iequals(s, name_of(p))) return p;
    if (iequals(s, "S~") || iequals(s, "Stilde")) return PolicyClass::believed_state;
    return std::nullopt;
}
[[nodiscard]] inline std::optional<EstimatorKind> parse_estimator(std::string_view s) {
    for (const EstimatorKind e : {EstimatorKind::reinforce, EstimatorKind::batch_mean, EstimatorKind::leave_one_out,
                                  EstimatorKind::optimal, EstimatorKind::per_step})
        if (iequals(s, name_of(e))) return e;
    return std::nullopt;
}
[[nodiscard]] inline std::optional<StepKind> parse_step(std::string_view s) {
    for (const StepKind k : {StepKind::constant, StepKind::adam, StepKind::lazy_adam})
        if (iequals(s, name_of(k))) return k;
    return std::nullopt;
}
[[nodiscard]] inline std::optional<StateCounting> parse_counting(std::string_view s) {
    if (iequals(s, "paper")) return StateCounting::paper;
    if (iequals(s, "authors")) return StateCounting::authors;
    return std::nullopt;
}

}  // namespace maxent::programs
