# filter_sequence: the beliefs and per-step log-likelihoods of a finite model (known or learned)
# along one recorded sequence, against a hand computation, a BayesFilter loop and score_sequences.
import math

import numpy as np
import pytest

import maxent


def two_states():
    """States L, R; listen keeps the state, switch swaps it; hear-L / hear-R with accuracy 0.8
    (also for o_1); mu = (0.75, 0.25)."""
    P = np.array([np.eye(2), [[0.0, 1.0], [1.0, 0.0]]])
    Z = np.array([[0.8, 0.2], [0.2, 0.8]])
    return maxent.Model(P, Z, np.array([0.75, 0.25]), 3)


# o_1 = hear-L, listen, o_2 = hear-L, switch, o_3 = hear-R
ACTIONS, OBSERVATIONS = [0, 1], [0, 0, 1]


def test_by_hand_from_the_uniform_prior():
    r = maxent.filter_sequence(two_states(), ACTIONS, OBSERVATIONS)
    assert r["prior"] == "uniform" and r["first_observation"] == "not_filtered"
    np.testing.assert_array_equal(r["prior_belief"], [0.5, 0.5])
    # b_1 = (1/2, 1/2); listen, hear-L: (0.4, 0.1) / 0.5; switch (0.2, 0.8), hear-R: (0.04, 0.64) / 0.68
    np.testing.assert_allclose(r["beliefs"], [[0.5, 0.5], [0.8, 0.2], [1 / 17, 16 / 17]], rtol=0, atol=1e-15)
    np.testing.assert_allclose(r["log_likelihood"], np.log([0.5, 0.5, 0.68]), rtol=0, atol=1e-15)


def test_by_hand_from_mu_with_o1_filtered():
    r = maxent.filter_sequence(two_states(), ACTIONS, OBSERVATIONS, "model", first_observation="filtered")
    assert r["prior"] == "model"
    np.testing.assert_allclose(r["beliefs"], [[12 / 13, 1 / 13], [48 / 49, 1 / 49], [1 / 193, 192 / 193]],
                               rtol=0, atol=1e-15)
    # P(o_1..o_3 | listen, switch) = 0.75 * 0.8^3 + 0.25 * 0.2^3 = 0.386 (enumeration of s_1)
    assert math.isclose(r["log_likelihood"].sum(), math.log(0.386), rel_tol=1e-14)
    total = maxent.score_sequences(two_states(), [(ACTIONS, OBSERVATIONS)], per_observation=False)
    assert math.isclose(r["log_likelihood"].sum(), total, rel_tol=1e-12)


def test_beliefs_are_a_bayes_filter_loop_bit_for_bit():
    world = maxent.grid_world(4, 4, observation="gaussian", variance=10.0)
    for actions, observations in maxent.uniform_episodes(world, 3, seed=5):
        for prior in (None, "model"):
            r = maxent.filter_sequence(world, actions, observations, prior)
            f = maxent.BayesFilter(world, prior)
            b = f.initial()
            np.testing.assert_array_equal(r["beliefs"][0], b)
            for t, (a, o) in enumerate(zip(actions, observations[1:]), start=1):
                b = f.update(b, int(a), int(o))  # (BayesFilter.update reads a numpy integer as a label)
                np.testing.assert_array_equal(r["beliefs"][t], b)
        assert r["beliefs"].shape == (len(observations), 16)


def test_a_learned_model_starts_from_its_mu_and_sums_to_score_sequences():
    world = maxent.grid_world(3, 3, observation="gaussian", variance=10.0)
    episodes = maxent.uniform_episodes(world, 20, seed=1)
    model, _ = maxent.fit_belief_model(episodes, 4, world.num_actions, world.num_observations, horizon=9,
                                       restarts=1, max_iterations=20)
    actions, observations = episodes[0]
    r = maxent.filter_sequence(model, actions, observations, first_observation="filtered")
    assert r["prior"] == "learned"
    np.testing.assert_array_equal(r["prior_belief"], model.initial_distribution)
    total = maxent.score_sequences(model, [(actions, observations)], per_observation=False)
    assert math.isclose(r["log_likelihood"].sum(), total, rel_tol=1e-12)
    # the agent's filter of a learned run (b_1 = mu-hat) holds the same beliefs
    f = maxent.BayesFilter(model, "model")
    b = f.initial()
    ra = maxent.filter_sequence(model, actions, observations)
    for t, (a, o) in enumerate(zip(actions, observations[1:]), start=1):
        b = f.update(b, int(a), int(o))  # (BayesFilter.update reads a numpy integer as a label)
        np.testing.assert_array_equal(ra["beliefs"][t], b)
    assert maxent.filter_sequence(model, actions, observations, "uniform")["prior"] == "uniform"
    given = maxent.filter_sequence(model, actions, observations, np.full(4, 0.25))
    assert given["prior"] == "given"


def test_bad_input_names_the_step_and_the_value():
    m = two_states()
    with pytest.raises(maxent.ConfigError, match=r"step 2: action 5 is outside \[0, 2\)"):
        maxent.filter_sequence(m, [0, 5], [0, 0, 1])
    with pytest.raises(maxent.ConfigError, match=r"step 3: observation 2 is outside \[0, 2\)"):
        maxent.filter_sequence(m, [0, 1], [0, 0, 2])
    with pytest.raises(maxent.ConfigError, match="one more observation than actions"):
        maxent.filter_sequence(m, [0, 1], [0, 0])
    with pytest.raises(maxent.ConfigError, match="prior 'mu'"):
        maxent.filter_sequence(m, [0], [0, 0], "mu")
    with pytest.raises(maxent.ConfigError, match=r"vector of 2 entries .* shape \(3,\)"):
        maxent.filter_sequence(m, [0], [0, 0], [0.2, 0.3, 0.5])
    with pytest.raises(maxent.ConfigError, match="first_observation 'yes'"):
        maxent.filter_sequence(m, [0], [0, 0], first_observation="yes")
    with pytest.raises(TypeError):
        maxent.filter_sequence(m, [0.5], [0, 0])
    # a sensor that never errs: after switch the old side cannot be heard (step 3)
    exact = maxent.Model(np.array([np.eye(2), [[0.0, 1.0], [1.0, 0.0]]]), np.eye(2), np.array([0.5, 0.5]), 3)
    with pytest.raises(maxent.ZeroLikelihoodError, match="at step 3"):
        maxent.filter_sequence(exact, [0, 1], [0, 0, 0])
    with pytest.raises(maxent.ZeroLikelihoodError, match="step 1: observation 1"):
        maxent.filter_sequence(exact, [], [1], [1.0, 0.0])
