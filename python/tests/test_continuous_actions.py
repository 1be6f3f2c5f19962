# Python simulators with continuous actions (action_dim, action_low, action_high) and
# GaussianPolicy: the one-step world Reach, whose objective is known in closed form (the C++
# test tests/unit/test_continuous_actions.cpp derives it), evaluated and trained; the policy's
# mean, log density and score against a numpy re-implementation and finite differences;
# save / load / pickle round trips; seeds and threads; every refusal named.
import math
import os
import pickle

import numpy as np
import pytest

import maxent

LOG2 = math.log(2.0)
KAPPA = math.atanh(0.5)


def normal_cdf(z):
    return 0.5 * math.erfc(-z / math.sqrt(2.0))


class Reach:
    """One step (horizon 2, both states counted): s_1 = 0, the action a in [-1, 1] moves the robot
    to s_2 = a; bin(s) = 1 if s > 1/2. The observation is the position with N(0, 0.1^2) noise. MSE's
    feedback is log 2 when s_2 > 1/2, else 0, so J = log 2 P(a > 1/2); under the bias-only Gaussian
    (μ = θ[0, 0], log σ = θ[0, 1]), a = tanh(u), u ~ N(μ, σ²): J(θ) = log 2 Φ((μ - atanh(1/2)) / σ)."""
    horizon = 2
    num_state_bins = 2
    action_dim = 1
    action_low = [-1.0]
    action_high = [1.0]
    observation_dim = 1

    def __init__(self):
        self.actions = []  # every action array the world received

    def sample_initial_state(self, rng):
        return 0.0

    def sample_initial_observation(self, s, rng):
        return np.array([s + 0.1 * rng.normal()])

    def sample_next_state(self, s, a, rng):
        self.actions.append(a)
        return float(a[0])

    def sample_observation(self, a, s, rng):
        return np.array([s + 0.1 * rng.normal()])

    def observation_log_likelihood(self, a, o, s):
        return -0.5 * (o[0] - s) ** 2 / 0.01

    def state_bin(self, s):
        return 1 if s > 0.5 else 0


def reach_objective(theta):
    return LOG2 * normal_cdf((theta[0, 0] - KAPPA) / math.exp(theta[0, 1]))


def reach_setup(particles=20):
    w = Reach()
    return w, maxent.ParticleFilter(w, particles=particles), maxent.ActionBox(w.action_low, w.action_high)


def within(e, expected, p):
    """evaluate()'s mean true entropy against J: the per-episode value is log 2 times a Bernoulli(p)
    draw, so 5 standard errors bound the deviation (fails with probability < 1e-6 for a correct J)."""
    n = e["true_entropy"]["n"]
    se = LOG2 * math.sqrt(max(p * (1.0 - p), 1e-4) / n)
    assert abs(e["true_entropy"]["mean"] - expected) < 5.0 * se, (e["true_entropy"], expected, se)


@pytest.mark.parametrize("theta", [(0.0, 0.0), (1.0, -0.5), (-0.3, 0.4)])
def test_reach_evaluation_matches_closed_form(theta):
    w, pf, box = reach_setup()
    p = maxent.GaussianPolicy(box)
    p.parameters = np.array([theta])
    J = reach_objective(p.parameters)
    e = maxent.evaluate(w, pf, p, episodes=1500, seed=4, knn_k=0)
    within(e, J, J / LOG2)
    # The world received each action as a read-only float64 array of shape (1,) inside the box.
    a = w.actions[-1]
    assert isinstance(a, np.ndarray) and a.dtype == np.float64 and a.shape == (1,) and not a.flags.writeable
    assert all(-1.0 < x[0] < 1.0 for x in w.actions)


def test_uniform_policy_of_the_box_is_the_baseline():
    w, pf, _ = reach_setup()
    u = maxent.evaluate_uniform(w, pf, episodes=1500, seed=5, knn_k=0)
    within(u, LOG2 * 0.25, 0.25)  # P(a > 1/2) = 1/4 under the uniform policy of [-1, 1]
    e = maxent.evaluate(w, pf, maxent.GaussianPolicy(maxent.ActionBox([-1], [1])), episodes=10, seed=5, knn_k=0)
    assert u.keys() == e.keys()


def test_training_approaches_log2():
    w, pf, box = reach_setup()
    p = maxent.GaussianPolicy(box)
    r = maxent.train(w, pf, p, "mse", "batch-mean", maxent.Adam(0.05), iterations=60, batch=10, seed=3)
    q = r.policy
    assert isinstance(q, maxent.GaussianPolicy) and np.array_equal(q.parameters, r.parameters)
    assert np.array_equal(p.parameters, np.zeros((1, 2)))  # the initial policy is not changed
    start, end = reach_objective(np.zeros((1, 2))), reach_objective(q.parameters)
    assert start < 0.21 and end > 0.95 * LOG2  # J(θ) from 0.2 to within 5% of its supremum log 2
    assert np.mean(r.true_entropy[-10:]) > 0.9 * LOG2


def test_seeds_and_threads_give_the_same_bits():
    w, pf, box = reach_setup()
    p = maxent.GaussianPolicy(box, initial_log_std=-0.5)
    kw = dict(iterations=5, batch=4, seeds=[1, 2])
    a = maxent.train(w, pf, p, "mse", "batch-mean", maxent.Adam(0.1), threads=1, **kw)
    b = maxent.train(w, pf, p, "mse", "batch-mean", maxent.Adam(0.1), threads=2, **kw)
    c = maxent.train(w, pf, p, "mse", "batch-mean", maxent.Adam(0.1), threads=1, **kw)
    assert [x.parameters.tolist() for x in a] == [x.parameters.tolist() for x in b] == [x.parameters.tolist() for x in c]
    assert not np.array_equal(a[0].parameters, a[1].parameters)
    e1 = maxent.evaluate(w, pf, a[0].policy, episodes=50, seed=2, knn_k=0)
    e2 = maxent.evaluate(w, pf, a[0].policy, episodes=50, seed=2, knn_k=0)
    assert e1 == e2


# --- the policy against numpy -------------------------------------------------------------------

LOW, HIGH = np.array([-1.0, 0.0]), np.array([2.0, 3.0])


def numpy_policy(theta, low, belief, observation, dependent):
    """(x, μ, σ) of GaussianPolicy(box, len(belief), RawObservationFeatures(len(observation))):
    x = (1, φ(b), o, 1)."""
    x = np.concatenate([[1.0], belief, observation, [1.0]])
    d = len(low)
    mu = x @ theta[:, :d]
    log_sigma = x @ theta[:, d:] if dependent else theta[0, d:]
    return x, mu, np.exp(log_sigma)


def numpy_log_density(theta, low, high, belief, observation, a, dependent):
    _, mu, sigma = numpy_policy(theta, low, belief, observation, dependent)
    c, h = (low + high) / 2, (high - low) / 2
    y = (a - c) / h
    u = np.arctanh(y)
    return float(np.sum(-0.5 * ((u - mu) / sigma) ** 2 - np.log(sigma) - 0.5 * math.log(2 * math.pi)
                        - np.log1p(-y * y) - np.log(h)))


def numpy_score(theta, low, high, belief, observation, a, dependent):
    x, mu, sigma = numpy_policy(theta, low, belief, observation, dependent)
    d = len(low)
    c, h = (low + high) / 2, (high - low) / 2
    eps = (np.arctanh((a - c) / h) - mu) / sigma
    g = np.zeros_like(theta)
    g[:, :d] = np.outer(x, eps / sigma)
    if dependent:
        g[:, d:] = np.outer(x, eps * eps - 1.0)
    else:
        g[0, d:] = eps * eps - 1.0
    return g


# (box, belief, observation, actions): two coordinates; and one coordinate with 5 belief features
# (an odd number of θ columns with a state-independent σ: the unpaired column's score rows).
CASES = [
    ((LOW, HIGH), np.array([0.2, 0.5, 0.3]), np.array([0.7, -1.2]), [np.array([0.4, 1.1]), np.array([-0.9, 2.95])]),
    ((np.array([-2.0]), np.array([2.0])), np.array([0.1, 0.2, 0.3, 0.15, 0.25]), np.array([0.3]),
     [np.array([0.7]), np.array([-1.9])]),
]


@pytest.mark.parametrize("case", range(len(CASES)))
@pytest.mark.parametrize("dependent", [False, True])
def test_density_and_score_against_numpy(case, dependent):
    (low, high), belief, obs, actions = CASES[case]
    d, fb, fo = len(low), len(belief), len(obs) + 1
    rng = np.random.default_rng(7)
    p = maxent.GaussianPolicy(maxent.ActionBox(low, high), fb, maxent.RawObservationFeatures(len(obs)),
                              state_dependent_std=dependent)
    F = 1 + fb + fo
    assert p.num_features == F and p.parameters.shape == (F, 2 * d) and p.action_dim == d
    theta = 0.3 * rng.standard_normal((F, 2 * d))
    p.parameters = theta
    mean, std = p.mean_and_std(belief=belief, observation=obs)
    _, mu, sigma = numpy_policy(theta, low, belief, obs, dependent)
    np.testing.assert_allclose(mean, mu, rtol=1e-13, atol=1e-14)
    np.testing.assert_allclose(std, sigma, rtol=1e-13)
    for a in actions:
        np.testing.assert_allclose(p.log_density(a, belief=belief, observation=obs),
                                   numpy_log_density(theta, low, high, belief, obs, a, dependent), rtol=1e-12)
        score = p.score(a, belief=belief, observation=obs)
        np.testing.assert_allclose(score, numpy_score(theta, low, high, belief, obs, a, dependent), rtol=1e-12,
                                   atol=1e-14)
        # and the score as central finite differences of the policy's own log density
        fd = np.zeros_like(theta)
        for i in range(theta.shape[0]):
            for j in range(theta.shape[1]):
                t = theta.copy()
                t[i, j] += 1e-6
                p.parameters = t
                up = p.log_density(a, belief=belief, observation=obs)
                t[i, j] -= 2e-6
                p.parameters = t
                fd[i, j] = (up - p.log_density(a, belief=belief, observation=obs)) / 2e-6
        p.parameters = theta
        np.testing.assert_allclose(score, fd, atol=1e-6)
    # a draw lies in the box, and its score is the score at the drawn action
    a, s = p.sample(maxent.Rng(3), belief=belief, observation=obs)
    assert np.all(a > low) and np.all(a < high)
    np.testing.assert_allclose(s, p.score(a, belief=belief, observation=obs), rtol=1e-9, atol=1e-12)


# --- save / load / pickle -----------------------------------------------------------------------

def test_save_load_pickle_round_trips(tmp_path):
    w, pf, box = reach_setup()
    r = maxent.train(w, pf, maxent.GaussianPolicy(box, initial_log_std=-0.2), "mse", "batch-mean",
                     maxent.Adam(0.05), iterations=5, batch=4, seed=1)
    policies = [r.policy,
                maxent.GaussianPolicy(maxent.ActionBox(LOW, HIGH), 3, maxent.RbfObservationFeatures(
                    np.array([[0.0, 1.0], [1.0, 0.5]]), 0.7), initial_log_std=0.5, state_dependent_std=True)]
    shape = policies[1].parameters.shape
    policies[1].parameters = np.arange(shape[0] * shape[1], dtype=float).reshape(shape) / 10
    for i, p in enumerate(policies):
        q = pickle.loads(pickle.dumps(p))
        path = p.save(tmp_path / f"g{i}")
        loaded = maxent.load_policy(path)
        for x in (q, loaded, p.copy()):
            assert x == p and x is not p
            assert x.parameters.tobytes() == p.parameters.tobytes() and x.box == p.box
    # a loaded policy evaluates to the same bits; a changed copy is no longer equal
    e = maxent.evaluate(w, pf, policies[0], episodes=40, seed=9, knn_k=0)
    assert maxent.evaluate(w, pf, maxent.load_policy(tmp_path / "g0.npz"), episodes=40, seed=9, knn_k=0) == e
    c = policies[0].copy()
    c.parameters = c.parameters + 1.0
    assert c != policies[0]
    assert pickle.loads(pickle.dumps(r)) == r  # the TrainResult with its GaussianPolicy
    assert pickle.loads(pickle.dumps(box)) == box and maxent.ActionBox([-1], [2]) != box


def test_callable_features_refuse_pickling():
    p = maxent.GaussianPolicy(maxent.ActionBox([0], [1]), 0, maxent.UserObservationFeatures(lambda o: o, 1))
    with pytest.raises(TypeError, match="Python callable"):
        pickle.dumps(p)


# --- errors -------------------------------------------------------------------------------------

def with_attrs(**attrs):
    return type("Bad", (Reach,), attrs)()


@pytest.mark.parametrize("attrs,match", [
    (dict(action_low=[-1.0, 0.0]), r"action_low is \[-1.0, 0.0\]; action_dim = 1 asks for a sequence of 1"),
    (dict(action_high=[float("nan")]), r"coordinate 0 is \[-1, nan\]"),
    (dict(action_low=[1.0], action_high=[-1.0]), r"coordinate 0 is \[1, -1\]"),
    (dict(action_low="a"), r"action_low is 'a'"),
    (dict(action_dim=0), r"action_dim is 0"),
    (dict(observation_dim=None), None),
    (dict(num_actions=2), r"both action_dim .* and num_actions"),
])
def test_bad_worlds_are_named(attrs, match):
    if "observation_dim" in attrs:
        class NoObs:  # continuous actions, index observations: refused with what to declare
            horizon, num_state_bins, action_dim, action_low, action_high = 2, 2, 1, [-1.0], [1.0]
            num_observations = 2
        with pytest.raises(maxent.ConfigError, match="declares action_dim .* but no observation_dim; .* declare "
                                                     "observation_dim = d"):
            maxent.ParticleFilter(NoObs(), particles=20)
        return
    with pytest.raises(maxent.ConfigError, match=match):
        maxent.ParticleFilter(with_attrs(**attrs), particles=20)


def test_box_and_policy_errors():
    with pytest.raises(maxent.ConfigError, match=r"ActionBox: upper is \[1\]: expected 2 numbers"):
        maxent.ActionBox([0, 0], [1])
    with pytest.raises(maxent.ConfigError, match=r"ActionBox: lower is \[0, inf\]: entry 1 is inf"):
        maxent.ActionBox([0, float("inf")], [1, 2])
    with pytest.raises(maxent.ConfigError, match=r"coordinate 0 is \[2, 2\]"):
        maxent.ActionBox([2], [2])
    with pytest.raises(maxent.ConfigError, match="features 3 is not an ObservationFeatures"):
        maxent.GaussianPolicy(maxent.ActionBox([0], [1]), 0, 3)
    with pytest.raises(maxent.NumericError, match="log σ of action coordinate 0 is 50"):
        maxent.GaussianPolicy(maxent.ActionBox([0], [1]), initial_log_std=50.0)
    p = maxent.GaussianPolicy(maxent.ActionBox([0], [1]))
    with pytest.raises(maxent.ConfigError, match=r"expected a 1 x 2 array, got an array of shape \(2, 1\)"):
        p.parameters = np.zeros((2, 1))
    with pytest.raises(maxent.NumericError, match=r"entry \[0, 1\] is nan"):
        p.parameters = np.array([[0.0, float("nan")]])
    with pytest.raises(maxent.ConfigError, match=r"action coordinate 0 = 1.5 is outside the box \[0, 1\]"):
        p.log_density([1.5])
    with pytest.raises(maxent.ConfigError, match=r"action is \[0.5, 0.5\]: expected 1 numbers"):
        p.log_density([0.5, 0.5])
    with pytest.raises(maxent.ConfigError, match="reads no belief features"):
        p.log_density([0.5], belief=[1.0])


def test_policy_and_world_mismatches_are_named(noisy_room):
    w, pf, box = reach_setup()
    two = maxent.GaussianPolicy(maxent.ActionBox([-1, -1], [1, 1]))
    with pytest.raises(maxent.ConfigError, match=r"the GaussianPolicy's action box is \[-1, 1\] x \[-1, 1\] "
                                                 r"\(dimension 2\), the world's is \[-1, 1\] \(action_dim = 1\)"):
        maxent.train(w, pf, two, iterations=1)
    other = maxent.GaussianPolicy(maxent.ActionBox([-1], [2]))
    with pytest.raises(maxent.ConfigError, match=r"action box is \[-1, 2\] .* the world's is \[-1, 1\]"):
        maxent.evaluate(w, pf, other, episodes=2, knn_k=0)
    with pytest.raises(maxent.ConfigError, match="built for 5 belief features but the agent's belief model gives 2"):
        maxent.train(w, pf, maxent.GaussianPolicy(box, 5), iterations=1)
    # an index policy on a continuous world, and the Gaussian policy on index worlds
    with pytest.raises(maxent.ConfigError, match="continuous .* GaussianPolicy, not BeliefAveragedPolicy"):
        maxent.train(w, pf, maxent.BeliefAveragedPolicy(2, 2), iterations=1)
    with pytest.raises(maxent.ConfigError, match="continuous .* GaussianPolicy, not ObservationFeaturePolicy"):
        maxent.evaluate(w, pf, maxent.ObservationFeaturePolicy(maxent.RawObservationFeatures(1), 2), episodes=2)
    gauss = maxent.GaussianPolicy(box)
    with pytest.raises(maxent.ConfigError, match="GaussianPolicy draws continuous actions; a finite Model"):
        maxent.train(noisy_room, None, gauss, iterations=1)
    with pytest.raises(maxent.ConfigError, match="GaussianPolicy draws continuous actions; a finite Model"):
        maxent.evaluate(noisy_room, None, gauss, episodes=2)

    class Index:  # Reach with index actions
        horizon, num_state_bins, num_actions, num_observations = 2, 2, 2, 2
        sample_initial_state = Reach.sample_initial_state
        state_bin = Reach.state_bin

        def sample_initial_observation(self, s, rng):
            return 0

        def sample_next_state(self, s, a, rng):
            return float(a)

        def sample_observation(self, a, s, rng):
            return 0

        def observation_likelihood(self, a, o, s):
            return 1.0
    ipf = maxent.ParticleFilter(Index(), particles=20)
    with pytest.raises(maxent.ConfigError, match="GaussianPolicy draws continuous actions; this world's actions "
                                                 "are indices .* declares action_dim = d"):
        maxent.train(Index(), ipf, gauss, iterations=1)
    with pytest.raises(maxent.ConfigError, match="GaussianPolicy draws continuous actions"):
        maxent.evaluate(Index(), ipf, gauss, episodes=2)
    with pytest.raises(maxent.ConfigError, match="built for a world with index actions, and .* declares action_dim"):
        maxent.evaluate(w, ipf, gauss, episodes=2)
