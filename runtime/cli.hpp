// runtime/cli.hpp — the command line of maxent-paper: experiment names and flags
// that override the paper's settings (Section 6 / Appendix D; docs/reference.md "Algorithm 1 as
// run for the figures").
//
//     maxent-paper [EXPERIMENT...] [--seeds 0-15] [--iterations 12000] [--batch 10]
//                  [--objectives mse,moe,mbe,reg-mbe] [--rho 0.02] [--noise 0,0.01]
//                  [--policies O,BA,S,BM,B] [--estimator batch-mean] [--step constant] [--alpha 0.3]
//                  [--counting paper] [--learned mbe,reg-mbe] [--latent-states L] [--warmup E]
//                  [--refit-every M] [--refit-iterations I] [--window W] [--smoothing A]
//                  [--learners em,cloned-hmm] [--restarts R] [--em-iterations I] [--uniform-prior|--learned-prior]
//                  [--heatmap-episodes 100] [--heatmap-scale shared]
//                  [--threads N] [--out out] [--progress|--quiet]
//                  [--no-plot] [--smooth W] [--shard I/N] [--list] [--help] [--version]
//     maxent-paper merge SHARD_DIR... [--out out] [--no-plot]      (shards.hpp)
// Flags take their value as the next argument or after '=' (--seeds=0-3), once each (a flag
// given twice is refused, naming it: the last value never wins silently). A bad flag or
// value throws usage_error naming the flag and the value; main() prints it and exits with
// status 2.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_set>
#include <utility>
#include <vector>



#include "choices.hpp"
#include "experiments.hpp"
#include "settings.hpp"
#include "text.hpp"

namespace maxent::programs {

/// A bad command line; main() prints the message and exits with status 2.
class usage_error : public std::runtime_error {
public:
    using std::runtime_error::runtime_error;
};

/// Says a bad command line of `program` on stderr ("<program>: <why>" and a pointer to
/// --help); returns its exit status, 2.
int usage_failure(std::string_view program, std::string_view why);

/// Parses a program's command line, `options = parse()`, and answers what needs no work.
/// Returns the exit status when the program is done: 2 after a usage_error (usage_failure),
/// 0 after printing `help()` for --help, or "<program> (maxent <version>)" for --version
/// (options that have one); std::nullopt when the program goes on.
template <class O, class Parse, class Help>
[[nodiscard]] std::optional<int> parse_or_exit(std::string_view program, std::string_view version, O& options,
                                               Parse&& parse, Help&& help) {
    try {
        options = parse();
    } catch (const usage_error& e) {
        return usage_failure(program, e.what());
    }
    if (options.help) {
        std::fputs(help().c_str(), stdout);
        return 0;
    }
    if constexpr (requires { options.version; }) {
        if (options.version) {
            std::printf("%s (maxent %s)\n", std::string(program).c_str(), std::string(version).c_str());
            return 0;
        }
    }
    return std::nullopt;
}

/// The experiment run with no arguments, and its seeds (see help_text()).
inline constexpr std::string_view default_experiment = "fig2a";

/// Episodes of each run's final policy counted for the heatmaps unless --heatmap-episodes
/// says otherwise (0 turns them off): 100 episodes of T steps spread each seed's map over
/// 100 T counted steps, a small cost next to the K N episodes of training.
inline constexpr std::size_t default_heatmap_episodes = 100;

/// The largest values the shared parsers accept: counts (--iterations, --warmup ...), worker
/// threads, shards N, seeds in one list.
inline constexpr std::uint64_t max_count_value = 100'000'000;
inline constexpr std::size_t max_threads = 1024;
inline constexpr std::size_t max_shard_count = 100000;

/// --shard I/N: this process runs the I-th of N slices of the study (shards.hpp).
struct ShardSpec {
    std::size_t index = 0;  ///< I, 1-based
    std::size_t count = 0;  ///< N; 0 = not sharded
    [[nodiscard]] bool active() const noexcept { return count > 0; }
};

struct Options {
    std::vector<std::string> experiments;  ///< names as given (single experiments, "fig2", "all")
    Settings settings;
    std::size_t threads = 0;  ///< 0 = all hardware threads
    std::string out = "out";
    enum class ProgressMode { automatic, force, quiet } progress = ProgressMode::automatic;
    bool plot = true;
    std::size_t smooth = 1;  ///< --smooth W: plotted curves are moving averages over W iterations (1: off)
    bool heatmap_own_scales = false;  ///< --heatmap-scale panel: each heatmap panel on its own colour scale
    ShardSpec shard;
    /// The learned-belief flags given (--learners, --warmup, ...): refused for experiments
    /// without learned-belief curves, which would ignore them (paper/main.cpp).
    std::vector<std::string> learning_flags;
    bool list = false;
    bool help = false;
    bool version = false;
};

namespace detail {

[[noreturn]] inline void bad_value(std::string_view flag, std::string_view value, std::string_view why) {
    throw usage_error(cat(flag, ": '", value, "' ", why));
}

std::vector<std::string_view> split_commas(std::string_view s);

/// Digits only (no sign, no space) that fit 64 bits; anything else is std::nullopt.
std::optional<std::uint64_t> to_uint(std::string_view s);

/// Whether `s` is digits only but too many for 64 bits (to_uint refuses it as overflowing,
/// never wrapping or saturating it).
inline bool overflows_uint(std::string_view s) {
    return !s.empty() && s.find_first_not_of("0123456789") == std::string_view::npos && !to_uint(s);
}

/// An integer in [least, most], or a usage_error naming the flag and the value: `what` (e.g.
/// "a positive integer") for what is no such integer (a sign, a space, a fraction), "is too
/// large" for one above `most`, also one that does not fit 64 bits.
std::uint64_t uint_in(std::string_view flag, std::string_view v, std::uint64_t least, std::uint64_t most,
                             std::string_view what);

std::optional<double> to_double(std::string_view s);

/// Why a well-formed number `s` is no double: "" when it is one (or is not a number at all),
/// else whether it underflows (nonzero but smaller in magnitude than the smallest denormal,
/// about 4.9e-324, so it would silently read as 0; denormals themselves are accepted) or
/// overflows (larger in magnitude than about 1.8e308). from_chars reports both as
/// result_out_of_range; strtod's result (0 or tiny, versus HUGE_VAL) tells them apart.
std::string range_problem(std::string_view s);

/// A finite double, or a usage_error naming the flag and the value: `why` (e.g. "is not a
/// finite number >= 0") for what is no number, the underflow / overflow for what is one
/// but does not fit a double (range_problem).
double finite_number(std::string_view flag, std::string_view v, std::string_view why);

inline std::size_t positive_count(std::string_view flag, std::string_view v) {
    return static_cast<std::size_t>(uint_in(flag, v, 1, max_count_value, "a positive integer"));
}
/// This machine's physical memory in bytes (0 when the system does not say).
[[nodiscard]] double physical_memory_bytes();

/// Refuses, naming `flags` (the flags and values responsible, e.g. "--latent-states 30000"),
/// a setting whose `what` would take at least `bytes` of memory, more than this machine has.
void require_memory(std::string_view flags, std::string_view what, double bytes);

/// The memory an IOHMM fit with L latent states takes at least on a world of A actions and O
/// observations with episodes of T steps: the model and EM's expected counts (2 L^2 A + 2 L O
/// doubles) and the forward and backward variables of one episode (2 T L doubles).
[[nodiscard]] inline double iohmm_fit_bytes(double L, double A, double O, double T) {
    return 8.0 * (2.0 * L * L * A + 2.0 * L * O + 2.0 * T * L);
}

/// The memory `episodes` recorded episodes of T steps take at least (an action and an
/// observation index per step, and each episode's two vectors).
[[nodiscard]] inline double episodes_bytes(double episodes, double T) { return episodes * (48.0 + 16.0 * T); }

/// An integer >= 0 (e.g. --refit-every, where 0 means never).
inline std::size_t count(std::string_view flag, std::string_view v) {
    return static_cast<std::size_t>(uint_in(flag, v, 0, max_count_value, "an integer >= 0"));
}
/// A seed: any integer of 64 bits (0 .. 18446744073709551615).
inline std::uint64_t seed_value(std::string_view flag, std::string_view v) {
    return uint_in(flag, v, 0, std::numeric_limits<std::uint64_t>::max(), "an integer >= 0");
}

/// --smoothing: the Dirichlet α of the learned models' fits, in (0, max_iohmm_smoothing] (the
/// library's bound: with α = 0 a fitted observation probability may be 0, which the agent's
/// filter cannot update on; a huge α makes every fitted distribution uniform, beyond which
/// EM's sums lose every digit of the data).
double smoothing_value(std::string_view flag, std::string_view v);

/// "0,3,5", "0-15" or a mix ("0-3,8"); no duplicates; at most 100000 seeds. Seeds keep the
/// order given; a hash set finds a repeated seed in O(1) per seed (a list of 100000 seeds
/// parses in milliseconds), reporting the first repetition in that order.
std::vector<std::uint64_t> parse_seeds(std::string_view flag, std::string_view v);

template <class T, class Parse>
std::vector<T> parse_list(std::string_view flag, std::string_view v, std::string_view expected, Parse parse) {
    std::vector<T> out;
    for (const std::string_view part : split_commas(v)) {
        const std::optional<T> x = parse(part);
        if (!x) bad_value(flag, v, cat("contains '", part, "'; expected a comma-separated list of ", expected));
        for (const T& y : out)
            if (y == *x) bad_value(flag, v, cat("lists '", part, "' twice"));
        out.push_back(*x);
    }
    return out;
}

/// --threads: 0..1024 (0 = all cores).
std::size_t parse_threads(std::string_view flag, std::string_view v);

/// A finite number >= 0 (e.g. --rho).
double non_negative_number(std::string_view flag, std::string_view v);

/// A finite number > 0 (e.g. --alpha).
double positive_number(std::string_view flag, std::string_view v);

/// --shard: "I/N" with 1 <= I <= N <= 100000.
ShardSpec parse_shard(std::string_view flag, std::string_view v);

/// --out: a directory name, not empty (every program files its outputs under it).
std::string out_directory(std::string_view flag, std::string_view v);

/// The flags of one command line given a value so far, with their values (FlagArgument).
using SeenFlags = std::vector<std::pair<std::string, std::string>>;

/// The argument args[i], a "--flag" or "--flag=value": the flag's name, and its value (the
/// inline one, else the next argument, which value() consumes by advancing i). With `seen`,
/// a flag that takes a value is refused the second time (one value each: never the last one
/// silently); --policy and --policies are one flag.
class FlagArgument {
public:
    FlagArgument(const std::vector<std::string>& args, std::size_t& i, SeenFlags* seen = nullptr);
    /// Throws usage_error when the flag was given a value.
    void no_value() const {
        if (inline_value_) throw usage_error(cat(flag, " takes no value (got '", *inline_value_, "')"));
    }
    /// The value; throws usage_error when there is none.
    [[nodiscard]] std::string_view value();

private:
    const std::vector<std::string>& args_;
    std::size_t& i_;
    SeenFlags* seen_;
    std::optional<std::string_view> inline_value_;

public:
    std::string_view flag;
};

/// The learned-belief flags maxent-paper and maxent-explore share (--learned, --learners, the
/// learning counts, --smoothing, --learned-prior), read into `s`; false for any other flag.
bool learning_flag_argument(FlagArgument& a, Settings& s);

/// The learned-belief flags among `seen` that only learned-belief curves read (--learners,
/// the learning counts, --smoothing), in the order given.
[[nodiscard]] std::vector<std::string> learning_flags_given(const SeenFlags& seen);

/// The flags maxent-paper and maxent-explore share, read into their options `o` (help,
/// version, progress, plot, threads, smooth, out, shard and the Settings of Algorithm 1);
/// returns false for any other flag.
template <class O>
bool shared_flag(FlagArgument& a, O& o) {
    const std::string_view flag = a.flag;
    Settings& s = o.settings;
    if (flag == "--help") {
        a.no_value();
        o.help = true;
    } else if (flag == "--version") {
        a.no_value();
        o.version = true;
    } else if (flag == "--progress") {
        a.no_value();
        o.progress = O::ProgressMode::force;
    } else if (flag == "--quiet") {
        a.no_value();
        o.progress = O::ProgressMode::quiet;
    } else if (flag == "--no-plot") {
        a.no_value();
        o.plot = false;
    } else if (flag == "--seeds") {
        s.seeds = parse_seeds(flag, a.value());
    } else if (flag == "--iterations") {
        s.iterations = positive_count(flag, a.value());
    } else if (flag == "--batch") {
        s.batch = positive_count(flag, a.value());
    } else if (flag == "--threads") {
        o.threads = parse_threads(flag, a.value());
    } else if (flag == "--rho") {
        s.rho = non_negative_number(flag, a.value());
    } else if (flag == "--alpha") {
        s.alpha = positive_number(flag, a.value());
    } else if (flag == "--objectives") {
        const std::string_view v = a.value();  // none: learned-belief curves only (--learned)
        s.objectives = iequals(v, "none") ? std::vector<Objective>{}
                                          : parse_list<Objective>(flag, v, "mse, moe, mbe, reg-mbe (or none)",
                                                                  parse_objective);
    } else if (flag == "--policies" || flag == "--policy") {  // --policy: maxent-explore's older spelling
        s.policies = parse_list<PolicyClass>(flag, a.value(), "O, BA, S, BM, B", parse_policy_class);
    } else if (flag == "--smooth") {
        o.smooth = positive_count(flag, a.value());
    } else if (flag == "--estimator") {
        const std::string_view v = a.value();
        const auto e = parse_estimator(v);
        if (!e) bad_value(flag, v, cat("is not one of ", estimator_names));
        s.estimator = *e;
    } else if (flag == "--step") {
        const std::string_view v = a.value();
        const auto x = parse_step(v);
        if (!x) bad_value(flag, v, cat("is not one of ", step_names));
        s.step = *x;
    } else if (flag == "--counting") {
        const std::string_view v = a.value();
        const auto x = parse_counting(v);
        if (!x) bad_value(flag, v, "is not one of paper, authors");
        s.counting = *x;
    } else if (flag == "--out") {
        o.out = out_directory(flag, a.value());
    } else if (flag == "--shard") {
        o.shard = parse_shard(flag, a.value());
    } else {
        return false;
    }
    return true;
}

}  // namespace detail

// The value parsers the other programs' command lines share (maxent-proxy-gaps, maxent-explore,
// maxent-rescue).
using detail::bad_value;
using detail::episodes_bytes;
using detail::FlagArgument;
using detail::iohmm_fit_bytes;
using detail::out_directory;
using detail::parse_threads;
using detail::positive_count;
using detail::require_memory;
using detail::seed_value;
using detail::SeenFlags;
using detail::to_uint;
using detail::uint_in;

/// Parses the arguments after the program name. Throws usage_error naming the flag and value.
[[nodiscard]] Options parse_command_line(const std::vector<std::string>& args);

/// The --list text: one line per experiment, with the groups.
[[nodiscard]] std::string list_text();

/// The --help text.
/// The help of the learned-belief flags, with the library's defaults (belief/learned/defaults.hpp).
[[nodiscard]] std::string learned_flags_help();

[[nodiscard]] std::string help_text();

}  // namespace maxent::programs
