# The exact objective and gradient, estimator quality, evaluation and the uniform baseline.
import math

import numpy as np
import pytest

import maxent


def test_exact_objective_and_gradient(room):
    p = maxent.BeliefAveragedPolicy(9, 4)
    p.parameters = np.linspace(-1, 1, 36).reshape(9, 4)
    ex = maxent.exact_objective(room, p, "mse")
    assert 0 < ex["objective"] <= math.log(4) and ex["gradient"].shape == (9, 4)
    assert ex["probability"] == pytest.approx(1.0) and ex["leaves"] <= ex["leaf_bound"]
    # the gradient against central finite differences
    h, i, j = 1e-5, 0, 1
    q = p.copy()
    theta = p.parameters
    theta[i, j] += h
    q.parameters = theta
    up = maxent.exact_objective(room, q, "mse")["objective"]
    theta[i, j] -= 2 * h
    q.parameters = theta
    down = maxent.exact_objective(room, q, "mse")["objective"]
    assert ex["gradient"][i, j] == pytest.approx((up - down) / (2 * h), rel=1e-4, abs=1e-8)
    # a Python feedback is enumerated too
    ex2 = maxent.exact_objective(room, p, lambda t: float(len(set(t.counted_states))))
    assert 1 <= ex2["objective"] <= 4
    with pytest.raises(maxent.BudgetError, match="max_leaves"):
        maxent.exact_objective(maxent.grid_world(3, 3), p, "mbe", max_leaves=1000)
    with pytest.raises(maxent.ConfigError, match="deterministic"):
        maxent.exact_objective(room, p, "mse", maxent.NoisyBelief(maxent.BayesFilter(room), 0.0))


def test_estimator_quality(room):
    p = maxent.BeliefAveragedPolicy(9, 4)
    p.parameters = np.linspace(-1, 1, 36).reshape(9, 4)
    q = maxent.estimator_quality(room, p, "mse", "reinforce", batch=5, repetitions=50, seed=1)
    assert q["name"] == "reinforce" and q["mean_estimate"].shape == (9, 4)
    rows = maxent.estimator_quality(room, p, maxent.MSE(), [maxent.Reinforce(), "batch-mean", "optimal"],
                                    batch=5, repetitions=50, seed=1, threads=2)
    assert [r["name"] for r in rows] == ["reinforce", "batch-mean", "optimal"]
    assert rows[0]["bias_norm"] == q["bias_norm"]  # the same batches
    assert rows[1]["covariance_trace"] < rows[0]["covariance_trace"]
    with pytest.raises(maxent.ConfigError, match="repetitions"):
        maxent.estimator_quality(room, p, "mse", "reinforce", repetitions=1)


def test_evaluate(noisy_room):
    r = maxent.train(noisy_room, None, maxent.BeliefAveragedPolicy(16, 4), "mse", iterations=100)
    e = maxent.evaluate(noisy_room, maxent.BayesFilter(noisy_room), r.policy, episodes=200, seed=3, threads=2)
    u = maxent.evaluate_uniform(noisy_room, None, episodes=200, seed=3)
    for x in (e, u):
        assert x["episodes"] == 200
        for k in ("true_entropy", "observation_entropy", "believed_entropy", "belief_entropy_sum"):
            assert x[k]["low"] <= x[k]["mean"] <= x[k]["high"]
    assert e == maxent.evaluate(noisy_room, maxent.BayesFilter(noisy_room), r.policy, episodes=200, seed=3, threads=1)
    with pytest.raises(maxent.ConfigError, match="at least 2"):
        maxent.evaluate(noisy_room, None, r.policy, episodes=1)
