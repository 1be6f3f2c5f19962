# TrainResult.policy_class: the class name the trainers record for a run (C++ PyTrainResult), for a
# finite world with every tabular class, a learned-belief run, and Python simulators with a tabular,
# an observation-feature and a Gaussian policy; the same as the returned policy's class and kept
# by pickling.
import os
import pickle
import sys

import numpy as np
import pytest

import maxent
from conftest import NoisyWalk

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
from generative_slowdown import GridSimulator  # noqa: E402

TABULAR = [maxent.ObservationPolicy, maxent.BeliefAveragedPolicy, maxent.BelievedStatePolicy,
           maxent.BeliefMixturePolicy, maxent.TabularBeliefPolicy]


class Line(NoisyWalk):
    """Two actions: a step left or right."""
    num_actions = 2


class Slide(NoisyWalk):
    """One continuous action in [-1, 1]: the position moves by round(2 a)."""
    action_dim = 1
    action_low = [-1.0]
    action_high = [1.0]

    def sample_next_state(self, s, a, rng):
        return min(max(s + int(round(2.0 * float(a[0]))), 0), 4)


def check(r, name):
    """r.policy_class is `name`, the policy's class says the same, and pickling keeps it (where the
    policy can be pickled)."""
    assert isinstance(r.policy_class, str) and r.policy_class == name
    assert r.policy.class_name == name
    assert repr(r).endswith(f", {name})")
    if name == "TabularBeliefPolicy":  # its table's rows are not exposed: no pickling (_extras.py)
        with pytest.raises(TypeError):
            pickle.dumps(r)
        return
    back = pickle.loads(pickle.dumps(r))
    assert back.policy_class == name and back.policy.class_name == name


@pytest.mark.parametrize("make", TABULAR)
def test_finite_world_every_tabular_class(noisy_room, make):
    r = maxent.train(noisy_room, None, make(16, 4), "mse", iterations=1, batch=2, seed=1)
    assert type(r.policy) is maxent.Policy
    check(r, make.__name__)


def test_learned_belief_run(noisy_room):
    r = maxent.train_learned(noisy_room, maxent.BeliefAveragedPolicy(4, 4), "reg-mbe", latent_states=4, warmup=6,
                             heldout=2, refit_every=0, restarts=1, em_iterations=2, iterations=1, batch=2)
    check(r, "BeliefAveragedPolicy")


def test_simulators(noisy_room):
    sim = GridSimulator(noisy_room)
    r = maxent.train(sim, maxent.ParticleFilter(sim, particles=10), maxent.ObservationPolicy(16, 4), "mse",
                     iterations=1, batch=2, seed=1)
    check(r, "ObservationPolicy")

    line = Line()
    features = maxent.RbfObservationFeatures(np.arange(5.0).reshape(-1, 1), 1.0)
    r = maxent.train(line, maxent.ParticleFilter(line, particles=10), maxent.ObservationFeaturePolicy(features, 2),
                     "mse", iterations=1, batch=2, seed=1)
    assert type(r.policy) is maxent.ObservationFeaturePolicy
    check(r, "ObservationFeaturePolicy")

    slide = Slide()
    box = maxent.ActionBox(slide.action_low, slide.action_high)
    r = maxent.train(slide, maxent.ParticleFilter(slide, particles=10), maxent.GaussianPolicy(box), "mse",
                     iterations=1, batch=2, seed=1)
    assert type(r.policy) is maxent.GaussianPolicy
    check(r, "GaussianPolicy")


def test_read_only(noisy_room):
    r = maxent.train(noisy_room, None, maxent.ObservationPolicy(16, 4), "mse", iterations=1, batch=2)
    with pytest.raises(AttributeError):
        r.policy_class = "GaussianPolicy"
