# Finite models from numpy, grid worlds, POMDP files, labels, the exact filter and the noisy oracle.
import numpy as np
import pytest

import maxent
from conftest import ring_arrays


def test_model_from_numpy_and_labels(ring):
    assert (ring.num_states, ring.num_actions, ring.num_observations, ring.horizon) == (4, 2, 2, 4)
    assert ring.states == ["a", "b", "c", "d"]
    assert ring.state_index("c") == 2 and ring.state_index(2) == 2
    assert ring.action_index("stay") == 1 and ring.observation_index("cold") == 1
    P, Z, mu = ring_arrays()
    np.testing.assert_array_equal(ring.transition_matrix("fwd"), P[0])
    np.testing.assert_array_equal(ring.observation_matrix(), Z)
    np.testing.assert_array_equal(ring.initial_distribution, mu)
    ring.horizon = 6
    assert ring.horizon == 6
    with pytest.raises(maxent.UnknownLabelError, match="unknown state 'z'"):
        ring.state_index("z")
    with pytest.raises(maxent.UnknownLabelError, match=r"unknown action 7.*\[0, 2\)"):
        ring.action_index(7)


def test_numpy_integers_are_indices_and_bools_are_not(ring):
    # Indices read from numpy arrays (np.int64, np.uint8, ...) name the same entries as Python ints,
    # in the labelled ring too, where the label comparison cannot match them.
    assert ring.state_index(np.int64(2)) == 2 and ring.action_index(np.uint8(1)) == 1
    assert ring.observation_index(np.int32(1)) == 1
    f = maxent.BayesFilter(ring)
    b = f.initial()
    np.testing.assert_array_equal(f.update(b, np.int64(0), np.int64(1)), f.update(b, 0, 1))
    with pytest.raises(maxent.UnknownLabelError, match=r"unknown observation 2: neither an observation label nor an "
                                                      r"index in \[0, 2\)"):
        f.update(b, 0, np.int64(2))
    with pytest.raises(maxent.UnknownLabelError, match=r"unknown state -1: neither a state label"):
        ring.state_index(np.int64(-1))
    with pytest.raises(maxent.UnknownLabelError, match=r"unknown action True"):
        ring.action_index(np.bool_(True))
    with pytest.raises(maxent.UnknownLabelError, match=r"unknown action True"):
        ring.action_index(True)
    with pytest.raises(maxent.UnknownLabelError, match=r"unknown state 1267650600228229401496703205376"):
        ring.state_index(2 ** 100)
    # Without labels too (an index model's labels are the integers, which equal True and False).
    unlabelled = maxent.Model(*ring_arrays(), 4)
    assert unlabelled.state_index(np.int64(3)) == 3
    for b in (True, False, np.bool_(True)):
        with pytest.raises(maxent.UnknownLabelError, match=rf"unknown state {b}: neither a state label"):
            unlabelled.state_index(b)
    # Neither a float (1.0 == 1) nor an array (one element, or several: the comparison raises) is
    # an index; a 0-d integer array is, as for every size argument.
    for x in (1.0, np.float64(2.0), np.array([1]), np.array([1, 2])):
        with pytest.raises(maxent.UnknownLabelError, match=r"unknown state .*: neither a state label"):
            unlabelled.state_index(x)
    assert unlabelled.state_index(np.array(2)) == 2
    # Labels of any other kind still match by equality, numbers included.
    numbered = maxent.Model(*ring_arrays(), 4, states=[10, 20, 30, 40], actions=[0.5, 1.5])
    assert numbered.state_index(20) == 1 and numbered.state_index(np.int64(30)) == 2
    assert numbered.state_index(3) == 3 and numbered.action_index(1.5) == 1


def test_model_per_action_observations():
    P, Z, mu = ring_arrays()
    Za = np.stack([Z, np.full((4, 2), 0.5)])
    m = maxent.Model(P, Za, mu, 3)
    np.testing.assert_array_equal(m.observation_matrix(1), np.full((4, 2), 0.5))
    np.testing.assert_array_equal(m.initial_observation_matrix, np.full((4, 2), 0.5))


def test_model_validation_names_the_value():
    P, Z, mu = ring_arrays()
    P[1, 2, 2] = 0.7
    with pytest.raises(maxent.ModelError, match=r"row 2 \(state '2'\) sums to 0.69999999999999996"):
        maxent.Model(P, Z, mu, 4)
    with pytest.raises(maxent.ModelError, match="horizon must be at least 1, got 0"):
        maxent.Model(*ring_arrays(), 0)
    with pytest.raises(maxent.ModelError, match="got 3 state labels for 4 states"):
        maxent.Model(*ring_arrays(), 4, states=[1, 2, 3])


def test_grid_worlds():
    m = maxent.grid_world(6, 6, layout="four_rooms", observation="room_id")
    assert (m.num_states, m.num_actions, m.num_observations, m.horizon) == (36, 4, 4, 36)
    assert m.states[7] == (1, 1) and m.actions == ["up", "down", "left", "right"]
    assert m.state_index((5, 5)) == 35
    e = maxent.paper_environment("i", variance=0.1)
    assert e.num_states == 25 and e.num_observations == 25
    with pytest.raises(maxent.ModelError, match="needs the Gaussian precision k"):
        maxent.paper_environment("ii")
    with pytest.raises(maxent.ConfigError, match="unknown layout 'maze'"):
        maxent.grid_world(3, 3, layout="maze")
    with pytest.raises(maxent.ModelError, match="slip probability p = 1.5"):
        maxent.grid_world(3, 3, slip=1.5)


POMDP = """discount: 0.95
values: reward
states: left right
actions: listen open
observations: hear-left hear-right
start: uniform
T: listen
identity
T: open
uniform
O: listen
0.85 0.15
0.15 0.85
O: open
uniform
R: listen : * : * : * -1
"""


def test_pomdp_file_reader(tmp_path):
    m = maxent.parse_pomdp(POMDP, horizon=5)
    assert m.states == ["left", "right"] and m.actions == ["listen", "open"]
    assert m.horizon == 5
    np.testing.assert_allclose(m.observation_matrix("listen"), [[0.85, 0.15], [0.15, 0.85]])
    f = tmp_path / "tiger.pomdp"
    f.write_text(POMDP)
    m2 = maxent.read_pomdp_file(str(f))
    assert m2.horizon == 2 and m2.observations == ["hear-left", "hear-right"]
    with pytest.raises(maxent.ParseError, match=r"<text>:4:4: unknown action 'bogus'"):
        maxent.parse_pomdp("states: 2\nactions: 2\nobservations: 2\nT: bogus\n")


def test_pomdp_file_reader_options(tmp_path):
    # A state without transition probabilities under an action: refused, named (file:line, the state and
    # the action), unless empty_rows="self-loop" makes it absorbing, as maxent-explore --empty-rows self-loop.
    text = POMDP.replace("T: open\nuniform\n", "T: open : left\n0.5 0.5\n")
    f = tmp_path / "tiger-empty.pomdp"
    f.write_text(text)
    with pytest.raises(maxent.ParseError, match=r"tiger-empty\.pomdp:\d+:\d+: no transition probabilities "
                       r"T\(s' \| s = 'right', a = 'open'\)"):
        maxent.read_pomdp_file(str(f))
    m = maxent.read_pomdp_file(str(f), empty_rows="self-loop", horizon=7)
    assert m.horizon == 7
    np.testing.assert_array_equal(m.transition_matrix("open"), [[0.5, 0.5], [0.0, 1.0]])
    assert maxent.parse_pomdp(text, empty_rows="self-loop").horizon == 2
    with pytest.raises(maxent.ConfigError, match="read_pomdp_file: empty_rows 'loop' \\(known: error, self-loop\\)"):
        maxent.read_pomdp_file(str(f), empty_rows="loop")


def test_bayes_filter_and_noisy_belief(ring):
    f = maxent.BayesFilter(ring)
    np.testing.assert_array_equal(f.initial(), np.full(4, 0.25))
    assert maxent.BayesFilter(ring, "model").initial()[0] == 1.0
    b = f.update(f.initial(), "fwd", "warm")
    assert b.sum() == pytest.approx(1.0) and b[0] > b[3]
    with pytest.raises(maxent.ZeroLikelihoodError):
        g = maxent.BayesFilter(maxent.grid_world(2, 2))
        g.update(np.array([1.0, 0, 0, 0]), "up", 3)
    n0 = maxent.NoisyBelief(f, 0.0)
    np.testing.assert_array_equal(n0.update(f.initial(), 0, 0), b)
    n = maxent.NoisyBelief(f, 0.05)
    bn = n.update(f.initial(), 0, 0, seed=4)
    assert bn.sum() == pytest.approx(1.0) and not np.array_equal(bn, b)
    np.testing.assert_array_equal(bn, n.update(f.initial(), 0, 0, seed=4))
    with pytest.raises(maxent.ConfigError, match="sigma"):
        maxent.NoisyBelief(f, -1.0)


def test_learned_belief_model(ring):
    data = maxent.uniform_episodes(ring, 200, seed=1)
    assert len(data) == 200 and len(data[0][0]) == 3 and len(data[0][1]) == 4
    agent, info = maxent.fit_belief_model(data, latent_states=3, num_actions=2, num_observations=2,
                                          horizon=4, restarts=2, max_iterations=30, heldout=data[:20])
    assert agent.num_states == 3 and agent.num_observations == 2
    assert np.all(np.diff(info["log_likelihood"]) > -1e-9) or info["iterations"] >= 1
    f = maxent.BayesFilter(agent)
    assert f.dimension == 3
    r = maxent.train(ring, f, maxent.BeliefAveragedPolicy(3, 2), "mbe", iterations=20)
    assert r.parameters.shape == (3, 2)
