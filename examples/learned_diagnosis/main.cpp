// maxent-learned-diagnosis — how much of the true state a learned belief model recovers, on the
// environments of the experiments without a simulator (nosim2b, nosim2c, nosim2d, nosim2g) and on
// model files (--file: the classic .pomdp files, read as maxent-explore reads them: T = max(S, 10),
// --empty-rows error or self-loop; the env column is the file's stem).
//
// For each environment, learner and amount of uniform-action training data, fits the belief
// model as the nosim curves' first fit does (the learned curves' settings, learned_options
// and apply_learner: L = S unless --latent-states, the learner's known parts and prior), then,
// on held-out episodes where the true states are known (a diagnostic only), runs the exact
// Bayes filter and the learned filter side by side and reports, per observation or per step:
//   ll        held-out log-likelihood per observation: learned, true model, and a model with
//             one latent state (observations i.i.d.: what is learnable without any memory);
//   H(b)      mean entropy of the beliefs b_t: exact filter, learned filter (nats);
//   I(s;ŝ)    plug-in mutual information between the true state s_t and the filter's most
//             probable state ŝ_t (nats; log S is perfect tracking, 0 no information), for the
//             exact and the learned filter — identifiability in one number: a belief model
//             whose I is near 0 gives MBE and Reg-MBE nothing that MOE lacks.
// Learners (--learners) and what each is given besides the logs:
//   maxent-paper's (runtime/settings.hpp learner_kinds):
//     em, em-sparse, cloned-hmm   the number of latent states L (= the world's S unless
//                                 --latent-states; cloned-hmm splits L evenly among observations);
//     em-known-motion             the world's transition matrices and S (an oracle ablation);
//     em-known-sensor             the world's emission matrices and S (an oracle ablation);
//     em-select, em-spectral-select, cloned-hmm-select   logs only: L (or the clone total and
//                                 allocation) and the prior chosen on a held-out fifth of the
//                                 training episodes, then fitted on all of them, exactly as the
//                                 curves' first fit (runner.hpp select_learned_model; bound
//                                 --select-max-states, default 64);
//   this program's (spectral.hpp):
//     em-spectral                 as em (L given), restart 0 from the spectral start.
//   The selection learners print their choice and every candidate's score to stderr.
// Usage: maxent-learned-diagnosis [--episodes 500,2000] [--heldout 200] [--seed 0] [--threads 0]
//        [--env nosim2b,nosim2c,nosim2d,nosim2g] [--latent-states 0 (= S), or a list]
//        [--select-max-states 64] [--file PATH[,PATH...] [--empty-rows error]]
//        [--learners em,em-sparse,cloned-hmm,em-known-motion,em-known-sensor,em-spectral,
//                    em-select,em-spectral-select,cloned-hmm-select]
// A bad flag, or sizes whose fits would take more memory than the machine has, exit 2 naming
// the flag; SIGINT and SIGTERM stop the fits and keep the rows printed (exit 130 or 143).
#include <cmath>
#include <cstdio>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <new>
#include <optional>
#include <utility>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/bayes_filter.hpp"
#include "maxent/belief/learned/select.hpp"
#include "maxent/belief/learned_model.hpp"
#include "maxent/core/random.hpp"
#include "maxent/model/pomdp_file.hpp"
#include "maxent/optim/learned_belief.hpp"

#include "runtime/cli.hpp"
#include "runtime/experiments.hpp"
#include "runtime/runner.hpp"
#include "runtime/settings.hpp"
#include "runtime/signals.hpp"
#include "runtime/text.hpp"
#include "runtime/threads.hpp"

namespace {

using maxent::ActionObservationSequence;

/// This program's learners beyond maxent-paper's (see the header).
constexpr const char* own_learners[] = {"em-spectral"};

bool own_learner(std::string_view name) {
    for (const char* l : own_learners)
        if (name == l) return true;
    return false;
}

struct Episode {
    ActionObservationSequence seq;
    std::vector<std::size_t> states;  // s_1 .. s_{K+1}, for the diagnostic only
};

template <class M>
Episode uniform_episode_with_states(const M& world, std::size_t actions, maxent::DefaultRng& g) {
    Episode e;
    maxent::detail::uniform_episode(world, actions, g, e.seq, &e.states);
    return e;
}

/// Mean belief entropy and plug-in I(s; argmax b) of a filter over the held-out episodes.
template <class Filter>
std::pair<double, double> track(Filter filter, const std::vector<Episode>& eps, std::size_t S, std::size_t L) {
    Eigen::MatrixXd joint = Eigen::MatrixXd::Zero(static_cast<Eigen::Index>(S), static_cast<Eigen::Index>(L));
    double entropy = 0.0;
    std::size_t n = 0;
    Eigen::VectorXd b;
    maxent::DefaultRng g = maxent::stream(0, 0, 0);  // the Bayes filter draws nothing
    for (const Episode& e : eps) {
        filter.initial(b);
        for (std::size_t t = 0; t < e.states.size(); ++t) {
            if (t > 0) filter.update(b, e.seq.actions[t - 1], e.seq.observations[t], g);
            Eigen::Index best = 0;
            b.maxCoeff(&best);
            joint(static_cast<Eigen::Index>(e.states[t]), best) += 1.0;
            entropy += maxent::entropy(b);
            ++n;
        }
    }
    joint /= static_cast<double>(n);
    const Eigen::VectorXd ps = joint.rowwise().sum(), pz = joint.colwise().sum().transpose();
    double mi = 0.0;
    for (Eigen::Index i = 0; i < joint.rows(); ++i)
        for (Eigen::Index j = 0; j < joint.cols(); ++j)
            if (joint(i, j) > 0.0) mi += joint(i, j) * std::log(joint(i, j) / (ps[i] * pz[j]));
    return {entropy / static_cast<double>(n), mi};
}

std::vector<std::string> split(std::string_view v) {
    std::vector<std::string> out;
    std::size_t start = 0;
    for (;;) {
        const std::size_t c = v.find(',', start);
        out.emplace_back(v.substr(start, c == std::string_view::npos ? v.size() - start : c - start));
        if (c == std::string_view::npos) return out;
        start = c + 1;
    }
}

/// The command line; throws usage_error naming the flag and the value.
struct DiagnosisOptions {
    std::vector<std::size_t> amounts{500, 2000};
    std::vector<std::size_t> latent{0};  // 0 = the world's S
    std::size_t heldout = 200, threads = 0;
    std::uint64_t seed = 0;
    std::vector<std::string> envs{"nosim2b", "nosim2c", "nosim2d", "nosim2g"};
    std::vector<std::string> learners{"em", "em-sparse", "cloned-hmm", "em-known-motion", "em-known-sensor"};
    std::size_t select_max_states = maxent::selection_defaults.max_latent_states;  // --select-max-states
    std::vector<std::string> files;  // --file: model files (a comma-separated list), after the --env worlds
    maxent::EmptyRows empty_rows = maxent::EmptyRows::error;  // --empty-rows, as maxent-explore's
    bool help = false;
};

/// The horizon of a model file's world: maxent-explore's default, T = max(S, 10).
constexpr std::size_t min_file_horizon = 10;

/// Reads model file `path` as maxent-explore does without --horizon (T = max(S, 10)); throws
/// parse_error naming the file.
maxent::PomdpFile read_model_file(const std::string& path, maxent::EmptyRows empty_rows) {
    maxent::ReadOptions o;
    o.empty_transition_rows = empty_rows;
    maxent::PomdpFile f = maxent::read_pomdp_file(path, o);
    if (f.model.num_states() < min_file_horizon) {
        o.horizon = min_file_horizon;
        f = maxent::read_pomdp_file(path, o);
    }
    return f;
}

/// A world's memory checks: the fits of every L asked for and the recorded episodes; `name`
/// names it in the messages.
template <class M>
void require_world_memory(const M& world, const std::string& name, const DiagnosisOptions& o) {
    namespace mp = maxent::programs;
    const auto S = world.num_states(), T = world.horizon();
    for (const std::size_t l : o.latent)
        mp::require_memory(mp::cat("--latent-states ", std::to_string(l == 0 ? S : l)), mp::cat(name, "'s learned model"),
                           mp::iohmm_fit_bytes(static_cast<double>(l == 0 ? S : l), static_cast<double>(world.num_actions()),
                                               static_cast<double>(world.num_observations()), static_cast<double>(T)));
    for (const std::size_t amount : o.amounts)
        mp::require_memory(mp::cat("--episodes ", std::to_string(amount), ", --heldout ", std::to_string(o.heldout)),
                           mp::cat(name, "'s recorded episodes"),
                           mp::episodes_bytes(static_cast<double>(amount) + static_cast<double>(o.heldout),
                                              static_cast<double>(T)) +
                               16.0 * static_cast<double>(o.heldout) * static_cast<double>(T));
}

DiagnosisOptions parse(const std::vector<std::string>& args) {
    namespace mp = maxent::programs;
    DiagnosisOptions o;
    mp::detail::SeenFlags seen;
    bool env_given = false, empty_rows_given = false;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "-h") {
            o.help = true;
            continue;
        }
        mp::detail::FlagArgument a(args, i, &seen);
        const std::string_view flag = a.flag;
        if (flag == "--help") {
            a.no_value();
            o.help = true;
        } else if (flag == "--episodes") {
            o.amounts.clear();
            for (const std::string& s : split(a.value())) o.amounts.push_back(mp::positive_count(flag, s));
        } else if (flag == "--heldout") {
            o.heldout = mp::positive_count(flag, a.value());
        } else if (flag == "--seed") {
            o.seed = mp::seed_value(flag, a.value());
        } else if (flag == "--threads") {
            o.threads = mp::parse_threads(flag, a.value());
        } else if (flag == "--latent-states") {
            o.latent.clear();
            for (const std::string& s : split(a.value())) o.latent.push_back(mp::detail::count(flag, s));
        } else if (flag == "--learners") {
            o.learners = split(a.value());
            for (const std::string& name : o.learners)
                if (mp::find_learner(name) == nullptr && !own_learner(name))
                    mp::bad_value(flag, name,
                                  "is not a learner (em, em-sparse, cloned-hmm, em-known-motion, em-known-sensor, "
                                  "em-spectral, em-select, em-spectral-select, cloned-hmm-select)");
        } else if (flag == "--select-max-states") {
            o.select_max_states = mp::positive_count(flag, a.value());
        } else if (flag == "--file") {
            o.files = split(a.value());
        } else if (flag == "--empty-rows") {
            const std::string_view v = a.value();
            empty_rows_given = true;
            if (mp::iequals(v, "error"))
                o.empty_rows = maxent::EmptyRows::error;
            else if (mp::iequals(v, "self-loop") || mp::iequals(v, "self_loop"))
                o.empty_rows = maxent::EmptyRows::self_loop;
            else
                mp::bad_value(flag, v, "is not one of error, self-loop");
        } else if (flag == "--env") {
            env_given = true;
            o.envs = split(a.value());
            for (const std::string& name : o.envs)
                if (mp::find_experiment(name) == nullptr) mp::bad_value(flag, name, "is not an experiment (see maxent-paper --list)");
        } else {
            throw mp::usage_error(mp::cat("unknown option '", args[i], "'"));
        }
    }
    if (!o.files.empty() && !env_given) o.envs.clear();  // --file alone: only the files
    if (o.files.empty() && empty_rows_given)
        throw mp::usage_error("--empty-rows is read with --file only");
    // What each fit needs, refused now rather than failing in the middle.
    for (const std::string& name : o.envs) require_world_memory(mp::find_experiment(name)->env.build(), name, o);
    return o;
}

/// The rows of one world (`name`: an experiment's or a model file's): per amount of training
/// data and learner, the fit and the filters side by side on the held-out episodes. False when
/// SIGINT or SIGTERM stopped it (the rows printed are complete).
template <class M>
bool diagnose(const M& world, const std::string& name, const DiagnosisOptions& options) {
    namespace mp = maxent::programs;
    const std::vector<std::size_t>& amounts = options.amounts;
    const std::vector<std::size_t>& latent = options.latent;
    const std::size_t heldout = options.heldout, threads = options.threads;
    const std::uint64_t seed = options.seed;
    auto stopped = [&] {
        if (!mp::stop_requested()) return false;
        std::fprintf(stderr, "maxent-learned-diagnosis: %s: stopped; the rows above are complete\n",
                     mp::stop_signal_name());
        return true;
    };
    const std::size_t S = world.num_states(), K = world.horizon() - 1;  // the paper's counting: T - 1 actions
    std::vector<Episode> held;
    std::vector<ActionObservationSequence> held_seq;
    for (std::size_t i = 0; i < heldout; ++i) {
        maxent::DefaultRng g = maxent::stream(seed, 1, i);
        held.push_back(uniform_episode_with_states(world, K, g));
        held_seq.push_back(held.back().seq);
    }
    std::size_t obs = 0;
    for (const auto& q : held_seq) obs += q.observations.size();
    const double truth = maxent::iohmm_log_likelihood(maxent::to_iohmm(world), held_seq) / double(obs);
    maxent::BayesFilter exact(world);
    const auto [h_exact, i_exact] = track(exact, held, S, S);
    for (const std::size_t amount : amounts) {
        std::vector<ActionObservationSequence> train;
        for (std::size_t i = 0; i < amount; ++i) {
            if (stopped()) return false;
            maxent::DefaultRng g = maxent::stream(seed, 0, i);
            train.push_back(uniform_episode_with_states(world, K, g).seq);
        }
        // The memoryless reference: one latent state.
        mp::LearningSettings settings;
        maxent::LearnedBeliefOptions base = mp::learned_options(settings, S);
        maxent::IohmmOptions o1 = base.fit;
        o1.latent_states = 1;
        o1.num_actions = world.num_actions();
        o1.num_observations = world.num_observations();
        o1.seed = seed;
        o1.threads = mp::resolve_threads(threads);
        o1.stop = &mp::stop_flag();
        const maxent::IohmmFit one = maxent::fit_iohmm(train, o1, held_seq);
        if (stopped()) return false;
        for (const std::string& learner : options.learners)
            for (std::size_t li = 0; li < latent.size(); ++li) {
                const bool known = learner == "em-known-motion" || learner == "em-known-sensor";
                const bool select = learner.ends_with("-select");
                if ((known || select) && li > 0) continue;  // L = S (or chosen) whatever --latent-states says
                settings.latent_states = known ? 0 : latent[li];
                maxent::LearnedBeliefOptions lo = mp::learned_options(settings, S);
                if (learner != "em" && !own_learner(learner))
                    mp::apply_learner(lo, learner, maxent::to_iohmm(world));
                maxent::IohmmOptions& o = lo.fit;
                o.num_actions = world.num_actions();
                o.num_observations = world.num_observations();
                o.seed = seed;
                o.threads = mp::resolve_threads(threads);
                o.stop = &mp::stop_flag();
                if (learner == "em-spectral") o.spectral = true;
                if (select) {  // L (or the clones) and the prior, as the curves choose them
                    mp::LearningSettings ls = settings;
                    ls.select_max_states = options.select_max_states;
                    bool stop = false;
                    maxent::SelectionReport r;
                    const mp::SelectedModel chosen = mp::select_learned_model(lo, learner, train, ls, stop, &r);
                    if (stopped() || stop) return false;
                    std::fprintf(stderr, "%s,%s,%zu episodes: chose L = %zu, pseudo-count %g, allocation %s (of %zu candidates):\n",
                                 name.c_str(), learner.c_str(), amount, chosen.latent_states, chosen.pseudo_count,
                                 chosen.allocation.c_str(), chosen.candidates);
                    std::ostringstream table;
                    maxent::write_selection_csv(table, r);
                    std::fputs(table.str().c_str(), stderr);
                }
                const std::size_t L = o.latent_states;
                const maxent::IohmmFit fit = lo.learner == maxent::BeliefLearner::cloned_hmm
                                                 ? maxent::fit_cloned_hmm(train, o, lo.clones, held_seq)
                                                 : maxent::fit_iohmm(train, o, held_seq);
                const double ll_learned = fit.heldout_log_likelihood.back() / double(obs);
                if (stopped()) return false;
                const auto agent = maxent::to_finite_pomdp(fit.model, world.horizon());
                maxent::BayesFilter learned(agent);
                const auto [h_learned, i_learned] = track(learned, held, S, L);
                std::printf("%s,%s,%zu,%zu,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f,%.4f\n", name.c_str(),
                            learner.c_str(), L, amount, ll_learned, truth,
                            one.heldout_log_likelihood.back() / double(obs), h_exact, h_learned, i_exact,
                            i_learned, std::log(double(S)));
                std::fflush(stdout);
            }
    }
    return true;
}

constexpr const char* help_text =
    "Usage: maxent-learned-diagnosis [--episodes 500,2000] [--heldout 200] [--seed 0] [--threads 0]\n"
    "       [--env nosim2b,nosim2c,nosim2d,nosim2g] [--latent-states 0,4 (0 = S)]\n"
    "       [--select-max-states 64] [--file PATH[,PATH...] [--empty-rows error|self-loop]]\n"
    "       [--learners em,em-sparse,cloned-hmm,em-known-motion,em-known-sensor,em-spectral,\n"
    "                   em-select,em-spectral-select,cloned-hmm-select]\n"
    "How much of the true state a learned belief model recovers (see the source's header).\n"
    "Learners: em, em-sparse, cloned-hmm read only the logs (given L = S unless --latent-states);\n"
    "em-known-motion (oracle: given the world's transitions, L = S) and em-known-sensor (oracle:\n"
    "given the world's emissions, L = S) are given parts of the true model; em-select,\n"
    "em-spectral-select and cloned-hmm-select choose L (or the clones) and the prior on a held-out\n"
    "fifth of the episodes, as maxent-paper's curves do (bound --select-max-states).\n"
    "--file: model files in the POMDP file format, after the --env worlds (without --env: the files\n"
    "only), read as maxent-explore reads them: T = max(S, 10); --empty-rows self-loop makes a state\n"
    "without transitions under an action absorbing (default error). The env column is the file's stem.\n"
    "Ctrl-C or SIGTERM stops after the rows printed so far (exit 130 or 143).\n";

}  // namespace

int main(int argc, char** argv) try {
    namespace mp = maxent::programs;
    DiagnosisOptions options;
    try {
        options = parse(std::vector<std::string>(argv + 1, argv + argc));
    } catch (const mp::usage_error& e) {
        return mp::usage_failure("maxent-learned-diagnosis", e.what());
    }
    if (options.help) {
        std::fputs(help_text, stdout);
        return 0;
    }
    mp::install_stop_handlers();
    // The model files, read and checked before any row is printed.
    std::vector<std::pair<std::string, maxent::PomdpFile>> files;
    for (const std::string& path : options.files) {
        try {
            files.emplace_back(std::filesystem::path(path).stem().string(), read_model_file(path, options.empty_rows));
        } catch (const maxent::parse_error& e) {
            std::fprintf(stderr, "maxent-learned-diagnosis: %s\n", e.what());
            if (options.empty_rows == maxent::EmptyRows::error &&
                std::string_view(e.what()).find("no transition") != std::string_view::npos)
                std::fprintf(stderr, "maxent-learned-diagnosis: hint: --empty-rows self-loop makes such states absorbing\n");
            return 2;
        }
        try {
            require_world_memory(files.back().second.model, files.back().first, options);
        } catch (const mp::usage_error& e) {
            return mp::usage_failure("maxent-learned-diagnosis", e.what());
        }
    }
    std::printf("env,learner,L,episodes,ll_learned,ll_truth,ll_one_state,H_exact,H_learned,I_exact,I_learned,log_S\n");
    for (const std::string& name : options.envs)
        if (!diagnose(mp::find_experiment(name)->env.build(), name, options)) return mp::stop_exit_status();
    for (const auto& [name, file] : files)
        if (!diagnose(file.model, name, options)) return mp::stop_exit_status();
    return 0;
} catch (const std::bad_alloc&) {
    std::fputs("maxent-learned-diagnosis: error: out of memory (std::bad_alloc)\n", stderr);
    return 1;
} catch (const std::exception& e) {
    std::fprintf(stderr, "maxent-learned-diagnosis: error: %s\n", e.what());
    return 1;
}
