"""maxent.GymWorld: a Gymnasium-style environment (reset(seed=) -> (obs, info), step(a) -> (obs,
reward, terminated, truncated, info)) seen as a simulator world, without importing gymnasium.

The module's simulator protocol draws states and observations through methods (README, Python
simulators); such an environment instead holds ONE current state and moves it in place. The
rollout calls the methods strictly in order (sample_initial_state, sample_initial_observation,
then per step sample_next_state(s, a), sample_observation(a, s)), each on the state the previous
call returned, so the adapter maps them onto reset and step: sample_initial_state resets the
environment with a seed drawn from the generator the call receives (a run is a pure function of
its seed when the environment draws its randomness from the generator reset(seed=) seeds, as
Gymnasium's np_random does), sample_next_state steps it. A state here is a snapshot (the
flattened observation, the true state's point and bin) of the environment's current state; a
method given any other state refuses it (ConfigError), so no run can read an environment that
another run moved.

Beliefs need observation_likelihood(a, o, s) and states that can be copied and stepped apart from
the environment; such an environment has neither. GymWorld trains ObservationFeaturePolicy with
the feedbacks that read observations ('moe-knn') or true states ('mse-knn', 'mse'), through a
placeholder ParticleFilter (filter(): one particle, never updated) with track_belief_entropy=False;
a belief update (a belief-reading policy or feedback, track_belief_entropy=True, maxent.evaluate)
is a ConfigError saying so. GymWorld.evaluate evaluates without beliefs.
"""
import math
import threading

import numpy as np

from . import _core
from ._extras import _t_quantile, train as _train

__all__ = ["GymWorld"]

_SEED_RANGE = 2 ** 32  # reset(seed=) draws from [0, 2^32): what every numpy and Gymnasium seeding takes


_BELIEFS = ("A belief (a ParticleFilter update: a policy that reads the belief such as BeliefAveragedPolicy, "
            "the feedbacks 'mbe' and 'reg-mbe', track_belief_entropy=True, or maxent.evaluate, which reports belief "
            "entropies) needs observation_likelihood(a, o, s) and states that can be stepped apart from the "
            "environment, and a Gymnasium-style environment has neither. Train ObservationFeaturePolicy with "
            "feedback 'moe-knn' (observations only) or 'mse-knn' (true states, state_of=) through GymWorld.train "
            "(track_belief_entropy=False), and evaluate with GymWorld.evaluate")


def _no_belief_message(what):
    return f"GymWorld: {what}. {_BELIEFS}"


class _Particle:
    """The one particle of GymWorld.filter(): never stepped (that would be a belief update)."""
    __slots__ = ()

    def __repr__(self):
        return "<GymWorld.filter() particle>"


class _Slot:
    """One environment object and the state it is in (the last snapshot the adapter made)."""
    __slots__ = ("env", "current", "episodes", "lock")

    def __init__(self, env):
        self.env = env
        self.current = None
        self.episodes = 0
        self.lock = threading.Lock()


class _GymState:
    """A snapshot of an environment's state after reset (step 0) or after `step` steps: what the
    library records of it. `ended`: terminated or truncated at this step or before."""
    __slots__ = ("slot", "episode", "step", "action", "observation", "point", "bin", "terminated",
                 "truncated", "ended_at")

    def __repr__(self):
        end = "" if self.ended_at is None else f", ended at step {self.ended_at}" + (
            " (terminated)" if self.terminated else " (truncated)")
        return f"<GymWorld state: episode {self.episode}, step {self.step}{end}>"


def _zero_bin(_):
    return 0


class GymWorld:
    """A Gymnasium-style environment as a simulator world (vector observations).

    env: the environment (an object with reset and step), or a factory: a callable without
      arguments returning one (a class, say), called once per Python thread that uses the world (each thread then
      steps its own environment; one environment object serves one run at a time, and a run of a
      Python world runs its seeds one after another on the calling thread).
    horizon: T, the episode length the library counts (it steps the environment T - 1 times under
      counting 'paper', T under 'authors').
    num_actions: A; default env.action_space.n (a Discrete space; its `start` is added to the
      action index). action_of: index -> the action env.step receives (then num_actions is required):
      a discretisation of a continuous action space, say.
    state_of: info -> the true state, an array-like of floats of a fixed size (POPGym-style
      environments put it in info): the point that 'mse-knn' and evaluate's kNN true-state
      entropy count. num_state_bins and state_bin (state_of's value -> a bin < num_state_bins):
      bins for 'mse' and the binned true entropy (without them every state is bin 0, and those
      quantities are 0).
    observation_of: obs -> an array-like of numbers (e.g. for a dict observation); default the
      observation itself. Observations of any shape are flattened to float64 vectors;
      observation_shape records the shape.
    probe_seed: the construction resets the environment once with this seed to learn the shapes
      (every episode resets it again, so runs do not depend on it).

    Termination and truncation before the horizon: the episode stays at its last state and
    observation for the remaining steps (the environment is not stepped again; the actions drawn
    there change nothing). Every entropy then counts the final state once per remaining step: the
    binned ones ('mse', true_entropy) put that mass on the final bin, the kNN ones ('mse-knn',
    'moe-knn') see repeated points, which the kNN estimator counts at its resolution
    (min_distance; by default 1e-12 of the episode's extent), far below any real spacing: an early
    end costs entropy, strongly under kNN. That is the fixed-horizon reading of an episodic task
    (an end state is absorbing): the objective stays the entropy of T counted steps, and a policy is
    not rewarded for ending early, as resetting within the horizon would reward it (a fresh start
    re-counts the initial states). Truncation is treated as termination: choose a horizon within
    the environment's own time limit to keep it out.
    """

    def __init__(self, env, horizon, *, num_actions=None, action_of=None, state_of=None, num_state_bins=None,
                 state_bin=None, observation_of=None, probe_seed=0):
        if hasattr(env, "reset") and hasattr(env, "step") and not isinstance(env, type):
            self._factory = None
            self._shared = _Slot(env)
        elif callable(env):
            self._factory = env
            self._shared = None
        else:
            raise _core.ConfigError(f"GymWorld: {env!r} is neither an environment (reset and step) nor a factory "
                                    f"(a callable returning one)")
        self._local = threading.local()
        if isinstance(horizon, bool) or not isinstance(horizon, (int, np.integer)) or horizon < 1:
            raise _core.ConfigError(f"GymWorld: horizon = {horizon!r}; give the episode length T, an int >= 1")
        self.horizon = int(horizon)
        for name, fn in (("action_of", action_of), ("state_of", state_of), ("state_bin", state_bin),
                         ("observation_of", observation_of)):
            if fn is not None and not callable(fn):
                raise _core.ConfigError(f"GymWorld: {name} = {fn!r} is not callable")
        self._action_of = action_of
        self._state_of = state_of
        self._state_bin = state_bin
        self._observation_of = observation_of
        slot = self._slot()
        self.num_actions, self._action_start = self._actions(slot.env, num_actions)
        if (num_state_bins is None) != (state_bin is None):
            raise _core.ConfigError("GymWorld: num_state_bins and state_bin come together (state_bin(state) -> a "
                                    "bin < num_state_bins)")
        if state_bin is not None and state_of is None:
            raise _core.ConfigError("GymWorld: state_bin bins the true state, which needs state_of(info)")
        if num_state_bins is not None and (isinstance(num_state_bins, bool) or
                                           not isinstance(num_state_bins, (int, np.integer)) or num_state_bins < 1):
            raise _core.ConfigError(f"GymWorld: num_state_bins = {num_state_bins!r}, not an int >= 1")
        self.num_state_bins = 1 if num_state_bins is None else int(num_state_bins)

        # The probe: one reset, for the shapes.
        self.observation_shape = None
        self._state_shape = None
        obs, info = self._reset(slot.env, probe_seed)
        raw = obs if observation_of is None else observation_of(obs)
        self.observation_shape = self._numbers(raw, "the observation of env.reset").shape
        self.observation_dim = int(np.prod(self.observation_shape, dtype=np.int64))
        if self.observation_dim == 0:
            raise _core.ConfigError(f"GymWorld: env.reset returned an observation of shape {self.observation_shape}, "
                                    f"with no entry; the library needs at least one")
        if state_of is not None:
            state = state_of(info)
            self._state_shape = self._numbers(state, "state_of(info) after env.reset").shape
            d = int(np.prod(self._state_shape, dtype=np.int64))
            if d == 0:
                raise _core.ConfigError(f"GymWorld: state_of(info) returned {state!r}, a point with no coordinate")
            # Instance attributes, so that the module sees them only when the true state is known.
            self.state_point_dim = d
            self.state_point = self._state_point

    # --- set-up ---------------------------------------------------------------------------

    def _slot(self):
        """This thread's environment and its state (the shared one when given an object)."""
        if self._shared is not None:
            return self._shared
        slot = getattr(self._local, "slot", None)
        if slot is None:
            env = self._factory()
            if not (hasattr(env, "reset") and hasattr(env, "step")):
                raise _core.ConfigError(f"GymWorld: the factory returned {env!r}, which has no reset and step")
            slot = self._local.slot = _Slot(env)
        return slot

    @property
    def env(self):
        """The environment this thread steps."""
        return self._slot().env

    def _actions(self, env, num_actions):
        space = getattr(env, "action_space", None)
        n = getattr(space, "n", None)
        if num_actions is not None and (isinstance(num_actions, bool) or not isinstance(num_actions, (int, np.integer))
                                        or num_actions < 1):
            raise _core.ConfigError(f"GymWorld: num_actions = {num_actions!r}, not an int >= 1")
        if self._action_of is not None:
            if num_actions is None:
                raise _core.ConfigError("GymWorld: action_of maps action indices 0 .. num_actions - 1; give num_actions")
            return int(num_actions), 0
        if n is None:
            if num_actions is None:
                raise _core.ConfigError(f"GymWorld: the environment's action space {space!r} has no n (not a finite "
                                        f"Discrete space); the library takes finite actions: give num_actions and "
                                        f"action_of(index) -> the action env.step takes (a discretisation)")
            return int(num_actions), 0
        n = int(n)
        if num_actions is not None and int(num_actions) != n:
            raise _core.ConfigError(f"GymWorld: num_actions = {num_actions} but env.action_space.n = {n} (give action_of "
                                    f"to map {num_actions} indices onto the environment's actions)")
        return n, int(getattr(space, "start", 0))

    def _reset(self, env, seed):
        out = env.reset(seed=seed)
        if not (isinstance(out, tuple) and len(out) == 2):
            raise _core.ConfigError(f"GymWorld: env.reset(seed={seed}) returned {out!r}, not (observation, info) "
                                    f"(the Gymnasium API: gym >= 0.26)")
        return out

    def _numbers(self, x, what):
        a = np.asarray(x)
        if a.dtype.kind not in "biuf":
            raise _core.ModelError(f"GymWorld: {what} is {x!r}, not numbers (dtype {a.dtype}); "
                                   f"observation_of / state_of can map it to an array of floats")
        return a

    def _vector(self, x, shape, what):
        """x as a fresh float64 vector, checked against the recorded shape and for finiteness."""
        a = self._numbers(x, what)
        if a.shape != shape:
            raise _core.ModelError(f"GymWorld: {what} has shape {a.shape}; the first one had {shape}, and every one "
                                   f"must have the same")
        v = np.array(a, dtype=np.float64).reshape(-1)
        bad = np.flatnonzero(~np.isfinite(v))
        if bad.size:
            raise _core.ModelError(f"GymWorld: {what} has entry {int(bad[0])} = {v[bad[0]]} (flattened), not finite: "
                                   f"{x!r}")
        v.flags.writeable = False
        return v

    def _snapshot(self, slot, step, action, obs, info, terminated, truncated, where):
        s = _GymState()
        s.slot, s.episode, s.step, s.action = slot, slot.episodes, step, action
        raw = obs if self._observation_of is None else self._observation_of(obs)
        s.observation = self._vector(raw, self.observation_shape, f"the observation of {where}")
        s.point, s.bin = None, 0
        if self._state_of is not None:
            state = self._state_of(info)
            s.point = self._vector(state, self._state_shape, f"state_of(info) after {where}")
            if self._state_bin is not None:
                b = self._state_bin(state)
                if isinstance(b, bool) or not isinstance(b, (int, np.integer)) or not 0 <= b < self.num_state_bins:
                    raise _core.ModelError(f"GymWorld: state_bin returned {b!r} after {where}, not a bin in "
                                           f"[0, {self.num_state_bins})")
                s.bin = int(b)
        s.terminated, s.truncated = bool(terminated), bool(truncated)
        s.ended_at = step if (s.terminated or s.truncated) else None
        slot.current = s
        return s

    def _check_current(self, slot, s, method):
        if isinstance(s, _Particle):
            raise _core.ConfigError(_no_belief_message(
                f"a belief update was asked for ({method} of the particle of GymWorld.filter())"))
        if not isinstance(s, _GymState):
            raise _core.ConfigError(f"GymWorld.{method}: {s!r} is not a state of this GymWorld")
        if s.slot is not slot or slot.current is not s:
            now = slot.current
            why = ("It belongs to another thread's environment" if s.slot is not slot else
                   "Either another run reset or stepped this environment meanwhile (for runs on several threads, "
                   "give GymWorld a factory: one environment per thread), or a ParticleFilter stepped its own "
                   "particles")
            raise _core.ConfigError(
                f"GymWorld.{method}: given {s!r}, but the environment is at "
                f"{'no episode' if now is None else repr(now)}: a Gymnasium-style environment moves its one state "
                f"in place, so only its current state can go on. {why}. {_BELIEFS}")

    # --- the simulator protocol (called by the module, in this order) ---------------------

    def sample_initial_state(self, rng):
        """Resets the environment with a seed drawn from rng (reset(seed=) in [0, 2^32))."""
        if getattr(self._local, "making_filter", False):
            return _Particle()
        slot = self._slot()
        seed = int(rng.integers(_SEED_RANGE))
        with slot.lock:
            obs, info = self._reset(slot.env, seed)
            slot.episodes += 1
            return self._snapshot(slot, 0, None, obs, info, False, False, f"env.reset(seed={seed})")

    def sample_initial_observation(self, s, rng):
        slot = self._slot()
        with slot.lock:
            self._check_current(slot, s, "sample_initial_observation")
            if s.step != 0:
                raise _core.ConfigError(f"GymWorld.sample_initial_observation: {s!r} is not an episode's first state")
            return s.observation

    def sample_next_state(self, s, a, rng):
        """Steps the environment from its current state s with action a; an episode that has
        terminated or been truncated stays where it ended."""
        slot = self._slot()
        with slot.lock:
            self._check_current(slot, s, "sample_next_state")
            a = int(a)
            if s.ended_at is not None:  # the rule for an early end: stay at the last state and observation
                t = _GymState()
                for name in _GymState.__slots__:
                    setattr(t, name, getattr(s, name))
                t.step, t.action = s.step + 1, a
                slot.current = t
                return t
            action = self._action_of(a) if self._action_of is not None else self._action_start + a
            out = slot.env.step(action)
            if not (isinstance(out, tuple) and len(out) == 5):
                raise _core.ConfigError(f"GymWorld: env.step({action!r}) returned {out!r}, not (observation, reward, "
                                        f"terminated, truncated, info) (the Gymnasium API: gym >= 0.26)")
            obs, _reward, terminated, truncated, info = out
            return self._snapshot(slot, s.step + 1, a, obs, info, terminated, truncated,
                                  f"env.step({action!r}) at step {s.step + 1} of episode {s.episode}")

    def sample_observation(self, a, s, rng):
        slot = self._slot()
        with slot.lock:
            self._check_current(slot, s, "sample_observation")
            if s.step == 0 or s.action != int(a):
                raise _core.ConfigError(f"GymWorld.sample_observation: {s!r} was not reached by action {a}")
            return s.observation

    def state_bin(self, s):
        return 0 if isinstance(s, _Particle) else s.bin

    def _state_point(self, s):
        return s.point

    # --- training and evaluation without beliefs ------------------------------------------

    def filter(self):
        """The updater train() asks of a simulator: a ParticleFilter of one bin and one particle
        that the environment never sees. It serves runs that never update beliefs; an update is a
        ConfigError saying that beliefs need a likelihood. (A ParticleFilter(world, particles=n) of
        your own resets the environment n times for its prior, and fails at its first update.)"""
        self._local.making_filter = True
        try:
            return _core.ParticleFilter(self, bins=1, binning=_zero_bin, particles=1)
        finally:
            self._local.making_filter = False

    def train(self, policy, feedback="moe-knn", *args, **kwargs):
        """maxent.train(self, self.filter(), policy, feedback, ..., track_belief_entropy=False):
        policy an ObservationFeaturePolicy, feedback 'moe-knn' (default), 'mse-knn', 'mse' (with
        bins) or a callable reading neither beliefs nor believed states; the other arguments as
        maxent.train's. result.true_entropy is the binned true entropy (0 without bins)."""
        if not isinstance(policy, _core.ObservationFeaturePolicy):
            raise _core.ConfigError(_no_belief_message(
                f"train: {getattr(policy, 'class_name', type(policy).__name__)} reads the belief"))
        if kwargs.get("track_belief_entropy", False):
            raise _core.ConfigError(_no_belief_message("train: track_belief_entropy=True asks for belief entropies"))
        kwargs["track_belief_entropy"] = False
        self._check_feedback(feedback)
        return _train(self, self.filter(), policy, feedback, *args, **kwargs)

    def _check_feedback(self, feedback):
        name = feedback.lower().replace("_", "-") if isinstance(feedback, str) else getattr(feedback, "name", "")
        if name.startswith("mse-knn") and self._state_of is None:
            raise _core.ConfigError("GymWorld: 'mse-knn' counts true states as points; give GymWorld "
                                    "state_of(info) -> the true state (or train with 'moe-knn', which needs "
                                    "the observations only)")
        if name == "mse" and self._state_bin is None:
            raise _core.ConfigError("GymWorld: 'mse' counts true states in bins; give GymWorld num_state_bins "
                                    "and state_bin(state) (or train with 'mse-knn' on state_of's points)")

    def evaluate(self, policy, episodes=100, seed=0, *, counting="paper", knn_k=4, knn_min_distance=None):
        """The policy's entropies over `episodes` fresh episodes, θ fixed: a dict as
        maxent.evaluate's (mean, low, high, n: the 95% Student-t interval over episodes), without
        the belief quantities (None). true_entropy: binned (None without bins); observation_entropy:
        the kNN entropy of each episode's counted observation vectors; true_entropy_knn: of the
        counted state_of points (None without state_of); kNN with k = knn_k (0: none) and
        min_distance = knn_min_distance as maxent.knn_entropy counts ties. Episode n is training
        episode n of seed `seed` (train() with a zero feedback, batch 1), so the result is a pure
        function of the seed."""
        if not isinstance(policy, _core.ObservationFeaturePolicy):
            raise _core.ConfigError(_no_belief_message(
                f"evaluate: {getattr(policy, 'class_name', type(policy).__name__)} reads the belief"))
        if isinstance(episodes, bool) or not isinstance(episodes, (int, np.integer)) or episodes < 2:
            raise _core.ConfigError(f"GymWorld.evaluate: episodes = {episodes!r}; an interval needs at least 2")
        if isinstance(knn_k, bool) or not isinstance(knn_k, (int, np.integer)) or knn_k < 0:
            raise _core.ConfigError(f"GymWorld.evaluate: knn_k = {knn_k!r}, not an int >= 0")
        knn_states = knn_k > 0 and self._state_of is not None
        values = {"observation": [], "state": []}

        def count(view):
            if knn_k > 0:
                values["observation"].append(_core.knn_entropy(view.counted_observation_points, knn_k, knn_min_distance))
            if knn_states:
                values["state"].append(_core.knn_entropy(view.counted_state_points, knn_k, knn_min_distance))
            return 0.0

        fixed = policy.copy()
        feedback = _core.UserFeedback(count, name="gym-evaluate", state_points=knn_states, observation_points=knn_k > 0)
        # A zero feedback leaves θ where it is (the step only scales a zero gradient).
        r = _train(self, self.filter(), fixed, feedback, "reinforce", _core.ConstantStep(1e-300),
                   iterations=int(episodes), batch=1, seed=seed, counting=counting, track_belief_entropy=False)
        rule = "none" if knn_k == 0 else ("scale" if knn_min_distance is None else
                                          "refuse" if knn_min_distance == 0 else "min_distance")
        return {
            "episodes": int(episodes),
            "true_entropy": _interval(r.true_entropy) if self._state_bin is not None else None,
            "observation_entropy": _interval(values["observation"]) if knn_k > 0 else None,
            "believed_entropy": None,
            "belief_entropy_sum": None,
            "true_entropy_knn": _interval(values["state"]) if knn_states else None,
            "true_entropy_estimator": "binned" if self._state_bin is not None else "none",
            "observation_entropy_estimator": "knn" if knn_k > 0 else "none",
            "true_entropy_knn_estimator": "knn" if knn_states else "none",
            "knn_k": int(knn_k),
            "knn_rule": rule,
        }

    def evaluate_uniform(self, episodes=100, seed=0, *, counting="paper", knn_k=4, knn_min_distance=None):
        """evaluate() for the uniformly random policy (θ = 0), on the same episodes' streams."""
        uniform = _core.ObservationFeaturePolicy(_core.RawObservationFeatures(self.observation_dim), self.num_actions)
        return self.evaluate(uniform, episodes, seed, counting=counting, knn_k=knn_k,
                             knn_min_distance=knn_min_distance)

    def __repr__(self):
        env = repr(self._shared.env) if self._shared is not None else f"factory {self._factory!r}"
        extra = "" if self._state_of is not None else ", no state_of (true states unknown: 'mse-knn' needs state_of)"
        return (f"maxent.GymWorld({env}, horizon={self.horizon}, observation_shape={self.observation_shape}, "
                f"num_actions={self.num_actions}{extra})")


def _interval(values):
    """Mean and 95% Student-t interval, as evaluate reports them."""
    x = np.asarray(values, dtype=np.float64)
    n = x.size
    mean = float(x.mean())
    half = _t_quantile(n - 1) * float(x.std(ddof=1)) / math.sqrt(n)
    return {"mean": mean, "low": mean - half, "high": mean + half, "n": int(n)}
