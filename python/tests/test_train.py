# train(): results as numpy arrays, every policy class, seeds on threads, feedbacks written in
# Python (and their errors), learned beliefs with every policy class but B.
import itertools
import math
import pickle
import re

import numpy as np
import pytest

import maxent
from conftest import ring_arrays


def test_train_result(noisy_room):
    p = maxent.BeliefAveragedPolicy(16, 4)
    r = maxent.train(noisy_room, maxent.BayesFilter(noisy_room), p, maxent.RegMBE(0.02), maxent.BatchMeanBaseline(),
                     maxent.ConstantStep(0.3), iterations=60, batch=10, seed=2)
    assert r.iterations == 60 and r.seed == 2 and not r.stopped_early
    for a in (r.true_entropy, r.feedback, r.belief_entropy_sum, r.gradient_norm):
        assert a.shape == (60,) and a.dtype == np.float64 and np.all(np.isfinite(a))
    assert np.all(r.true_entropy <= math.log(16) + 1e-12)
    assert r.parameters.shape == (16, 4)
    np.testing.assert_array_equal(r.policy.parameters, r.parameters)
    np.testing.assert_array_equal(p.parameters, np.zeros((16, 4)))  # the given policy is not changed
    w = r.windowed_means(20)
    assert len(w) == 3 and w[0]["low"] <= w[0]["mean"] <= w[0]["high"]
    # training continues from the policy's θ
    r2 = maxent.train(noisy_room, None, r.policy, "reg-mbe", iterations=5, seed=2)
    assert not np.array_equal(r2.parameters, r.parameters)


@pytest.mark.parametrize("make,rows", [
    (maxent.ObservationPolicy, 16), (maxent.BeliefAveragedPolicy, 16), (maxent.BelievedStatePolicy, 16),
    (maxent.BeliefMixturePolicy, 16), (maxent.TabularBeliefPolicy, 16)])
def test_every_policy_class(noisy_room, make, rows):
    r = maxent.train(noisy_room, maxent.NoisyBelief(maxent.BayesFilter(noisy_room), 0.01), make(rows, 4), "mbe",
                     "leave-one-out", maxent.Adam(0.05), iterations=15, counting="authors")
    assert r.iterations == 15 and r.policy.class_name == make.__name__


def test_seeds_on_threads_are_the_single_runs(noisy_room):
    p = maxent.BeliefAveragedPolicy(16, 4)
    runs = maxent.train(noisy_room, None, p, "mse", seeds=[4, 5, 6], iterations=30, threads=2)
    assert [r.seed for r in runs] == [4, 5, 6]
    one = maxent.train(noisy_room, None, p, "mse", seed=5, iterations=30, threads=1)
    np.testing.assert_array_equal(runs[1].parameters, one.parameters)
    np.testing.assert_array_equal(runs[1].true_entropy, one.true_entropy)


def test_python_feedback_equals_builtin(noisy_room):
    def entropy_of_states(t):
        _, counts = np.unique(t.counted_states, return_counts=True)
        q = counts / counts.sum()
        return float(-(q * np.log(q)).sum())

    p = maxent.BeliefAveragedPolicy(16, 4)
    a = maxent.train(noisy_room, None, p, entropy_of_states, iterations=20, seed=1)
    b = maxent.train(noisy_room, None, p, "mse", iterations=20, seed=1)
    np.testing.assert_allclose(a.feedback, b.feedback, rtol=1e-12)
    np.testing.assert_allclose(a.parameters, b.parameters, rtol=1e-9, atol=1e-12)


def test_python_feedback_reads_records(noisy_room):
    seen = {}

    def reads(t):
        seen["beliefs"] = t.beliefs.shape
        seen["believed"] = len(t.believed)
        seen["entropy"] = len(t.belief_entropy)
        seen["dims"] = (t.horizon, t.num_states, t.num_observations, t.belief_dimension, t.counting)
        return maxent.MBE()(t)

    f = maxent.UserFeedback(reads, belief_entropy=True, believed_states=True, beliefs=True)
    maxent.train(noisy_room, None, maxent.BeliefAveragedPolicy(16, 4), f, iterations=2, seeds=[0, 1], threads=2)
    assert seen["beliefs"] == (16, 16) and seen["believed"] == 16 and seen["entropy"] == 16
    assert seen["dims"] == (16, 16, 16, 16, "paper")


def test_python_feedback_errors(room):
    p = maxent.BeliefAveragedPolicy(9, 4)

    def boom(t):
        raise ValueError("boom in feedback")

    with pytest.raises(ValueError, match="boom in feedback"):
        maxent.train(room, None, p, boom, iterations=3)
    with pytest.raises(maxent.ConfigError, match=r"feedback <lambda>: returned 'x', not a float"):
        maxent.train(room, None, p, lambda t: "x", iterations=3)
    with pytest.raises(maxent.NumericError, match="iteration 0"):
        maxent.train(room, None, p, lambda t: float("nan"), iterations=3)
    kept = []
    maxent.train(room, None, p, lambda t: kept.append(t) or 0.0, iterations=1, batch=1)
    with pytest.raises(maxent.ConfigError, match="only valid during the feedback call"):
        kept[0].states


def test_policy_sized_for_another_agent(room):
    with pytest.raises(maxent.ConfigError, match="16"):
        maxent.train(room, None, maxent.BeliefAveragedPolicy(16, 4), iterations=2)


def test_train_learned(noisy_room):
    r = maxent.train_learned(noisy_room, maxent.BeliefAveragedPolicy(8, 4), "reg-mbe", latent_states=8, warmup=50,
                             heldout=10, refit_every=10, refit_iterations=2, restarts=1, em_iterations=10,
                             iterations=20)
    assert r.parameters.shape == (8, 4) and len(r.fits) == 2
    assert r.fits[1]["iteration"] == 10 and math.isfinite(r.fits[0]["heldout_log_likelihood"])


def test_train_learned_hands_back_its_model_scored_and_evaluated(noisy_room):
    r = maxent.train_learned(noisy_room, maxent.BeliefAveragedPolicy(8, 4), "reg-mbe", latent_states=8, warmup=40,
                             heldout=10, refit_every=5, refit_iterations=2, restarts=1, em_iterations=8,
                             iterations=12, batch=3, seed=2)
    assert r.prior == "learned"  # the default: b_1 = the learned model's initial distribution
    m = r.belief_model
    assert (m.num_states, m.num_actions, m.num_observations, m.horizon) == (8, 4, 16, noisy_room.horizon)
    np.testing.assert_allclose(r.belief_filter.initial(), m.initial_distribution, rtol=0, atol=1e-15)
    # The scoring call is the trainer's held-out forward pass: the last fit's reported value.
    held = r.heldout_episodes
    assert len(held) == 10 and len(held[0][1]) == len(held[0][0]) + 1
    assert abs(maxent.score_sequences(m, held) - r.fits[-1]["heldout_log_likelihood"]) <= 1e-12
    truth = maxent.score_sequences(noisy_room, held)
    assert math.isfinite(truth) and truth > r.fits[-1]["heldout_log_likelihood"] - 1.0
    total = maxent.score_sequences(noisy_room, held, per_observation=False)
    assert total == pytest.approx(truth * sum(len(o) for _, o in held), rel=1e-12)
    # evaluate runs the learned policy with the learned filter on fresh episodes of the real world,
    # the same bits as a filter rebuilt on the returned model.
    e = maxent.evaluate(noisy_room, r.belief_filter, r.policy, episodes=6, seed=1)
    f = maxent.evaluate(noisy_room, maxent.BayesFilter(m, "model"), r.policy, episodes=6, seed=1)
    assert math.isfinite(e["true_entropy"]["mean"]) and e == f
    # The paper's uniform b_1 is one option away.
    u = maxent.train_learned(noisy_room, maxent.BeliefAveragedPolicy(8, 4), "reg-mbe", latent_states=8, warmup=40,
                             heldout=10, refit_every=0, restarts=1, em_iterations=8, iterations=2, batch=3,
                             learned_prior=False)
    assert u.prior == "uniform"
    np.testing.assert_array_equal(u.belief_filter.initial(), np.full(8, 1 / 8))
    # Pickling keeps the learned model, its filter's start and the held-out episodes.
    q = pickle.loads(pickle.dumps(r))
    assert q.prior == "learned" and maxent.score_sequences(q.belief_model, q.heldout_episodes) == \
        maxent.score_sequences(m, held)
    # A plain run has none of these.
    plain = maxent.train(noisy_room, None, maxent.BeliefAveragedPolicy(16, 4), iterations=1, batch=2)
    assert plain.belief_model is None and plain.belief_filter is None and plain.prior is None


def test_score_sequences_by_enumeration(ring):
    # P(o_1..o_{K+1} | a_1..a_K) summed over every state path of the ring (conftest), then per observation.
    P, Z, mu = ring_arrays()
    data = maxent.uniform_episodes(ring, 5, seed=3)
    total, count = 0.0, 0
    for actions, obs in data:
        p = 0.0
        for path in itertools.product(range(4), repeat=len(obs)):
            q = mu[path[0]] * Z[path[0], obs[0]]
            for k, a in enumerate(actions):
                q *= P[a, path[k], path[k + 1]] * Z[path[k + 1], obs[k + 1]]
            p += q
        total += math.log(p)
        count += len(obs)
    assert maxent.score_sequences(ring, data) == pytest.approx(total / count, rel=1e-12, abs=0)
    assert maxent.score_sequences(ring, [(list(a), list(o)) for a, o in data]) == maxent.score_sequences(ring, data)
    with pytest.raises(maxent.ConfigError, match="score_sequences: no sequences"):
        maxent.score_sequences(ring, [])
    with pytest.raises(maxent.ConfigError, match=r"observation 7 is outside \[0, 2\)"):
        maxent.score_sequences(ring, [([0], [0, 7])])


def doc_defaults(fn):
    """The keyword defaults in a pybind11 function's signature line: {name: repr}."""
    sig = fn.__doc__.splitlines()[0]
    return dict(re.findall(r"(\w+): \w+ = ([^,)]+)", sig))


def test_learned_belief_defaults_are_one_set():
    d = maxent.learned_belief_defaults()
    assert d["learned_prior"] is True
    t = doc_defaults(maxent.train_learned)
    for k in ("smoothing", "restarts", "em_iterations", "warmup", "heldout", "refit_every", "refit_iterations",
              "window", "learned_prior"):
        assert t[k] == repr(d[k]), k
    f = doc_defaults(maxent.fit_belief_model)
    assert (f["smoothing"], f["restarts"], f["max_iterations"]) == \
        (repr(d["smoothing"]), repr(d["restarts"]), repr(d["em_iterations"]))


# A small learned model (L = 5 latent states of the 16-state room), refitted twice in 8 iterations.
LEARNED = dict(latent_states=5, warmup=30, heldout=5, refit_every=3, refit_iterations=2, restarts=1,
               em_iterations=5, batch=4)


@pytest.mark.parametrize("make,rows", [
    (maxent.ObservationPolicy, 16),  # the world's observations
    (maxent.BeliefAveragedPolicy, 5), (maxent.BelievedStatePolicy, 5), (maxent.BeliefMixturePolicy, 5)])  # L
def test_train_learned_every_policy_class(noisy_room, make, rows):
    r = maxent.train_learned(noisy_room, make(rows, 4), "reg-mbe", iterations=8, **LEARNED)
    assert r.iterations == 8 and r.policy.class_name == make.__name__
    assert r.parameters.shape == (rows, 4) and np.any(r.parameters != 0)
    np.testing.assert_array_equal(r.policy.parameters, r.parameters)
    for a in (r.true_entropy, r.feedback, r.belief_entropy_sum, r.gradient_norm):
        assert a.shape == (8,) and np.all(np.isfinite(a))
    assert np.all(r.true_entropy <= math.log(16) + 1e-12)
    # b over L = 5 latent states: H(b) <= log 5 at each of the 16 recorded steps (horizon 16, "paper" counting)
    assert np.all(r.belief_entropy_sum <= 16 * math.log(5) + 1e-9)
    assert [f["iteration"] for f in r.fits] == [0, 3, 6]


def test_train_learned_refusals(noisy_room):
    with pytest.raises(maxent.ConfigError, match=r"^train_learned: TabularBeliefPolicy: learned beliefs: the "
                       r"belief-state class B is not offered with a learned model \(its table rows are beliefs, "
                       r"which change meaning at every refit\)$"):
        maxent.train_learned(noisy_room, maxent.TabularBeliefPolicy(5, 4), iterations=2, **LEARNED)
    # Sizes: the library's check against the agent (L latent states; the world's observations and actions).
    with pytest.raises(maxent.ConfigError, match=r"BeliefAveragedPolicy: parameters are 16 x 4 \(belief states x "
                       r"actions\) but the belief model has 5 states and the world 4 actions"):
        maxent.train_learned(noisy_room, maxent.BeliefAveragedPolicy(16, 4), iterations=2, **LEARNED)
    with pytest.raises(maxent.ConfigError, match=r"BelievedStatePolicy: parameters are 5 x 3 .* but the belief model "
                       r"has 5 states and the world 4 actions"):
        maxent.train_learned(noisy_room, maxent.BelievedStatePolicy(5, 3), iterations=2, **LEARNED)
    with pytest.raises(maxent.ConfigError, match=r"ObservationPolicy: parameters are 5 x 4 \(observations x "
                       r"actions\) but the world has 16 observations and 4 actions"):
        maxent.train_learned(noisy_room, maxent.ObservationPolicy(5, 4), iterations=2, **LEARNED)
    # latent_states = 0 is the world's S = 16
    with pytest.raises(maxent.ConfigError, match="the belief model has 16 states"):
        maxent.train_learned(noisy_room, maxent.BeliefMixturePolicy(5, 4), iterations=2,
                             **dict(LEARNED, latent_states=0))


@pytest.mark.parametrize("estimator,step", [("batch-mean", "constant"), ("per-step", "lazy-adam")])
def test_learned_observation_policy_is_the_plain_trainer(noisy_room, estimator, step):
    # optim/learned_belief.hpp: the trajectories draw from the trainer's streams (seed, k, n), the warm-up,
    # held-out data and the fits from seeds derived apart; the Bayes filter draws nothing. The observation
    # policy reads no belief and MSE counts true states, so with a learned model (and its refits) the run
    # is the run with the world's exact filter, bit for bit; only the recorded belief entropies differ.
    p = maxent.ObservationPolicy(16, 4)
    learned = maxent.train_learned(noisy_room, p, "mse", estimator, step, iterations=8, seeds=[3, 4], threads=2,
                                   **LEARNED)
    for r in learned:
        exact = maxent.train(noisy_room, None, p, "mse", estimator, step, iterations=8, batch=4, seed=r.seed)
        np.testing.assert_array_equal(r.parameters, exact.parameters)
        np.testing.assert_array_equal(r.true_entropy, exact.true_entropy)
        np.testing.assert_array_equal(r.feedback, exact.feedback)
        assert len(r.fits) == 3
        # the beliefs were the learned model's (5 latent states), not the world's (16 states)
        assert np.all(r.belief_entropy_sum <= 16 * math.log(5) + 1e-9)
        assert not np.array_equal(r.belief_entropy_sum, exact.belief_entropy_sum)
