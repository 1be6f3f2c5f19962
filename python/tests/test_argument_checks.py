# python/tests/test_argument_checks.py — bad arguments refused up front with a TypeError or
# ValueError naming the argument and its value; shared objects used from two threads.
import threading
import time

import numpy as np
import pytest

import maxent
from test_package import Corridor


# --- learned-belief settings refused before any episode ----------------------------------------

def test_train_learned_smoothing_zero_refused_up_front(ring):
    calls = []
    with pytest.raises(maxent.ConfigError, match=r"smoothing must be in \(0"):
        maxent.train_learned(ring, maxent.BeliefAveragedPolicy(4, 2), "mbe", latent_states=2, smoothing=0.0,
                             warmup=5, heldout=0, iterations=2, batch=2, progress=calls.append)
    assert calls == []
    assert issubclass(maxent.ConfigError, ValueError)


def test_repeated_seeds_refused_up_front(ring):
    # A repeated seed is the same run twice: the mean and interval over seeds would count it twice.
    # maxent-paper's --seeds and run_experiment refuse it; train, train_learned and a simulator's too.
    calls = []
    policy = maxent.BeliefAveragedPolicy(4, 2)
    with pytest.raises(maxent.ConfigError, match="train: seeds lists 2 twice"):
        maxent.train(ring, maxent.BayesFilter(ring), policy, "mse", iterations=2, batch=2, seeds=[2, 5, 2],
                     progress=calls.append)
    with pytest.raises(maxent.ConfigError, match="train: seeds lists 7 twice"):
        maxent.train(ring, maxent.BayesFilter(ring), policy, "mse", iterations=2, batch=2, seeds=np.array([7, 7]))
    with pytest.raises(maxent.ConfigError, match="train: seeds lists 0 twice"):
        maxent.train_learned(ring, policy, "mbe", latent_states=2, warmup=5, heldout=0, iterations=2, batch=2,
                             seeds=[0, 0], progress=calls.append)
    with pytest.raises(maxent.ConfigError, match="train: seeds lists 1 twice"):
        maxent.train(Corridor(), maxent.ParticleFilter(Corridor(), particles=20), maxent.ObservationPolicy(4, 2),
                     "mse", iterations=2, batch=2, seeds=[1, 1])
    assert calls == []
    assert len(maxent.train(ring, maxent.BayesFilter(ring), policy, "mse", iterations=2, batch=2, seeds=[3, 1])) == 2


def test_a_simulator_with_horizon_zero_is_refused_naming_it():
    world = Corridor()
    world.horizon = 0
    for run in (lambda pf: maxent.train(world, pf, maxent.ObservationPolicy(4, 2), "mse", iterations=1, batch=2),
                lambda pf: maxent.evaluate(world, pf, maxent.ObservationPolicy(4, 2), episodes=2)):
        with pytest.raises(maxent.ConfigError, match=r"the world's horizon\(\) is 0; an episode needs at least 1 step"):
            run(maxent.ParticleFilter(world, particles=5))


def test_run_experiment_learning_checked_up_front():
    with pytest.raises(maxent.ConfigError, match="smoothing"):
        maxent.run_experiment("nosim2b", iterations=1, batch=1, seeds=[0], learning={"smoothing": 0.0})


# --- Python values that name what is wrong -----------------------------------------------------

@pytest.mark.parametrize("actions, error, text", [
    ([0, -1], ValueError, r"actions\[1\] is -1"),
    ([0, 0.5], TypeError, r"actions\[1\] is 0.5"),
    ([0, 2 ** 70], ValueError, r"actions\[1\] is 1180591620717411303424"),
    ([[0, 1]], TypeError, r"actions\[0\] is \[0, 1\]"),
    (np.array([0.0, 1.0]), TypeError, r"actions\[0\] is"),
])
def test_fit_belief_model_bad_entries(actions, error, text):
    seqs = [([0, 1], [0, 1, 0]), (actions, [0, 1, 0])]
    with pytest.raises(error, match=r"fit_belief_model: sequence 1: " + text):
        maxent.fit_belief_model(seqs, 2, 2, 2, horizon=2)


def test_fit_belief_model_bad_pair():
    with pytest.raises(TypeError, match=r"sequence 0 is 5"):
        maxent.fit_belief_model([5], 2, 2, 2, horizon=2)


class BadLikelihood(Corridor):
    def __init__(self, value):
        super().__init__()
        self.value = value

    def observation_likelihood(self, a, o, s):
        return self.value


@pytest.mark.parametrize("value, error, text", [
    (None, TypeError, "None"), ("0.5", TypeError, "'0.5'"), (0.5 + 1j, TypeError, r"\(0.5\+1j\)"),
    (10 ** 400, ValueError, "1000000"), (True, TypeError, "True"),
])
def test_observation_likelihood_bad_values(value, error, text):
    world = BadLikelihood(value)
    pf = maxent.ParticleFilter(world, particles=5)
    with pytest.raises(error, match=r"observation_likelihood\(a=\d+, o=\d+, s\) returned " + text):
        maxent.train(world, pf, maxent.ObservationPolicy(4, 2), "mse", iterations=1, batch=1)


def test_observation_likelihood_numpy_scalars_accepted():
    world = BadLikelihood(np.float32(1.0))
    pf = maxent.ParticleFilter(world, particles=5)
    maxent.train(world, pf, maxent.ObservationPolicy(4, 2), "mse", iterations=1, batch=1)


def test_learning_huge_count():
    with pytest.raises(ValueError, match=r"learning\['warmup'\] must be an integer in \[1, 100000000\], got "
                                         r"1180591620717411303424"):
        maxent.run_experiment("nosim2b", iterations=1, batch=1, seeds=[0], learning={"warmup": 2 ** 70})
    with pytest.raises(ValueError, match=r"learning\['warmup'\] must be an integer >= 1, got '5'"):
        maxent.run_experiment("nosim2b", iterations=1, batch=1, seeds=[0], learning={"warmup": "5"})


@pytest.mark.parametrize("p, text", [([0.5, float("nan")], r"probabilities\[1\] is nan"),
                                     ([1.5, -0.5], r"probabilities\[1\] is -0.5"),
                                     ([0.2, 0.2], "sum to 0.4")])
def test_categorical_refuses_non_distributions(p, text):
    with pytest.raises(ValueError, match=text):
        maxent.Rng(1).categorical(np.array(p))


def test_huge_sizes_named():
    with pytest.raises(ValueError, match="num_observations = 1099511627776"):
        maxent.ObservationPolicy(2 ** 40, 2 ** 40)
    with pytest.raises(ValueError, match="num_states = "):
        maxent.BeliefMixturePolicy(2 ** 62, 4)
    with pytest.raises(ValueError, match="particles = 1152921504606846976"):
        maxent.ParticleFilter(Corridor(), particles=2 ** 60)
    with pytest.raises(ValueError, match="width = 4294967296"):
        maxent.grid_world(2 ** 32, 2 ** 32)


# --- run_experiment applies the programs' checks -------------------------------------------------

@pytest.mark.parametrize("kw, text", [
    (dict(noises=[0.0, 0.0], objectives=["mbe"]), "noises lists 0 twice"),
    (dict(objectives=["mbe", "mbe"]), "objectives lists mbe twice"),
    (dict(noises=[2.0]), "noises contains 2, not a standard deviation in"),
    (dict(noises=[float("nan")]), "noises contains nan"),
    (dict(objectives=[]), "no curve to train"),
    (dict(seeds=[1, 1]), "seeds lists 1 twice"),
    (dict(seeds=[]), "seeds is empty"),
    (dict(policies=["BA", "BA"]), "policies lists BA twice"),
    (dict(alpha=float("inf")), "alpha must be a finite number > 0"),
])
def test_run_experiment_settings_checked(kw, text):
    args = dict(iterations=1, batch=1, seeds=[0])
    args.update(kw)
    with pytest.raises(maxent.ConfigError, match=text):
        maxent.run_experiment("fig2a", **args)


# --- shared objects and threads ------------------------------------------------------------------

class SlowCorridor(Corridor):
    """Each move signals that a run is under way and gives other threads time to run."""

    def __init__(self):
        super().__init__()
        self.started = threading.Event()

    def sample_next_state(self, s, a, rng):
        self.started.set()
        time.sleep(0.0005)
        return super().sample_next_state(s, a, rng)


def test_python_world_filter_refuses_concurrent_use():
    world = SlowCorridor()
    pf = maxent.ParticleFilter(world, particles=5)
    policy = maxent.ObservationPolicy(4, 2)

    def run():
        return maxent.train(world, pf, policy, "mse", iterations=20, batch=2, seed=7)

    serial = run()
    world.started.clear()
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("first", run()))
    t.start()
    assert world.started.wait(10)
    with pytest.raises(maxent.ConfigError, match="in use by another call"):
        run()
    t.join()
    assert out["first"] == serial  # the first run was not disturbed
    assert run() == serial  # and the filter is free again


def test_setting_horizon_during_train_refused(room):
    started, proceed = threading.Event(), threading.Event()

    def progress(info):
        started.set()
        proceed.wait(10)
        return True

    p = maxent.BeliefAveragedPolicy(room.num_states, room.num_actions)
    out = {}
    t = threading.Thread(target=lambda: out.setdefault("r", maxent.train(room, None, p, "mse", iterations=3,
                                                                         batch=2, progress=progress)))
    t.start()
    try:
        assert started.wait(10)
        with pytest.raises(maxent.ConfigError, match="Model.horizon = 3: the model is in use"):
            room.horizon = 3
        f = maxent.BayesFilter(room)
        assert f.dimension == room.num_states
    finally:
        proceed.set()
        t.join()
    assert room.horizon == 4 and out["r"].iterations == 3
    room.horizon = 3  # free again
    assert room.horizon == 3
