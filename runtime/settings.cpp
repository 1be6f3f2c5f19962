// runtime/settings.cpp — the bodies of settings.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "settings.hpp"

namespace maxent::programs {

const LearnerKind* find_learner(std::string_view name) {
    for (const LearnerKind& k : learner_kinds)
        if (k.name == name) return &k;
    return nullptr;
}

std::string learner_label(std::string_view name) {
    if (name == "em") return {};
    const LearnerKind* k = find_learner(name);
    return cat("+", name, k != nullptr && !k->oracle.empty() ? oracle_label_marker : std::string_view());
}

bool learner_selects(std::string_view name) {
    const LearnerKind* k = find_learner(name);
    return k != nullptr && k->selects;
}

std::string learner_names() {
    std::string out;
    for (const LearnerKind& k : learner_kinds) out += cat(out.empty() ? "" : ", ", k.name);
    return out;
}

std::vector<std::string> learner_given(std::string_view name, const LearningSettings& l) {
    std::vector<std::string> out;
    const LearnerKind* k = find_learner(name);
    const bool oracle = k != nullptr && !k->oracle.empty();
    if (oracle || (l.latent_states == 0 && (k == nullptr || !k->selects))) out.emplace_back("number of states");
    if (k != nullptr)
        for (const std::string_view g : k->given)
            if (!g.empty()) out.emplace_back(g);
    return out;
}

std::string oracles_summary(const LearningSettings& l) {
    std::string out;
    for (const std::string& name : l.learners)
        if (const LearnerKind* k = find_learner(name); k != nullptr && !k->oracle.empty())
            out += cat(out.empty() ? "; oracles, given parts of the true model: " : ", ", name, " (", k->oracle, ")");
    return out;
}

std::string selection_summary(const LearningSettings& l) {
    std::string names;
    for (const std::string& name : l.learners)
        if (learner_selects(name)) names += cat(names.empty() ? "" : ", ", name);
    if (names.empty()) return {};
    return cat("; ", names, " choose L (or the clones) and the prior by held-out likelihood on a fifth of the "
               "warm-up episodes (doubling up to ", std::to_string(l.select_max_states),
               ", one restart per candidate; the chosen size refitted with the restarts above and kept by every refit)");
}

std::string latent_states_summary(const LearningSettings& l) {
    const std::string L = l.latent_states == 0 ? std::string("S") : std::to_string(l.latent_states);
    const char* flag = l.latent_states == 0 ? "" : " (--latent-states)";
    const std::string bound = std::to_string(l.select_max_states);
    std::vector<std::string> text, names;  // one entry per description
    for (const std::string& name : l.learners) {
        const LearnerKind* k = find_learner(name);
        std::string d;
        if (name == "cloned-hmm-select")
            d = cat("clone total (and allocation) chosen per run by held-out likelihood, at most ", bound);
        else if (learner_selects(name))
            d = cat("L chosen per run by held-out likelihood, at most ", bound);
        else if (k != nullptr && !k->oracle.empty())
            d = "L = S latent states";
        else if (name == "cloned-hmm")
            d = cat("L = ", L, " clones split evenly among the observations", flag);
        else
            d = cat("L = ", L, " latent states", flag);
        std::size_t i = 0;
        while (i < text.size() && text[i] != d) ++i;
        if (i == text.size()) {
            text.push_back(d);
            names.emplace_back();
        }
        names[i] += cat(names[i].empty() ? "" : ", ", name);
    }
    if (text.empty()) return "no learner";
    if (text.size() == 1) return text.front();
    std::string out;
    for (std::size_t i = 0; i < text.size(); ++i)
        out += cat(i == 0 ? "" : "; ", text[i], text[i].back() >= '0' && text[i].back() <= '9' ? ", for " : " for ",
                   names[i]);
    return out;
}

std::string first_fit_exceptions(const LearningSettings& l) {
    std::string cloned, chosen;
    for (const std::string& name : l.learners) {
        if (name == "cloned-hmm" || name == "cloned-hmm-select") {
            if (l.em_iterations < 1000) cloned += cat(cloned.empty() ? "" : ", ", name);
        } else if (learner_selects(name)) {
            chosen += cat(chosen.empty() ? "" : ", ", name);
        }
    }
    std::string out;
    if (!cloned.empty()) out = cat("at most 1000 EM steps for ", cloned);
    if (!chosen.empty()) out += cat(out.empty() ? "" : "; ", "smoothing chosen per run for ", chosen);
    return out.empty() ? out : cat(" (", out, ")");
}

std::string learning_summary(const LearningSettings& l, bool heatmaps) {
    return cat("learned beliefs: ", latent_states_summary(l), "; first fit ", std::to_string(l.restarts), " restarts of at most ",
               std::to_string(l.em_iterations), " EM steps, smoothing ", format_number(l.smoothing),
               first_fit_exceptions(l),
               "; the filter's b_1 = ",
               l.learned_prior ? "the learned initial distribution (--uniform-prior: uniform, the paper's)"
                               : "uniform, the paper's (--learned-prior: the learned initial distribution)",
               heatmaps ? "; heatmaps evaluate each final policy with its final learned filter" : "", selection_summary(l),
               oracles_summary(l));
}

const LearningCount* learning_flag(std::string_view flag) {
    if (flag.substr(0, 2) != "--") return nullptr;
    flag.remove_prefix(2);
    for (const LearningCount& c : learning_counts) {
        if (!c.flag || c.name.size() != flag.size()) continue;
        bool same = true;
        for (std::size_t i = 0; i < flag.size(); ++i) same = same && (c.name[i] == '_' ? '-' : c.name[i]) == flag[i];
        if (same) return &c;
    }
    return nullptr;
}

std::uint64_t run_cost(const Curve& c) {
    if (c.learned) return 8;  // the fits of the belief model: 4.7 s of CPU against 1.2 s (nosim2b, Reg-MBE)
    switch (c.policy) {
        case PolicyClass::belief_mixture: return 4;
        case PolicyClass::belief_state: return 3;
        default: return 2;
    }
}

}  // namespace maxent::programs
namespace maxent::programs {

}  // namespace maxent::programs
