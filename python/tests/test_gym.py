# python/tests/test_gym.py — maxent.GymWorld: environments written to the Gymnasium API
# (reset(seed=) -> (obs, info), step(a) -> (obs, reward, terminated, truncated, info); no
# gymnasium import) as simulator worlds: training with ObservationFeaturePolicy and the kNN
# feedbacks, reproducible from the seed; evaluation; the early-end rule checked on deterministic
# environments whose counted states are written out by hand; the refusal of beliefs and of calls
# out of order; a factory's environment per thread; the README's example.
import math
import os
import re
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import maxent


class Discrete:
    """An action space of n actions start, .., start + n - 1 (what GymWorld reads of gymnasium's)."""

    def __init__(self, n, start=0):
        self.n, self.start = n, start


class Track:
    """A robot on [0, 10] m: actions 0 (back) and 1 (forward) move it 1 m with 0.1 m noise,
    reflected at the walls. It sees a 2 x 2 'image' (the range to the right wall, noisy, four
    times, float32) and never its position, which info['x'] gives (as POPGym does)."""
    action_space = Discrete(2)

    def __init__(self, log=None):
        self.log = log  # the seeds reset received

    def reset(self, seed=None, options=None):
        self.rng = np.random.default_rng(seed)
        if self.log is not None:
            self.log.append(seed)
        self.x = 0.5 * self.rng.uniform()
        return self._obs(), {"x": self.x}

    def _obs(self):
        return (10.0 - self.x + 0.3 * self.rng.normal(size=(2, 2))).astype(np.float32)

    def step(self, a):
        x = self.x + (1.0 if a == 1 else -1.0) + 0.1 * self.rng.normal()
        self.x = -x if x < 0.0 else (20.0 - x if x > 10.0 else x)
        return self._obs(), 0.0, False, False, {"x": self.x}


def track_world(**kw):
    return maxent.GymWorld(Track(), horizon=10, state_of=lambda info: [info["x"]], num_state_bins=10,
                           state_bin=lambda s: min(int(s[0]), 9), **kw)


class Walk:
    """Deterministic: the position goes up by one whatever the action; observation (x, 2x) of
    shape (2,), info['x']. terminate_at: terminated when x reaches it; limit: truncated after
    that many steps."""
    action_space = Discrete(2)

    def __init__(self, terminate_at=None, limit=None):
        self.terminate_at, self.limit = terminate_at, limit
        self.steps_taken = 0  # over all episodes

    def reset(self, seed=None, options=None):
        self.x = self.t = 0
        return np.array([0.0, 0.0]), {"x": 0}

    def step(self, a):
        self.steps_taken += 1
        self.x += 1
        self.t += 1
        terminated = self.terminate_at is not None and self.x >= self.terminate_at
        truncated = self.limit is not None and self.t >= self.limit
        return np.array([self.x, 2.0 * self.x]), 0.0, terminated, truncated, {"x": self.x}


def walk_world(env, horizon=6):
    return maxent.GymWorld(env, horizon=horizon, state_of=lambda info: np.array([info["x"]]), num_state_bins=horizon + 1,
                           state_bin=lambda s: int(s[0]))


def features(world):
    return maxent.ObservationFeaturePolicy(maxent.RawObservationFeatures(world.observation_dim), world.num_actions)


def recorded(world, counting="paper", episodes=2):
    """Every episode's counted state bins, state points and observation points, from the trainer."""
    seen = []

    def record(view):
        seen.append((view.counted_states.tolist(), view.counted_state_points.tolist(),
                     view.counted_observation_points.tolist()))
        return 0.0

    fb = maxent.UserFeedback(record, state_points=True, observation_points=True)
    world.train(features(world), fb, "reinforce", maxent.ConstantStep(1e-300), iterations=episodes, batch=1,
                counting=counting)
    return seen


def test_shapes_actions_and_states_are_read_from_the_environment():
    w = track_world()
    assert w.observation_shape == (2, 2) and w.observation_dim == 4 and w.num_actions == 2
    assert w.horizon == 10 and w.num_state_bins == 10 and w.state_point_dim == 1
    assert not hasattr(w, "observation_likelihood") and not hasattr(w, "observation_log_likelihood")
    # the observation is the environment's, flattened row by row, as float64
    seen = []

    def record(view):
        seen.append(view.observation_points.copy())
        return 0.0

    log = []
    w = maxent.GymWorld(Track(log), horizon=3)
    assert not hasattr(w, "state_point")  # no state_of: the true state is unknown
    w.train(features(w), maxent.UserFeedback(record, observation_points=True), iterations=1, batch=1, seed=4)
    env = Track()
    obs, _ = env.reset(seed=log[-1])
    assert seen[0].shape == (3, 4) and seen[0].dtype == np.float64
    np.testing.assert_array_equal(seen[0][0], obs.astype(np.float64).reshape(-1))


def test_training_is_a_pure_function_of_the_seed():
    w = track_world()
    for feedback in ("moe-knn", "mse-knn", maxent.MOEKnn(3), "mse"):
        a = w.train(features(w), feedback, iterations=4, batch=3, seed=7)
        b = w.train(features(w), feedback, iterations=4, batch=3, seed=7)
        assert a == b and np.array_equal(a.parameters, b.parameters)  # identical histories, θ bit for bit
        assert np.all(np.isfinite(a.feedback)) and not np.array_equal(a.parameters, 0 * a.parameters)
        c = w.train(features(w), feedback, iterations=4, batch=3, seed=8)
        assert not np.array_equal(a.feedback, c.feedback)
    # the episodes reset with seeds drawn from the run's generator: the same seeds in the same order
    logs = [[], []]
    for log in logs:
        v = maxent.GymWorld(Track(log), horizon=5)
        v.train(features(v), "moe-knn", iterations=2, batch=3, seed=1)
    assert logs[0] == logs[1] and len(logs[0]) == 1 + 6 and len(set(logs[0][1:])) == 6  # the probe, then 6 episodes
    # several seeds run one after another through the one environment
    runs = w.train(features(w), "moe-knn", iterations=2, batch=2, seeds=[1, 2])
    assert runs[1] == w.train(features(w), "moe-knn", iterations=2, batch=2, seed=2)


def test_moe_knn_needs_only_the_observations_and_training_explores():
    # No state_of: moe-knn trains on the 2 x 2 images alone. The robot starts at the left wall; a
    # uniform walk covers about 3 of the ten 1 m bins, walking right covers all (log 10 = 2.30).
    # Evaluated on a world that knows the true state (the same environment), 60 episodes each: the
    # trained policy beats the uniform one by 0.4 nats in the binned and kNN true-state entropies
    # (measured: binned 2.247 against 1.115, kNN 2.629 against 1.299).
    blind = maxent.GymWorld(Track(), horizon=10)
    policy = features(blind)
    r = blind.train(policy, "moe-knn", step=maxent.ConstantStep(0.3), iterations=25, batch=8, seed=3)
    policy.parameters = r.parameters
    w = track_world()
    trained, uniform = w.evaluate(policy, episodes=60, seed=1), w.evaluate_uniform(episodes=60, seed=1)
    msg = f"trained {trained}, uniform {uniform}"
    assert trained["true_entropy"]["mean"] > uniform["true_entropy"]["mean"] + 0.4, msg
    assert trained["true_entropy_knn"]["mean"] > uniform["true_entropy_knn"]["mean"] + 0.4, msg


def test_evaluate_reports_what_the_world_allows():
    w = track_world()
    p = features(w)
    e = w.evaluate(p, episodes=5, seed=2, knn_k=3)
    assert e == w.evaluate(p, episodes=5, seed=2, knn_k=3)  # a pure function of the seed
    assert e["episodes"] == 5 and e["knn_k"] == 3 and e["knn_rule"] == "scale"
    assert e["believed_entropy"] is None and e["belief_entropy_sum"] is None
    assert e["true_entropy_estimator"] == "binned" and e["observation_entropy_estimator"] == "knn"
    for key in ("true_entropy", "observation_entropy", "true_entropy_knn"):
        d = e[key]
        assert d["n"] == 5 and d["low"] <= d["mean"] <= d["high"]
    # θ = 0 is the uniform policy: evaluate_uniform is the same evaluation
    assert w.evaluate_uniform(episodes=5, seed=2, knn_k=3) == e
    # the per-episode values, recomputed here from the episodes train() records for the seed
    values = {"s": [], "o": [], "b": []}

    def record(view):
        values["s"].append(maxent.knn_entropy(view.counted_state_points, 3))
        values["o"].append(maxent.knn_entropy(view.counted_observation_points, 3))
        counts = np.bincount(view.counted_states.astype(np.int64))
        q = counts[counts > 0] / counts.sum()
        values["b"].append(float(-(q * np.log(q)).sum()))
        return 0.0

    r = w.train(p, maxent.UserFeedback(record, state_points=True, observation_points=True), "reinforce",
                maxent.ConstantStep(1e-300), iterations=5, batch=1, seed=2)
    assert np.array_equal(r.parameters, p.parameters)  # θ did not move
    for key, v in (("true_entropy_knn", "s"), ("observation_entropy", "o"), ("true_entropy", "b")):
        assert e[key]["mean"] == pytest.approx(np.mean(values[v]), abs=1e-12), key
    # the 95% interval as the library's mean_interval draws it (Student t with n - 1 = 4 degrees of
    # freedom; scipy's quantile, or a 1e-3 approximation without scipy)
    try:
        import scipy  # noqa: F401
        tolerance = 1e-9
    except ImportError:
        tolerance = 1e-2
    (library,) = r.windowed_means(5, "true_entropy")
    assert (e["true_entropy"]["low"], e["true_entropy"]["high"]) == pytest.approx((library["low"], library["high"]),
                                                                                  rel=tolerance)
    sd = np.std(values["s"], ddof=1)
    half = (library["high"] - library["low"]) / 2 / (np.std(values["b"], ddof=1) / math.sqrt(5))  # t(0.975, 4)
    assert e["true_entropy_knn"]["high"] - e["true_entropy_knn"]["mean"] == pytest.approx(half * sd / math.sqrt(5),
                                                                                          rel=tolerance)
    # without state_of or bins: no true-state quantity; knn_k = 0: no kNN one
    blind = maxent.GymWorld(Track(), horizon=10)
    b = blind.evaluate(p, episodes=3)
    assert b["true_entropy"] is None and b["true_entropy_knn"] is None and b["true_entropy_knn_estimator"] == "none"
    z = w.evaluate(p, episodes=3, knn_k=0)
    assert z["observation_entropy"] is None and z["true_entropy_knn"] is None and z["knn_rule"] == "none"
    assert w.evaluate(p, episodes=3, knn_min_distance=0.5)["knn_rule"] == "min_distance"
    with pytest.raises(maxent.ConfigError, match="episodes = 1"):
        w.evaluate(p, episodes=1)


def test_an_episode_that_terminates_stays_at_its_last_state():
    # Walk terminates when x reaches 3, horizon 6: counted states x = 0, 1, 2, 3, 3, 3 (paper
    # counting: s_1 .. s_6), observations (x, 2x) likewise; the environment is stepped 3 times
    # per episode, not 5.
    env = Walk(terminate_at=3)
    w = walk_world(env)
    before = env.steps_taken
    seen = recorded(w)
    assert env.steps_taken - before == 2 * 3
    for states, points, observations in seen:
        assert states == [0, 1, 2, 3, 3, 3]
        assert points == [[0.0], [1.0], [2.0], [3.0], [3.0], [3.0]]
        assert observations == [[0.0, 0.0], [1.0, 2.0], [2.0, 4.0], [3.0, 6.0], [3.0, 6.0], [3.0, 6.0]]
    # the binned true entropy of (1/6, 1/6, 1/6, 1/2): (1/2) log 6 + (1/2) log 2 = (1/2) log 12
    e = w.evaluate(features(w), episodes=3, knn_k=0)
    assert e["true_entropy"]["mean"] == pytest.approx(0.5 * math.log(12.0), abs=1e-12)
    assert np.array_equal(maxent.visit_counts(w, features(w), w.filter(), episodes=4), [4, 4, 4, 12])
    # counting 'authors': 6 actions, s_2 .. s_7 counted: 1, 2, 3, 3, 3, 3
    assert recorded(w, counting="authors")[0][0] == [1, 2, 3, 3, 3, 3]
    # without an early end every step moves: 0 .. 5
    assert recorded(walk_world(Walk()))[0][0] == [0, 1, 2, 3, 4, 5]


def test_an_episode_that_is_truncated_stays_at_its_last_state():
    # A time limit of 2 steps within a horizon of 5: 0, 1, 2, 2, 2; the same rule as termination.
    env = Walk(limit=2)
    w = walk_world(env, horizon=5)
    before = env.steps_taken
    seen = recorded(w, episodes=3)
    assert env.steps_taken - before == 3 * 2
    assert all(states == [0, 1, 2, 2, 2] for states, _, _ in seen)
    # the repeated points are ties for kNN, counted at 1e-12 of the extent: far below uniform spacing
    e = w.evaluate(features(w), episodes=2, knn_k=2)
    assert e["true_entropy_knn"]["mean"] == maxent.knn_entropy(np.array([[0.0], [1.0], [2.0], [2.0], [2.0]]), 2)
    w = walk_world(Walk(), horizon=5)
    spread = w.evaluate(features(w), episodes=2, knn_k=2)
    assert e["true_entropy_knn"]["mean"] < spread["true_entropy_knn"]["mean"] - 10.0


def test_actions_reach_the_environment_as_it_names_them():
    class Recorder(Walk):
        def step(self, a):
            self.actions.append(a)
            return super().step(a)

    env = Recorder()
    env.action_space = Discrete(3, start=-1)  # actions -1, 0, 1
    env.actions = []
    w = walk_world(env, horizon=30)
    assert w.num_actions == 3
    w.train(features(w), "mse-knn", iterations=1, batch=1)
    assert set(env.actions) == {-1, 0, 1} and all(type(a) is int for a in env.actions)

    class Continuous(Recorder):  # a Box action space: no n; the library takes a discretisation
        action_space = object()

    env = Continuous()
    env.actions = []
    with pytest.raises(maxent.ConfigError, match="has no n .*num_actions and action_of"):
        walk_world(env)
    w = maxent.GymWorld(env, 8, num_actions=2, action_of=lambda i: [-0.5, 0.5][i])
    w.train(features(w), "moe-knn", iterations=1, batch=1)
    assert set(env.actions) == {-0.5, 0.5}
    with pytest.raises(maxent.ConfigError, match=r"num_actions = 3 but env.action_space.n = 2"):
        maxent.GymWorld(Walk(), 5, num_actions=3)


def test_beliefs_are_refused_with_the_reason():
    w = track_world()
    p = features(w)
    why = r"needs observation_likelihood\(a, o, s\).*Gymnasium-style environment has neither.*ObservationFeaturePolicy"
    with pytest.raises(maxent.ConfigError, match="BeliefAveragedPolicy reads the belief. .*" + why):
        w.train(maxent.BeliefAveragedPolicy(10, 2), "moe-knn", iterations=1)
    with pytest.raises(maxent.ConfigError, match="track_belief_entropy=True " + ".*" + why):
        w.train(p, "moe-knn", iterations=1, track_belief_entropy=True)
    with pytest.raises(maxent.ConfigError, match=r"a belief update was asked for .*" + why):
        w.train(p, "mbe", iterations=1, batch=1)
    # the module's own calls: maxent.train tracks belief entropies by default, maxent.evaluate always
    with pytest.raises(maxent.ConfigError, match=r"a belief update was asked for .*" + why):
        maxent.train(w, w.filter(), p, "moe-knn", iterations=1, batch=1)
    with pytest.raises(maxent.ConfigError, match=r"a belief update was asked for .*" + why):
        maxent.train(w, w.filter(), maxent.BeliefAveragedPolicy(1, 2), "moe-knn", iterations=1, batch=1,
                     track_belief_entropy=False)
    with pytest.raises(maxent.ConfigError, match=r"a belief update was asked for .*GymWorld.evaluate"):
        maxent.evaluate(w, w.filter(), p, episodes=2)
    # a ParticleFilter built on the world: its particles are snapshots of the environment, stale
    # by the first update
    pf = maxent.ParticleFilter(w, particles=3)
    with pytest.raises(maxent.ConfigError, match=r"given <GymWorld state: .*step 0>, but the environment is at .*" + why):
        maxent.train(w, pf, p, "moe-knn", iterations=1, batch=1)
    # true states asked for but not given
    blind = maxent.GymWorld(Track(), horizon=10)
    with pytest.raises(maxent.ConfigError, match=r"'mse-knn' .*state_of"):
        blind.train(p, "mse-knn", iterations=1)
    with pytest.raises(maxent.ConfigError, match=r"'mse' .*num_state_bins"):
        blind.train(p, "mse", iterations=1)
    with pytest.raises(maxent.ConfigError, match=r"no state_of"):  # the module's message shows the world
        maxent.train(blind, blind.filter(), p, "mse-knn", iterations=1, track_belief_entropy=False)


def test_calls_out_of_order_are_refused():
    w = walk_world(Walk())
    rng = maxent.Rng(0)
    s0 = w.sample_initial_state(rng)
    np.testing.assert_array_equal(w.sample_initial_observation(s0, rng), [0.0, 0.0])
    s1 = w.sample_next_state(s0, 1, rng)
    np.testing.assert_array_equal(w.sample_observation(1, s1, rng), [1.0, 2.0])
    with pytest.raises(maxent.ConfigError, match=r"given <GymWorld state: episode \d+, step 0>, but the environment is "
                                                 r"at <GymWorld state: episode \d+, step 1>"):
        w.sample_next_state(s0, 1, rng)  # s0 is gone: the environment moved on
    with pytest.raises(maxent.ConfigError, match="not reached by action 0"):
        w.sample_observation(0, s1, rng)
    with pytest.raises(maxent.ConfigError, match="not an episode's first state"):
        w.sample_initial_observation(s1, rng)
    with pytest.raises(maxent.ConfigError, match="is not a state of this GymWorld"):
        w.sample_next_state(3, 0, rng)
    w.sample_initial_state(rng)  # another run resets the environment: s1 is stale too
    with pytest.raises(maxent.ConfigError, match="another run reset or stepped this environment"):
        w.sample_next_state(s1, 0, rng)


class Sleepy(Track):
    """Track whose step sleeps 0.2 ms, letting other Python threads run in the middle of an episode."""

    def step(self, a):
        time.sleep(0.0002)
        return super().step(a)


def in_threads(fn, n=3):
    """fn() on n threads at once: each one's result, or the maxent.Error it raised."""
    out = [None] * n

    def run(i):
        try:
            out[i] = fn()
        except maxent.Error as e:
            out[i] = e

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return out


def test_a_factory_gives_each_thread_its_own_environment():
    made = []

    def make():
        made.append(Sleepy())
        return made[-1]

    w = maxent.GymWorld(make, horizon=10, state_of=lambda info: [info["x"]])
    assert len(made) == 1  # the probe's
    expected = w.train(features(w), "mse-knn", iterations=3, batch=4, seed=5)
    out = in_threads(lambda: w.train(features(w), "mse-knn", iterations=3, batch=4, seed=5))
    assert len(made) == 4 and all(r == expected for r in out), out
    # a class is a factory too (it has reset and step, but as functions of an instance)
    assert maxent.GymWorld(Sleepy, horizon=10, state_of=lambda info: [info["x"]]).train(
        features(w), "mse-knn", iterations=3, batch=4, seed=5) == expected
    # one environment object on three threads: each run gives the same result, or it is refused
    # when another moved the environment in its episode, never a run over a mix of episodes
    shared = maxent.GymWorld(Sleepy(), horizon=10, state_of=lambda info: [info["x"]])
    for r in in_threads(lambda: shared.train(features(w), "mse-knn", iterations=3, batch=4, seed=5)):
        assert r == expected or (isinstance(r, maxent.ConfigError) and
                                 "another run reset or stepped this environment" in str(r)), r
    with pytest.raises(maxent.ConfigError, match="neither an environment .* nor a factory"):
        maxent.GymWorld(42, horizon=3)


def test_bad_environments_are_named():
    class OldApi(Walk):  # gym < 0.26: step returns (obs, reward, done, info)
        def step(self, a):
            obs, r, term, trunc, info = super().step(a)
            return obs, r, term or trunc, info

    w = walk_world(OldApi())
    with pytest.raises(maxent.ConfigError, match=r"returned .* not \(observation, reward, terminated, truncated, info\)"):
        w.train(features(w), "moe-knn", iterations=1, batch=1)

    class ResetObsOnly(Walk):
        def reset(self, seed=None, options=None):
            return super().reset(seed)[0]

    with pytest.raises(maxent.ConfigError, match=r"not \(observation, info\)"):
        walk_world(ResetObsOnly())

    class Grows(Walk):  # the observation changes shape at step 2
        def step(self, a):
            obs, r, term, trunc, info = super().step(a)
            return (obs if self.x < 2 else np.zeros(3)), r, term, trunc, info

    w = walk_world(Grows())
    with pytest.raises(maxent.ModelError, match=r"env.step\(\d\) at step 2 .* shape \(3,\); the first one had \(2,\)"):
        w.train(features(w), "moe-knn", iterations=1, batch=1)

    class NaN(Walk):
        def step(self, a):
            obs, r, term, trunc, info = super().step(a)
            return obs * np.nan, r, term, trunc, info

    w = walk_world(NaN())
    with pytest.raises(maxent.ModelError, match="entry 0 = nan .*not finite"):
        w.train(features(w), "moe-knn", iterations=1, batch=1)
    with pytest.raises(maxent.ModelError, match=r"state_bin returned 9 .*not a bin in \[0, 3\)"):
        maxent.GymWorld(Walk(), 2, state_of=lambda i: [i["x"]], num_state_bins=3, state_bin=lambda s: 9).train(
            features(w), "mse", iterations=1, batch=1)
    with pytest.raises(maxent.ModelError, match="not numbers"):
        maxent.GymWorld(Walk(), 2, state_of=lambda info: "here")
    with pytest.raises(maxent.ConfigError, match="horizon = 0"):
        maxent.GymWorld(Walk(), 0)
    with pytest.raises(maxent.ConfigError, match="num_state_bins and state_bin come together"):
        maxent.GymWorld(Walk(), 3, state_of=lambda i: [i["x"]], num_state_bins=4)


def readme_block(name):
    source = os.environ.get("MAXENT_PY_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
    text = open(os.path.join(source, "README.md"), encoding="utf-8").read()
    m = re.search(r"<!-- readme-example:%s:begin -->\n```python\n(.*?)```\n<!-- readme-example:%s:end -->" % (name, name),
                  text, re.S)
    assert m, f"no readme-example:{name} block in README.md"
    return m.group(1)


def test_readme_gym_example(tmp_path):
    p = subprocess.run([sys.executable, "-c", readme_block("python-gym")], cwd=tmp_path, capture_output=True, text=True,
                       timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    m = re.search(r"trained (\S+), uniform (\S+)", p.stdout)
    assert m and float(m.group(1)) > float(m.group(2)), p.stdout
