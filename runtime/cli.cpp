// runtime/cli.cpp — the bodies of cli.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "cli.hpp"

#include <cmath>
#include <unistd.h>

#include "maxent/belief/learned/em.hpp"

namespace maxent::programs {

int usage_failure(std::string_view program, std::string_view why) {
    const std::string p(program);
    std::fprintf(stderr, "%s: %s\nTry '%s --help'.\n", p.c_str(), std::string(why).c_str(), p.c_str());
    return 2;
}

}  // namespace maxent::programs

namespace maxent::programs {
namespace detail {

std::vector<std::string_view> split_commas(std::string_view s) {
    std::vector<std::string_view> parts;
    std::size_t begin = 0;
    for (;;) {
        const std::size_t comma = s.find(',', begin);
        parts.push_back(s.substr(begin, comma == std::string_view::npos ? std::string_view::npos : comma - begin));
        if (comma == std::string_view::npos) break;
        begin = comma + 1;
    }
    return parts;
}

std::optional<std::uint64_t> to_uint(std::string_view s) {
    if (s.empty()) return std::nullopt;
    std::uint64_t v = 0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size()) return std::nullopt;
    return v;
}

std::uint64_t uint_in(std::string_view flag, std::string_view v, std::uint64_t least, std::uint64_t most,
                             std::string_view what) {
    const auto x = to_uint(v);
    if (!x && overflows_uint(v))
        bad_value(flag, v, cat("is too large (at most ", std::to_string(most), "; it does not even fit 64 bits)"));
    if (!x || *x < least) bad_value(flag, v, cat("is not ", what));
    if (*x > most) bad_value(flag, v, cat("is too large (at most ", std::to_string(most), ")"));
    return *x;
}

std::optional<double> to_double(std::string_view s) {
    if (s.empty()) return std::nullopt;
    double v = 0.0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc() || r.ptr != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

std::string range_problem(std::string_view s) {
    double v = 0.0;
    const auto r = std::from_chars(s.data(), s.data() + s.size(), v);
    if (r.ec != std::errc::result_out_of_range || r.ptr != s.data() + s.size()) return {};
    const std::string copy(s);
    const double x = std::strtod(copy.c_str(), nullptr);
    if (std::fabs(x) < 1.0)
        return "underflows: it is nonzero but smaller in magnitude than the smallest positive double "
               "(about 4.9e-324), so it would read as 0; write 0 if you mean 0";
    return "overflows: it is larger in magnitude than the largest double (about 1.8e308)";
}

double finite_number(std::string_view flag, std::string_view v, std::string_view why) {
    if (const auto x = to_double(v)) return *x;
    const std::string range = range_problem(v);
    if (!range.empty()) bad_value(flag, v, range);
    bad_value(flag, v, why);
}

double physical_memory_bytes() {
    const long pages = ::sysconf(_SC_PHYS_PAGES), page = ::sysconf(_SC_PAGE_SIZE);
    return pages > 0 && page > 0 ? static_cast<double>(pages) * static_cast<double>(page) : 0.0;
}

void require_memory(std::string_view flags, std::string_view what, double bytes) {
    const double have = physical_memory_bytes();
    if (have > 0.0 && bytes > have) {
        char msg[160];
        std::snprintf(msg, sizeof msg, " would take at least %.3g GiB of memory, more than this machine's %.3g GiB",
                      bytes / 1073741824.0, have / 1073741824.0);
        throw usage_error(cat(flags, ": ", what, msg));
    }
}

double smoothing_value(std::string_view flag, std::string_view v) {
    const double x = finite_number(flag, v, cat("is not a number in (0, ", format_number(max_iohmm_smoothing), "]"));
    if (!(x > 0.0 && x <= max_iohmm_smoothing))
        bad_value(flag, v,
                  cat("is not in (0, ", format_number(max_iohmm_smoothing), "]",
                      x == 0.0 ? " (with 0 a fitted observation probability may be 0, which the learned filter cannot "
                                 "update on)"
                               : ""));
    return x;
}

std::vector<std::uint64_t> parse_seeds(std::string_view flag, std::string_view v) {
    std::vector<std::uint64_t> seeds;
    std::unordered_set<std::uint64_t> seen;
    for (const std::string_view part : split_commas(v)) {
        const std::size_t dash = part.find('-');
        std::uint64_t lo = 0, hi = 0;
        if (dash == std::string_view::npos) {
            const auto x = to_uint(part);
            if (!x && overflows_uint(part)) bad_value(flag, v, cat("has seed '", part, "', which does not fit 64 bits"));
            if (!x) bad_value(flag, v, cat("is not a seed list (e.g. 0,3,5 or 0-15): bad seed '", part, "'"));
            lo = hi = *x;
        } else {
            const auto a = to_uint(part.substr(0, dash));
            const auto b = to_uint(part.substr(dash + 1));
            for (const std::string_view end : {part.substr(0, dash), part.substr(dash + 1)})
                if (overflows_uint(end)) bad_value(flag, v, cat("has seed '", end, "', which does not fit 64 bits"));
            if (!a || !b)
                bad_value(flag, v, cat("is not a seed list (e.g. 0,3,5 or 0-15): bad range '", part, "'"));
            if (*a > *b) bad_value(flag, v, cat("has a decreasing range '", part, "'"));
            lo = *a;
            hi = *b;
        }
        if (hi - lo >= 100000 || seeds.size() + (hi - lo + 1) > 100000) bad_value(flag, v, "has more than 100000 seeds");
        seen.reserve(seeds.size() + (hi - lo + 1));
        for (std::uint64_t s = lo;; ++s) {
            if (!seen.insert(s).second) bad_value(flag, v, cat("lists seed ", std::to_string(s), " twice"));
            seeds.push_back(s);
            if (s == hi) break;
        }
    }
    return seeds;
}

std::size_t parse_threads(std::string_view flag, std::string_view v) {
    const auto x = to_uint(v);
    if (!x || *x > max_threads) bad_value(flag, v, "is not a thread count in 0..1024 (0 = all cores)");
    return static_cast<std::size_t>(*x);
}

double non_negative_number(std::string_view flag, std::string_view v) {
    const double x = finite_number(flag, v, "is not a finite number >= 0");
    if (x < 0.0) bad_value(flag, v, "is not a finite number >= 0");
    return x;
}

double positive_number(std::string_view flag, std::string_view v) {
    const double x = finite_number(flag, v, "is not a finite number > 0");
    if (!(x > 0.0)) bad_value(flag, v, "is not a finite number > 0");
    return x;
}

ShardSpec parse_shard(std::string_view flag, std::string_view v) {
    const std::size_t slash = v.find('/');
    const auto i = slash == std::string_view::npos ? std::nullopt : to_uint(v.substr(0, slash));
    const auto n = slash == std::string_view::npos ? std::nullopt : to_uint(v.substr(slash + 1));
    if (!i || !n || *i < 1 || *i > *n || *n > max_shard_count)
        bad_value(flag, v, "is not a shard I/N with 1 <= I <= N <= 100000 (e.g. 2/4: the second of 4 slices)");
    return {static_cast<std::size_t>(*i), static_cast<std::size_t>(*n)};
}

std::string out_directory(std::string_view flag, std::string_view v) {
    if (v.empty()) bad_value(flag, v, "is empty; give a directory");
    return std::string(v);
}

bool learning_flag_argument(FlagArgument& a, Settings& s) {
    const std::string_view flag = a.flag;
    if (flag == "--learned") {
        const std::string_view v = a.value();
        s.learned = iequals(v, "none") ? std::vector<Objective>{}
                                       : detail::parse_list<Objective>(flag, v, "mse, moe, mbe, reg-mbe (or none)",
                                                                       parse_objective);
    } else if (const LearningCount* c = learning_flag(flag); c != nullptr) {
        s.learning.*c->field = c->least > 0 ? detail::positive_count(flag, a.value()) : detail::count(flag, a.value());
    } else if (flag == "--learners") {
        const std::string_view v = a.value();
        s.learning.learners.clear();
        std::size_t start = 0;
        for (;;) {
            const std::size_t comma = v.find(',', start);
            const std::string_view name = v.substr(start, comma == std::string_view::npos ? v.size() - start : comma - start);
            if (find_learner(name) == nullptr)
                detail::bad_value(flag, v, cat("contains '", name, "', not one of ", learner_names()));
            s.learning.learners.emplace_back(name);
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
    } else if (flag == "--learned-prior") {
        a.no_value();
        s.learning.learned_prior = true;
    } else if (flag == "--uniform-prior") {
        a.no_value();
        s.learning.learned_prior = false;
    } else if (flag == "--smoothing") {
        s.learning.smoothing = detail::smoothing_value(flag, a.value());
    } else {
        return false;
    }
    return true;
}

std::vector<std::string> learning_flags_given(const SeenFlags& seen) {
    std::vector<std::string> out;
    for (const auto& [f, v] : seen)
        if (f == "--learners" || f == "--smoothing" || learning_flag(f) != nullptr) out.push_back(f);
    return out;
}

}  // namespace detail
}  // namespace maxent::programs

namespace maxent::programs {

Options parse_command_line(const std::vector<std::string>& args) {
    Options o;
    o.settings.heatmap_episodes = default_heatmap_episodes;
    detail::SeenFlags seen;
    for (std::size_t i = 0; i < args.size(); ++i) {
        std::string_view arg = args[i];
        if (arg.size() < 2 || arg.substr(0, 2) != "--") {
            if (arg == "-h") {
                o.help = true;
                continue;
            }
            if (!arg.empty() && arg[0] == '-') throw usage_error(cat("unknown option '", arg, "'"));
            if (expand_experiment_name(arg).empty())
                throw usage_error(cat("unknown experiment '", arg, "' (see --list)"));
            o.experiments.emplace_back(arg);
            continue;
        }
        detail::FlagArgument a(args, i, &seen);
        if (detail::shared_flag(a, o)) continue;
        const std::string_view flag = a.flag;
        Settings& s = o.settings;
        if (flag == "--list") {
            a.no_value();
            o.list = true;
        } else if (flag == "--noise") {
            const std::string_view v_noise = a.value();
            s.noises = detail::parse_list<double>(flag, v_noise, "standard deviations in [0, 1] (e.g. 0,0.01,0.03)",
                                                  [&](std::string_view p) -> std::optional<double> {
                                                      const auto x = detail::to_double(p);
                                                      if (!x) {
                                                          const std::string range = detail::range_problem(p);
                                                          if (!range.empty())
                                                              detail::bad_value(flag, v_noise, cat("contains '", p, "', which ", range));
                                                          return std::nullopt;
                                                      }
                                                      if (*x < 0.0 || *x > 1.0) return std::nullopt;
                                                      return x;
                                                  });
        } else if (flag == "--heatmap-scale") {
            const std::string_view v = a.value();
            if (iequals(v, "shared"))
                o.heatmap_own_scales = false;
            else if (iequals(v, "panel"))
                o.heatmap_own_scales = true;
            else
                detail::bad_value(flag, v, "is not one of shared, panel");
        } else if (detail::learning_flag_argument(a, s)) {
        } else if (flag == "--heatmap-episodes") {
            s.heatmap_episodes = detail::count(flag, a.value());
        } else {
            throw usage_error(cat("unknown option '", flag, "'"));
        }
    }
    o.learning_flags = detail::learning_flags_given(seen);
    return o;
}

std::string list_text() {
    std::string out =
        "Experiments (run one or more by name; 'fig2', 'fig3', 'fig4', 'fig5', 'all' or 'nosim' run a group):\n";
    for (const Experiment& e : experiments()) {
        std::string curves;
        const std::vector<Curve> cs = make_curves(e, Settings{});
        for (std::size_t i = 0; i < cs.size() && i < 4; ++i) curves += (i ? " " : "") + cs[i].label;
        if (cs.size() > 4) curves += cat(" ... (", std::to_string(cs.size()), " curves)");
        out += cat("  ", e.name, "  ", e.what, "\n         curves: ", curves, "\n");
    }
    out +=
        "fig5a/fig5b compare BA with the belief-state class B (lazy table, one row per distinct belief).\n"
        "fig2f/fig2h plot the regulariser of the runs of fig2e/fig2g (run together, the runs are shared).\n";
    return out;
}

std::string learned_flags_help() {
    const LearnedBeliefDefaults& d = learned_belief_defaults;
    auto n = [](std::size_t x) { return std::to_string(x); };
    return cat("  --warmup E           uniform-action episodes before the first fit (default ", n(d.warmup), ")\n",
               "  --refit-every M      iterations between warm-started refits (default ", n(d.refit_every),
               "; 0 = never)\n",
               "  --refit-iterations I EM steps per refit (default ", n(d.refit_iterations), ")\n",
               "  --window W           latest training episodes fitted at a refit, with the warm-up (default ",
               n(d.window), ")\n",
               "  --restarts R         random restarts of the first fit (default ", n(d.restarts), ")\n",
               "  --em-iterations I    EM steps of the first fit at most (default ", n(d.em_iterations), ")\n",
               "  --smoothing A        Dirichlet (add-A) smoothing of every fitted distribution (default ",
               format_number(d.smoothing), ")\n",
               "  --select-max-states B  the -select learners' largest L or clone total (doubling from 1 or O;\n"
               "                       default ", n(selection_defaults.max_latent_states), ")\n",
               d.learned_prior
                   ? "  --uniform-prior      start each episode's belief uniform (the paper's b_1) instead of at the\n"
                     "                       learned initial distribution (the default, also --learned-prior)\n"
                   : "  --learned-prior      start each episode's belief at the learned initial distribution\n"
                     "                       instead of uniform (the paper's b_1, the default, also --uniform-prior)\n");
}

std::string help_text() {
    return std::string(
        "Usage: maxent-paper [EXPERIMENT...] [OPTIONS]\n"
        "\n"
        "Reproduces the experiments of Zamboni et al., \"How to Explore with Belief: State Entropy\n"
        "Maximization in POMDPs\" (ICML 2024): Algorithm 1 on the paper's grid worlds, every curve\n"
        "over every seed, written to OUT/<experiment>/: runs.csv (every iteration of every run),\n"
        "summary.csv (per iteration, mean and 95% Student-t bounds across seeds, n - 1 degrees of\n"
        "freedom; with a single seed the bounds equal the mean), uniform.csv (the uniformly random\n"
        "policy's true-state entropy per seed, 1000 episodes each, drawn as a line), config.json,\n"
        "curves.gp and curves.png (drawn by gnuplot if installed: apt-get install gnuplot-nox),\n"
        "and heatmaps of where the final policies take the true state: heatmap.csv (objective,x,y,\n"
        "fraction: per panel, 'uniform' then every curve, and grid cell, x the column and y the row,\n"
        "y = 0 the top row; the fraction of the counted steps spent in the cell, over E episodes of\n"
        "the final policy of every seed: the mean over seeds and episodes of the fraction of an\n"
        "episode's counted steps, the T steps MSE counts, summing to 1 per panel), heatmap.gp and\n"
        "heatmap.png (one panel per curve, walls in black).\n"
        "\n"
        "With no arguments: runs fig2a at the paper's full settings (16 seeds 0..15, K = 12000,\n"
        "N = 10, alpha = 0.3: 64 runs, 768000 iterations, 45 to 90 s of CPU time depending on the\n"
        "machine, so under a minute on 2 idle cores) and prints where the PNG is. Four-rooms panels\n"
        "take 1.5 to 2.3 times as long.\n"
        "\n"
        "Experiments: fig2a..fig2h, fig3a..fig3d, fig4a..fig4f, fig5a, fig5b; groups fig2, fig3,\n"
        "fig4, fig5, all. Beyond the paper: room80, rooms200 (a 200x200 map: try --seeds 0-3\n"
        "--iterations 1500 --step adam); nosim2b, nosim2c, nosim2d, nosim2g (group nosim: Section 5 without a\n"
        "simulator, beliefs from a model learned by EM). See --list.\n"
        "\n"
        "Options (defaults are the paper's settings):\n"
        "  --seeds LIST         seeds, a list 0,3,5 or a range 0-15 or both (default 0-15)\n"
        "  --iterations K       iterations of Algorithm 1 (default 12000)\n"
        "  --batch N            trajectories per iteration (default 10)\n"
        "  --objectives LIST    any of mse,moe,mbe,reg-mbe, or none (only --learned curves) (default:\n"
        "                       the figure's)\n"
        "  --rho X              Reg-MBE regularisation weight (default 0.02)\n"
        "  --noise LIST         belief noise: STANDARD DEVIATIONS sigma of the Gaussian noise added to\n"
        "                       every belief entry after each update (default 0; fig3: 0,0.01,0.03,0.04 —\n"
        "                       the paper calls these values a variance s^2, the authors' code uses them\n"
        "                       as sigma, and so does maxent-paper). More than one value: one curve each.\n"
        "  --policies LIST      policy classes O, BA, S (believed state S~), BM (BA mixture form),\n"
        "                       B (belief-state table: one row per distinct belief)\n"
        "                       (default BA; fig4: O,BA,S; fig5: BA,B); --policy is the same flag\n"
        "  --estimator E        reinforce, batch-mean (default), leave-one-out, optimal, per-step\n"
        "                       (per-step baseline: records N x K step scores; not with class B)\n"
        "  --step S             constant (default), adam, or lazy-adam (Adam on the rows with a\n"
        "                       gradient only: a skipped row does not move)\n"
        "  --alpha X            step size (default 0.3 for constant, 0.05 for adam and lazy-adam)\n"
        "  --counting C         which steps each feedback counts (T = horizon):\n"
        "                         quantity              paper (default,     authors (T actions,\n"
        "                                               T - 1 actions)      the authors' code)\n"
        "                         true states (MSE)     s_1 .. s_T          s_2 .. s_{T+1}\n"
        "                         observations (MOE)    o_1 .. o_T          o_1 .. o_T\n"
        "                         believed states (MBE) s~_1 .. s~_T        s~_1 .. s~_T\n"
        "                         H(b_t) (Reg-MBE)      H(b_1) .. H(b_T)    H(b_1) .. H(b_T)\n"
        "  Without a simulator (nosim* experiments; curves 'learned-mbe', 'learned-reg-mbe'):\n"
        "  --learned LIST       objectives trained with a learned belief model, or none (default: the\n"
        "                       experiment's; nosim*: mbe,reg-mbe)\n"
        "  --learners LIST      how the learned curves learn their model, one curve each (default em;\n"
        "                       labels 'learned-reg-mbe+<learner>' for the others, '+<learner>(oracle)'\n"
        "                       for the oracles). From the agent's logs only: em (an IOHMM),\n"
        "                       em-sparse (EM, sparse Dirichlet(0.1) transition prior), cloned-hmm\n"
        "                       (clones of observations); all given L = S unless --latent-states;\n"
        "                       em-select, em-spectral-select (its EM from the data's moments) and\n"
        "                       cloned-hmm-select choose L (or the clone total and allocation) and\n"
        "                       the prior themselves by held-out likelihood on a fifth of the warm-up\n"
        "                       episodes (given nothing; --latent-states does not apply to them).\n"
        "                       Oracles, given parts of the true model: em-known-motion (oracle:\n"
        "                       given the world's transitions, L = S and the state identities),\n"
        "                       em-known-sensor (oracle: given the world's emissions, L = S)\n"
        "  --latent-states L    latent states of the learned model of em, em-sparse and cloned-hmm (L\n"
        "                       clones; default: the world's S); the oracles have L = S, the -select\n"
        "                       learners choose L per run (at most --select-max-states)\n"
        ) + learned_flags_help() + std::string(
        "  --heatmap-episodes E episodes of each run's final policy (with its belief model: the\n"
        "                       learned one for learned curves) whose true states are counted for the\n"
        "                       heatmaps, after training, on streams of their own (default 100;\n"
        "                       0 = no heatmaps; the other files do not depend on it)\n"
        "  --heatmap-scale S    shared (default: one colour scale for all panels) or panel (each\n"
        "                       panel from 0 to its own largest fraction: learned policies' panels\n"
        "                       stay visible next to a peaked one); the files' numbers are the same\n"
        "  --threads T          worker threads (default 0 = the CPUs this process may use: its affinity\n"
        "                       mask, in a Slurm job its --cpus-per-task); results do not depend on it\n"
        "  --out DIR            output directory (default out), created if missing and checked before\n"
        "                       any work; each OUT/<experiment>/ is replaced as a whole set\n"
        "  --progress           show progress on stderr even when it is not a terminal\n"
        "  --quiet              no progress line\n"
        "  --no-plot            write curves.gp but do not run gnuplot\n"
        "  --smooth W           plot each curve (mean and band) as a centred moving average over W\n"
        "                       iterations (default 1: no smoothing; the CSV files are never smoothed)\n"
        "  --shard I/N          run only the I-th of N slices of the study's runs (curve, seed),\n"
        "                       assigned deterministically and balanced by cost, into\n"
        "                       OUT/<experiment>.shard-I-of-N/ (runs.csv, config.json, visits.csv);\n"
        "                       put the shards together with: maxent-paper merge SHARD_DIR... --out OUT\n"
        "  --list               list the experiments and exit\n"
        "  --version            print the maxent version and exit\n"
        "  --help               this text\n"
        "\n"
        "Merge: maxent-paper merge SHARD_DIR... [--out DIR] [--no-plot] reads the shard folders of\n"
        "one or more experiments and writes DIR/<experiment>/ (runs.csv, summary.csv, config.json,\n"
        "curves.png, the heatmaps), byte for byte what one process would have written. It refuses\n"
        "shards whose settings or builds differ, that hold a run twice, that leave runs missing, or\n"
        "that lack the visit counts (visits.csv) their study's heatmaps need.\n"
        "\n"
        "Resume: every finished run is also kept in OUT/.<folder>.runs/ until the folder is written\n"
        "complete; run the same command again after an interruption or a failure and only the\n"
        "missing runs are trained (a kept run is reused only by the same settings and build).\n"
        "\n"
        "Curves are labelled by objective, plus '/CLASS' when policy classes are compared (fig4:\n"
        "mse/BA) and '@SIGMA' when noise levels are (fig3: mbe@0.01). Ctrl-C or SIGTERM stops early\n"
        "and keeps the runs (curve, seed) that finished; a second one aborts. Exit status: 0 done,\n"
        "1 error (also: gnuplot failed; the CSV files are written), 2 bad command line or --out (also:\n"
        "a learned model or training data larger than this machine's memory, an --out folder another\n"
        "run is writing), 130 interrupted by Ctrl-C, 143 by SIGTERM.\n");
}

}  // namespace maxent::programs
namespace maxent::programs {
namespace detail {

FlagArgument::FlagArgument(const std::vector<std::string>& args, std::size_t& i, SeenFlags* seen)
    : args_(args), i_(i), seen_(seen), flag(args[i]) {
    if (const std::size_t eq = flag.find('='); eq != std::string_view::npos) {
        inline_value_ = flag.substr(eq + 1);
        flag = flag.substr(0, eq);
    }
}

std::string_view FlagArgument::value() {
    std::string_view v;
    if (inline_value_) {
        v = *inline_value_;
    } else {
        if (i_ + 1 >= args_.size()) throw usage_error(cat(flag, ": missing value"));
        v = args_[++i_];
    }
    if (seen_ != nullptr) {
        const std::string_view name = flag == "--policy" ? std::string_view("--policies") : flag;
        for (const auto& [f, earlier] : *seen_)
            if (f == name)
                throw usage_error(cat(flag, ": given twice ('", earlier, "', then '", v,
                                      "'); give it once, with the value you mean"));
        seen_->emplace_back(std::string(name), std::string(v));
    }
    return v;
}

}  // namespace detail
}  // namespace maxent::programs
