// Tests of model selection on held-out logs and of the spectral EM start
// (belief/learned/select.hpp, belief/learned/spectral.hpp), against planted models:
//   * selection picks the planted number of latent states (a list of candidates, and the
//     doubling search), not a larger one; the split is seeded, disjoint and of the stated size;
//   * the one-standard-error rule on hand-derived per-sequence scores;
//   * frequency_clones on hand-derived cases: the requested total, at least one clone each;
//   * select_cloned_hmm tries both allocations and refits the winner's clones;
//   * the spectral start: a distribution, deterministic, far better than a random start before
//     EM, EM from it recovers the planted emissions up to permutation, and EM from it never
//     decreases its objective (shared and per-action emissions);
//   * bad selection settings, named.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <sstream>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "maxent/belief/learned_model.hpp"
#include "maxent/core/error.hpp"
#include "maxent/core/random.hpp"

namespace test_learned_select {

using Catch::Matchers::Contains;
using maxent::ActionObservationSequence;
using maxent::EmissionModel;
using maxent::IohmmModel;
using maxent::IohmmOptions;
using Index = Eigen::Index;

/// A planted IOHMM: L states on a ring, A = 2 (action 0 moves one step with probability 0.9,
/// action 1 stays with 0.9, the rest spread evenly), state z emits z mod O with probability 0.8
/// (the rest spread evenly), uniform start. With O = L no two states are alike.
IohmmModel planted(std::size_t L, std::size_t O) {
    IohmmModel m;
    const auto l = static_cast<Index>(L), o = static_cast<Index>(O);
    m.initial = Eigen::VectorXd::Constant(l, 1.0 / double(L));
    Eigen::MatrixXd move = Eigen::MatrixXd::Constant(l, l, 0.1 / double(L - 1)), stay = move;
    Eigen::MatrixXd E = Eigen::MatrixXd::Constant(l, o, 0.2 / double(O - 1));
    for (Index z = 0; z < l; ++z) {
        move(z, (z + 1) % l) = 0.9;
        stay(z, z) = 0.9;
        E(z, z % o) = 0.8;
    }
    m.transitions = {move, stay};
    m.emissions = {E};
    m.initial_emission = E;
    return m;
}

template <class G>
std::size_t draw(const Eigen::Ref<const Eigen::RowVectorXd>& row, G& g) {
    const double u = maxent::uniform01(g);
    double cumulative = 0.0;
    for (Index j = 0; j < row.size(); ++j) {
        cumulative += row[j];
        if (u < cumulative) return static_cast<std::size_t>(j);
    }
    return static_cast<std::size_t>(row.size() - 1);
}

/// `count` sequences of `actions` uniform random actions from m (stream (seed, 0, n)).
std::vector<ActionObservationSequence> sample(const IohmmModel& m, std::size_t count, std::size_t actions,
                                              std::uint64_t seed) {
    std::vector<ActionObservationSequence> out(count);
    for (std::size_t n = 0; n < count; ++n) {
        maxent::DefaultRng g = maxent::stream(seed, 0, n);
        std::size_t z = draw(m.initial.transpose(), g);
        out[n].observations.push_back(draw(m.first_emission().row(static_cast<Index>(z)), g));
        for (std::size_t k = 0; k < actions; ++k) {
            const auto a = static_cast<std::size_t>(maxent::uniform_index(g, m.num_actions()));
            z = draw(m.transitions[a].row(static_cast<Index>(z)), g);
            out[n].actions.push_back(a);
            out[n].observations.push_back(draw(m.emission(a).row(static_cast<Index>(z)), g));
        }
    }
    return out;
}

IohmmOptions options_for(std::size_t L, std::size_t O) {
    IohmmOptions o;
    o.latent_states = L;
    o.num_actions = 2;
    o.num_observations = O;
    o.seed = 1;
    return o;
}

/// The largest entrywise difference between the rows of `learned` and `truth` under the best
/// matching of learned rows to true rows (every permutation; L is small).
double permuted_distance(const Eigen::MatrixXd& learned, const Eigen::MatrixXd& truth) {
    std::vector<Index> p(static_cast<std::size_t>(truth.rows()));
    std::iota(p.begin(), p.end(), Index{0});
    double best = std::numeric_limits<double>::infinity();
    do {
        double worst = 0.0;
        for (Index z = 0; z < truth.rows(); ++z)
            worst = std::max(worst, (learned.row(p[static_cast<std::size_t>(z)]) - truth.row(z)).cwiseAbs().maxCoeff());
        best = std::min(best, worst);
    } while (std::next_permutation(p.begin(), p.end()));
    return best;
}

TEST_CASE("held-out selection picks the planted number of latent states, not a larger one", "[learned][select]") {
    const IohmmModel truth = planted(3, 3);
    const auto data = sample(truth, 300, 20, 5);
    IohmmOptions base = options_for(0, 3);
    base.restarts = 1;
    base.max_iterations = 60;
    maxent::SelectionOptions s;
    s.latent_states = {1, 2, 3, 4, 5};
    s.pseudo_counts = {1e-3};
    const maxent::SelectionReport r = maxent::select_iohmm(data, base, s);
    REQUIRE(r.candidates.size() == 5);
    CHECK(r.best().latent_states == 3);
    CHECK(r.options.latent_states == 3);
    CHECK(r.fit.model.num_latent_states() == 3);
    // Every larger candidate scores within noise of the planted one, no better by a standard error.
    for (const auto& c : r.candidates) {
        if (c.latent_states < 3) CHECK(c.gap_per_observation > 5.0 * c.gap_standard_error);
        CHECK(c.heldout_per_sequence.size() == r.split.heldout.size());
    }
    // The refit is on all the sequences: the same as fit_iohmm with the chosen settings.
    const maxent::IohmmFit direct = maxent::fit_iohmm(data, r.options);
    CHECK(direct.model == r.fit.model);
    // The split: seeded, disjoint, 60 of 300 held out, both parts in index order.
    CHECK(r.split.heldout.size() == 60);
    CHECK(r.split.fit.size() == 240);
    std::vector<std::size_t> all = r.split.fit;
    all.insert(all.end(), r.split.heldout.begin(), r.split.heldout.end());
    std::sort(all.begin(), all.end());
    for (std::size_t i = 0; i < all.size(); ++i) CHECK(all[i] == i);
    CHECK(std::is_sorted(r.split.fit.begin(), r.split.fit.end()));
    const maxent::SequenceSplit again = maxent::split_sequences(300, 0.2, 0);
    CHECK(again.heldout == r.split.heldout);
    CHECK(maxent::split_sequences(300, 0.2, 1).heldout != r.split.heldout);
    std::ostringstream table;
    maxent::write_selection_csv(table, r);
    CHECK_THAT(table.str(), Contains("candidate,latent_states,allocation,pseudo_count,heldout_ll_per_obs"));
    const std::string text = table.str();
    CHECK(std::count(text.begin(), text.end(), '\n') == 6);
}

TEST_CASE("the one-standard-error rule on hand-derived per-sequence scores", "[learned][select]") {
    // Candidates in the order tried: L = 1, 2, 3; 4 held-out sequences, 8 observations.
    auto candidate = [](std::size_t L, std::vector<double> ll) {
        maxent::SelectionCandidate c;
        c.latent_states = L;
        c.heldout_per_sequence = std::move(ll);
        c.heldout_per_observation = std::accumulate(c.heldout_per_sequence.begin(), c.heldout_per_sequence.end(), 0.0) / 8.0;
        return c;
    };
    maxent::SelectionReport r;
    r.candidates = {candidate(1, {-10, -10, -10, -10}), candidate(2, {-9.1, -9.4, -8.6, -9.0}),
                    candidate(3, {-9.0, -9.5, -8.5, -9.0})};
    r.highest = 2;  // total -36 against -36.1 and -40
    // L = 2: gaps d = {0.1, -0.1, 0.1, 0}, sum 0.1, sample variance 0.0275 / 3, SE = sqrt(4 var) = 0.19149.
    // L = 1: d = {1, 0.5, 1.5, 1}, sum 4, variance 0.5 / 3, SE = 0.81650.
    maxent::detail::choose(r, 1.0, 8.0);
    CHECK(r.chosen == 1);
    CHECK(r.candidates[1].gap_per_observation == Approx(0.1 / 8.0).epsilon(1e-12));
    CHECK(r.candidates[1].gap_standard_error == Approx(std::sqrt(4.0 * 0.0275 / 3.0) / 8.0).epsilon(1e-12));
    CHECK(r.candidates[0].gap_standard_error == Approx(std::sqrt(4.0 * 0.5 / 3.0) / 8.0).epsilon(1e-12));
    maxent::detail::choose(r, 0.5, 8.0);  // 0.5 SE = 0.0957 < 0.1: L = 2 is too far below
    CHECK(r.chosen == 2);
    maxent::detail::choose(r, 0.0, 8.0);  // the plain maximum
    CHECK(r.chosen == 2);
    maxent::detail::choose(r, 5.0, 8.0);  // 5 SE = 4.08 >= 4: even L = 1
    CHECK(r.chosen == 0);
}

TEST_CASE("the doubling search stops after the first L that does not improve, choosing the planted L",
          "[learned][select]") {
    const IohmmModel truth = planted(4, 4);
    const auto data = sample(truth, 250, 20, 7);
    IohmmOptions base = options_for(0, 4);
    base.restarts = 1;
    base.max_iterations = 60;
    maxent::SelectionOptions s;
    s.pseudo_counts = {1e-3, 1e-1};
    s.refit = false;
    const maxent::SelectionReport r = maxent::select_iohmm(data, base, s);
    std::vector<std::size_t> tried;
    for (const auto& c : r.candidates) tried.push_back(c.latent_states);
    CHECK(tried == std::vector<std::size_t>{1, 1, 2, 2, 4, 4, 8, 8});
    CHECK(r.best().latent_states == 4);
    CHECK(r.fit.model.num_latent_states() == 4);  // the winner's fit on the fit part (no refit)
    CHECK(r.fit.model.initial.size() == 4);
}

TEST_CASE("clone allocation by frequency: the requested total, at least one clone each, by hand", "[learned][select]") {
    auto seqs = [](std::vector<std::size_t> observations) {
        std::vector<ActionObservationSequence> out(1);
        out[0].observations = std::move(observations);
        out[0].actions.assign(out[0].observations.size() - 1, 0);
        return out;
    };
    // Counts 6, 3, 1, 0 and T = 14: quotas 8.4, 4.2, 1.4, 0 -> 8, 4, 1 and 1 for the unseen one.
    const auto a = seqs({0, 0, 0, 0, 0, 0, 1, 1, 1, 2});
    CHECK(maxent::frequency_clones(a, 14, 4) == std::vector<std::size_t>{8, 4, 1, 1});
    // T = 16: quotas 9.6, 4.8, 1.6, 0 -> 9, 4, 1, 1 (15), one more to the largest remainder (0.8).
    CHECK(maxent::frequency_clones(a, 16, 4) == std::vector<std::size_t>{9, 5, 1, 1});
    // Counts 1, 1, 1 and T = 5: quotas 5/3 each, the remainders tie: the lowest indices.
    CHECK(maxent::frequency_clones(seqs({0, 1, 2}), 5, 3) == std::vector<std::size_t>{2, 2, 1});
    // T = O: one each, however skewed (quotas 2.4, 1.2, 0.4, 0 -> 2, 1, 1, 1, one too many).
    CHECK(maxent::frequency_clones(a, 4, 4) == std::vector<std::size_t>{1, 1, 1, 1});
    for (std::size_t T = 4; T < 40; ++T) {
        const auto c = maxent::frequency_clones(a, T, 4);
        CHECK(std::accumulate(c.begin(), c.end(), std::size_t{0}) == T);
        CHECK(*std::min_element(c.begin(), c.end()) >= 1);
    }
    CHECK_THROWS_WITH(maxent::frequency_clones(a, 3, 4), Contains("3 clones cannot give each of the 4 observations"));
    CHECK_THROWS_WITH(maxent::frequency_clones(a, 8, 2), Contains("observation 2, outside [0, 2)"));
}

/// A ring of 6 cells seen through 3 observations, [0, 0, 0, 1, 1, 2] (observation 0 in three
/// cells, 1 in two, 2 in one; no rotation maps the pattern onto itself); action 0 moves one
/// cell clockwise, action 1 one counter-clockwise; uniform start. As a cloned HMM it needs
/// clones {3, 2, 1}: the allocation by frequency of T = 6, not the even one {2, 2, 2}.
IohmmModel skewed_ring() {
    const std::size_t pattern[6] = {0, 0, 0, 1, 1, 2};
    IohmmModel m;
    m.initial = Eigen::VectorXd::Constant(6, 1.0 / 6.0);
    Eigen::MatrixXd cw = Eigen::MatrixXd::Zero(6, 6), ccw = cw, E = Eigen::MatrixXd::Zero(6, 3);
    for (Index z = 0; z < 6; ++z) {
        cw(z, (z + 1) % 6) = 1.0;
        ccw(z, (z + 5) % 6) = 1.0;
        E(z, static_cast<Index>(pattern[z])) = 1.0;
    }
    m.transitions = {cw, ccw};
    m.emissions = {E};
    m.initial_emission = E;
    return m;
}

TEST_CASE("select_cloned_hmm: the allocation by frequency wins where the even one cannot place the states",
          "[learned][select][cloned]") {
    const auto data = sample(skewed_ring(), 100, 15, 9);
    IohmmOptions base = options_for(0, 3);
    base.restarts = 3;
    maxent::SelectionOptions s;
    s.pseudo_counts = {1e-3};
    s.max_latent_states = 12;
    const maxent::SelectionReport r = maxent::select_cloned_hmm(data, base, s);
    // The doubling search over T = 3, 6, 12; T = 3 gives one clone each whatever the allocation
    // (the frequency one is skipped).
    REQUIRE(r.candidates.size() == 5);
    CHECK(r.candidates[0].allocation == maxent::CloneAllocation::even);
    CHECK(r.candidates[1].clones == std::vector<std::size_t>{2, 2, 2});
    CHECK(r.candidates[2].clones == std::vector<std::size_t>{3, 2, 1});
    CHECK(r.candidates[2].allocation == maxent::CloneAllocation::frequency);
    CHECK(r.candidates[4].clones == std::vector<std::size_t>{6, 4, 2});
    for (const auto& c : r.candidates)
        CHECK(std::accumulate(c.clones.begin(), c.clones.end(), std::size_t{0}) == c.latent_states);
    CHECK(r.chosen == 2);
    CHECK(r.clones == std::vector<std::size_t>{3, 2, 1});
    CHECK(r.candidates[2].heldout_per_observation > r.candidates[1].heldout_per_observation + 0.1);
    CHECK(r.fit.model.emissions[0] == maxent::clone_emissions(r.clones));
    CHECK(r.options.prior.transitions == 1.0 + 1e-3);
}

TEST_CASE("the spectral start beats a random start before EM and EM from it recovers the planted emissions",
          "[learned][spectral]") {
    const IohmmModel truth = planted(3, 3);
    const auto data = sample(truth, 300, 20, 5);
    const auto heldout = sample(truth, 100, 20, 6);
    IohmmOptions o = options_for(3, 3);
    const IohmmModel start = maxent::spectral_iohmm_start(data, o);
    CHECK(start == maxent::spectral_iohmm_start(data, o));  // deterministic
    const double truth_ll = maxent::score_sequences(truth, heldout).per_observation;
    const double start_ll = maxent::score_sequences(start, heldout).per_observation;
    // Before any EM step: within 0.1 nats per observation of the truth; every random start of
    // fit_iohmm (restarts 0..4) is worse by more than 0.1.
    CHECK(start_ll > truth_ll - 0.1);
    o.restarts = 5;
    o.max_iterations = 0;
    const maxent::IohmmFit random0 = maxent::fit_iohmm(data, o, heldout);
    REQUIRE(random0.restart_log_likelihood.size() == 5);
    CHECK(random0.heldout_log_likelihood.front() / double(100 * 21) < start_ll - 0.1);
    o.restarts = 1;
    o.spectral = true;
    CHECK(maxent::fit_iohmm(data, o).model == start);  // restart 0 is the spectral start
    // EM from it: the planted emissions up to a permutation, within 0.03.
    o.max_iterations = 200;
    const maxent::IohmmFit fit = maxent::fit_iohmm(data, o);
    CHECK(permuted_distance(fit.model.emissions[0], truth.emissions[0]) < 0.03);
    CHECK(permuted_distance(start.emissions[0], truth.emissions[0]) > 0.03);  // EM did the rest
}

TEST_CASE("EM from the spectral start never decreases its objective (shared and per-action emissions)",
          "[learned][spectral]") {
    const auto data = sample(planted(4, 3), 80, 12, 3);
    for (const EmissionModel e : {EmissionModel::shared, EmissionModel::per_action})
        for (const double alpha : {0.0, 0.05}) {
            IohmmOptions o = options_for(4, 3);
            o.emission = e;
            o.smoothing = alpha;
            o.spectral = true;
            o.restarts = 2;  // restart 1 is random, as without the spectral start
            o.max_iterations = 60;
            o.tolerance = 0.0;
            const maxent::IohmmFit f = maxent::fit_iohmm(data, o);
            const maxent::IohmmModel s = maxent::spectral_iohmm_start(data, o);
            REQUIRE(s.num_latent_states() == 4);
            CHECK(s.emission_model == e);
            if (f.restart == 0) {
                const auto& p = f.penalized_log_likelihood;
                for (std::size_t i = 1; i < p.size(); ++i) CHECK(p[i] >= p[i - 1] - 1e-9 * std::abs(p[i - 1]));
            }
            // The random restart is the one fit_iohmm draws without the spectral start.
            IohmmOptions plain = o;
            plain.spectral = false;
            CHECK(maxent::fit_iohmm(data, plain).restart_log_likelihood[1] == f.restart_log_likelihood[1]);
            // Restart 0 alone, whichever restart won: monotone.
            o.restarts = 1;
            const auto& p = maxent::fit_iohmm(data, o).penalized_log_likelihood;
            for (std::size_t i = 1; i < p.size(); ++i) CHECK(p[i] >= p[i - 1] - 1e-9 * std::abs(p[i - 1]));
        }
}

TEST_CASE("a stop request ends a selection before its next EM step and is reported", "[learned][select][stop]") {
    // Without the flag each search below fits several candidates (L = 1, 2, 4, ...; T = 3, 6,
    // 12); with it raised, none is fitted, nothing is refitted and the report says stopped. A
    // selection that ignored the flag would list candidates and a fitted winner.
    const auto data = sample(planted(3, 3), 40, 10, 3);
    std::atomic<bool> stop{true};
    IohmmOptions base = options_for(0, 3);
    base.restarts = 1;
    base.max_iterations = 20;
    base.stop = &stop;
    maxent::SelectionOptions s;
    s.pseudo_counts = {1e-3};
    s.max_latent_states = 12;
    for (const bool cloned : {false, true}) {
        const maxent::SelectionReport r = cloned ? maxent::select_cloned_hmm(data, base, s) : maxent::select_iohmm(data, base, s);
        CHECK(r.stopped);
        CHECK(r.candidates.empty());
        CHECK(r.fit.iterations == 0);
        CHECK(r.fit.model.num_latent_states() == 0);
    }
    // The same searches run to the end without the request (what the checks above rule out).
    stop = false;
    const maxent::SelectionReport full = maxent::select_iohmm(data, base, s);
    CHECK_FALSE(full.stopped);
    CHECK(full.candidates.size() >= 2);
    CHECK(full.fit.model.num_latent_states() == full.best().latent_states);
}

TEST_CASE("bad selection settings are refused, naming the value", "[learned][select][errors]") {
    const auto data = sample(planted(3, 3), 10, 5, 1);
    const IohmmOptions base = options_for(0, 3);
    maxent::SelectionOptions s;
    s.latent_states = {2, 0};
    CHECK_THROWS_WITH(maxent::select_iohmm(data, base, s), Contains("candidate number of latent states is 0"));
    s.latent_states = {2};
    s.pseudo_counts = {-1.0};
    CHECK_THROWS_WITH(maxent::select_iohmm(data, base, s), Contains("pseudo-count must be finite, >= 0"));
    s.pseudo_counts = {};
    s.standard_errors = -0.5;
    CHECK_THROWS_WITH(maxent::select_iohmm(data, base, s), Contains("standard_errors"));
    s.standard_errors = 1.0;
    s.heldout_fraction = 1.0;
    CHECK_THROWS_WITH(maxent::select_iohmm(data, base, s), Contains("held-out fraction must be in (0, 1), got 1"));
    s.heldout_fraction = 0.2;
    s.latent_states = {2};
    CHECK_THROWS_WITH(maxent::select_cloned_hmm(data, base, s), Contains("clone total of 2 cannot give each of the 3"));
    CHECK_THROWS_WITH(maxent::select_iohmm(std::span(data).first(1), base, s), Contains("1 sequences cannot be split"));
    IohmmOptions zero = options_for(0, 3);
    CHECK_THROWS_WITH(maxent::spectral_iohmm_start(data, zero), Contains("L must be at least 1, got 0"));
}

}  // namespace test_learned_select
