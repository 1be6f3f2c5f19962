# ObservationFeaturePolicy pickles, copies and saves (.npz) with its feature map's arguments, bit
# for bit; one whose feature map is a Python callable is refused with what to do instead; a
# training run returns it as result.policy.
import copy
import math
import pickle

import numpy as np
import pytest

import maxent
from conftest import NoisyWalk


class Line(NoisyWalk):
    """The noisy walk (conftest.NoisyWalk) with two actions: a step left or right."""
    num_actions = 2


def feature_maps():
    return [
        maxent.RawObservationFeatures(2),
        maxent.RbfObservationFeatures(np.array([[0.1, 1.0 / 3.0], [2.0, -0.7], [math.pi, 1e-300]]), 0.3),
        maxent.ObservationTiles(2, -1.0 / 3.0, 4.1, 3, 2),
    ]


def with_theta(features, actions=3, seed=0):
    p = maxent.ObservationFeaturePolicy(features, actions)
    p.parameters = np.random.default_rng(seed).normal(size=(features.dimension, actions)) / 3.0
    return p


def same_policy(a, b):
    assert type(b) is maxent.ObservationFeaturePolicy and a == b
    assert b.features.factory == a.features.factory and b.num_actions == a.num_actions
    assert np.array_equal(b.parameters, a.parameters)  # bit for bit
    for k, v in a.features.arguments.items():
        assert np.array_equal(b.features.arguments[k], v), k
    o = np.array([0.7, 1.9])
    assert np.array_equal(b.probabilities(o), a.probabilities(o))


@pytest.mark.parametrize("index", range(3))
def test_pickle_copy_save_load_round_trip(index, tmp_path):
    p = with_theta(feature_maps()[index], seed=index)
    for protocol in range(pickle.HIGHEST_PROTOCOL + 1):
        same_policy(p, pickle.loads(pickle.dumps(p, protocol=protocol)))
    same_policy(p, copy.deepcopy(p))
    assert pickle.loads(pickle.dumps(p.features)) == p.features
    path = p.save(tmp_path / "policy")
    assert path.endswith(".npz")
    same_policy(p, maxent.load_policy(path))
    same_policy(p, maxent.ObservationFeaturePolicy.load(maxent.save_policy(p, str(tmp_path / "again.npz"))))
    other = with_theta(feature_maps()[index], seed=index + 10)
    assert other != p  # == compares θ


def test_saved_file_names_its_feature_map(tmp_path):
    p = with_theta(feature_maps()[1])
    with np.load(p.save(tmp_path / "rbf.npz")) as f:
        assert str(f["format"]) == "maxent.ObservationFeaturePolicy/1" and str(f["features"]) == "RbfObservationFeatures"
        assert np.array_equal(f["features_centres"], p.features.arguments["centres"])
        assert float(f["features_width"]) == 0.3 and f["parameters"].shape == (4, 3)
        entries = {k: f[k] for k in f.files}
    entries["features"] = np.array("NoSuchFeatures")
    np.savez(tmp_path / "bad.npz", **entries)
    with pytest.raises(ValueError, match=r"bad.npz: unknown feature map 'NoSuchFeatures'"):
        maxent.load_policy(tmp_path / "bad.npz")
    entries["features"] = np.array("RbfObservationFeatures")
    entries["features_width"] = np.float64(-1.0)
    np.savez(tmp_path / "width.npz", **entries)
    with pytest.raises(maxent.ConfigError, match=r"width.npz: .*width"):
        maxent.load_policy(tmp_path / "width.npz")


def test_a_python_feature_map_is_refused_with_what_to_do(tmp_path):
    user = maxent.UserObservationFeatures(lambda o: np.array([o[0], 1.0]), 2)
    for p in (maxent.ObservationFeaturePolicy(user, 2),
              maxent.ObservationFeaturePolicy(lambda o: np.array([o[0], 1.0]), 2, dimension=2)):
        assert p.features.factory == "UserObservationFeatures"
        with pytest.raises(TypeError, match=r"Python callable .*numpy.save\(path, policy.parameters\)"):
            pickle.dumps(p)
        with pytest.raises(TypeError, match=r"Python callable .*RbfObservationFeatures"):
            p.save(tmp_path / "user.npz")
        assert copy.deepcopy(p) == p  # a copy shares the callable
    with pytest.raises(TypeError, match="Python callable"):
        pickle.dumps(user)


def test_training_returns_the_trained_policy():
    world = Line()
    pf = maxent.ParticleFilter(world, particles=20)
    features = maxent.RbfObservationFeatures(np.arange(5.0).reshape(-1, 1), 1.0)
    start = maxent.ObservationFeaturePolicy(features, 2)
    r = maxent.train(world, pf, start, "mse", iterations=3, batch=2, seed=4)
    assert type(r.policy) is maxent.ObservationFeaturePolicy
    assert np.array_equal(r.policy.parameters, r.parameters) and np.any(r.parameters != 0.0)
    assert r.policy.features == features and np.all(start.parameters == 0.0)  # the argument is not trained
    r.policy.parameters = np.zeros((6, 2))
    assert np.array_equal(r.policy.parameters, r.parameters)  # .policy is a copy
    back = pickle.loads(pickle.dumps(r))
    assert back == r and back.policy == r.policy
    again = maxent.evaluate(world, pf, r.policy, episodes=3, seed=1)
    assert again == maxent.evaluate(world, pf, back.policy, episodes=3, seed=1)
