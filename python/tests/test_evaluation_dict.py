# evaluate / evaluate_uniform convert their Evaluation once (analysis.cpp's evaluation_dict), for
# a finite model and for a simulator alike: the same keys, listed here by hand; a quantity that is
# not computed (n = 0) is None, never a dict with n = 0; a computed one is {mean, low, high, n}.

import numpy as np

import maxent
from conftest import NoisyWalk

KEYS = {
    "episodes", "true_entropy", "observation_entropy", "believed_entropy", "belief_entropy_sum",
    "true_entropy_knn", "true_entropy_estimator", "observation_entropy_estimator",
    "true_entropy_knn_estimator", "knn_k", "knn_rule", "knn_resolution_low", "knn_resolution_high",
    "knn_floored",
}
INTERVALS = ("true_entropy", "observation_entropy", "believed_entropy", "belief_entropy_sum", "true_entropy_knn")


class Line(NoisyWalk):
    """The noisy walk (conftest.NoisyWalk) with two actions and its position as a state point."""
    num_actions = 2
    state_point_dim = 1

    def state_point(self, s):
        return np.array([float(s)])


class IndexLine(Line):
    """The same walk observing its position as an index (no observation_dim, no state points)."""
    observation_dim = None
    num_observations = 5

    def __getattribute__(self, name):
        if name in ("observation_dim", "state_point", "state_point_dim"):
            raise AttributeError(name)
        return object.__getattribute__(self, name)

    def sample_observation(self, a, s, rng):
        return s

    def observation_likelihood(self, a, o, s):
        return 1.0 if o == s else 0.0


def check(d, episodes, computed):
    assert set(d) == KEYS
    assert d["episodes"] == episodes
    for key in INTERVALS:
        if key in computed:
            assert set(d[key]) == {"mean", "low", "high", "n"} and d[key]["n"] == episodes, key
            assert d[key]["low"] <= d[key]["mean"] <= d[key]["high"], key
        else:
            assert d[key] is None, key  # n = 0: not computed


def test_finite_model_and_simulators_give_the_same_keys(room):
    every = set(INTERVALS) - {"true_entropy_knn"}
    policy = maxent.ObservationPolicy(room.num_observations, room.num_actions)
    check(maxent.evaluate(room, None, policy, episodes=4), 4, every)
    check(maxent.evaluate_uniform(room, None, episodes=4), 4, every)  # a finite model has no state points

    line = Line()
    pf = maxent.ParticleFilter(line, particles=20)
    check(maxent.evaluate(line, pf, maxent.BeliefAveragedPolicy(5, 2), episodes=3), 3, set(INTERVALS))
    feature_policy = maxent.ObservationFeaturePolicy(maxent.RawObservationFeatures(1), 2)
    check(maxent.evaluate(line, pf, feature_policy, episodes=3), 3, set(INTERVALS))
    # knn_k = 0: no kNN quantity, and a vector world's observations have no bins: MOE is not computed
    check(maxent.evaluate_uniform(line, pf, episodes=3, knn_k=0), 3, every - {"observation_entropy"})

    index = IndexLine()
    assert not hasattr(index, "observation_dim") and not hasattr(index, "state_point")
    check(maxent.evaluate_uniform(index, maxent.ParticleFilter(index, particles=20), episodes=3), 3, every)
