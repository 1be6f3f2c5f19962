# The k-nearest-neighbour entropy from Python: its tie rules (hand-computed values), its
# refusals of what is not an array of real numbers, the GIL released and Ctrl-C honoured
# during a long estimate, and evaluate on a robot that bumps into walls (repeated true-state
# points) at its defaults, with the rule it used in the result; the stubs carry its settings.
import ast
import math
import os
import threading
import time

import numpy as np
import pytest

import maxent


def test_knn_entropy_counts_ties_by_the_scale_rule_unless_told_otherwise():
    line = np.array([[0.0], [0.0], [1.0]])
    # k = 1, diagonal 1: ε = 1e-12, 1e-12, 1; ψ(3) − ψ(1) = 3/2, V_1 = 2.
    by_hand = 1.5 + math.log(2.0) + 2.0 * math.log(1e-12) / 3.0
    assert maxent.knn_entropy(line, k=1) == pytest.approx(by_hand, rel=1e-14)
    assert maxent.knn_entropy(line, k=1, min_distance=0.5) == pytest.approx(1.5 + math.log(2.0) + 2.0 * math.log(0.5) / 3.0,
                                                                            rel=1e-14)
    with pytest.raises(maxent.NumericError, match=r"point 0.*distance 0.*point 1"):
        maxent.knn_entropy(line, k=1, min_distance=0.0)
    # resolutions whose square is not a normal double: refused, naming the setting
    for bad in (1e-170, 1e-160, 1e155):
        with pytest.raises(maxent.ConfigError, match=r"min_distance = " + str(bad).replace("+", r"\+")):
            maxent.knn_entropy(line, k=1, min_distance=bad)
    # points without ties: the scale rule is the plain estimator, bit for bit
    x = np.random.default_rng(2).normal(size=(200, 3))
    assert maxent.knn_entropy(x, k=3) == maxent.knn_entropy(x, k=3, min_distance=0.0)
    # a 1-D array is n values
    assert maxent.knn_entropy(np.array([0.0, 1.0, 3.0]), k=1) == maxent.knn_entropy(np.array([[0.0], [1.0], [3.0]]), k=1)


def test_knn_entropy_refuses_what_is_not_real_numbers():
    with pytest.raises(TypeError, match=r"knn_entropy: points has dtype complex128 \(complex"):
        maxent.knn_entropy(np.array([[1 + 2j], [0.5], [3.0]]), k=1)
    with pytest.raises(TypeError, match=r"knn_entropy: points has dtype <U3"):
        maxent.knn_entropy(np.array([["1.5"], ["2.5"], ["4.0"]]), k=1)
    with pytest.raises(TypeError, match=r"knn_entropy: points has dtype object"):
        maxent.knn_entropy(np.array([[1.0], [None], [2.0]], dtype=object), k=1)
    with pytest.raises(ValueError, match=r"knn_entropy: points has 3 dimensions"):
        maxent.knn_entropy(np.zeros((4, 2, 2)), k=1)
    # integers are real numbers: accepted, as their float values
    assert maxent.knn_entropy(np.array([[0, 0], [3, 0], [0, 4], [3, 4]]), k=1) == \
        maxent.knn_entropy(np.array([[0.0, 0.0], [3.0, 0.0], [0.0, 4.0], [3.0, 4.0]]), k=1)


def test_knn_entropy_releases_the_gil():
    x = np.random.default_rng(1).uniform(size=(5000, 1))
    done = threading.Event()
    result = {}

    def work():
        result["h"] = maxent.knn_entropy(x, k=4999)  # every pair: about a second (a minute with the GIL held)
        done.set()

    t = threading.Thread(target=work)
    start = last = time.perf_counter()
    t.start()
    longest = 0.0
    while not done.is_set():  # this loop stalls while another thread holds the GIL
        now = time.perf_counter()
        longest, last = max(longest, now - last), now
    t.join()
    assert math.isfinite(result["h"])
    took = time.perf_counter() - start
    assert longest < max(0.5, 0.5 * took), (longest, took)  # held: one stall as long as the call


SCRIPT = r"""
import sys, numpy as np, maxent
x = np.random.default_rng(0).uniform(size=(40000, 1))
try:
    print("ready", flush=True)
    maxent.knn_entropy(x, k=39999)  # every pair: minutes
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(7)
"""


def test_ctrl_c_interrupts_knn_entropy_within_a_second(interrupt_when_ready):
    rc, out, err, took = interrupt_when_ready(["-c", SCRIPT], 0.5)  # well inside the estimate
    assert rc == 7, (out, err)
    assert "KeyboardInterrupt" in out
    assert took < 1.0, took


class Pinned:
    """A robot on a line that starts against the left wall, and whose only moves push it into
    the wall or one step out and back: true positions 0 and 1 repeat in every episode."""
    num_actions = 2
    observation_dim = 1
    state_point_dim = 1
    horizon = 12
    num_state_bins = 2

    def sample_initial_state(self, rng):
        return 0.0

    def sample_initial_observation(self, s, rng):
        return s + 0.2 * rng.normal()

    def sample_next_state(self, s, a, rng):
        return min(1.0, max(0.0, s + (1.0 if a == 1 else -1.0)))

    def sample_observation(self, a, s, rng):
        return s + 0.2 * rng.normal()

    def observation_likelihood(self, a, o, s):
        return math.exp(-0.5 * ((o - s) / 0.2) ** 2)

    def state_bin(self, s):
        return int(s)

    def state_point(self, s):
        return np.array([s])


def test_evaluate_counts_a_robot_that_bumps_into_walls_and_names_the_rule():
    world = Pinned()
    pf = maxent.ParticleFilter(world, particles=20)
    e = maxent.evaluate_uniform(world, pf, episodes=6, seed=4)
    assert e["knn_rule"] == "scale" and e["knn_k"] == 4
    assert math.isfinite(e["true_entropy_knn"]["mean"]) and math.isfinite(e["observation_entropy"]["mean"])
    # 12 positions in {0, 1}: 6 or more equal ones, each with 4 others at distance 0, per episode
    assert e["knn_floored"] >= 6 * 6
    assert 1e-12 * 0.99 <= e["knn_resolution_low"] <= e["knn_resolution_high"] < 1e-10
    half = maxent.evaluate_uniform(world, pf, episodes=6, seed=4, knn_min_distance=0.5)
    assert half["knn_rule"] == "min_distance"
    assert half["knn_resolution_low"] == half["knn_resolution_high"] == 0.5
    assert half["true_entropy"] == e["true_entropy"]  # the binned quantities do not depend on it
    with pytest.raises(maxent.NumericError, match=r"distance 0"):
        maxent.evaluate_uniform(world, pf, episodes=6, seed=4, knn_min_distance=0.0)
    with pytest.raises(maxent.ConfigError, match=r"min_distance = 1e-200"):
        maxent.evaluate_uniform(world, pf, episodes=6, seed=4, knn_min_distance=1e-200)
    none = maxent.evaluate_uniform(world, pf, episodes=6, seed=4, knn_k=0)
    assert none["knn_rule"] == "none" and none["knn_floored"] == 0
    with pytest.raises(TypeError, match="evaluate_uniform"):
        maxent.evaluate(world, pf, None)


def test_knn_feedbacks_train_on_a_robot_that_bumps_into_walls():
    world = Pinned()
    pf = maxent.ParticleFilter(world, particles=10)
    r = maxent.train(world, pf, maxent.BeliefAveragedPolicy(2, 2), "mse-knn", iterations=2, batch=2)
    assert np.all(np.isfinite(r.feedback))
    with pytest.raises(maxent.NumericError, match=r"distance 0"):
        maxent.train(world, pf, maxent.BeliefAveragedPolicy(2, 2), maxent.MSEKnn(4, min_distance=0.0), iterations=2,
                     batch=2)


def test_evaluate_on_a_finite_world_reports_no_knn_rule(noisy_room):
    e = maxent.evaluate_uniform(noisy_room, None, episodes=10, seed=1, knn_k=3, knn_min_distance=0.1)
    assert e["knn_rule"] == "none" and e["knn_k"] == 0 and e["true_entropy_knn"] is None
    assert e == maxent.evaluate_uniform(noisy_room, None, episodes=10, seed=1)  # nothing counted by kNN


def test_stubs_carry_the_knn_settings():
    stub = os.path.join(os.path.dirname(maxent.__file__), "__init__.pyi")
    tree = ast.parse(open(stub).read())
    functions = {n.name: n for n in tree.body if isinstance(n, ast.FunctionDef)}
    for name in ("evaluate", "evaluate_uniform"):
        args = [a.arg for a in functions[name].args.kwonlyargs]
        assert "knn_k" in args and "knn_min_distance" in args, (name, args)
    assert [a.arg for a in functions["knn_entropy"].args.args] == ["points", "k", "min_distance"]
