// maxent/belief/learned/select.hpp — model selection on held-out logs: the number of latent
// states L (or clone total T), the clone allocation and the Dirichlet pseudo-count α chosen by
// how well each candidate predicts sequences it was not fitted on. Logs only: the world's
// model, its number of states included, is never read.
//
//   split_sequences      a seeded split into a fit part and round(fraction n) held-out sequences
//   select_iohmm         fit_iohmm per candidate (L from a list, or doubling 1, 2, 4, ... until
//                        the best score stops improving) x α; scored by score_sequences
//   select_cloned_hmm    the same for fit_cloned_hmm over T (or O, 2 O, 4 O, ...), each split
//                        evenly and by frequency (frequency_clones)
// The winner, by the one-standard-error rule: the first candidate tried (smallest L or T, even
// allocation, smallest α) whose held-out log-likelihood is within selection.standard_errors
// standard errors (of the paired per-sequence differences) of the highest; 0 picks the highest.
// A larger model that fits the fit part's noise scores within noise of the right one, so the
// plain maximum tends to pick too large an L. With selection.refit the winner is refitted on all
// sequences. base.stop ends the selection; bad settings are config_errors naming the value.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "maxent/belief/learned/cloned_hmm.hpp"
#include "maxent/belief/learned/defaults.hpp"
#include "maxent/belief/learned/em.hpp"
#include "maxent/belief/learned/score.hpp"
#include "maxent/belief/learned/sequences.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/parallel.hpp"
#include "maxent/core/random.hpp"

namespace maxent {

/// A split of sequence indices: both parts in index order.
struct SequenceSplit {
    std::vector<std::size_t> fit, heldout;
};

/// n sequences split into a fit part and a held-out part of round(fraction n) sequences (at
/// least 1, at most n - 1), each in index order; the shuffle is Fisher–Yates on
/// maxent::stream(seed, 0, 0). Throws config_error for n < 2 or a fraction outside (0, 1).
[[nodiscard]] inline SequenceSplit split_sequences(std::size_t n, double heldout_fraction, std::uint64_t seed) {
    if (n < 2)
        throw config_error(detail::message("split_sequences: ", n,
                                           " sequences cannot be split into a fit part and a held-out part (need 2)"));
    if (!(heldout_fraction > 0.0 && heldout_fraction < 1.0))
        throw config_error(detail::message("split_sequences: the held-out fraction must be in (0, 1), got ",
                                           heldout_fraction));
    std::vector<std::size_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = i;
    DefaultRng g = stream(seed, 0, 0);
    for (std::size_t i = n - 1; i >= 1; --i) std::swap(order[i], order[static_cast<std::size_t>(uniform_index(g, i + 1))]);
    const auto h = std::clamp<std::size_t>(static_cast<std::size_t>(std::llround(heldout_fraction * double(n))), 1, n - 1);
    SequenceSplit out;
    out.heldout.assign(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(h));
    out.fit.assign(order.begin() + static_cast<std::ptrdiff_t>(h), order.end());
    std::sort(out.heldout.begin(), out.heldout.end());
    std::sort(out.fit.begin(), out.fit.end());
    return out;
}

/// T clones for O observations in proportion to the observations' counts in `sequences`, at
/// least one each, rounded to the sum T by largest remainders (ties to the lowest index);
/// equal_clones when no observation is counted. Throws config_error for O = 0, T < O or an
/// observation >= O.
[[nodiscard]] inline std::vector<std::size_t> frequency_clones(std::span<const ActionObservationSequence> sequences,
                                                               std::size_t total, std::size_t O) {
    if (O == 0) throw config_error("frequency_clones: the number of observations must be at least 1, got 0");
    if (total < O)
        throw config_error(detail::message("frequency_clones: ", total, " clones cannot give each of the ", O,
                                           " observations one (the total must be at least O)"));
    std::vector<double> counts(O, 0.0);
    double sum = 0.0;
    for (std::size_t n = 0; n < sequences.size(); ++n)
        for (const std::size_t o : sequences[n].observations) {
            if (o >= O)
                throw config_error(detail::message("frequency_clones: sequence ", n, " has observation ", o,
                                                   ", outside [0, ", O, ")"));
            counts[o] += 1.0;
            sum += 1.0;
        }
    if (!(sum > 0.0)) return equal_clones(total, O);
    // Quotas T p_o; each gets max(1, floor(quota)), then the sum is fixed one clone at a time:
    // up where the quota exceeds the count most, down (among counts above 1) where it falls
    // short most (ties to the lowest index). At most O rounds either way.
    std::vector<std::size_t> out(O, 1);
    std::vector<double> quota(O, 0.0);
    std::size_t given = 0;
    for (std::size_t o = 0; o < O; ++o) {
        quota[o] = static_cast<double>(total) * counts[o] / sum;
        out[o] = std::max<std::size_t>(1, static_cast<std::size_t>(std::floor(quota[o])));
        given += out[o];
    }
    while (given < total) {
        std::size_t best = 0;
        for (std::size_t o = 1; o < O; ++o)
            if (quota[o] - double(out[o]) > quota[best] - double(out[best])) best = o;
        ++out[best];
        ++given;
    }
    while (given > total) {
        std::size_t best = O;
        for (std::size_t o = 0; o < O; ++o)
            if (out[o] > 1 && (best == O || quota[o] - double(out[o]) < quota[best] - double(out[best]))) best = o;
        --out[best];
        --given;
    }
    return out;
}

/// How a cloned HMM's clones are split among the observations.
enum class CloneAllocation {
    none,      ///< not a cloned HMM (select_iohmm's candidates)
    even,      ///< equal_clones
    frequency  ///< frequency_clones
};

[[nodiscard]] inline const char* name_of(CloneAllocation a) {
    return a == CloneAllocation::even ? "even" : a == CloneAllocation::frequency ? "frequency" : "none";
}

/// What select_iohmm / select_cloned_hmm are asked to try.
struct SelectionOptions {
    double heldout_fraction = selection_defaults.heldout_fraction;  ///< in (0, 1)
    std::uint64_t split_seed = 0;                                    ///< split_sequences' seed
    /// Candidate L (IOHMM) or clone totals T (cloned HMM), tried in the order given; empty: the
    /// doubling search of the header's comment.
    std::vector<std::size_t> latent_states{};
    std::size_t max_latent_states = selection_defaults.max_latent_states;  ///< the doubling search's bound (>= 1)
    /// Candidate Dirichlet pseudo-counts α (>= 0), tried in the order given; empty: selection_defaults'.
    std::vector<double> pseudo_counts{};
    /// The one-standard-error rule's k (>= 0; 0: the highest held-out score).
    double standard_errors = selection_defaults.standard_errors;
    bool refit = true;  ///< refit the winner's settings on all the sequences
};

/// One candidate's settings and scores.
struct SelectionCandidate {
    std::size_t latent_states = 0;                      ///< L (the sum of the clones for a cloned HMM)
    double pseudo_count = 0.0;                          ///< α
    CloneAllocation allocation = CloneAllocation::none;  ///< cloned HMM only
    std::vector<std::size_t> clones{};                  ///< cloned HMM only: per observation
    double heldout_per_observation = 0.0;               ///< held-out log-likelihood per observation
    double train_per_observation = 0.0;                 ///< final training log-likelihood per observation
    double gap_per_observation = 0.0;                   ///< the highest held-out score minus this one
    double gap_standard_error = 0.0;                    ///< the standard error of that gap (per observation)
    std::vector<double> heldout_per_sequence{};         ///< log P of each held-out sequence
    std::size_t iterations = 0;                         ///< M steps of the chosen restart
    bool converged = false;
};

/// The outcome of a selection.
struct SelectionReport {
    std::vector<SelectionCandidate> candidates;  ///< in the order tried
    std::size_t chosen = 0;                      ///< index into candidates: the one-standard-error winner
    std::size_t highest = 0;                     ///< index into candidates: the highest held-out score
    IohmmOptions options;                        ///< the base options with the winner's settings (refit with them)
    std::vector<std::size_t> clones;             ///< the winner's clones (cloned HMM), else empty
    IohmmFit fit;                                ///< the winner fitted on all the sequences (or on the fit part)
    SequenceSplit split;                         ///< the sequence indices of the two parts
    bool stopped = false;                        ///< base.stop ended it (`fit` then empty unless refit ran)

    [[nodiscard]] const SelectionCandidate& best() const { return candidates.at(chosen); }
};

/// The candidates' table as CSV: candidate,latent_states,allocation,pseudo_count,
/// heldout_ll_per_obs,train_ll_per_obs,gap,gap_se,iterations,converged,chosen (clones are not listed).
inline void write_selection_csv(std::ostream& out, const SelectionReport& r) {
    out << "candidate,latent_states,allocation,pseudo_count,heldout_ll_per_obs,train_ll_per_obs,gap,gap_se,"
           "iterations,converged,chosen\n";
    for (std::size_t i = 0; i < r.candidates.size(); ++i) {
        const SelectionCandidate& c = r.candidates[i];
        out << i << ',' << c.latent_states << ',' << name_of(c.allocation) << ',' << c.pseudo_count << ','
            << c.heldout_per_observation << ',' << c.train_per_observation << ',' << c.gap_per_observation << ','
            << c.gap_standard_error << ',' << c.iterations << ',' << (c.converged ? 1 : 0) << ','
            << (i == r.chosen ? 1 : 0) << '\n';
    }
}

namespace detail {

inline std::vector<ActionObservationSequence> pick(std::span<const ActionObservationSequence> all,
                                                   const std::vector<std::size_t>& indices) {
    std::vector<ActionObservationSequence> out;
    out.reserve(indices.size());
    for (const std::size_t i : indices) out.push_back(all[i]);
    return out;
}

inline std::size_t count_observations(std::span<const ActionObservationSequence> s) {
    std::size_t n = 0;
    for (const auto& x : s) n += x.observations.size();
    return n;
}

inline std::vector<double> pseudo_count_grid(const SelectionOptions& s, const char* where) {
    std::vector<double> grid = s.pseudo_counts;
    if (grid.empty()) grid.assign(selection_defaults.pseudo_counts.begin(), selection_defaults.pseudo_counts.end());
    if (!std::isfinite(s.standard_errors) || !(s.standard_errors >= 0.0))
        throw config_error(detail::message(where, ": standard_errors (the one-standard-error rule's k) must be finite "
                                                  "and >= 0, got ", s.standard_errors));
    for (const double a : grid)
        if (!std::isfinite(a) || !(a >= 0.0) || a > max_iohmm_smoothing)
            throw config_error(detail::message(where, ": a pseudo-count must be finite, >= 0 and at most ",
                                               max_iohmm_smoothing, ", got ", a));
    return grid;
}

/// The selection loop: sizes from the list or the doubling search from `first`; `fit_one`
/// fills a candidate's scores (returns false when the fit was stopped), `variants(size)`
/// lists the candidates of one size.
template <class Variants, class FitOne>
void run_selection(const SelectionOptions& s, std::size_t first, const char* where, SelectionReport& report,
                   Variants&& variants, FitOne&& fit_one) {
    const bool doubling = s.latent_states.empty();
    if (doubling && s.max_latent_states == 0)
        throw config_error(detail::message(where, ": max_latent_states must be at least 1 for the doubling search, got 0"));
    double best = -std::numeric_limits<double>::infinity();
    bool have = false;
    for (std::size_t i = 0;; ++i) {
        std::size_t size = 0;
        if (doubling) {
            if (i > 0 && first > (std::numeric_limits<std::size_t>::max() >> i)) break;
            size = first << i;
            if (size > s.max_latent_states && i > 0) break;
        } else {
            if (i == s.latent_states.size()) break;
            size = s.latent_states[i];
        }
        bool improved = false;
        for (SelectionCandidate c : variants(size)) {
            if (!fit_one(c)) {
                report.stopped = true;
                return;
            }
            report.candidates.push_back(std::move(c));
            const double h = report.candidates.back().heldout_per_observation;
            if (!have || h > best) {
                best = h;
                report.chosen = report.candidates.size() - 1;
                improved = true;
                have = true;
            }
        }
        if (doubling && !improved) break;
    }
    report.highest = report.chosen;
}

/// The one-standard-error rule (this header's comment) over the candidates; sets the gaps.
inline void choose(SelectionReport& report, double k, double heldout_observations) {
    const SelectionCandidate& top = report.candidates[report.highest];
    const double top_total = top.heldout_per_observation * heldout_observations;
    bool found = false;
    for (std::size_t i = 0; i < report.candidates.size(); ++i) {
        SelectionCandidate& c = report.candidates[i];
        const std::size_t n = c.heldout_per_sequence.size();
        double mean = 0.0, total = 0.0;
        for (std::size_t j = 0; j < n; ++j) mean += top.heldout_per_sequence[j] - c.heldout_per_sequence[j];
        total = mean;
        mean /= static_cast<double>(n);
        double var = 0.0;
        for (std::size_t j = 0; j < n; ++j) {
            const double d = top.heldout_per_sequence[j] - c.heldout_per_sequence[j] - mean;
            var += d * d;
        }
        var = n > 1 ? var / static_cast<double>(n - 1) : 0.0;
        const double se = std::sqrt(static_cast<double>(n) * var);
        c.gap_per_observation = std::isfinite(top_total) ? total / heldout_observations : 0.0;
        c.gap_standard_error = se / heldout_observations;
        if (found || !std::isfinite(top_total) || !std::isfinite(total)) continue;
        if (total <= k * se || i == report.highest) {
            report.chosen = i;
            found = true;
        }
    }
}

/// Σ log P over sequences of a cloned HMM, in blocks of `block` added in index order (as
/// fit_cloned_hmm scores its held-out sequences); PerBlock: the blocks' sums.
template <bool PerBlock = false>
auto cloned_log_likelihood(const IohmmModel& m, std::span<const ActionObservationSequence> data,
                           const std::vector<std::size_t>& clones, std::size_t threads, std::size_t block) {
    const ClonedEm em{clone_layout(clones, "select_cloned_hmm")};
    const auto lls = run_parallel(block_count(data.size(), block), threads, [&](std::size_t b) {
        return em.score(m, data, b * block, std::min(data.size(), (b + 1) * block));
    });
    if constexpr (PerBlock) {
        return lls;
    } else {
        double total = 0.0;
        for (const double v : lls) total += v;
        return total;
    }
}

}  // namespace detail

/// Selects L and the smoothing α of an IOHMM on held-out sequences (this header's comment).
/// `base` supplies everything else (actions, observations, emission model, restarts, EM
/// steps, seed, spectral start, prior, threads, stop); its latent_states and smoothing are
/// the candidates'.
[[nodiscard]] inline SelectionReport select_iohmm(std::span<const ActionObservationSequence> sequences,
                                                  const IohmmOptions& base, const SelectionOptions& selection = {}) {
    constexpr const char* where = "select_iohmm";
    const std::vector<double> grid = detail::pseudo_count_grid(selection, where);
    for (const std::size_t L : selection.latent_states)
        if (L == 0) throw config_error("select_iohmm: a candidate number of latent states is 0 (L must be at least 1)");
    SelectionReport report;
    report.split = split_sequences(sequences.size(), selection.heldout_fraction, selection.split_seed);
    const auto train = detail::pick(sequences, report.split.fit), held = detail::pick(sequences, report.split.heldout);
    const double train_obs = static_cast<double>(detail::count_observations(train));
    const double held_obs = static_cast<double>(detail::count_observations(held));
    std::vector<IohmmFit> fits;
    detail::run_selection(
        selection, 1, where, report,
        [&](std::size_t L) {
            std::vector<SelectionCandidate> out;
            for (const double a : grid) out.push_back({.latent_states = L, .pseudo_count = a});
            return out;
        },
        [&](SelectionCandidate& c) {
            IohmmOptions o = base;
            o.latent_states = c.latent_states;
            o.smoothing = c.pseudo_count;
            IohmmFit f = fit_iohmm(train, o);
            if (f.stopped) return false;
            c.train_per_observation = f.final_log_likelihood() / train_obs;
            c.heldout_per_observation = score_sequences(f.model, held, o.threads, o.block_size).per_observation;
            c.heldout_per_sequence = run_parallel(held.size(), o.threads, [&](std::size_t n) {
                return detail::block_log_likelihood(f.model, held, n, n + 1);
            });
            c.iterations = f.iterations;
            c.converged = f.converged;
            fits.push_back(std::move(f));
            return true;
        });
    if (report.candidates.empty()) return report;
    detail::choose(report, selection.standard_errors, held_obs);
    const SelectionCandidate& w = report.best();
    report.options = base;
    report.options.latent_states = w.latent_states;
    report.options.smoothing = w.pseudo_count;
    if (report.stopped) return report;
    if (selection.refit) {
        report.fit = fit_iohmm(sequences, report.options);
        report.stopped = report.fit.stopped;
    } else {
        report.fit = std::move(fits[report.chosen]);
    }
    return report;
}

/// Selects the clone total, the clone allocation and the pseudo-count of a cloned HMM on
/// held-out sequences (this header's comment). `base` as fit_cloned_hmm's options (its
/// latent_states and prior.initial / prior.transitions are the candidates').
[[nodiscard]] inline SelectionReport select_cloned_hmm(std::span<const ActionObservationSequence> sequences,
                                                       const IohmmOptions& base, const SelectionOptions& selection = {}) {
    constexpr const char* where = "select_cloned_hmm";
    const std::size_t O = base.num_observations;
    if (O == 0) throw config_error("select_cloned_hmm: the number of observations must be at least 1, got 0");
    const std::vector<double> grid = detail::pseudo_count_grid(selection, where);
    for (const std::size_t T : selection.latent_states)
        if (T < O)
            throw config_error(detail::message("select_cloned_hmm: a candidate clone total of ", T, " cannot give each of the ",
                                               O, " observations a clone (it must be at least O)"));
    SelectionReport report;
    report.split = split_sequences(sequences.size(), selection.heldout_fraction, selection.split_seed);
    const auto train = detail::pick(sequences, report.split.fit), held = detail::pick(sequences, report.split.heldout);
    const double train_obs = static_cast<double>(detail::count_observations(train));
    const double held_obs = static_cast<double>(detail::count_observations(held));
    for (std::size_t n = 0; n < train.size(); ++n) detail::check_sequence(train[n], n, base.num_actions, O, where, "sequence");
    auto with = [&](IohmmOptions o, double a) {
        o.latent_states = 0;
        o.prior.initial = 1.0 + a;
        o.prior.transitions = 1.0 + a;
        return o;
    };
    std::vector<IohmmFit> fits;
    detail::run_selection(
        selection, O, where, report,
        [&](std::size_t T) {
            std::vector<SelectionCandidate> out;
            const std::vector<std::size_t> even = equal_clones(T, O), freq = frequency_clones(train, T, O);
            for (const double a : grid) {
                out.push_back({.latent_states = T, .pseudo_count = a, .allocation = CloneAllocation::even, .clones = even});
                if (freq != even)
                    out.push_back(
                        {.latent_states = T, .pseudo_count = a, .allocation = CloneAllocation::frequency, .clones = freq});
            }
            return out;
        },
        [&](SelectionCandidate& c) {
            const IohmmOptions o = with(base, c.pseudo_count);
            IohmmFit f = fit_cloned_hmm(train, o, c.clones);
            if (f.stopped) return false;
            c.train_per_observation = f.final_log_likelihood() / train_obs;
            c.heldout_per_observation =
                detail::cloned_log_likelihood(f.model, held, c.clones, o.threads, o.block_size) / held_obs;
            c.heldout_per_sequence = detail::cloned_log_likelihood<true>(f.model, held, c.clones, o.threads, 1);
            c.iterations = f.iterations;
            c.converged = f.converged;
            fits.push_back(std::move(f));
            return true;
        });
    if (report.candidates.empty()) return report;
    detail::choose(report, selection.standard_errors, held_obs);
    const SelectionCandidate& w = report.best();
    report.options = with(base, w.pseudo_count);
    report.options.latent_states = w.latent_states;
    report.clones = w.clones;
    if (report.stopped) return report;
    if (selection.refit) {
        report.fit = fit_cloned_hmm(sequences, report.options, report.clones);
        report.stopped = report.fit.stopped;
    } else {
        report.fit = std::move(fits[report.chosen]);
    }
    return report;
}

}  // namespace maxent
