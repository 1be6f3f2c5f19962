# Policies, feedbacks, estimators, step rules; names and the errors of bad ones.
import numpy as np
import pytest

import maxent


@pytest.mark.parametrize("make,rows", [
    (maxent.ObservationPolicy, 2), (maxent.BeliefAveragedPolicy, 4), (maxent.BelievedStatePolicy, 4),
    (maxent.BeliefMixturePolicy, 4), (maxent.TabularBeliefPolicy, 0)])
def test_policies(make, rows):
    p = make(2 if make is maxent.ObservationPolicy else 4, 3)
    assert isinstance(p, maxent.Policy) and p.num_actions == 3
    assert p.class_name == make.__name__
    assert p.parameters.shape == (rows, 3)
    pr = p.probabilities(np.full(4, 0.25), observation=1)
    assert pr.shape == (3,) and pr.sum() == pytest.approx(1.0)
    if rows:
        theta = np.arange(rows * 3, dtype=float).reshape(rows, 3) / 10
        p.parameters = theta
        np.testing.assert_array_equal(p.parameters, theta)
        q = p.copy()
        p.parameters = np.zeros((rows, 3))
        np.testing.assert_array_equal(q.parameters, theta)
    with pytest.raises(maxent.ConfigError, match="expected a"):
        p.parameters = np.zeros((rows + 1, 3))


def test_feedbacks_estimators_steps():
    assert [f.name for f in (maxent.MSE(), maxent.MOE(), maxent.MBE(), maxent.RegMBE(0.1))] == \
        ["mse", "moe", "mbe", "reg-mbe"]
    assert maxent.MBE().needs["believed_states"] and maxent.RegMBE().needs["belief_entropy"]
    assert maxent.PartitionEntropy([0, 0, 1, 1]).name == "partition"
    u = maxent.UserFeedback(lambda t: 0.0, beliefs=True, name="mine")
    assert u.name == "mine" and u.needs == {"belief_entropy": False, "believed_states": False, "beliefs": True}
    assert [e.name for e in (maxent.Reinforce(), maxent.BatchMeanBaseline(), maxent.LeaveOneOutBaseline(),
                             maxent.OptimalBaseline(), maxent.PerStepBaseline())] == \
        ["reinforce", "batch-mean", "leave-one-out", "optimal", "per-step"]
    assert maxent.PerStepBaseline().uses_steps and not maxent.OptimalBaseline().uses_steps
    assert maxent.ConstantStep(0.1).name == "constant" and maxent.Adam().name == "adam"
    assert maxent.LazyAdam(0.2).name == "lazy-adam" and maxent.LazyAdam(0.2).alpha == 0.2
    assert maxent.Adam().alpha == 0.05 and maxent.ConstantStep().alpha == 0.3
    with pytest.raises(maxent.ConfigError, match="LazyAdam: beta1 must be in"):
        maxent.LazyAdam(0.1, beta1=1.0)
    with pytest.raises(maxent.ConfigError, match="alpha"):
        maxent.ConstantStep(-1.0)
    with pytest.raises(maxent.ConfigError, match="rho"):
        maxent.RegMBE(-1.0)
    with pytest.raises(maxent.ConfigError, match="empty partition"):
        maxent.PartitionEntropy([])


def test_names_and_bad_components(room):
    p = maxent.BeliefAveragedPolicy(9, 4)
    with pytest.raises(maxent.ConfigError, match="unknown feedback 'xyz'"):
        maxent.train(room, None, p, "xyz", iterations=2)
    with pytest.raises(maxent.ConfigError, match="unknown estimator 'best'"):
        maxent.train(room, None, p, "mse", "best", iterations=2)
    with pytest.raises(maxent.ConfigError, match="unknown step rule 'sgd'"):
        maxent.train(room, None, p, "mse", "reinforce", "sgd", iterations=2)
    with pytest.raises(maxent.ConfigError, match="unknown counting 'mine'"):
        maxent.train(room, None, p, iterations=2, counting="mine")
    with pytest.raises(maxent.ConfigError, match="iterations"):
        maxent.train(room, None, p, iterations=0)


def test_rng():
    r = maxent.Rng(5)
    xs = [r.uniform() for _ in range(3)]
    assert all(0 <= x < 1 for x in xs)
    r2 = maxent.Rng(5)
    assert xs == [r2.uniform() for _ in range(3)]
    assert 0 <= maxent.Rng(1).integers(4) < 4
    assert maxent.Rng(2).categorical(np.array([0.0, 1.0])) == 1
    assert isinstance(maxent.Rng(3).normal(), float)


def test_per_step_baseline_and_lazy_adam(room):
    """By name or object, the same runs; the per-step baseline is refused by the belief-state
    class B (its row-sparse table records no per-step scores) with a message saying so."""
    p = maxent.BeliefAveragedPolicy(9, 4)
    by_name = maxent.train(room, None, p, "mse", "per-step", "lazy-adam", iterations=6, batch=4, seed=2)
    by_object = maxent.train(room, None, p, maxent.MSE(), maxent.PerStepBaseline(), maxent.LazyAdam(0.05),
                             iterations=6, batch=4, seed=2)
    assert np.array_equal(by_name.parameters, by_object.parameters)
    other = maxent.train(room, None, p, "mse", "batch-mean", "lazy-adam", iterations=6, batch=4, seed=2)
    assert not np.array_equal(by_name.parameters, other.parameters)
    with pytest.raises(maxent.ConfigError, match="asks for per-step scores"):
        maxent.train(room, None, maxent.TabularBeliefPolicy(9, 4), "mse", "per-step", iterations=2)
    q = maxent.estimator_quality(room, p, "mse", ["per-step", "reinforce"], batch=4, repetitions=30, seed=1)
    assert [x["name"] for x in q] == ["per-step", "reinforce"]
    with pytest.raises(maxent.ConfigError, match="known: reinforce, batch-mean, leave-one-out, optimal, per-step"):
        maxent.train(room, None, p, "mse", "per_step_typo", iterations=2)
    with pytest.raises(maxent.ConfigError, match="known: constant, adam, lazy-adam"):
        maxent.train(room, None, p, "mse", "reinforce", "lazy", iterations=2)
