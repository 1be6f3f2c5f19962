// examples/explore/main.cpp — maxent-explore: reads a POMDP model file (pomdp-solve text
// format) and trains state-entropy exploration policies on it with Algorithm 1 (paper,
// Section 4), printing the learned policies' true-state entropy next to the uniformly random
// policy's and log S, and writing the same files as maxent-paper (see cli.hpp for the
// command line, explore.hpp for what is computed and written).
#include <algorithm>
#include <charconv>
#include <cstdio>
#include <map>
#include <exception>
#include <new>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <unistd.h>

#include "maxent/core/error.hpp"
#include "maxent/core/parallel.hpp"

#include "runtime/config_json.hpp"
#include "runtime/fingerprint.hpp"
#include "runtime/merge.hpp"
#include "runtime/output.hpp"
#include "runtime/policy_classes.hpp"
#include "runtime/progress.hpp"
#include "runtime/results.hpp"
#include "runtime/run_store.hpp"
#include "runtime/settings.hpp"
#include "runtime/shards.hpp"
#include "runtime/signals.hpp"
#include "runtime/text.hpp"
#include "runtime/threads.hpp"
#include "cli.hpp"
#include "explore.hpp"

#ifndef MAXENT_VERSION
#define MAXENT_VERSION "unknown"
#endif

namespace {

namespace mx = maxent::explore;
namespace mp = maxent::programs;

/// The study fields of a maxent-explore shard (what must be equal for shards to be merged).
mp::Fields study_fields(const mx::Options& o, const std::string& model_name, const std::string& model_key,
                        std::size_t uniform_episodes) {
    mp::Fields f{{"model", model_name}, {"model_key", model_key}};
    for (auto& x : mp::study_settings_fields(mx::make_curves(o.settings), o.settings)) f.push_back(std::move(x));
    f.emplace_back("uniform_episodes", std::to_string(uniform_episodes));
    return f;
}

double json_double(const mp::Json* v, const std::string& what) {
    double x = 0.0;
    if (v == nullptr || v->kind != mp::Json::Kind::number) throw mp::merge_error(mp::cat(what, ": missing or not a number"));
    const auto r = std::from_chars(v->text.data(), v->text.data() + v->text.size(), x);
    if (r.ec != std::errc() || r.ptr != v->text.data() + v->text.size()) throw mp::merge_error(mp::cat(what, ": not a number"));
    return x;
}

/// Refuses (usage_error) learned-belief settings that would fail during the run, as
/// maxent-paper does: class B with a learned model (--policies), a learned model or recorded
/// episodes larger than this machine's memory (--latent-states, or the model's S without it;
/// --warmup, --window), before anything is allocated.
void check_learned_settings(const mx::LoadedModel& model, const mp::Settings& s) {
    bool learned = false;
    for (const mp::Curve& c : mx::make_curves(s)) {
        if (!c.learned) continue;
        learned = true;
        if (c.policy == mp::PolicyClass::belief_state)
            throw mp::usage_error(mp::cat("--policies: curve '", c.label, "' of ", model.name, ": ",
                                          mp::learned_class_b_refusal));
    }
    if (!learned) return;
    const mx::Model& m = model.file.model;
    const mp::LearningSettings& l = s.learning;
    const std::size_t latent = l.latent_states == 0 ? m.num_states() : l.latent_states;
    const auto T = static_cast<double>(m.horizon());
    mp::require_memory(mp::cat("--latent-states ", std::to_string(latent), l.latent_states == 0 ? " (the model's S)" : ""),
                       mp::cat(model.name, "'s learned model"),
                       mp::iohmm_fit_bytes(static_cast<double>(latent), static_cast<double>(m.num_actions()),
                                           static_cast<double>(m.num_observations()), T));
    // The world's model as a dense IOHMM (S x S per action), to score the held-out episodes
    // under the truth (learning.csv) and for the learners that hold the world's matrices.
    const auto S = static_cast<double>(m.num_states());
    mp::require_memory(mp::cat("'", model.path.string(), "' (S = ", std::to_string(m.num_states()), " states, A = ",
                               std::to_string(m.num_actions()), " actions) with --learned"),
                       "the world's model as an IOHMM, to score the held-out episodes under it,",
                       8.0 * S * S * static_cast<double>(m.num_actions()) +
                           8.0 * S * static_cast<double>(m.num_observations()) * static_cast<double>(m.num_actions()));
    mp::require_memory(mp::cat("--warmup ", std::to_string(l.warmup), ", --window ", std::to_string(l.window)),
                       mp::cat(model.name, "'s recorded training episodes"),
                       mp::episodes_bytes(static_cast<double>(l.warmup) + static_cast<double>(l.window) +
                                              static_cast<double>(l.heldout),
                                          T));
}

/// What maxent-explore's merge assembles from one model's shards.
struct Merged {
    mx::ModelFacts facts;
    mx::Result result;
    std::size_t smooth = 1;  ///< the shards' --smooth, so the merged plot is the one-process plot
    bool plot = true;        ///< no shard said --no-plot
};

/// maxent-explore merge SHARD_DIR... --out DIR (runtime/merge.hpp merge_command).
int merge_main(const std::vector<std::string>& args) {
    using Group = mp::MergeGroup<mx::Options, Merged>;
    auto model_of = [](const mp::ShardFolder& s) {
        const mp::Json* model = s.config.find("model");
        const mp::Json* name = model ? model->find("name") : nullptr;
        if (name == nullptr) throw mp::merge_error(mp::cat("'", s.dir.string(), "': config.json has no model name"));
        return name->text;
    };
    auto study = [](const mx::Options& o, const mp::ShardFolder& s, const std::string& model_name) {
        const mp::Json* section = s.config.find("shard");
        const mp::Json* key = section->find("model_key");
        return study_fields(o, model_name, key ? key->text : std::string(),
                            static_cast<std::size_t>(
                                mp::json_uint(section->find("uniform_episodes"), mp::shard_name(s) + ": uniform_episodes")));
    };
    auto assemble = [](Group& g) {
        g.data.smooth = g.options.front().smooth;
        for (const mx::Options& o : g.options) g.data.plot = g.data.plot && o.plot;
        const mp::ShardFolder& first = g.shards.front();
        const mp::Json& model = *first.config.find("model");
        const std::string what = mp::cat(first.dir.string(), "/config.json: model");
        auto text = [&](const char* n) {
            const mp::Json* v = model.find(n);
            if (v == nullptr) throw mp::merge_error(mp::cat(what, ".", n, ": missing"));
            return v->text;
        };
        mx::ModelFacts& f = g.data.facts;
        f.file = text("file");
        f.name = text("name");
        f.states = static_cast<std::size_t>(mp::json_uint(model.find("states"), what + ".states"));
        f.actions = static_cast<std::size_t>(mp::json_uint(model.find("actions"), what + ".actions"));
        f.observations = static_cast<std::size_t>(mp::json_uint(model.find("observations"), what + ".observations"));
        f.horizon = static_cast<std::size_t>(mp::json_uint(model.find("horizon"), what + ".horizon"));
        const mp::Json* discount = model.find("discount_ignored");
        if (discount != nullptr && discount->kind == mp::Json::Kind::number)
            f.discount = json_double(discount, what + ".discount_ignored");
        f.empty_rows = text("empty_rows") == "self-loop" ? maxent::EmptyRows::self_loop : maxent::EmptyRows::error;
        f.absorbing_rows = static_cast<std::size_t>(mp::json_uint(model.find("absorbing_rows_added"), what + ".absorbing_rows_added"));

        const mp::Settings& settings = g.options.front().settings;
        mp::ExperimentResult& r = g.data.result.runs;
        r.settings = settings;
        for (const mp::Curve& c : mx::make_curves(settings))
            r.curves.push_back({c, std::vector<mp::SeedRun>(settings.seeds.size())});
        mp::place_runs(g.shards, r);
        mx::compute_learned(g.data.result);
        // The uniform baseline per seed, from the shards that computed it.
        std::map<std::uint64_t, std::pair<double, const mp::ShardFolder*>> uniform;
        for (const mp::ShardFolder& s : g.shards) {
            const mp::Json* list = s.config.find("shard")->find("uniform");
            if (list == nullptr) continue;
            for (const mp::Json& u : list->items) {
                const std::uint64_t seed = mp::json_uint(u.find("seed"), mp::shard_name(s) + ": uniform.seed");
                const double v = json_double(u.find("true_entropy"), mp::shard_name(s) + ": uniform.true_entropy");
                const auto [it, added] = uniform.emplace(seed, std::pair(v, &s));
                if (!added && it->second.first != v)
                    throw mp::merge_error(mp::cat("the shards disagree on the uniform baseline of seed ", std::to_string(seed),
                                                  ": ", mp::format_number(it->second.first), " in ",
                                                  mp::shard_name(*it->second.second), " but ", mp::format_number(v), " in ",
                                                  mp::shard_name(s)));
            }
        }
        g.data.result.uniform_episodes = static_cast<std::size_t>(
            mp::json_uint(first.config.find("shard")->find("uniform_episodes"), mp::shard_name(first) + ": uniform_episodes"));
        for (const std::uint64_t seed : settings.seeds) {
            const auto it = uniform.find(seed);
            if (it == uniform.end())
                throw mp::merge_error(mp::cat("no shard holds the uniform baseline of seed ", std::to_string(seed)));
            g.data.result.uniform_seeds.push_back(seed);
            g.data.result.uniform_per_seed.push_back(it->second.first);
        }
        g.data.result.uniform = maxent::two_pass_mean_interval(g.data.result.uniform_per_seed, 0.95);
        if (const mp::Json* best = first.config.find("state_observed_optimum");
            best != nullptr && best->kind == mp::Json::Kind::number)
            g.data.result.state_observed = json_double(best, mp::shard_name(first) + ": state_observed_optimum");
    };
    auto write = [](Group& g, const mp::MergeOptions& options) {
        mp::OutputFolder folder(std::filesystem::path(options.out) / mp::safe_folder_name(g.key, "model"));
        std::printf("%s: merged %zu shard%s: %zu runs\n", g.key.c_str(), g.shards.size(), g.shards.size() == 1 ? "" : "s",
                    g.data.result.runs.complete_runs());
        std::fputs(mx::table(g.data.facts, g.data.result).c_str(), stdout);
        const mp::WrittenFiles w = mx::write_outputs(folder, g.data.facts, g.data.result, g.info, options.plot && g.data.plot, g.data.smooth);
        std::printf("wrote %s/{config.json,runs.csv,summary.csv,curves.gp%s%s}\n", w.dir.string().c_str(),
                    w.plot.drawn ? ",curves.png" : "",
                    mp::has_learned_curves(g.data.result.runs) ? ",learning.csv,learned/*.pomdp" : "");
        if (!w.plot.failed) return true;
        std::fprintf(stderr, "maxent-explore: error: %s\n", w.plot.message.c_str());
        return false;
    };
    return mp::merge_command<mx::Options, Merged>(
        "maxent-explore", MAXENT_VERSION, args, [] { return mx::help_text(); }, model_of,
        [](const std::vector<std::string>& a) { return mx::parse_command_line(a, false); }, study, assemble, write);
}

}  // namespace

int main(int argc, char** argv) try {
    const std::vector<std::string> args(argv + 1, argv + argc);
    if (!args.empty() && args.front() == "merge") return merge_main(std::vector<std::string>(args.begin() + 1, args.end()));
    mx::Options options;
    if (const auto done = mp::parse_or_exit("maxent-explore", MAXENT_VERSION, options,
                                            [&] { return mx::parse_command_line(args); }, [] { return mx::help_text(); }))
        return *done;

    // The output folder is checked and its staging folder created before any work, so that a
    // bad --out fails now (exit 2, with the system's reason), not after the training.
    mp::OutputFolder folder;
    try {
        const std::string name = mx::model_folder_name(options.model);
        folder = mp::OutputFolder(std::filesystem::path(options.out) /
                                  (options.shard.active() ? mp::shard_folder_name(name, options.shard) : name));
    } catch (const mp::output_error& e) {
        return mp::usage_failure("maxent-explore", mp::cat("--out: ", e.what()));
    }

    std::optional<mx::LoadedModel> loaded;
    try {
        loaded.emplace(mx::load_model(options.model, options.horizon, options.empty_rows));
    } catch (const maxent::error& e) {
        std::fprintf(stderr, "maxent-explore: cannot use the model file: %s\n", e.what());
        if (std::string(e.what()).find("no transition probabilities") != std::string::npos)
            std::fprintf(stderr, "maxent-explore: hint: --empty-rows self-loop makes such states absorbing\n");
        return 1;
    }
    const mx::LoadedModel& model = *loaded;

    const mp::Settings& settings = options.settings;
    // Learned-belief settings that would fail during the run, refused now (exit 2), naming the
    // flag: class B, a learned model or recorded episodes larger than this machine's memory.
    try {
        check_learned_settings(model, settings);
    } catch (const mp::usage_error& e) {
        return mp::usage_failure("maxent-explore", e.what());
    }
    const std::size_t window = mx::final_window(settings.iterations);
    const std::size_t uniform_episodes = options.uniform_trajectories.value_or(window * settings.batch);
    mp::RunInfo info;
    info.version = MAXENT_VERSION;
    options.threads = mp::resolve_threads(options.threads);
    info.threads = options.threads;
    info.command_line = "maxent-explore";
    for (const std::string& a : args) info.command_line += mp::cat(" ", a);
    info.build = mp::fields_json(mp::build_fingerprint());
    const mx::ModelFacts facts = mx::facts_of(model, options.empty_rows);
    const std::string model_key = mx::model_key(model, options.empty_rows);

    const mx::Model& m = model.file.model;
    const std::vector<mp::Curve> curves = mx::make_curves(settings);
    const std::vector<char> selected = options.shard.active()
                                           ? mp::shard_selection(curves, settings.seeds.size(), options.shard)
                                           : std::vector<char>{};
    const mp::RunStore store(mp::work_area_of(folder.path()), info.build);
    const mx::WorkEstimate work = mx::estimate_work(m.num_states(), m.horizon(), curves.size(), settings, uniform_episodes);
    if (work.updates > options.max_work) {
        std::fprintf(stderr,
                     "maxent-explore: too much work: S = %zu states, T = %zu steps per episode, %zu curve(s) x %zu "
                     "seed(s) x K = %zu x N = %zu, %zu uniform episodes per seed: about %.3g steps, each training step "
                     "updating a belief over the %zu states, so about %.3g belief-entry updates, above --max-work %.3g. Give a smaller --horizon (the default is T = max(S, 10)), "
                     "--iterations, --seeds or --batch, or raise --max-work to run it anyway.\n",
                     m.num_states(), m.horizon(), curves.size(), settings.seeds.size(), settings.iterations,
                     settings.batch, uniform_episodes, work.steps, m.num_states(), work.updates, options.max_work);
        return 2;
    }
    std::printf("%s (%s): %s\n", model.name.c_str(), model.path.string().c_str(), mx::describe(m).c_str());
    if (!model.file.absorbing_rows.empty())
        std::printf("  --empty-rows self-loop: %zu (action, state) rows without T: entries made absorbing\n",
                    model.file.absorbing_rows.size());
    if (std::any_of(curves.begin(), curves.end(), [](const mp::Curve& c) { return c.learned; }))
        std::printf("  %s\n", mp::learning_summary(settings.learning, false).c_str());
    if (const std::string note = mx::refit_note(curves, settings); !note.empty()) std::printf("    %s\n", note.c_str());
    std::fflush(stdout);

    std::vector<std::string> labels;
    for (const mp::Curve& c : curves) labels.push_back(c.label);
    const bool tty = isatty(fileno(stderr)) != 0;
    mp::ProgressReporter::Mode mode = mp::ProgressReporter::Mode::off;
    if (options.progress == mx::Options::ProgressMode::force)
        mode = tty ? mp::ProgressReporter::Mode::terminal : mp::ProgressReporter::Mode::lines;
    else if (options.progress == mx::Options::ProgressMode::automatic && tty)
        mode = mp::ProgressReporter::Mode::terminal;

    mp::install_stop_handlers();
    try {
        mp::ProgressCounters counters(curves.size());
        mx::Result result;
        {
            mp::ProgressReporter reporter(mode, model.name, labels, settings.seeds.size(),
                                          static_cast<std::uint64_t>(curves.size() * settings.seeds.size()) *
                                              settings.iterations,
                                          counters);
            result = mx::run(m, settings, uniform_episodes, options.threads, &counters, &mp::stop_flag(), selected, &store,
                             model_key);
            reporter.finish();
        }
        const double rate =
            result.runs.seconds > 0.0 ? static_cast<double>(result.runs.iterations_run) / result.runs.seconds : 0.0;
        std::printf("  %s\n", mp::settings_line(result.runs).c_str());
        if (result.runs.interrupted)
            std::printf("  interrupted: %zu of %zu runs complete (%zu curve%s x %zu seed%s), %llu iterations in %.2f "
                        "s; uniform baseline skipped\n\n",
                        result.runs.complete_runs(), result.runs.total_runs(), curves.size(),
                        curves.size() == 1 ? "" : "s", settings.seeds.size(), settings.seeds.size() == 1 ? "" : "s",
                        static_cast<unsigned long long>(result.runs.iterations_run), result.runs.seconds);
        else
            std::printf("  trained %zu runs (%zu curve%s x %zu seed%s), %llu iterations in %.2f s (%.0f iterations/s, "
                        "%zu threads); uniform baseline %zu x %zu episodes in %.2f s\n\n",
                        result.runs.selected_runs() - result.runs.reused, curves.size(), curves.size() == 1 ? "" : "s",
                        settings.seeds.size(), settings.seeds.size() == 1 ? "" : "s",
                        static_cast<unsigned long long>(result.runs.iterations_run), result.runs.seconds, rate,
                        info.threads, result.uniform_seeds.size(), uniform_episodes, result.uniform_seconds);
        if (result.runs.reused > 0)
            std::printf("  reused %zu finished run%s from %s (resumed)\n", result.runs.reused,
                        result.runs.reused == 1 ? "" : "s", store.dir().string().c_str());
        if (options.shard.active())
            std::printf("  shard %zu/%zu: %zu of the study's %zu runs\n", options.shard.index, options.shard.count,
                        result.runs.selected_runs(), result.runs.total_runs());
        std::fputs(mx::table(facts, result).c_str(), stdout);
        std::fflush(stdout);

        mp::WrittenFiles w;
        if (options.shard.active()) {
            std::string uniform = "\"uniform_episodes\": " + std::to_string(uniform_episodes) + ", \"model_key\": " +
                                  mp::json_string(model_key) + ", \"uniform\": [";
            for (std::size_t i = 0; i < result.uniform_per_seed.size(); ++i)
                uniform += mp::cat(i ? ", " : "", "{\"seed\": ", std::to_string(result.uniform_seeds[i]),
                                   ", \"true_entropy\": ", mp::format_number(result.uniform_per_seed[i]), "}");
            uniform += "]";
            mp::RunInfo shard_info = info;
            shard_info.extra_fields.emplace_back(
                "shard", mp::shard_section("maxent-explore", options.shard, args, result.runs, uniform));
            // A shard's folder: runs.csv, config.json and, with learned curves, learning.csv and
            // learned/ (the summary and plot come from the merge).
            if (result.runs.complete_runs() == 0 && result.runs.selected_runs() > 0) {
                folder.discard();
            } else {
                w.dir = folder.path();
                mp::write_file_atomically(folder.staging() / mp::output_name("runs.csv"),
                                          [&](std::FILE* f) { mp::write_runs_csv(f, result.runs); });
                if (mp::has_learned_curves(result.runs)) {  // the fits and models the merge needs
                    mp::write_file_atomically(folder.staging() / mp::output_name("learning.csv"),
                                              [&](std::FILE* f) { mp::write_learning_csv(f, result.runs); });
                    mp::write_learned_models(folder.staging(), result.runs);
                }
                mp::write_string_atomically(folder.staging() / mp::output_name("config.json"), mx::config_json(facts, result, mp::with_shard_files(shard_info, folder.staging())));
                folder.commit();
                w.wrote = true;
                std::printf("\nwrote shard %s/{config.json,runs.csv%s}\n", w.dir.string().c_str(),
                            mp::has_learned_curves(result.runs) ? ",learning.csv,learned/*.pomdp" : "");
            }
        } else {
            w = mx::write_outputs(folder, facts, result, info, options.plot, options.smooth);
        }
        if (!result.runs.interrupted) store.clear();
        if (w.wrote && !options.shard.active()) {
            std::printf("\nwrote %s/{config.json,runs.csv,summary.csv,curves.gp%s%s}\n", w.dir.string().c_str(),
                        w.plot.drawn ? ",curves.png" : "",
                        mp::has_learned_curves(result.runs) ? ",learning.csv,learned/*.pomdp" : "");
            if (w.plot.failed)
                std::fprintf(stderr, "maxent-explore: error: %s\n", w.plot.message.c_str());
            else
                std::printf("%s%s\n", w.plot.drawn ? "PNG: " : "", w.plot.message.c_str());
        }
        std::fflush(stdout);
        if (result.runs.interrupted) {
            std::fprintf(stderr, "maxent-explore: %s: kept %zu complete runs of %zu%s; the finished runs stay in %s: rerun "
                         "the same command to train only the rest\n", mp::stop_signal_name(),
                         result.runs.complete_runs(), result.runs.selected_runs(),
                         w.wrote ? mp::cat(" in ", w.dir.string()).c_str() : "; nothing written", store.dir().string().c_str());
            return mp::stop_exit_status();
        }
        if (w.plot.failed) return 1;
    } catch (const std::exception& ex) {
        std::fprintf(stderr, "maxent-explore: error: %s\n", ex.what());
        return 1;
    }
    return 0;
} catch (const std::bad_alloc&) {  // anything that escaped: a named error, never an abort
    std::fputs("maxent-explore: error: out of memory (std::bad_alloc)\n", stderr);
    return 1;
} catch (const std::exception& ex) {
    std::fprintf(stderr, "maxent-explore: error: %s\n", ex.what());
    return 1;
}
