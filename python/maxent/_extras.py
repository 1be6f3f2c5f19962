"""Pure-Python helpers of the package maxent: pickling and equality of the compiled classes,
Policy.save / Policy.load, the progress bar of train(progress=True), visit counts, and plots
of learning curves and visitation heatmaps (matplotlib, imported only when plotting)."""
import csv
import functools
import math
import os
import sys
import time

import numpy as np

from . import _core

__all__ = [
    "ProgressBar", "evaluate", "evaluate_uniform", "learning_curve", "load_policy", "plot_heatmap",
    "plot_learning_curve", "read_study", "save_policy", "train", "train_learned", "visit_counts",
]


# ---------------------------------------------------------------------------------------------
# Exact equality of states (numpy arrays bit for bit, NaN equal to NaN)
# ---------------------------------------------------------------------------------------------

def _same(a, b):
    """Whether two pickled states are equal: arrays by shape, dtype and value, NaN == NaN."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape or a.dtype != b.dtype:
            return False
        return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    return bool(a == b)


def _state_eq(state):
    def eq(self, other):
        if type(self) is not type(other):
            return NotImplemented
        return _same(state(self), state(other))
    return eq


# ---------------------------------------------------------------------------------------------
# Model
# ---------------------------------------------------------------------------------------------

def _model_state(m):
    A = m.num_actions
    P = np.stack([m.transition_matrix(a) for a in range(A)])
    per_action = m.observation_depends_on_action
    Z = np.stack([m.observation_matrix(a) for a in range(A)]) if per_action else m.observation_matrix(0)
    Z1 = m.initial_observation_matrix if per_action else None
    return (P, Z, m.initial_distribution, m.horizon, list(m.states), list(m.actions), list(m.observations),
            m.tolerance, Z1, m.description)


def _rebuild_model(P, Z, mu, T, states, actions, observations, tolerance, Z1, description):
    m = _core.Model(P, Z, mu, T, states=states, actions=actions, observation_labels=observations,
                    tolerance=tolerance, initial_observation=Z1)
    m.description = description
    return m


_core.Model.__reduce__ = lambda self: (_rebuild_model, _model_state(self))
_core.Model.__eq__ = _state_eq(_model_state)
_core.Model.__hash__ = None


# ---------------------------------------------------------------------------------------------
# Policy: pickling, ==, save / load (.npz)
# ---------------------------------------------------------------------------------------------

_POLICY_CLASSES = ("ObservationPolicy", "BeliefAveragedPolicy", "BelievedStatePolicy", "BeliefMixturePolicy")


def _policy_state(p):
    if p.class_name not in _POLICY_CLASSES:
        raise TypeError(f"{p.class_name} cannot be pickled or saved: its table's rows are the beliefs met in "
                        f"training, which the Python object does not expose (classes that can: "
                        f"{', '.join(_POLICY_CLASSES)})")
    theta = np.array(p.parameters, dtype=np.float64)
    return (p.class_name, theta.shape[0], p.num_actions, theta)


def _rebuild_policy(class_name, rows, num_actions, parameters):
    if class_name not in _POLICY_CLASSES:
        raise ValueError(f"unknown policy class {class_name!r} (known: {', '.join(_POLICY_CLASSES)})")
    p = getattr(_core, class_name)(int(rows), int(num_actions))
    p.parameters = parameters  # the setter refuses another shape and non-finite entries, naming them
    return p


_core.Policy.__reduce__ = lambda self: (_rebuild_policy, _policy_state(self))
_core.Policy.__eq__ = _state_eq(lambda p: (p.class_name, np.array(p.parameters, dtype=np.float64)))
_core.Policy.__hash__ = None
_core.Policy.__deepcopy__ = lambda self, memo: self.copy()
_core.Policy.__copy__ = lambda self: self.copy()

_POLICY_FORMAT = "maxent.Policy/1"


def save_policy(policy, path):
    """Writes `policy` to `path` (.npz): its class, dimensions (rows x actions) and θ, and for an
    ObservationFeaturePolicy its feature map (which factory, with its arguments); a GaussianPolicy
    its box, belief_features, options, θ and feature map (if any). Returns the path
    numpy wrote (it appends .npz when missing). TypeError for TabularBeliefPolicy and for a feature
    map written in Python (see pickling)."""
    path = os.fspath(path)
    if not path.endswith(".npz"):
        path += ".npz"
    if isinstance(policy, _core.GaussianPolicy):
        return _save_gaussian(policy, path)
    if isinstance(policy, _core.ObservationFeaturePolicy):
        factory, arguments, actions, theta = _feature_policy_state(policy)
        np.savez(path, format=np.array(_FEATURE_POLICY_FORMAT), class_name=np.array("ObservationFeaturePolicy"),
                 rows=np.int64(theta.shape[0]), num_actions=np.int64(actions), parameters=theta,
                 features=np.array(factory),
                 **{"features_" + k: np.asarray(v, dtype=_FEATURE_ARGUMENTS[factory][k])
                    for k, v in arguments.items()})
        return path
    class_name, rows, actions, theta = _policy_state(policy)
    np.savez(path, format=np.array(_POLICY_FORMAT), class_name=np.array(class_name), rows=np.int64(rows),
             num_actions=np.int64(actions), parameters=theta)
    return path


def _header_count(f, key, path):
    """An integer entry of a saved policy's header (rows, num_actions), >= 1."""
    v = f[key]
    if v.ndim != 0 or v.dtype.kind not in "iu" or int(v) < 1:
        raise ValueError(f"{path}: {key} is {v.tolist()!r}, not an integer >= 1")
    return int(v)


def load_policy(path):
    """The policy save_policy wrote to `path`: the same class, dimensions and θ (bit for bit).
    ValueError naming the file when it is not such a file: a header that is not a count >= 1,
    parameters whose shape is not the header's rows x num_actions, or a non-finite θ entry."""
    path = os.fspath(path)
    with np.load(path, allow_pickle=False) as f:
        if "format" in f.files and str(f["format"]) == _FEATURE_POLICY_FORMAT:
            return _load_feature_policy(f, path)
        if "format" in f.files and str(f["format"]) == _GAUSSIAN_POLICY_FORMAT:
            return _load_gaussian(f, path)
        missing = {"format", "class_name", "rows", "num_actions", "parameters"} - set(f.files)
        if missing or str(f["format"]) != _POLICY_FORMAT:
            raise ValueError(f"{path}: not a policy saved by maxent (format {_POLICY_FORMAT}; "
                             f"missing {sorted(missing)})" if missing else
                             f"{path}: format {str(f['format'])!r}, expected {_POLICY_FORMAT!r}")
        rows, actions, theta = _header_count(f, "rows", path), _header_count(f, "num_actions", path), f["parameters"]
        if theta.shape != (rows, actions):
            raise ValueError(f"{path}: parameters have shape {theta.shape}, the header says {rows} x {actions}")
        try:
            return _rebuild_policy(str(f["class_name"]), rows, actions, theta)
        except ValueError as e:  # ConfigError, NumericError: the same class, naming the file
            raise type(e)(f"{path}: {e}") from None


_core.Policy.save = save_policy
_core.Policy.load = staticmethod(load_policy)


# ---------------------------------------------------------------------------------------------
# ObservationFeaturePolicy and its feature maps: pickling, ==, save / load (.npz)
# ---------------------------------------------------------------------------------------------

# The factories whose maps are data, and the dtype each argument is saved with.
_FEATURE_ARGUMENTS = {
    "RawObservationFeatures": {"observation_dim": np.int64},
    "RbfObservationFeatures": {"centres": np.float64, "width": np.float64},
    "ObservationTiles": {"observation_dim": np.int64, "low": np.float64, "high": np.float64, "tiles": np.int64,
                         "tilings": np.int64},
}
_FEATURE_POLICY_FORMAT = "maxent.ObservationFeaturePolicy/1"


def _features_state(features):
    """(factory, arguments) of a feature map; TypeError for one written in Python."""
    factory = features.factory
    if factory not in _FEATURE_ARGUMENTS:
        raise TypeError(
            "an ObservationFeaturePolicy (or ObservationFeatures) whose feature map is a Python callable "
            "(UserObservationFeatures, or a function given with dimension=) cannot be pickled or saved: the "
            "function is code, not data maxent writes. Save its θ instead (numpy.save(path, policy.parameters)) "
            "and in the new process build ObservationFeaturePolicy(the same function, num_actions, dimension=F) "
            "and set .parameters; or use RawObservationFeatures, RbfObservationFeatures or ObservationTiles, "
            "which pickle and save")
    return factory, features.arguments


def _rebuild_features(factory, arguments):
    if factory not in _FEATURE_ARGUMENTS:
        raise ValueError(f"unknown feature map {factory!r} (known: {', '.join(_FEATURE_ARGUMENTS)})")
    return getattr(_core, factory)(**arguments)


def _feature_policy_state(p):
    factory, arguments = _features_state(p.features)
    return (factory, arguments, p.num_actions, np.array(p.parameters, dtype=np.float64))


def _rebuild_feature_policy(factory, arguments, num_actions, parameters):
    p = _core.ObservationFeaturePolicy(_rebuild_features(factory, arguments), int(num_actions))
    p.parameters = parameters  # the setter refuses another shape and non-finite entries, naming them
    return p


def _load_feature_policy(f, path):
    """An ObservationFeaturePolicy from an open .npz save_policy wrote (format checked)."""
    required = {"class_name", "rows", "num_actions", "parameters", "features"}
    if required - set(f.files):
        raise ValueError(f"{path}: not an ObservationFeaturePolicy saved by maxent (missing "
                         f"{sorted(required - set(f.files))})")
    factory = str(f["features"])
    if factory not in _FEATURE_ARGUMENTS:
        raise ValueError(f"{path}: unknown feature map {factory!r} (known: {', '.join(_FEATURE_ARGUMENTS)})")
    names = _FEATURE_ARGUMENTS[factory]
    missing = {"features_" + k for k in names} - set(f.files)
    if missing:
        raise ValueError(f"{path}: the {factory} arguments {sorted(missing)} are missing")
    arguments = {}
    for k, dtype in names.items():
        v = f["features_" + k]
        if dtype is np.int64:
            if v.ndim != 0 or v.dtype.kind not in "iu":
                raise ValueError(f"{path}: features_{k} is {v.tolist()!r}, not an integer")
            v = int(v)
        elif k != "centres":
            if v.ndim != 0 or v.dtype.kind != "f":
                raise ValueError(f"{path}: features_{k} is {v.tolist()!r}, not a float")
            v = float(v)
        arguments[k] = v
    rows, actions, theta = _header_count(f, "rows", path), _header_count(f, "num_actions", path), f["parameters"]
    if theta.shape != (rows, actions):
        raise ValueError(f"{path}: parameters have shape {theta.shape}, the header says {rows} x {actions}")
    try:
        return _rebuild_feature_policy(factory, arguments, actions, theta)
    except ValueError as e:  # ConfigError, NumericError: the same class, naming the file
        raise type(e)(f"{path}: {e}") from None


def _feature_state_eq(a, b):
    """Whether two feature maps are the same: same factory and arguments (callables: the same object)."""
    if a.factory != b.factory:
        return False
    if a.factory not in _FEATURE_ARGUMENTS:
        return a.arguments["fn"] is b.arguments["fn"] and a.arguments["dimension"] == b.arguments["dimension"]
    return _same(a.arguments, b.arguments)


def _features_eq(self, other):
    if type(self) is not type(other):
        return NotImplemented
    return _feature_state_eq(self, other)


def _feature_policy_eq(self, other):
    if type(self) is not type(other):
        return NotImplemented
    return (_feature_state_eq(self.features, other.features) and self.num_actions == other.num_actions and
            _same(np.array(self.parameters, dtype=np.float64), np.array(other.parameters, dtype=np.float64)))


_core.ObservationFeatures.__reduce__ = lambda self: (_rebuild_features, _features_state(self))
_core.ObservationFeatures.__eq__ = _features_eq
_core.ObservationFeatures.__hash__ = None
_core.ObservationFeaturePolicy.__reduce__ = lambda self: (_rebuild_feature_policy, _feature_policy_state(self))
_core.ObservationFeaturePolicy.__eq__ = _feature_policy_eq
_core.ObservationFeaturePolicy.__hash__ = None
_core.ObservationFeaturePolicy.__deepcopy__ = lambda self, memo: self.copy()
_core.ObservationFeaturePolicy.__copy__ = lambda self: self.copy()
_core.ObservationFeaturePolicy.save = save_policy
_core.ObservationFeaturePolicy.load = staticmethod(load_policy)


# ---------------------------------------------------------------------------------------------
# ActionBox and GaussianPolicy: pickling, ==, save / load (.npz)
# ---------------------------------------------------------------------------------------------

_GAUSSIAN_POLICY_FORMAT = "maxent.GaussianPolicy/1"


def _box_state(b):
    return (np.array(b.lower, dtype=np.float64), np.array(b.upper, dtype=np.float64))


_core.ActionBox.__reduce__ = lambda self: (_core.ActionBox, _box_state(self))
_core.ActionBox.__eq__ = _state_eq(_box_state)
_core.ActionBox.__hash__ = None


def _gaussian_state(p):
    """(lower, upper, belief_features, features (None or (factory, arguments)), initial_log_std,
    state_dependent_std, θ); TypeError for a feature map written in Python."""
    features = None if p.features is None else _features_state(p.features)
    lower, upper = _box_state(p.box)
    return (lower, upper, p.belief_features, features, p.initial_log_std, p.state_dependent_std,
            np.array(p.parameters, dtype=np.float64))


def _rebuild_gaussian(lower, upper, belief_features, features, initial_log_std, state_dependent_std, parameters):
    psi = None if features is None else _rebuild_features(*features)
    p = _core.GaussianPolicy(_core.ActionBox(lower, upper), int(belief_features), psi,
                             initial_log_std=float(initial_log_std), state_dependent_std=bool(state_dependent_std))
    p.parameters = parameters  # the setter refuses another shape and non-finite entries, naming them
    return p


def _gaussian_eq(self, other):
    if type(self) is not type(other):
        return NotImplemented
    if (self.features is None) != (other.features is None):
        return False
    if self.features is not None and not _feature_state_eq(self.features, other.features):
        return False
    return (self.box == other.box and self.belief_features == other.belief_features and
            _same(self.initial_log_std, other.initial_log_std) and
            self.state_dependent_std == other.state_dependent_std and
            _same(np.array(self.parameters, dtype=np.float64), np.array(other.parameters, dtype=np.float64)))


def _save_gaussian(p, path):
    lower, upper, fb, features, log_std, dependent, theta = _gaussian_state(p)
    extra = {}
    if features is not None:
        factory, arguments = features
        extra["features"] = np.array(factory)
        extra.update({"features_" + k: np.asarray(v, dtype=_FEATURE_ARGUMENTS[factory][k])
                      for k, v in arguments.items()})
    np.savez(path, format=np.array(_GAUSSIAN_POLICY_FORMAT), class_name=np.array("GaussianPolicy"),
             lower=lower, upper=upper, belief_features=np.int64(fb), initial_log_std=np.float64(log_std),
             state_dependent_std=np.bool_(dependent), parameters=theta, **extra)
    return path


def _load_gaussian(f, path):
    """A GaussianPolicy from an open .npz save_policy wrote (format checked)."""
    required = {"lower", "upper", "belief_features", "initial_log_std", "state_dependent_std", "parameters"}
    if required - set(f.files):
        raise ValueError(f"{path}: not a GaussianPolicy saved by maxent (missing {sorted(required - set(f.files))})")
    fb = f["belief_features"]
    if fb.ndim != 0 or fb.dtype.kind not in "iu" or int(fb) < 0:
        raise ValueError(f"{path}: belief_features is {fb.tolist()!r}, not an integer >= 0")
    log_std, dependent = f["initial_log_std"], f["state_dependent_std"]
    if log_std.ndim != 0 or log_std.dtype.kind != "f":
        raise ValueError(f"{path}: initial_log_std is {log_std.tolist()!r}, not a float")
    if dependent.ndim != 0 or dependent.dtype.kind != "b":
        raise ValueError(f"{path}: state_dependent_std is {dependent.tolist()!r}, not a bool")
    features = None
    if "features" in f.files:
        factory = str(f["features"])
        if factory not in _FEATURE_ARGUMENTS:
            raise ValueError(f"{path}: unknown feature map {factory!r} (known: {', '.join(_FEATURE_ARGUMENTS)})")
        arguments = {}
        for k, dtype in _FEATURE_ARGUMENTS[factory].items():
            if "features_" + k not in f.files:
                raise ValueError(f"{path}: the {factory} argument features_{k} is missing")
            v = f["features_" + k]
            arguments[k] = v if k == "centres" else int(v) if dtype is np.int64 else float(v)
        features = (factory, arguments)
    try:
        return _rebuild_gaussian(f["lower"], f["upper"], int(fb), features, float(log_std), bool(dependent),
                                 f["parameters"])
    except ValueError as e:  # ConfigError, NumericError: the same class, naming the file
        raise type(e)(f"{path}: {e}") from None


_core.GaussianPolicy.__reduce__ = lambda self: (_rebuild_gaussian, _gaussian_state(self))
_core.GaussianPolicy.__eq__ = _gaussian_eq
_core.GaussianPolicy.__hash__ = None
_core.GaussianPolicy.__deepcopy__ = lambda self, memo: self.copy()
_core.GaussianPolicy.__copy__ = lambda self: self.copy()
_core.GaussianPolicy.save = save_policy
_core.GaussianPolicy.load = staticmethod(load_policy)


# ---------------------------------------------------------------------------------------------
# Step rules and results
# ---------------------------------------------------------------------------------------------

_STEP_FACTORIES = {"constant": "ConstantStep", "adam": "Adam", "lazy-adam": "LazyAdam"}


def _step_state(r):
    return (r.name, tuple(r._args))


def _rebuild_step(name, args):
    return getattr(_core, _STEP_FACTORIES[name])(*args)


_core.StepRule.__reduce__ = lambda self: (_rebuild_step, _step_state(self))
_core.StepRule.__eq__ = _state_eq(_step_state)
_core.StepRule.__hash__ = None

_core.TrainResult.__eq__ = _state_eq(lambda r: r.__getstate__())
_core.TrainResult.__hash__ = None


# ---------------------------------------------------------------------------------------------
# Progress
# ---------------------------------------------------------------------------------------------

class ProgressBar:
    """train(progress=True): a one-line progress bar on `stream` (stderr), redrawn at most every
    `interval` seconds: iterations done over all seeds, and the last iteration's true entropy."""

    def __init__(self, iterations, runs=1, stream=None, interval=0.1, label="train"):
        self.total = max(1, int(iterations) * int(runs))
        self.done = {}
        self.stream = stream if stream is not None else sys.stderr
        self.interval = interval
        self.label = label
        self.last = 0.0
        self.calls = 0

    def __call__(self, info):
        self.calls += 1
        self.done[info["seed"]] = info["iteration"] + 1
        now = time.monotonic()
        finished = sum(self.done.values())
        if now - self.last >= self.interval or finished >= self.total:
            self.last = now
            width = 30
            filled = int(width * finished / self.total)
            self.stream.write(f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {finished}/{self.total} "
                              f"H={info['true_entropy']:.4f}")
            self.stream.flush()
        return True

    def close(self):
        self.stream.write("\n")
        self.stream.flush()


def _with_progress(core_fn, label):
    @functools.wraps(core_fn)
    def call(*args, progress=None, progress_every=1, **kwargs):
        bar = None
        if progress is True:
            seeds = kwargs.get("seeds")
            bar = progress = ProgressBar(kwargs.get("iterations", 1000), len(seeds) if seeds else 1, label=label)
        elif progress is False:
            progress = None
        try:
            return core_fn(*args, progress=progress, progress_every=progress_every, **kwargs)
        finally:
            if bar is not None:
                bar.close()
    return call


def _train_any(*args, **kwargs):
    """_core.train, or _core._train_simulator for an ObservationFeaturePolicy or a GaussianPolicy (not a
    maxent.Policy)."""
    policy = kwargs["policy"] if "policy" in kwargs else (args[2] if len(args) > 2 else None)
    if isinstance(policy, (_core.ObservationFeaturePolicy, _core.GaussianPolicy)):
        return _core._train_simulator(*args, **kwargs)
    return _core.train(*args, **kwargs)


functools.update_wrapper(_train_any, _core.train)
train = _with_progress(_train_any, "train")
train.__doc__ = _core.train.__doc__.replace("policy: maxent._core.Policy", "policy: object", 1) + (
    "\n\nA simulator whose observations are float vectors (observation_dim = d) trains with BeliefAveragedPolicy\n"
    "or ObservationFeaturePolicy (result.policy: the trained ObservationFeaturePolicy); feedbacks 'mse-knn'\n"
    "and 'moe-knn' (MSEKnn(k), MOEKnn(k)) count true-state points and observation vectors by kNN. A simulator\n"
    "with continuous actions (action_dim = d) trains with GaussianPolicy (result.policy: the trained one).")
train_learned = _with_progress(_core.train_learned, "train_learned")

# evaluate and evaluate_uniform take every world, policy and kNN setting in C++ (analysis.cpp).
evaluate = _core.evaluate
evaluate_uniform = _core.evaluate_uniform


# ---------------------------------------------------------------------------------------------
# Visits, learning curves, plots
# ---------------------------------------------------------------------------------------------

def visit_counts(world, policy, updater=None, episodes=1000, seed=0, counting="paper"):
    """How often the policy's episodes visit each true state (bin): an array of counts over the
    counted steps of `episodes` episodes. The episodes are train()'s with a zero feedback, so θ
    does not move: train(world, updater, policy, UserFeedback(count), iterations=episodes, batch=1)."""
    counts = {}

    def count(view):
        for s in view.counted_states:
            counts[int(s)] = counts.get(int(s), 0) + 1
        return 0.0

    _train_any(world, updater, policy, _core.UserFeedback(count, name="visits"), "reinforce",
                _core.ConstantStep(1e-300), iterations=int(episodes), batch=1, seed=seed, counting=counting,
                track_belief_entropy=False, threads=1)
    n = world.num_states if isinstance(world, _core.Model) else (max(counts) + 1 if counts else 0)
    out = np.zeros(n, dtype=np.int64)
    for s, c in counts.items():
        out[s] = c
    return out


def _t_quantile(df):
    """The 0.975 quantile of Student's t with `df` degrees of freedom (scipy if present)."""
    try:
        from scipy.stats import t
        return float(t.ppf(0.975, df))
    except ImportError:  # the Cornish-Fisher expansion, within 1e-3 for df >= 3
        z = 1.959963984540054
        return z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)


def read_study(folder):
    """A study folder written by maxent-paper (OUT/<experiment>/): {'summary': {label: dict of arrays
    iteration, mean, ci_low, ci_high, n}, 'heatmap': {label: list of (x, y, fraction)}} (heatmap
    only if heatmap.csv exists)."""
    folder = os.fspath(folder)
    out = {"summary": {}, "heatmap": {}}
    with open(os.path.join(folder, "summary.csv"), newline="") as f:
        for row in csv.DictReader(f):
            d = out["summary"].setdefault(row["objective"], {k: [] for k in ("iteration", "mean", "ci_low",
                                                                              "ci_high", "n")})
            for k in d:
                d[k].append(float(row[k]))
    for d in out["summary"].values():
        for k in d:
            d[k] = np.array(d[k], dtype=np.int64 if k in ("iteration", "n") else np.float64)
    heat = os.path.join(folder, "heatmap.csv")
    if os.path.exists(heat):
        with open(heat, newline="") as f:
            r = csv.reader(f)
            next(r)
            for label, x, y, fraction in r:
                out["heatmap"].setdefault(label, []).append((int(x), int(y), float(fraction)))
    return out


def learning_curve(source, metric="true_entropy", label=None):
    """(iterations, mean, low, high) arrays of a learning curve with its 95% band, from a
    TrainResult (band: none, low = high = mean), a list of TrainResults (one per seed: the mean
    across seeds and its Student-t interval), a run_experiment() result or a study folder
    (curve `label`; default: the first)."""
    if isinstance(source, _core.TrainResult):
        y = np.asarray(getattr(source, metric), dtype=np.float64)
        return np.arange(len(y)), y, y.copy(), y.copy()
    if isinstance(source, (list, tuple)) and source and all(isinstance(r, _core.TrainResult) for r in source):
        n = min(r.iterations for r in source)
        runs = np.array([np.asarray(getattr(r, metric))[:n] for r in source], dtype=np.float64)
        return _band(runs)
    if isinstance(source, dict) and "curves" in source:
        curves = source["curves"]
        label = label if label is not None else next(iter(curves))
        return _band(np.asarray(curves[label][metric], dtype=np.float64))
    if isinstance(source, (str, os.PathLike)):
        if metric != "true_entropy":
            raise ValueError(f"learning_curve: a study folder's summary.csv holds the true entropy only, not {metric!r}")
        summary = read_study(source)["summary"]
        label = label if label is not None else next(iter(summary))
        if label not in summary:
            raise ValueError(f"learning_curve: no curve {label!r} in {source} (curves: {', '.join(summary)})")
        d = summary[label]
        return d["iteration"], d["mean"], d["ci_low"], d["ci_high"]
    raise TypeError(f"learning_curve: not a TrainResult, a list of them, a run_experiment result or a folder: "
                    f"{source!r}")


def _band(runs):
    mean = runs.mean(axis=0)
    n = runs.shape[0]
    if n < 2:
        return np.arange(runs.shape[1]), mean, mean.copy(), mean.copy()
    half = _t_quantile(n - 1) * runs.std(axis=0, ddof=1) / math.sqrt(n)
    return np.arange(runs.shape[1]), mean, mean - half, mean + half


def _uniform_level(uniform, source, metric):
    """The uniform policy's level for plot_learning_curve: a number, evaluate_uniform()'s dict (its
    mean of `metric`), or True for a study folder (the mean over seeds of its uniform.csv)."""
    if uniform is True:
        if not isinstance(source, (str, os.PathLike)):
            raise TypeError("plot_learning_curve: uniform=True reads a study folder's uniform.csv; for other "
                            "sources give the level (a number) or evaluate_uniform()'s result")
        path = os.path.join(source, "uniform.csv")
        if not os.path.exists(path):
            raise ValueError(f"plot_learning_curve: {source} has no uniform.csv (maxent-paper writes it)")
        with open(path, newline="") as f:
            values = [float(row["true_entropy"]) for row in csv.DictReader(f)]
        if not values:
            raise ValueError(f"plot_learning_curve: {path} has no rows")
        return sum(values) / len(values)
    if isinstance(uniform, dict):
        if metric not in uniform or "mean" not in uniform[metric]:
            raise ValueError(f"plot_learning_curve: the uniform policy's result has no mean of {metric!r}")
        return float(uniform[metric]["mean"])
    if isinstance(uniform, bool) or not isinstance(uniform, (int, float, np.integer, np.floating)):
        raise TypeError(f"plot_learning_curve: uniform={uniform!r}: give a number, evaluate_uniform()'s result, "
                        "or True for a study folder")
    level = float(uniform)
    if not math.isfinite(level):
        raise ValueError(f"plot_learning_curve: uniform={level} is not a finite level")
    return level


def plot_learning_curve(source, metric="true_entropy", label=None, ax=None, smooth=1, uniform=None, **line):
    """Draws learning_curve(source, metric, label) on `ax` (a new figure's if None): the mean as a
    line named in the axes' legend (`label`, default the metric), the 95% band shaded; `smooth` > 1
    averages consecutive windows of that many iterations. `uniform` adds the uniform policy's level
    as a grey dotted reference line, as maxent-paper's curves.png does: a number,
    evaluate_uniform()'s result (its mean of `metric`), or True for a study folder (its
    uniform.csv). Returns the axes."""
    import matplotlib.pyplot as plt
    level = None if uniform is None else _uniform_level(uniform, source, metric)
    x, mean, low, high = learning_curve(source, metric, label)
    if smooth > 1:
        k = len(x) // smooth
        if k == 0:
            raise ValueError(f"plot_learning_curve: smooth={smooth} is longer than the curve ({len(x)} iterations)")
        cut = lambda v: np.asarray(v[:k * smooth], dtype=np.float64).reshape(k, smooth).mean(axis=1)
        x, mean, low, high = cut(x), cut(mean), cut(low), cut(high)
    if ax is None:
        ax = plt.figure().add_subplot()
    name = line.pop("label", label if label is not None else metric)
    lines = ax.plot(x, mean, label=name, **line)
    ax.fill_between(x, low, high, alpha=0.25, color=lines[0].get_color(), linewidth=0)
    if level is not None:
        ax.axhline(level, color="#555555", linestyle=":", linewidth=1.5, label=f"uniform policy ({level:.3f})")
    ax.set_xlabel("iteration")
    ax.set_ylabel(metric.replace("_", " "))
    ax.legend()
    return ax


def plot_heatmap(source, label=None, model=None, ax=None, cmap="viridis"):
    """A visitation heatmap of a grid world on `ax`: `source` is a study folder (its heatmap.csv;
    panel `label`, default the first curve) or per-state counts (visit_counts) with `model`, a
    grid world whose state labels are (x, y). Cells are the fraction of the counted steps; y = 0
    is the top row. Returns the axes."""
    import matplotlib.pyplot as plt
    if isinstance(source, (str, os.PathLike)):
        heat = read_study(source)["heatmap"]
        if not heat:
            raise ValueError(f"plot_heatmap: {source} has no heatmap.csv")
        label = label if label is not None else next(l for l in heat if l != "uniform") if len(heat) > 1 else \
            next(iter(heat))
        if label not in heat:
            raise ValueError(f"plot_heatmap: no panel {label!r} in {source} (panels: {', '.join(heat)})")
        cells = heat[label]
    else:
        if model is None:
            raise TypeError("plot_heatmap: per-state counts need the model (a grid world, states (x, y))")
        counts = np.asarray(source, dtype=np.float64)
        if counts.shape != (model.num_states,):
            raise ValueError(f"plot_heatmap: {counts.shape[0] if counts.ndim == 1 else counts.shape} counts "
                             f"for a model of {model.num_states} states")
        total = counts.sum()
        cells = [(s[0], s[1], c / total if total > 0 else 0.0) for s, c in zip(model.states, counts)]
    width = max(x for x, _, _ in cells) + 1
    height = max(y for _, y, _ in cells) + 1
    grid = np.full((height, width), np.nan)
    for x, y, f in cells:
        grid[y, x] = f
    if ax is None:
        ax = plt.figure().add_subplot()
    image = ax.imshow(grid, cmap=cmap, origin="upper")
    ax.figure.colorbar(image, ax=ax, label="fraction of counted steps")
    ax.set_title(label if label is not None else "visits")
    return ax
