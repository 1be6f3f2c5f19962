# Simulators written in Python with the particle filter; GenerativeView; every policy class but B;
# errors from Python worlds.
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


def test_generative_view_threads(noisy_room):
    v = maxent.GenerativeView(noisy_room)
    pf = maxent.ParticleFilter(v, particles=40)
    runs = maxent.train(v, pf, maxent.BeliefAveragedPolicy(16, 4), "mbe", iterations=5, seeds=[0, 1, 2], threads=2)
    one = maxent.train(v, pf, maxent.BeliefAveragedPolicy(16, 4), "mbe", iterations=5, seed=2)
    np.testing.assert_array_equal(runs[2].parameters, one.parameters)


POLICIES = [maxent.ObservationPolicy, maxent.BeliefAveragedPolicy, maxent.BelievedStatePolicy,
            maxent.BeliefMixturePolicy]


def check_run(r, make, rows, iterations):
    assert r.iterations == iterations and r.policy.class_name == make.__name__
    assert r.parameters.shape == (rows, 4) and np.any(r.parameters != 0)
    np.testing.assert_array_equal(r.policy.parameters, r.parameters)
    for a in (r.true_entropy, r.feedback, r.belief_entropy_sum, r.gradient_norm):
        assert a.shape == (iterations,) and np.all(np.isfinite(a))


@pytest.mark.parametrize("make", POLICIES)
def test_every_policy_class_on_both_simulators(noisy_room, make):
    # The Python world samples as GenerativeView does (generative_slowdown.py): with particle filters of the
    # same seed, the two runs are the same, draw for draw, for every policy class.
    out = []
    for world in (maxent.GenerativeView(noisy_room), GridSimulator(noisy_room)):
        pf = maxent.ParticleFilter(world, particles=20, seed=1)
        r = maxent.train(world, pf, make(16, 4), "reg-mbe", iterations=5, batch=3, seed=2)
        check_run(r, make, 16, 5)
        out.append(r)
    np.testing.assert_array_equal(out[0].parameters, out[1].parameters)
    np.testing.assert_array_equal(out[0].true_entropy, out[1].true_entropy)
    np.testing.assert_array_equal(out[0].belief_entropy_sum, out[1].belief_entropy_sum)
    # Sized by what the policy reads: the world's 16 observations, or the filter's 4 bins.
    sim = GridSimulator(noisy_room)
    pf = maxent.ParticleFilter(sim, bins=4, binning=lambda s: s % 4, particles=20, seed=1)
    rows = 16 if make is maxent.ObservationPolicy else 4
    check_run(maxent.train(sim, pf, make(rows, 4), "mbe", iterations=3, batch=3), make, rows, 3)
    wrong = 4 if make is maxent.ObservationPolicy else 16
    what = "16 observations" if make is maxent.ObservationPolicy else "the belief model has 4 states"
    with pytest.raises(maxent.ConfigError, match=rf"{make.__name__}: parameters are {wrong} x 4 .*{what}"):
        maxent.train(sim, pf, make(wrong, 4), iterations=1)


@pytest.mark.parametrize("estimator,step", [("batch-mean", "constant"), ("per-step", "lazy-adam")])
def test_observation_policy_on_a_simulator_is_the_exact_run(noisy_room, estimator, step):
    # Without belief entropies to record, the rollout never updates the filter for a policy that reads no
    # belief (optim/rollout.hpp) and MSE counts true states; both simulators draw the world's randomness as
    # the finite model does. So the run is train() on the model itself, bit for bit, whatever the filter.
    p = maxent.ObservationPolicy(16, 4)
    exact = maxent.train(noisy_room, None, p, "mse", estimator, step, iterations=6, batch=3, seed=5,
                         track_belief_entropy=False)
    for world in (maxent.GenerativeView(noisy_room), GridSimulator(noisy_room)):
        r = maxent.train(world, maxent.ParticleFilter(world, particles=7, seed=9), p, "mse", estimator, step,
                         iterations=6, batch=3, seed=5, track_belief_entropy=False)
        np.testing.assert_array_equal(r.parameters, exact.parameters)
        np.testing.assert_array_equal(r.true_entropy, exact.true_entropy)
        np.testing.assert_array_equal(r.feedback, exact.feedback)


def test_class_b_is_refused_with_a_particle_filter(noisy_room):
    for world in (maxent.GenerativeView(noisy_room), GridSimulator(noisy_room)):
        with pytest.raises(maxent.ConfigError, match=r"^train: TabularBeliefPolicy \(class B\) is not offered with "
                           r"a particle filter: its table has one row per distinct belief \(equal within tolerance "
                           r"1e-06\), and a particle filter's belief is a random histogram of freshly drawn particles"):
            maxent.train(world, maxent.ParticleFilter(world, particles=5), maxent.TabularBeliefPolicy(16, 4, 1e-6),
                         iterations=1)
