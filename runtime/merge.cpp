// runtime/merge.cpp — the bodies of merge.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "merge.hpp"

#include <algorithm>
#include <set>

namespace maxent::programs {

std::vector<CsvRun> read_runs_csv(const std::filesystem::path& p, const std::string& text) {
    std::vector<CsvRun> out;
    // label,seed,iteration,a,b,c: the label has no comma (curve labels never do).
    const std::size_t lines = read_csv_rows<6>(p, text, runs_csv_header, [&](const auto& parts, auto& num, auto& bad) {
        std::uint64_t seed = 0, k = 0;
        IterationRecord r;
        num(parts[1], seed);
        num(parts[2], k);
        num(parts[3], r.true_entropy);
        num(parts[4], r.feedback);
        num(parts[5], r.belief_entropy_sum);
        auto bad_run = [&](std::string_view why) {
            bad(cat("run (", parts[0], ", seed ", parts[1], ") iteration ", parts[2], ": ", why));
        };
        check_shard_value(r.true_entropy, parts[3], 0.0, max_run_value, "the true-state entropy", bad_run);
        check_shard_value(r.feedback, parts[4], -max_run_value, max_run_value, "the feedback", bad_run);
        check_shard_value(r.belief_entropy_sum, parts[5], 0.0, max_run_value, "the belief entropy sum", bad_run);
        if (out.empty() || out.back().label != parts[0] || out.back().seed != seed) {
            if (k != 0) bad("a run that does not start at iteration 0");
            out.push_back({std::string(parts[0]), seed, {}});
        }
        if (k != out.back().records.size()) bad("iterations out of order");
        out.back().records.push_back(r);
    });
    if (lines == 0) throw merge_error(cat("'", p.string(), "' is empty"));
    return out;
}

CsvFits read_learning_csv(const std::filesystem::path& p, const std::string& text) {
    CsvFits out;
    (void)read_csv_rows<10>(p, text, learning_csv_header, [&](const auto& parts, auto& num, auto& bad) {
        std::uint64_t seed = 0, index = 0, converged = 0;
        FitRecord r;
        double truth = 0.0;
        num(parts[1], seed);
        num(parts[2], index);
        num(parts[3], r.iteration);
        num(parts[4], r.episodes);
        num(parts[5], r.em_iterations);
        num(parts[6], converged);
        num(parts[7], r.train_log_likelihood);
        num(parts[8], r.heldout_log_likelihood);
        num(parts[9], truth);
        auto bad_fit = [&](std::string_view why) {
            bad(cat("run (", parts[0], ", seed ", parts[1], ") fit ", parts[2], ": ", why));
        };
        if (converged > 1) bad_fit(cat("converged is '", parts[6], "', not 0 or 1"));
        check_shard_value(r.train_log_likelihood, parts[7], -max_run_log_likelihood, max_run_log_likelihood,
                          "the training log-likelihood", bad_fit);
        // Held-out values are nan when the study has no held-out episodes.
        if (!std::isnan(r.heldout_log_likelihood))
            check_shard_value(r.heldout_log_likelihood, parts[8], -max_run_log_likelihood, max_run_log_likelihood,
                              "the held-out log-likelihood", bad_fit);
        if (!std::isnan(truth))
            check_shard_value(truth, parts[9], -max_run_log_likelihood, max_run_log_likelihood,
                              "the true model's held-out log-likelihood", bad_fit);
        r.converged = converged != 0;
        auto& entry = out[{std::string(parts[0]), seed}];
        if (index != entry.first.size()) bad("fits out of order");
        entry.first.push_back(r);
        entry.second = truth;
    });
    return out;
}

CsvVisits read_visits_csv(const std::filesystem::path& p, const std::string& text) {
    CsvVisits out;
    std::map<std::pair<std::string, std::uint64_t>, std::uint64_t> totals;  // counted steps per run so far
    (void)read_csv_rows<6>(p, text, visits_csv_header, [&](const auto& parts, auto& num, auto& bad) {
        std::uint64_t seed = 0, state = 0, count = 0;
        VisitCounts row;
        num(parts[1], seed);
        num(parts[2], row.episodes);
        num(parts[3], row.mean_entropy);
        num(parts[4], state);
        num(parts[5], count);
        auto bad_run = [&](std::string_view why) {
            bad(cat("run (", parts[0], ", seed ", parts[1], ") state ", parts[4], ": ", why));
        };
        if (row.episodes == 0 || row.episodes > max_kept_heatmap_episodes)
            bad_run(cat("episodes is '", parts[2], "', not in [1, ", std::to_string(max_kept_heatmap_episodes), "]"));
        check_shard_value(row.mean_entropy, parts[3], 0.0, max_run_value, "the mean true-state entropy", bad_run);
        VisitCounts& v = out[{std::string(parts[0]), seed}];
        if (state != v.counts.size()) bad("states out of order");
        std::uint64_t& total = totals[{std::string(parts[0]), seed}];
        if (count > max_kept_run_visits - total)
            bad_run(cat("count '", parts[5], "' makes the run's visits more than ", std::to_string(max_kept_run_visits)));
        total += count;
        if (state == 0) {
            v.episodes = row.episodes;
            v.mean_entropy = row.mean_entropy;
        } else if (row.episodes != v.episodes || row.mean_entropy != v.mean_entropy) {
            bad("episodes or entropy differ within one run");
        }
        v.counts.push_back(count);
    });
    return out;
}

std::uint64_t json_uint(const Json* v, const std::string& what,
                                             std::uint64_t max) {
    std::uint64_t x = 0;
    if (v == nullptr || v->kind != Json::Kind::number) throw merge_error(cat(what, ": missing or not a number"));
    const auto r = std::from_chars(v->text.data(), v->text.data() + v->text.size(), x);
    if (r.ec != std::errc() || r.ptr != v->text.data() + v->text.size())
        throw merge_error(cat(what, ": '", v->text, "' is not an unsigned integer of 64 bits"));
    if (x > max) throw merge_error(cat(what, ": ", v->text, " is larger than ", std::to_string(max)));
    return x;
}

ShardFolder read_shard_folder(const std::filesystem::path& dir, std::string_view program) {
    ShardFolder s;
    s.dir = dir;
    const std::filesystem::path cfg = dir / "config.json";
    std::error_code ec;
    // Present means present as anything (a FIFO or a link to a device is refused when read).
    const auto present = [&](const std::filesystem::path& f) {
        return std::filesystem::symlink_status(f, ec).type() != std::filesystem::file_type::not_found;
    };
    if (!present(cfg)) throw merge_error(cat("'", dir.string(), "' is not a shard folder: it has no config.json"));
    s.config = parse_json(read_text_file(cfg), cfg.string());
    const Json* shard = s.config.find("shard");
    if (shard == nullptr)
        throw merge_error(cat("'", dir.string(), "' is not a shard folder (its config.json has no \"shard\" "
                              "section: it is the output of a whole study; shards are written by --shard I/N)"));
    const Json* prog = shard->find("program");
    if (prog == nullptr || prog->text != program)
        throw merge_error(cat("'", dir.string(), "' is a shard of ", prog ? prog->text : std::string("another program"),
                              ", not of ", program));
    const std::string what = cat(cfg.string(), ": shard");
    s.spec.index = static_cast<std::size_t>(json_uint(shard->find("index"), what + ".index", max_shard_count));
    s.spec.count = static_cast<std::size_t>(json_uint(shard->find("count"), what + ".count", max_shard_count));
    if (s.spec.count == 0) throw merge_error(cat(what, ".count: 0 is not a number of shards (N >= 1)"));
    if (s.spec.index < 1 || s.spec.index > s.spec.count)
        throw merge_error(cat(what, ".index: ", std::to_string(s.spec.index), " is not in 1..",
                              std::to_string(s.spec.count), " (a shard I/N has 1 <= I <= N)"));
    const Json* args = shard->find("arguments");
    if (args == nullptr || args->kind != Json::Kind::array) throw merge_error(cat(what, ".arguments: missing"));
    for (const Json& a : args->items) s.arguments.push_back(a.text);
    if (const Json* b = s.config.find("build"))
        for (const auto& m : b->members) s.build.emplace_back(m.first, m.second.text);
    s.threads = static_cast<std::size_t>(json_uint(s.config.find("threads"), cfg.string() + ": threads", max_threads));
    if (s.threads == 0) throw merge_error(cat(cfg.string(), ": threads: 0 is not a thread count"));
    if (const Json* files = shard->find("files"); files != nullptr && files->kind == Json::Kind::object)
        for (const JsonMember& m : files->members) s.files[m.first] = m.second.text;
    auto read = [&](const char* name) {
        std::string text = read_text_file(dir / name);
        s.read_digests[name] = hex64(fnv1a64(text));
        return text;
    };
    s.runs = read_runs_csv(dir / "runs.csv", read("runs.csv"));
    if (present(dir / "learning.csv")) s.fits = read_learning_csv(dir / "learning.csv", read("learning.csv"));
    s.has_visits = present(dir / "visits.csv");
    if (s.has_visits) s.visits = read_visits_csv(dir / "visits.csv", read("visits.csv"));
    const Json* runs = shard->find("runs");
    if (runs == nullptr || runs->kind != Json::Kind::array || runs->items.size() != s.runs.size())
        throw merge_error(cat("'", dir.string(), "': config.json lists ", runs ? std::to_string(runs->items.size()) : "no",
                              " runs but runs.csv holds ", std::to_string(s.runs.size())));
    for (std::size_t i = 0; i < s.runs.size(); ++i) {
        const Json& r = runs->items[i];
        const Json* curve = r.find("curve");
        if (curve == nullptr || curve->text != s.runs[i].label ||
            json_uint(r.find("seed"), what + ".runs.seed") != s.runs[i].seed)
            throw merge_error(cat("'", dir.string(), "': config.json and runs.csv list different runs"));
        s.tables.emplace_back(
            static_cast<std::size_t>(json_uint(r.find("table_rows"), what + ".runs.table_rows", max_kept_table_size)),
            static_cast<std::size_t>(json_uint(r.find("table_bytes"), what + ".runs.table_bytes", max_kept_table_size)));
    }
    return s;
}

void require_same_fields(const Fields& a, const std::string& a_name, const Fields& b, const std::string& b_name,
                                std::string_view headline, std::string_view advice) {
    std::map<std::string, std::string> bm(b.begin(), b.end());
    std::map<std::string, std::string> am(a.begin(), a.end());
    std::vector<std::string> names;
    for (const auto& f : a) names.push_back(f.first);
    for (const auto& f : b)
        if (!am.count(f.first)) names.push_back(f.first);
    for (const std::string& n : names) {
        const auto ia = am.find(n);
        const auto ib = bm.find(n);
        const std::string va = ia == am.end() ? std::string("(absent)") : json_string(ia->second);
        const std::string vb = ib == bm.end() ? std::string("(absent)") : json_string(ib->second);
        if (va != vb)
            throw merge_error(cat(headline, ": '", n, "' is ", va, " in ", a_name, " but ", vb, " in ", b_name, advice));
    }
}

void check_builds(const std::vector<ShardFolder>& shards, std::string_view program) {
    const std::string headline = "the shards come from builds whose floating-point results could differ";
    for (std::size_t i = 1; i < shards.size(); ++i)
        require_same_fields(shards[0].build, shard_name(shards[0]), shards[i].build, shard_name(shards[i]), headline,
                            "; rerun the shards of one build");
    require_same_fields(shards[0].build, shard_name(shards[0]), build_fingerprint(), cat("this ", program), headline,
                        cat("; merge with the ", program, " that ran the shards"));
}

void check_studies(const std::vector<ShardFolder>& shards, const std::vector<Fields>& studies) {
    for (std::size_t i = 1; i < shards.size(); ++i)
        require_same_fields(studies[0], shard_name(shards[0]), studies[i], shard_name(shards[i]),
                            "the shards are not of one study (their settings differ)",
                            "; merge shards run with the same settings");
}

void place_runs(const std::vector<ShardFolder>& shards, ExperimentResult& r) {
    const std::size_t seeds = r.settings.seeds.size();
    std::map<std::pair<std::string, std::uint64_t>, std::pair<std::size_t, std::size_t>> index;  // -> (curve, seed index)
    for (std::size_t c = 0; c < r.curves.size(); ++c)
        for (std::size_t i = 0; i < seeds; ++i) index[{r.curves[c].curve.label, r.settings.seeds[i]}] = {c, i};
    std::vector<std::vector<const ShardFolder*>> owner(r.curves.size(), std::vector<const ShardFolder*>(seeds));
    std::string overlaps;
    std::size_t overlap_count = 0;
    for (const ShardFolder& s : shards)
        for (std::size_t k = 0; k < s.runs.size(); ++k) {
            const CsvRun& run = s.runs[k];
            const auto it = index.find({run.label, run.seed});
            if (it == index.end())
                throw merge_error(cat(shard_name(s), " holds run (", run.label, ", seed ", std::to_string(run.seed),
                                      "), which is not a run of the study"));
            const auto [c, i] = it->second;
            if (run.records.size() != r.settings.iterations)
                throw merge_error(cat(shard_name(s), ": run (", run.label, ", seed ", std::to_string(run.seed), ") has ",
                                      std::to_string(run.records.size()), " iterations, not ",
                                      std::to_string(r.settings.iterations)));
            if (owner[c][i] != nullptr) {
                if (overlap_count < 10)
                    overlaps += cat(overlaps.empty() ? "" : "; ", "(", run.label, ", seed ", std::to_string(run.seed),
                                    ") is in ", shard_name(*owner[c][i]), " and ", shard_name(s));
                ++overlap_count;
                continue;
            }
            owner[c][i] = &s;
            SeedRun& out = r.curves[c].runs[i];
            out.seed = run.seed;
            out.records = run.records;
            out.complete = true;
            out.table_rows = s.tables[k].first;
            out.table_bytes = s.tables[k].second;
            if (r.curves[c].curve.learned) {
                const auto f = s.fits.find({run.label, run.seed});
                if (f == s.fits.end())
                    throw merge_error(cat(shard_name(s), ": run (", run.label, ", seed ", std::to_string(run.seed),
                                          ") learns its belief model but the shard's learning.csv has no fit of it"));
                out.fits = f->second.first;
                out.truth_heldout = f->second.second;
                // The final learned model: there when config.json lists it (absent where the
                // format cannot hold the model), and read as a POMDP file before it is copied.
                const std::string name = learned_model_file(run.label, run.seed);
                const std::filesystem::path model = s.dir / name;
                const std::string which = cat("the learned model of run (", run.label, ", seed ", std::to_string(run.seed), ")");
                std::error_code absent;
                const bool present =
                    std::filesystem::symlink_status(model, absent).type() != std::filesystem::file_type::not_found;
                const auto listed = s.files.find(name);
                if (listed == s.files.end()) {
                    if (present)
                        throw merge_error(cat(shard_name(s), ": '", model.string(), "', ", which,
                                              ", is not among the files its config.json lists"));
                } else {
                    if (!present)
                        throw merge_error(cat(shard_name(s), ": '", model.string(), "', ", which,
                                              ", is missing; copy it back from where the shard ran, or rerun the shard"));
                    out.learned_model = read_text_file(model);
                    try {
                        check_learned_model_text(out.learned_model, model.string());
                    } catch (const maxent::error& e) {
                        throw merge_error(cat(shard_name(s), ": '", model.string(), "', ", which,
                                              ", is not a POMDP file: ", e.what()));
                    }
                    if (hex64(fnv1a64(out.learned_model)) != listed->second)
                        throw merge_error(cat(shard_name(s), ": '", model.string(), "', ", which,
                                              ", is not the file the shard wrote (its config.json has another digest)"));
                }
            }
            if (r.settings.heatmap_episodes > 0) {
                // Shards without counts (of a maxent-paper before heatmaps, or a file removed)
                // are refused: the merge must write what one process would have written.
                const std::string file = (s.dir / "visits.csv").string();
                if (!s.has_visits)
                    throw merge_error(cat(shard_name(s), ": no '", file, "': the study counts the final policies' "
                                          "visits (--heatmap-episodes ", std::to_string(r.settings.heatmap_episodes),
                                          ") but this shard holds none (written by a maxent-paper without heatmaps?); "
                                          "rerun the shard with this maxent-paper"));
                const auto v = s.visits.find({run.label, run.seed});
                if (v == s.visits.end() || v->second.episodes != r.settings.heatmap_episodes)
                    throw merge_error(cat(shard_name(s), ": '", file, "' has no visit counts of run (", run.label,
                                          ", seed ", std::to_string(run.seed), ") over ",
                                          std::to_string(r.settings.heatmap_episodes), " episodes"));
                out.visits = v->second;
            }
        }
    if (overlap_count > 0)
        throw merge_error(cat("the shards overlap: ", std::to_string(overlap_count), " run(s) are in more than one: ",
                              overlaps, overlap_count > 10 ? "; ..." : "", "; give each run once"));
    // The files are those written with the settings of config.json (a runs.csv of other
    // settings under a copied config.json, or a file changed afterwards, has another digest).
    for (const ShardFolder& s : shards)
        for (const auto& [name, digest] : s.read_digests) {
            const auto listed = s.files.find(name);
            if (listed == s.files.end() || listed->second != digest)
                throw merge_error(cat(shard_name(s), ": '", (s.dir / name).string(), "' is not the file the shard "
                                      "wrote with the settings of its config.json (",
                                      listed == s.files.end() ? std::string("config.json lists no such file")
                                                              : cat("digest ", digest, ", config.json says ", listed->second),
                                      "): was it changed, or config.json copied from another shard? Rerun the shard"));
        }
    bool same_count = true;
    for (const ShardFolder& s : shards) same_count = same_count && s.spec.count == shards[0].spec.count;
    std::vector<Curve> curves;
    for (const CurveRuns& c : r.curves) curves.push_back(c.curve);
    std::vector<std::size_t> slice;
    if (same_count) {
        std::vector<std::uint64_t> costs;
        for (const Curve& c : curves)
            for (std::size_t i = 0; i < seeds; ++i) costs.push_back(run_cost(c));
        slice = assign_shards(costs, shards[0].spec.count);
    }
    std::string missing;
    std::set<std::size_t> slices;
    std::size_t missing_count = 0;
    for (std::size_t c = 0; c < r.curves.size(); ++c) {
        std::string list;
        for (std::size_t i = 0; i < seeds; ++i)
            if (owner[c][i] == nullptr) {
                list += cat(list.empty() ? "" : ",", std::to_string(r.settings.seeds[i]));
                ++missing_count;
                if (same_count) slices.insert(slice[c * seeds + i] + 1);
            }
        if (!list.empty())
            missing += cat(missing.empty() ? "" : "; ", r.curves[c].curve.label, " seed", list.find(',') == std::string::npos ? " " : "s ", list);
    }
    if (missing_count > 0) {
        std::string which;
        for (const std::size_t s : slices)
            which += cat(which.empty() ? "" : ", ", "--shard ", std::to_string(s), "/", std::to_string(shards[0].spec.count));
        throw merge_error(cat("runs missing: ", std::to_string(missing_count), " of ", std::to_string(r.total_runs()),
                              " runs are in none of the shards: ", missing,
                              which.empty() ? std::string("") : cat(" (", which, ")"),
                              "; run them (a rerun reuses its finished runs) and merge again"));
    }
}

void sort_shards(std::vector<ShardFolder>& shards) {
    std::stable_sort(shards.begin(), shards.end(), [](const ShardFolder& a, const ShardFolder& b) {
        return std::pair(a.spec.count, a.spec.index) < std::pair(b.spec.count, b.spec.index);
    });
}

MergeOptions parse_merge_command_line(const std::vector<std::string>& args) {
    MergeOptions o;
    bool out_given = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string& a = args[i];
        if (a == "--out" || a.rfind("--out=", 0) == 0) {
            if (out_given) throw usage_error(cat("merge: --out given twice ('", o.out, "', then another); give it once"));
            out_given = true;
            std::string v;
            if (a == "--out") {
                if (i + 1 >= args.size()) throw usage_error("--out: missing value");
                v = args[++i];
            } else {
                v = a.substr(6);
            }
            o.out = detail::out_directory("--out", v);
        } else if (a == "--no-plot") {
            o.plot = false;
        } else if (a == "--quiet") {
        } else if (a == "--help" || a == "-h") {
            o.help = true;
        } else if (!a.empty() && a[0] == '-') {
            throw usage_error(cat("merge: unknown option '", a, "'"));
        } else {
            o.shards.push_back(a);
        }
    }
    if (!o.help && o.shards.empty()) throw usage_error("merge: no shard folders given (e.g. merge out/fig2a.shard-* --out out)");
    return o;
}

std::string seed_list(const std::vector<std::uint64_t>& seeds) {
    std::string out;
    for (std::size_t i = 0; i < seeds.size(); ++i) out += cat(i ? "," : "", std::to_string(seeds[i]));
    return out;
}

Fields study_settings_fields(const std::vector<Curve>& curves, const Settings& s) {
    std::string labels;
    for (const Curve& c : curves) labels += cat(labels.empty() ? "" : ",", c.label);
    return {{"curves", labels},
            {"seeds", seed_list(s.seeds)},
            {"iterations", std::to_string(s.iterations)},
            {"batch", std::to_string(s.batch)},
            {"alpha", format_number(s.effective_alpha())},
            {"rho", format_number(s.rho)},
            {"estimator", std::string(name_of(s.estimator))},
            {"step", std::string(name_of(s.step))},
            {"counting", std::string(name_of(s.counting))}};
}

}  // namespace maxent::programs
namespace maxent::programs {

}  // namespace maxent::programs
