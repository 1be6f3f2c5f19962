// runtime/config_json.hpp — config.json of an experiment: every setting, the seed
// list, the curves, the maxent version and the build fingerprint (what must match for runs
// to be merged or reused, fingerprint.hpp); and the one-line summary of the settings.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "choices.hpp"
#include "experiments.hpp"
#include "fingerprint.hpp"
#include "results.hpp"
#include "settings.hpp"
#include "tables.hpp"
#include "text.hpp"

namespace maxent::programs {

// ---------------------------------------------------------------------------------------
// config.json
// ---------------------------------------------------------------------------------------

[[nodiscard]] std::string json_string(std::string_view s);

/// The build fingerprint (fingerprint.hpp) as a one-line JSON object: config.json's "build".
[[nodiscard]] std::string fields_json(const Fields& f);

/// How the experiment was run (not a setting of the algorithm).
struct RunInfo {
    std::string version = "unknown";  ///< the maxent version (MAXENT_VERSION)
    std::size_t threads = 1;
    std::string command_line;
    /// The build fingerprint as a JSON object (shards.hpp build_fingerprint_json): written as
    /// "build" after "maxent_version" when not empty.
    std::string build;
    /// Further fields (name, raw JSON value) written last, e.g. a shard's "shard" section.
    std::vector<std::pair<std::string, std::string>> extra_fields;
};

/// config.json's fields of Algorithm 1's settings, in this order: seeds, iterations, batch,
/// alpha, step, estimator, rho, counting; `field(name, JSON value)` writes one.
template <class Field>
void settings_fields(const Settings& s, Field&& field) {
    std::string seeds = "[";
    for (std::size_t i = 0; i < s.seeds.size(); ++i) seeds += cat(i ? ", " : "", std::to_string(s.seeds[i]));
    field("seeds", cat(seeds, "]"));
    field("iterations", std::to_string(s.iterations));
    field("batch", std::to_string(s.batch));
    field("alpha", format_number(s.effective_alpha()));
    field("step", json_string(name_of(s.step)));
    field("estimator", json_string(name_of(s.estimator)));
    field("rho", format_number(s.rho));
    field("counting", json_string(name_of(s.counting)));
}

/// A learned curve's fields in config.json's "curves" list: its learner, whether it is an
/// oracle, the parts of the true model it was given (learner_given) and the filter's b_1
/// ("learned" or "uniform"); "" for a curve with the true model.
[[nodiscard]] std::string learned_curve_fields(const Curve& c, const LearningSettings& l);

/// ", \"selection\": {...}" (what a learner that selects its size tries: runner.hpp
/// select_learned_model) for such a learner, else "".
[[nodiscard]] std::string selection_json(std::string_view learner, const LearningSettings& l);

/// A learned curve's fields with its runs: learned_curve_fields, then, for a learner that
/// selects its size, "selected": per complete run, its seed and what it chose (SelectedModel).
[[nodiscard]] std::string learned_curve_fields(const CurveRuns& runs, const LearningSettings& l);

/// config.json's "learning" field (the learned-belief settings, L as the number used: `states`
/// when L defaulted to the world's S) and "learners" (what each learner knows, is given, and
/// whether it is an oracle); maxent-paper and maxent-explore write the same.
template <class Field>
void learning_fields(const LearningSettings& l, std::size_t states, Field&& field) {
    auto num = [](double v) { return format_number(v); };
    field("learning",
          cat("{\"latent_states\": ", std::to_string(l.latent_states == 0 ? states : l.latent_states),
              ", \"warmup_episodes\": ", std::to_string(l.warmup), ", \"heldout_episodes\": ",
              std::to_string(l.heldout), ", \"refit_every\": ", std::to_string(l.refit_every),
              ", \"refit_em_iterations\": ", std::to_string(l.refit_iterations), ", \"window\": ",
              std::to_string(l.window), ", \"restarts\": ", std::to_string(l.restarts),
              ", \"first_fit_em_iterations\": ", std::to_string(l.em_iterations), ", \"smoothing\": ",
              num(l.smoothing), ", \"emission\": \"shared\", \"initial_belief\": ",
              l.learned_prior ? "\"learned\"}" : "\"uniform\"}"));
    std::string list;
    for (const std::string& name : l.learners) {
        const LearnerKind* k = find_learner(name);
        std::string given;
        for (const std::string& g : learner_given(name, l)) given += cat(given.empty() ? "" : ", ", json_string(g));
        list += cat(list.empty() ? "" : ", ", "{\"name\": ", json_string(name), ", \"knows\": ",
                    json_string(k != nullptr ? std::string(k->knows) : std::string()), ", \"oracle\": ",
                    k != nullptr && !k->oracle.empty() ? json_string(cat("given the ", k->oracle)) : std::string("null"),
                    ", \"given\": [", given, "]", selection_json(name, l), "}");
    }
    field("learners", cat("[", list, "]"));
}

[[nodiscard]] std::string config_json(const ExperimentResult& r, const RunInfo& info);

}  // namespace maxent::programs
