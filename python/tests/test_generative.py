# Simulators written in Python with the particle filter; GenerativeView; errors from Python worlds.
import os
import sys

import numpy as np
import pytest

import maxent

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
from generative_slowdown import GridSimulator, compare  # noqa: E402


def test_python_world_is_the_cpp_world_draw_for_draw(noisy_room):
    res = compare(noisy_room, iterations=4, batch=4, particles=50)
    (rc, _), (rp, _) = res["C++ GenerativeView"], res["Python GridSimulator"]
    np.testing.assert_array_equal(rc.parameters, rp.parameters)
    np.testing.assert_array_equal(rc.true_entropy, rp.true_entropy)
    np.testing.assert_array_equal(rc.belief_entropy_sum, rp.belief_entropy_sum)


def test_particle_filter_and_feedbacks(noisy_room):
    sim = GridSimulator(noisy_room)
    pf = maxent.ParticleFilter(sim, bins=4, binning=lambda s: s % 4, particles=30, entropy="miller_madow", seed=1)
    assert pf.dimension == 4 and pf.initial().sum() == pytest.approx(1.0)
    seen = []
    r = maxent.train(sim, pf, maxent.BeliefAveragedPolicy(4, 4), maxent.UserFeedback(
        lambda t: seen.append(t.num_states) or maxent.RegMBE()(t), belief_entropy=True, believed_states=True),
        iterations=3, batch=3, seeds=[0, 1])
    assert len(r) == 2 and seen[0] == 16


def test_python_world_errors(noisy_room):
    class Broken(GridSimulator):
        def sample_next_state(self, s, a, rng):
            raise KeyError("no such move")

    sim = Broken(noisy_room)
    pf = maxent.ParticleFilter(sim, particles=10)
    with pytest.raises(KeyError, match="no such move"):
        maxent.train(sim, pf, maxent.BeliefAveragedPolicy(16, 4), iterations=2)

    class Negative(GridSimulator):
        def observation_likelihood(self, a, o, s):
            return -1.0

    sim = Negative(noisy_room)
    with pytest.raises(maxent.ModelError, match="likelihood"):
        maxent.train(sim, maxent.ParticleFilter(sim, particles=10), maxent.BeliefAveragedPolicy(16, 4), iterations=2)

    class Kept(GridSimulator):
        kept = None

        def sample_initial_state(self, rng):
            Kept.kept = rng
            return 0

    sim = Kept(noisy_room)
    maxent.ParticleFilter(sim, particles=2)
    with pytest.raises(maxent.ConfigError, match="only valid during"):
        Kept.kept.uniform()

    with pytest.raises(maxent.ConfigError, match="missing num_state_bins"):
        class NoBins:
            num_actions, num_observations, horizon = 1, 1, 1
        maxent.ParticleFilter(NoBins())
    with pytest.raises(maxent.ConfigError, match="needs a ParticleFilter"):
        maxent.train(GridSimulator(noisy_room), maxent.BayesFilter(noisy_room), maxent.BeliefAveragedPolicy(16, 4))
    with pytest.raises(maxent.ConfigError, match="BeliefAveragedPolicy"):
        sim = GridSimulator(noisy_room)
        maxent.train(sim, maxent.ParticleFilter(sim, particles=5), maxent.ObservationPolicy(16, 4))


def test_generative_view_threads(noisy_room):
    v = maxent.GenerativeView(noisy_room)
    pf = maxent.ParticleFilter(v, particles=40)
    runs = maxent.train(v, pf, maxent.BeliefAveragedPolicy(16, 4), "mbe", iterations=5, seeds=[0, 1, 2], threads=2)
    one = maxent.train(v, pf, maxent.BeliefAveragedPolicy(16, 4), "mbe", iterations=5, seed=2)
    np.testing.assert_array_equal(runs[2].parameters, one.parameters)
