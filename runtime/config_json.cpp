// runtime/config_json.cpp — the bodies of config_json.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "config_json.hpp"

namespace maxent::programs {

std::string json_string(std::string_view s) {
    std::string out = "\"";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        switch (ch) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\t': out += "\\t"; break;
            default:
                if (c < 0x20) {
                    char buf[8];
                    std::snprintf(buf, sizeof buf, "\\u%04x", c);
                    out += buf;
                } else {
                    out += ch;
                }
        }
    }
    return out + "\"";
}

std::string fields_json(const Fields& f) {
    std::string j = "{";
    for (std::size_t i = 0; i < f.size(); ++i)
        j += cat(i ? ", " : "", json_string(f[i].first), ": ", json_string(f[i].second));
    return j + "}";
}

std::string learned_curve_fields(const Curve& c, const LearningSettings& l) {
    if (!c.learned) return {};
    std::string given;
    for (const std::string& g : learner_given(c.learner, l)) given += cat(given.empty() ? "" : ", ", json_string(g));
    const LearnerKind* k = find_learner(c.learner);
    return cat(", \"learner\": ", json_string(c.learner), ", \"oracle\": ",
               k != nullptr && !k->oracle.empty() ? json_string(cat("given the ", k->oracle)) : std::string("null"),
               ", \"given\": [", given, "], \"prior\": ", l.learned_prior ? "\"learned\"" : "\"uniform\"");
}

std::string selection_json(std::string_view learner, const LearningSettings& l) {
    if (!learner_selects(learner)) return {};
    const bool cloned = learner == "cloned-hmm-select";
    std::string grid;
    if (cloned) {
        grid = "0.001";
    } else {
        for (const double a : selection_defaults.pseudo_counts) grid += cat(grid.empty() ? "" : ", ", format_number(a));
    }
    return cat(", \"selection\": {\"of\": ", json_string(cloned ? "clone total and allocation" : "latent states and smoothing"),
               ", \"sizes\": ", json_string(cat(cloned ? "O, 2 O, 4 O, ..." : "1, 2, 4, ...", " up to ",
                                                   std::to_string(l.select_max_states), ", until a doubling does not improve")),
               ", \"pseudo_counts\": [", grid, "], \"heldout_fraction\": ", format_number(selection_defaults.heldout_fraction),
               ", \"rule\": ", json_string(cat("the smallest within ", format_number(selection_defaults.standard_errors),
                                                 " standard error of the highest held-out log-likelihood")),
               ", \"restarts_per_candidate\": 1, \"chosen\": \"per run: the curve's 'selected'\"}");
}

std::string learned_curve_fields(const CurveRuns& runs, const LearningSettings& l) {
    std::string out = learned_curve_fields(runs.curve, l);
    if (!runs.curve.learned || !learner_selects(runs.curve.learner)) return out;
    std::string list;
    for (const SeedRun& r : runs.runs) {
        if (!r.complete || r.selected.latent_states == 0) continue;
        list += cat(list.empty() ? "" : ", ", "{\"seed\": ", std::to_string(r.seed), ", \"latent_states\": ",
                    std::to_string(r.selected.latent_states), ", \"pseudo_count\": ",
                    format_number(r.selected.pseudo_count), ", \"allocation\": ", json_string(r.selected.allocation),
                    ", \"candidates\": ", std::to_string(r.selected.candidates), "}");
    }
    if (list.empty() && runs.complete_runs() > 0)  // merged from shards: the choices are not in their files
        return cat(out, ", \"selected\": \"not recorded by merge (L: the state count of learned/*.pomdp)\"");
    return cat(out, ", \"selected\": [", list, "]");
}

std::string config_json(const ExperimentResult& r, const RunInfo& info) {
    const Experiment& e = *r.experiment;
    const Settings& s = r.settings;
    const GridPomdp model = e.env.build();
    std::string j = "{\n";
    auto field = [&](std::string_view name, const std::string& value, bool last = false) {
        j += cat("  ", json_string(name), ": ", value, last ? "\n" : ",\n");
    };
    auto num = [](double x) { return format_number(x); };
    auto str = [](std::string_view x) { return json_string(x); };
    field("experiment", str(e.name));
    field("paper_figure", str(e.figure));
    field("description", str(e.what));
    field("maxent_version", str(info.version));
    if (!info.build.empty()) field("build", info.build);
    std::string env = "{";
    env += cat("\"name\": ", str(e.env.describe()));
    env += cat(", \"layout\": ",
               str(e.env.layout == EnvironmentSpec::Layout::single_room ? "single_room" : "four_rooms"));
    env += cat(", \"width\": ", std::to_string(e.env.width), ", \"height\": ", std::to_string(e.env.height));
    env += cat(", \"states\": ", std::to_string(model.num_states()), ", \"actions\": ",
               std::to_string(model.num_actions()), ", \"observations\": ", std::to_string(model.num_observations()));
    env += cat(", \"slip\": ", num(e.env.slip));
    switch (e.env.observation) {
        case EnvironmentSpec::Observation::gaussian:
            env += cat(", \"observation_model\": \"gaussian\", \"observation_variance\": ", num(e.env.variance),
                       ", \"observation_precision_k\": ", num(1.0 / e.env.variance));
            break;
        case EnvironmentSpec::Observation::room_id: env += ", \"observation_model\": \"room_id\""; break;
        case EnvironmentSpec::Observation::side: env += ", \"observation_model\": \"side\""; break;
    }
    env += cat(", \"horizon\": ", std::to_string(model.horizon()), ", \"start\": [0, 0]");
    env += ", \"initial_belief\": \"uniform\"}";
    field("environment", env);
    std::string curves = "[";
    for (std::size_t i = 0; i < r.curves.size(); ++i) {
        const Curve& c = r.curves[i].curve;
        if (i) curves += ", ";
        curves += cat("{\"label\": ", str(c.label), ", \"objective\": ", str(name_of(c.objective)),
                      ", \"policy_class\": ", str(name_of(c.policy)), ", \"belief_noise_sigma\": ", num(c.noise),
                      ", \"complete_runs\": ", std::to_string(r.curves[i].complete_runs()),
                      learned_curve_fields(r.curves[i], s.learning));
        if (c.policy == PolicyClass::belief_state) {  // the lazy table's size per run
            const TableStats t = table_stats(r.curves[i]);
            curves += cat(", \"table_rows_mean\": ", num(t.mean_rows), ", \"table_rows_max\": ",
                          std::to_string(t.max_rows), ", \"table_bytes_mean\": ", num(t.mean_bytes),
                          ", \"table_bytes_max\": ", std::to_string(t.max_bytes));
        }
        curves += "}";
    }
    field("curves", cat(curves, "]"));
    settings_fields(s, field);
    field("horizon", std::to_string(model.horizon()));
    field("initial_parameters", str("zero"));
    field("belief_noise", str("standard deviation sigma of the Gaussian noise added to every belief entry after "
                              "each exact update (the paper's s^2 labels; the authors' code uses them as sigma)"));
    field("plotted", str(name_of(e.plotted)));
    field("confidence", str("95% Student t across seeds, n - 1 degrees of freedom; n = 1: bounds = mean"));
    field("threads", std::to_string(info.threads));
    field("complete_runs", std::to_string(r.complete_runs()));
    field("total_runs", std::to_string(r.total_runs()));
    field("interrupted", r.interrupted ? "true" : "false");
    if (has_learned_curves(r)) {
        learning_fields(s.learning, model.num_states(), field);
    }
    if (s.heatmap_episodes > 0) {
        char streams[64];
        std::snprintf(streams, sizeof streams, "(seed, 0x%llx, episode)",
                      static_cast<unsigned long long>(heatmap_stream_run));
        field("heatmap", cat("{\"episodes_per_run\": ", std::to_string(s.heatmap_episodes),
                             ", \"policy\": \"final\", \"streams\": \"", streams, "\", "
                             "\"fraction\": \"per curve and cell, the counted steps in the cell over all counted steps "
                             "of the curve's runs: the mean over seeds and episodes of the fraction of an episode's "
                             "counted steps spent there\", \"files\": [\"heatmap.csv\", \"heatmap.gp\", "
                             "\"heatmap.png\"]}"));
    }
    field("command_line", str(info.command_line));
    field("note", str(e.note), info.extra_fields.empty());
    for (std::size_t i = 0; i < info.extra_fields.size(); ++i)
        field(info.extra_fields[i].first, info.extra_fields[i].second, i + 1 == info.extra_fields.size());
    return j + "}\n";
}

}  // namespace maxent::programs
