// examples/explore/cli.hpp — the command line of maxent-explore: a model file in the
// pomdp-solve text format and the settings of Algorithm 1 (paper, Section 4 and Algorithm 1;
// the defaults follow Section 6 except K, T and the seeds, chosen so that the curves settle
// and the classic models run in seconds).
//
//     maxent-explore MODEL [--objectives mse,mbe] [--policies BA] [--iterations 300] [--batch 10]
//                          [--seeds 0-7] [--horizon T] [--rho 0.02] [--alpha 0.3] [--step constant]
//                          [--estimator batch-mean] [--counting paper] [--empty-rows error]
//                          [--uniform-trajectories N] [--threads N] [--max-work 2e11] [--out out]
//                          [--progress|--quiet]
//                          [--no-plot] [--smooth W] [--shard I/N] [--help] [--version]
//     maxent-explore merge SHARD_DIR... [--out out] [--no-plot]     (runtime/shards.hpp)
// Flags take their value as the next argument or after '=' (--seeds=0-3). The value parsers
// (seed lists, counts, numbers, the names of objectives, classes, estimators, step rules and
// counting conventions) are maxent-paper's (runtime/cli.hpp, runtime/choices.hpp). A bad
// flag or value throws programs::usage_error naming the flag and the value; main() prints it
// and exits with status 2.
#pragma once

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <vector>

#include "maxent/belief/learned/defaults.hpp"
#include "maxent/model/pomdp_file.hpp"

#include "runtime/choices.hpp"
#include "runtime/cli.hpp"
#include "runtime/settings.hpp"
#include "runtime/text.hpp"

namespace maxent::explore {

using programs::usage_error;

/// Defaults (stated in --help). K = 1000: on tiger (T = 10), 4x3 and cheese the learned
/// value at K = 1000 is within 0.03 nats of K = 3000's (at K = 300 it was up to 0.11 below),
/// and hallway still takes seconds on two cores (docs/performance.md, "maxent-explore").
inline constexpr std::size_t default_iterations = 1000;
/// Without --horizon, T = max(S, min_default_horizon) (explore.hpp default_horizon).
inline constexpr std::size_t min_default_horizon = 10;
inline constexpr std::uint64_t default_seed_count = 8;
/// The largest estimated work (belief-entry updates, explore.hpp estimate_work) run without
/// --max-work: about half an hour of CPU time; maxent-explore refuses more (exit 2).
inline constexpr double default_max_work = 2e11;

struct Options {
    std::string model;  ///< the model file (positional)
    programs::Settings settings = [] {
        programs::Settings s;
        s.iterations = default_iterations;
        s.seeds.clear();
        for (std::uint64_t i = 0; i < default_seed_count; ++i) s.seeds.push_back(i);
        s.objectives = std::vector<programs::Objective>{programs::Objective::mse, programs::Objective::mbe};
        s.policies = std::vector<programs::PolicyClass>{programs::PolicyClass::belief_averaged};
        return s;
    }();
    std::size_t horizon = 0;  ///< T; 0 = max(S, min_default_horizon)
    EmptyRows empty_rows = EmptyRows::error;
    std::optional<std::size_t> uniform_trajectories;  ///< per seed; default: final window x batch
    std::size_t threads = 0;                          ///< 0 = all hardware threads
    double max_work = default_max_work;               ///< --max-work
    std::string out = "out";
    enum class ProgressMode { automatic, force, quiet } progress = ProgressMode::automatic;
    bool plot = true;
    std::size_t smooth = 1;  ///< --smooth W (maxent-paper's flag)
    programs::ShardSpec shard;
    bool help = false;
    bool version = false;
};

/// The iterations whose batch means make the learned policy's final value: the last
/// max(1, ceil(K / 10)).
[[nodiscard]] inline std::size_t final_window(std::size_t iterations) {
    return iterations < 10 ? 1 : (iterations + 9) / 10;
}

/// Parses the arguments after the program name. Throws usage_error naming the flag and value.
/// `check_model`: whether the model file must exist (a merge rebuilds a shard's settings from
/// its arguments without reading the model).
[[nodiscard]] inline Options parse_command_line(const std::vector<std::string>& args, bool check_model = true) {
    namespace pd = programs::detail;
    using programs::cat;
    Options o;
    bool have_model = false;
    pd::SeenFlags seen;
    for (std::size_t i = 0; i < args.size(); ++i) {
        const std::string_view arg = args[i];
        if (arg == "-h") {
            o.help = true;
            continue;
        }
        if (arg.size() < 2 || arg.substr(0, 2) != "--") {
            if (!arg.empty() && arg[0] == '-' && arg != "-") throw usage_error(cat("unknown option '", arg, "'"));
            if (have_model)
                throw usage_error(cat("more than one model file: '", o.model, "' and '", arg, "' (give one)"));
            if (arg.empty()) throw usage_error("the model file name is empty");
            o.model = std::string(arg);
            have_model = true;
            continue;
        }
        pd::FlagArgument a(args, i, &seen);
        if (pd::shared_flag(a, o)) continue;
        const std::string_view flag = a.flag;
        if (flag == "--horizon") {
            o.horizon = pd::positive_count(flag, a.value());
        } else if (flag == "--max-work") {
            o.max_work = pd::positive_number(flag, a.value());
        } else if (flag == "--uniform-trajectories") {
            o.uniform_trajectories = pd::positive_count(flag, a.value());
        } else if (pd::learning_flag_argument(a, o.settings)) {
        } else if (flag == "--empty-rows") {
            const std::string_view v = a.value();
            if (programs::iequals(v, "error"))
                o.empty_rows = EmptyRows::error;
            else if (programs::iequals(v, "self-loop") || programs::iequals(v, "self_loop"))
                o.empty_rows = EmptyRows::self_loop;
            else
                pd::bad_value(flag, v, "is not one of error, self-loop");
        } else {
            throw usage_error(cat("unknown option '", flag, "'"));
        }
    }
    if (o.help || o.version) return o;
    if (const std::vector<std::string> given = pd::learning_flags_given(seen);
        !given.empty() && (!o.settings.learned || o.settings.learned->empty()))
        throw usage_error(cat(given.front(), ": only learned-belief curves read it, and ",
                              have_model ? cat("'", o.model, "'") : std::string("this study"),
                              " has none (give --learned LIST, e.g. --learned mbe), so it would be ignored"));
    if (!have_model) throw usage_error("no model file given (e.g. maxent-explore tests/data/classic/tiger.95.POMDP)");
    std::error_code ec;
    if (check_model && !std::filesystem::is_regular_file(o.model, ec))
        throw usage_error(cat("model file '", o.model, "' does not exist or is not a regular file"));
    return o;
}

/// The --help text.
[[nodiscard]] inline std::string help_text() {
    return std::string(
        "Usage: maxent-explore MODEL [OPTIONS]\n"
        "\n"
        "Reads a POMDP model file in the pomdp-solve text format (tiger, 4x3, hallway, ...) and\n"
        "trains a state-entropy exploration policy on it with Algorithm 1 of Zamboni et al.,\n"
        "\"How to Explore with Belief\" (ICML 2024): policy gradient on the entropy of the\n"
        "true states visited in an episode of T steps (rewards and discount are ignored). Prints,\n"
        "per objective, the learned policy's true-state entropy next to that of the uniformly\n"
        "random policy, each as a mean and 95% Student-t interval over the seeds, and the best\n"
        "achievable value: for models small enough to enumerate, the exact optimum of a policy\n"
        "that SEES the true state (dynamic programming over state and counts; no POMDP policy\n"
        "can do better), else the even split of T states over S, log min(S, T) or just below.\n"
        "The percentages are of that best value. Writes OUT/<model name>/: runs.csv, summary.csv,\n"
        "config.json, curves.gp and curves.png (drawn by gnuplot if installed: apt-get install\n"
        "gnuplot-nox), as maxent-paper does.\n"
        "\n"
        "Learned value: per seed, the mean of the batch means of the last ceil(K / 10) iterations\n"
        "(the last iteration when K < 10). Uniform value: per seed, the mean over\n"
        "--uniform-trajectories episodes (default: as many as the learned value averages, i.e.\n"
        "ceil(K / 10) x N) of the uniformly random policy (what every class is at theta = 0),\n"
        "on streams independent of the training's. The initial belief of the curves with the\n"
        "model file's beliefs is uniform (paper); for the learned-belief curves see --learned.\n"
        "\n"
        "Defaults: K = 1000 iterations, N = 10, T = max(S, 10), seeds 0-7, objectives mse,mbe,\n"
        "class BA, alpha = 0.3 (16 runs). T = S lets every state be visited once (the paper's\n"
        "choice); below S = 10 it is raised to 10, so that tiger (S = 2) gets 9 actions, not 1.\n"
        "K = 1000 lets the curves settle: on tiger, 4x3 and cheese the learned value is within\n"
        "0.03 nats of K = 3000's (K = 300 fell up to 0.11 short); check curves.png, and raise K\n"
        "if the last tenth still rises. Tiger, 4x3, cheese and the other small files take about\n"
        "a second; hallway (S = T = 60) about 10 s of CPU time (9.2 to 12.5 s measured on a busy\n"
        "2-core machine); the 16 runs are split across --threads, so 2 idle cores should take\n"
        "about half that in wall time.\n"
        "\n"
        "Options:\n"
        "  --objectives LIST        any of mse, moe, mbe, reg-mbe (default mse,mbe); one curve each;\n"
        "                           none: only the --learned curves (a learned-belief study)\n"
        "  --learned LIST           objectives also trained with a belief model learned from the agent's\n"
        "                           own actions and observations (the world's model unused by the agent\n"
        "                           but for the parts an oracle learner is given; curves\n"
        "                           'learned-<objective>[+<learner>[(oracle)]]'; default none). Their\n") +
        (learned_belief_defaults.learned_prior
             ? "                           filter starts each episode at the learned initial distribution\n"
               "                           (--uniform-prior: uniform). With K <= --refit-every (the default\n"
             : "                           filter starts each episode uniform (--learned-prior: at the\n"
               "                           learned initial distribution). With K <= --refit-every (the default\n") +
        std::string(
        "                           K = 1000 < 2000) no refit happens: the model stays the warm-up\n"
        "                           fit (a note says so); give --refit-every below K to refit\n"
        "  --learners LIST          from the agent's logs only: em (default), em-sparse, cloned-hmm\n"
        "                           (all given L = S unless --latent-states), em-select,\n"
        "                           em-spectral-select, cloned-hmm-select (choose L or the clones\n"
        "                           and the prior by held-out likelihood, given nothing); oracles, given parts of\n"
        "                           the true model: em-known-motion (oracle: given the world's\n"
        "                           transitions, L = S and the state identities), em-known-sensor\n"
        "                           (oracle: given the world's emissions, L = S); one learned curve\n"
        "                           each, labelled '+<learner>', '+<learner>(oracle)' for oracles\n"
        "                           (maxent-paper --help); config.json lists what each was given\n"
        "  --latent-states L, --warmup E, --refit-every M, --refit-iterations I, --window W,\n"
        "  --restarts R, --em-iterations I, --smoothing A, --select-max-states B, --uniform-prior,\n"
        "  --learned-prior\n"
        "                           maxent-paper's learned-belief settings, the same defaults\n"
        "                           (maxent-paper --help); learning.csv and learned/ are written\n"
        "  --policies LIST          policy classes: O (observation), BA (belief-averaged, default),\n"
        "                           S (believed state S~), BM (BA mixture form), B (belief-state\n"
        "                           table, one row per distinct belief); several: one curve each.\n"
        "                           --policy is the same flag\n"
        "  --iterations K           iterations of Algorithm 1 (default 1000)\n"
        "  --batch N                trajectories per iteration (default 10)\n"
        "  --seeds LIST             seeds, a list 0,3,5 or a range 0-15 or both (default 0-7)\n"
        "  --horizon T              steps per episode (default T = max(S, 10), S the number of states; give a\n"
        "                           smaller T for large models, see --max-work)\n"
        "  --rho X                  Reg-MBE regularisation weight (default 0.02)\n"
        "  --alpha X                step size (default 0.3 for constant, 0.05 for adam, lazy-adam)\n"
        "  --step S                 constant (default), adam or lazy-adam (Adam on the rows with a\n"
        "                           gradient only)\n"
        "  --estimator E            reinforce, batch-mean (default), leave-one-out, optimal, per-step\n"
        "                           (per-step baseline: records N x K step scores; not with class B)\n"
        "  --counting C             paper (default: T - 1 actions, s_1..s_T, o_1..o_T, b_1..b_T counted)\n"
        "                           or authors (T actions: s_2..s_{T+1}, but o_1..o_T, b_1..b_T);\n"
        "                           the table is in maxent-paper --help\n"
        "  --empty-rows E           error (default) or self-loop: what to do with a state that has no\n"
        "                           T: entries for an action (self-loop makes it absorbing; mini-hall2\n"
        "                           needs it)\n"
        "  --uniform-trajectories N episodes per seed for the uniform baseline (default ceil(K/10) x N)\n"
        "  --threads T              worker threads (default 0 = the CPUs this process may use: its\n"
        "                           affinity mask, in a Slurm job its --cpus-per-task); results do not\n"
        "                           depend on it\n"
        "  --max-work W             refuse (exit 2) a run estimated above W belief-entry updates\n"
        "                           (default 2e11, about half an hour of CPU time): the estimate is\n"
        "                           S x T x curves x seeds x K x N (a dense belief of S entries\n"
        "                           updated at every training step) + T x seeds x uniform trajectories.\n"
        "                           A model of 2e5 states at the default T = S needs ~6e15: give a\n"
        "                           smaller --horizon.\n"
        "  --out DIR                output directory (default out), created if missing and checked\n"
        "                           before any work; files go to DIR/<model name>/, which is replaced\n"
        "                           as a whole set. <model name> is the file name without its last\n"
        "                           extension, with leading dots removed and '/', '\\' and control\n"
        "                           characters replaced by '_' (\"model\" if nothing is left)\n"
        "  --progress               show progress on stderr even when it is not a terminal\n"
        "  --quiet                  no progress line\n"
        "  --no-plot                write curves.gp but do not run gnuplot\n"
        "  --smooth W               plot each curve (mean and band) as a centred moving average over\n"
        "                           W iterations (default 1: none; the CSV files are never smoothed)\n"
        "  --shard I/N              run only the I-th of N slices of the runs (curve, seed), assigned\n"
        "                           deterministically and balanced by cost, into\n"
        "                           OUT/<model name>.shard-I-of-N/ (runs.csv, config.json); put them\n"
        "                           together with: maxent-explore merge SHARD_DIR... --out OUT\n"
        "  --version                print the maxent version and exit\n"
        "  --help                   this text\n"
        "\n"
        "Merge: maxent-explore merge SHARD_DIR... [--out DIR] [--no-plot] writes DIR/<model name>/\n"
        "from the shard folders, byte for byte what one process would have written; it refuses\n"
        "shards whose settings or builds differ, that hold a run twice, or that leave runs missing.\n"
        "Resume: finished runs are kept in OUT/.<folder>.runs/ until the folder is written complete;\n"
        "the same command run again trains only the missing runs.\n"
        "\n"
        "Ctrl-C or SIGTERM stops early and keeps the runs that finished (no uniform baseline then);\n"
        "a second one aborts. Exit status: 0 done, 1 error (e.g. a syntax error in the model file,\n"
        "or gnuplot failed; the CSV files are written), 2 bad command line, --out or too much work\n"
        "(--max-work), 130 interrupted by Ctrl-C, 143 by SIGTERM.\n");
}

}  // namespace maxent::explore
