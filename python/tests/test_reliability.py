# python/tests/test_reliability.py — bad values never crash the interpreter or leak a bare
# MemoryError: zero sizes, every pickle protocol of every class, non-finite or misshapen θ, the
# progress callback's return value, bools and masked arrays as sizes, 1-d RBF centres, and
# settings that would need more memory than the machine has. A call that used to kill the
# process runs in a child process, so this one survives to report it.
import os
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import maxent
from conftest import ring_arrays
from test_package import Corridor

HERE = os.path.dirname(os.path.abspath(__file__))


def isolated(code, limit_bytes=None, timeout=60):
    """Runs `code` (after `import maxent`) in a fresh interpreter: (return code, stdout + stderr)."""
    prelude = "import maxent, numpy as np\n"
    if limit_bytes is not None:
        prelude = (f"import resource\nresource.setrlimit(resource.RLIMIT_AS, ({limit_bytes}, {limit_bytes}))\n"
                   + prelude)
    package = os.path.dirname(os.path.dirname(os.path.abspath(maxent.__file__)))  # this maxent, wherever it is
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([package, HERE]))
    p = subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code)], capture_output=True, text=True,
                       timeout=timeout, env=env, cwd=HERE)
    return p.returncode, p.stdout + p.stderr


def refused(call):
    """Code that runs `call` and prints the exception's class and message (or 'accepted')."""
    return f"""
try:
    {call}
    print("accepted")
except Exception as e:
    print("refused", type(e).__name__, isinstance(e, ValueError), str(e))
"""


# --- a policy with 0 actions: a ValueError naming the value, not SIGFPE ---------------------------

@pytest.mark.parametrize("call", [
    "maxent.BeliefAveragedPolicy(9, 0)", "maxent.ObservationPolicy(9, 0)", "maxent.TabularBeliefPolicy(9, 0)",
    "maxent.BeliefMixturePolicy(9, 0)", "maxent.BelievedStatePolicy(9, 0)",
    "maxent.ObservationFeaturePolicy(lambda o: o, 0, dimension=2)",
])
def test_zero_actions_refused(call):
    rc, out = isolated(refused(call))
    assert rc == 0, out
    assert "refused" in out and " True " in out and "0" in out.split(" True ", 1)[1], out


def test_load_zero_actions_refused(tmp_path):
    path = tmp_path / "p.npz"
    np.savez(path, format=np.array("maxent.Policy/1"), class_name=np.array("BeliefAveragedPolicy"),
             rows=np.int64(9), num_actions=np.int64(0), parameters=np.zeros((9, 0)))
    rc, out = isolated(refused(f"maxent.Policy.load({str(path)!r})"))
    assert rc == 0, out
    assert "refused ValueError True" in out and "num_actions is 0" in out and str(path) in out, out


# --- every pickle protocol of every class works or raises, never aborts ---------------------------

PICKLE_SCRIPT = """
import copy, pickle, sys
from conftest import ring_arrays
from test_package import Corridor
room = maxent.grid_world(2, 2, horizon=2)
views = []
def keep(v):
    views.append(v)
    return 0.0
result = maxent.train(room, None, maxent.BeliefAveragedPolicy(4, 4), maxent.UserFeedback(keep), iterations=2,
                      batch=1)
world = Corridor()
P, Z, mu = ring_arrays()
ring = maxent.Model(P, Z, mu, 4)
learned = maxent.train_learned(ring, maxent.BeliefAveragedPolicy(2, 2), "mbe", latent_states=2, warmup=5,
                               heldout=2, refit_every=0, iterations=2, batch=2)
objects = {
    "Model": room, "BayesFilter": maxent.BayesFilter(room), "NoisyBelief": maxent.NoisyBelief(maxent.BayesFilter(room), 0.1),
    "Policy": maxent.BeliefMixturePolicy(4, 4), "TabularBeliefPolicy": maxent.TabularBeliefPolicy(4, 4),
    "Feedback": maxent.MSE(), "TrajectoryView": views[0], "Estimator": maxent.Reinforce(),
    "StepRule": maxent.Adam(0.1), "TrainResult": result, "TrainResult(learned)": learned,
    "Rng": maxent.Rng(3), "GenerativeView": maxent.GenerativeView(room),
    "ParticleFilter": maxent.ParticleFilter(world, particles=5),
    "ObservationFeatures": maxent.RawObservationFeatures(2),
    "ObservationFeatures(user)": maxent.UserObservationFeatures(lambda o: o, 2),
    "ObservationFeaturePolicy": maxent.ObservationFeaturePolicy(lambda o: o, 3, dimension=2),
    "ObservationFeaturePolicy(tiles)": maxent.ObservationFeaturePolicy(maxent.ObservationTiles(1, 0.0, 1.0, 4), 3),
    "ActionBox": maxent.ActionBox([0.0, -1.0], [1.0, 1.0]),
    "GaussianPolicy": maxent.GaussianPolicy(maxent.ActionBox([0.0], [2.0]), 3, maxent.RawObservationFeatures(2),
                                            state_dependent_std=True),
}
classes = {name: cls for name, cls in vars(maxent._core).items() if isinstance(cls, type) and
           type(cls).__name__ == "pybind11_type"}
covered = {type(o).__name__ for o in objects.values()}
print("uncovered", sorted(set(classes) - covered))
for name, obj in objects.items():
    tries = [("dumps", p) for p in range(pickle.HIGHEST_PROTOCOL + 1)] + [("reduce_ex", p) for p in range(6)]
    tries += [("reduce", None), ("deepcopy", None)]
    for how, p in tries:
        try:
            if how == "dumps":
                back = pickle.loads(pickle.dumps(obj, protocol=p))
                outcome = "same" if back == obj else "different"
            elif how == "reduce_ex":
                obj.__reduce_ex__(p)
                outcome = "ok"
            elif how == "reduce":
                obj.__reduce__()
                outcome = "ok"
            else:
                outcome = "same" if copy.deepcopy(obj) == obj else "different"
        except TypeError as e:
            outcome = "TypeError" + (" named" if f"'maxent.{type(obj).__name__}'" in str(e) or
                                     type(obj).__name__ in str(e) else " unnamed")
        print(name, how, p, outcome, flush=True)
print("done")
"""

PICKLABLE = {"Model", "Policy", "StepRule", "TrainResult", "TrainResult(learned)", "ObservationFeatures",
             "ObservationFeaturePolicy(tiles)", "ActionBox", "GaussianPolicy"}
# Policy.copy(), which shares a feature map written in Python
COPYABLE = {("TabularBeliefPolicy", "deepcopy"), ("ObservationFeaturePolicy", "deepcopy")}


def test_every_pickle_protocol_works_or_raises():
    rc, out = isolated(PICKLE_SCRIPT, timeout=120)
    assert rc == 0 and out.rstrip().endswith("done"), out[-3000:]
    lines = out.splitlines()
    assert lines[0] == "uncovered []", lines[0]
    outcomes = {}
    for line in lines[1:-1]:
        name, how, p, outcome = line.split(" ", 3)
        outcomes[(name, how, p)] = outcome
    assert len(outcomes) == 20 * (pickle.HIGHEST_PROTOCOL + 1 + 6 + 2)
    for (name, how, p), outcome in outcomes.items():
        if name in PICKLABLE or (name, how) in COPYABLE:
            assert outcome in ("same", "ok"), (name, how, p, outcome)
        else:
            assert outcome == "TypeError named", (name, how, p, outcome)


# --- θ: finite, of the policy's shape, named when not ---------------------------------------------

def _saved(tmp_path, theta, rows=9, actions=4):
    path = tmp_path / "p.npz"
    np.savez(path, format=np.array("maxent.Policy/1"), class_name=np.array("BeliefAveragedPolicy"),
             rows=np.int64(rows), num_actions=np.int64(actions), parameters=theta)
    return path


@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_load_refuses_non_finite(tmp_path, value):
    theta = np.zeros((9, 4))
    theta[2, 1] = value
    path = _saved(tmp_path, theta)
    with pytest.raises(ValueError, match=rf"p.npz: BeliefAveragedPolicy.parameters: entry \[2, 1\] is {value}, "
                                         r"not finite"):
        maxent.Policy.load(path)


@pytest.mark.parametrize("theta, shape", [(np.zeros(36), r"\(36,\)"), (np.zeros((9, 4, 1)), r"\(9, 4, 1\)")])
def test_load_names_the_shape(tmp_path, theta, shape):
    with pytest.raises(ValueError, match=rf"parameters have shape {shape}, the header says 9 x 4"):
        maxent.Policy.load(_saved(tmp_path, theta))


def test_parameters_setter_checks():
    p = maxent.BeliefAveragedPolicy(9, 4)
    theta = np.zeros((9, 4))
    theta[3, 2] = np.nan
    with pytest.raises(maxent.NumericError, match=r"entry \[3, 2\] is nan, not finite"):
        p.parameters = theta
    for bad, shape in [(np.zeros(36), r"\(36,\)"), (np.zeros((9, 4, 1)), r"\(9, 4, 1\)"), (np.zeros((4, 9)), r"\(4, 9\)")]:
        with pytest.raises(maxent.ConfigError, match=rf"expected a 9 x 4 array, got an array of shape {shape}"):
            p.parameters = bad
    with pytest.raises(TypeError, match="dtype complex128"):
        p.parameters = np.zeros((9, 4), dtype=complex)
    assert not p.parameters.any()  # nothing was set
    good = np.arange(36.0).reshape(9, 4) / 7
    p.parameters = np.ma.array(good)  # nothing masked: its data
    np.testing.assert_array_equal(p.parameters, good)
    with pytest.raises(maxent.ConfigError, match="masked entries"):
        p.parameters = np.ma.array(good, mask=good > 4)
    f = maxent.ObservationFeaturePolicy(maxent.RawObservationFeatures(2), 3)
    with pytest.raises(maxent.NumericError, match=r"ObservationFeaturePolicy.parameters: entry \[0, 0\] is inf"):
        f.parameters = np.full((3, 3), np.inf)
    with pytest.raises(maxent.ConfigError, match=r"expected a 3 x 3 array, got an array of shape \(9,\)"):
        f.parameters = np.zeros(9)


# --- the progress callback's return value ---------------------------------------------------------

def _progress_run(room, ret):
    return maxent.train(room, None, maxent.BeliefAveragedPolicy(9, 4), iterations=20, batch=1,
                        progress=lambda info: ret(info["iteration"]))


def test_progress_numpy_false_stops(room):
    r = _progress_run(room, lambda i: np.bool_(i < 4))
    assert r.stopped_early and r.iterations == 5
    r = _progress_run(room, lambda i: i < 4)
    assert r.stopped_early and r.iterations == 5
    for go_on in (lambda i: None, lambda i: True, lambda i: np.True_):
        r = _progress_run(room, go_on)
        assert not r.stopped_early and r.iterations == 20


@pytest.mark.parametrize("value, text", [(0, "0"), ("", "''"), ([], r"\[\]"), (np.array([False]), r"array\(\[False\]\)")])
def test_progress_other_returns_refused(room, value, text):
    with pytest.raises(TypeError, match=rf"progress returned {text}; return None or True to go on, False to stop"):
        _progress_run(room, lambda i: value)


# --- bools and masked arrays as sizes, 1-d centres ---------------------------------------------------

@pytest.mark.parametrize("size", [True, np.True_, np.array(True), np.ma.masked, np.ma.array(3, mask=True),
                                  np.array([3]), np.ma.array([3], mask=[True]), np.float32(3.0), np.array(3.7)])
def test_bool_or_masked_sizes_refused(size):
    with pytest.raises(TypeError):
        maxent.BeliefAveragedPolicy(size, 4)
    with pytest.raises(TypeError):
        maxent.ParticleFilter(Corridor(), bins=size, particles=5)


class Three:
    def __index__(self):
        return 3


@pytest.mark.parametrize("size", [3, np.int64(3), np.uint8(3), np.array(3), np.ma.array(3), Three()])
def test_integer_sizes_accepted(size):
    assert maxent.BeliefAveragedPolicy(size, 4).parameters.shape == (3, 4)
    assert maxent.ParticleFilter(Corridor(), bins=size, particles=5).bins == 3


def test_unmasked_masked_arrays_read_as_data():
    assert maxent.PartitionEntropy(np.ma.array([0, 1, 1])).name == maxent.PartitionEntropy([0, 1, 1]).name
    with pytest.raises(TypeError):
        maxent.PartitionEntropy(np.ma.array([0, 1, 2], mask=[0, 1, 0]))
    with pytest.raises(TypeError):
        maxent.PartitionEntropy([0, True, 1])


def test_rbf_centres_must_be_two_dimensional():
    with pytest.raises(maxent.ConfigError, match=r"centres: expected a 2-d array, got an array of shape \(5,\)"):
        maxent.RbfObservationFeatures(np.zeros(5), 1.0)
    assert maxent.RbfObservationFeatures(np.zeros((5, 1)), 1.0).dimension == 6
    assert maxent.RbfObservationFeatures(np.zeros((1, 5)), 1.0).dimension == 2


# --- settings that would need more memory than the machine has ---------------------------------------

MEMORY = r"would take at least [0-9.e+]+ bytes \([0-9.e+]+ GiB\) of memory, more than this machine's"


def _ring():
    P, Z, mu = ring_arrays()
    return maxent.Model(P, Z, mu, 4)


@pytest.mark.parametrize("call, text", [
    (lambda: maxent.ParticleFilter(Corridor(), bins=2 ** 40, particles=5), "ParticleFilter: bins = 1099511627776"),
    (lambda: maxent.train_learned(_ring(), maxent.BeliefAveragedPolicy(2 ** 20, 2), "mbe", latent_states=2 ** 20,
                                  warmup=5, heldout=0, iterations=1, batch=1), "train_learned: latent_states = 1048576"),
    (lambda: maxent.train_learned(_ring(), maxent.BeliefAveragedPolicy(2, 2), "mbe", latent_states=2, warmup=5,
                                  window=10 ** 11, heldout=0, iterations=1, batch=1),
     "train_learned: warmup = 5, window = 100000000000, heldout = 0"),
    (lambda: maxent.fit_belief_model([([0, 1], [0, 1, 0])], 2 ** 24, 2, 2, horizon=2),
     "fit_belief_model: latent_states = 16777216, num_actions = 2, num_observations = 2, the longest sequence's "
     "length = 3"),
    (lambda: maxent.fit_belief_model([([0, 1], [0, 1, 0])], 2, 2, 2 ** 40, horizon=2),
     "fit_belief_model: latent_states = 2, num_actions = 2, num_observations = 1099511627776, the longest"),
    (lambda: maxent.run_experiment("nosim2b", iterations=1, batch=1, seeds=[0], latent_states=10 ** 7),
     "run_experiment: latent_states = 10000000"),
    (lambda: maxent.ObservationTiles(2, 0.0, 1.0, 2 ** 20, 1), "ObservationTiles: observation_dim = 2, tiles = 1048576"),
    (lambda: maxent.ObservationTiles(1, 0.0, 1.0, 2 ** 39, 2 ** 40), "tilings = 1099511627776"),
    (lambda: maxent.ObservationFeaturePolicy(maxent.RawObservationFeatures(2 ** 20), 2 ** 20),
     "ObservationFeaturePolicy: 1048577 features x num_actions = 1048576"),
])
def test_memory_named(call, text):
    with pytest.raises(maxent.ConfigError, match=text + ".*" + MEMORY):
        call()


def test_uniform_episodes_memory_named():
    # In a child with 1 GiB of address space: the unchecked call fills memory for minutes.
    rc, out = isolated(refused("maxent.uniform_episodes(maxent.grid_world(2, 2), 10 ** 12)"),
                       limit_bytes=1 << 30, timeout=30)
    assert rc == 0 and "refused ConfigError True uniform_episodes: episodes = 1000000000000" in out, out
    rc, out = isolated(refused("maxent.uniform_episodes(maxent.grid_world(2, 2, horizon=2 ** 40), 1)"),
                       limit_bytes=1 << 30, timeout=30)
    assert rc == 0 and ("refused ConfigError True uniform_episodes: episodes = 1 of 1099511627775 actions (the "
                        "world's horizon 1099511627776)") in out, out


LIMITED_MEMORY_SCRIPT = """
from test_package import Corridor
for call in [
    lambda: maxent.BeliefAveragedPolicy(2 ** 30, 2 ** 10),
    lambda: maxent.ObservationPolicy(2 ** 30, 2 ** 10),
    lambda: maxent.grid_world(2 ** 16, 2 ** 16),
    lambda: maxent.ParticleFilter(Corridor(), particles=2 ** 36),
    lambda: maxent.RawObservationFeatures(2 ** 40),
    lambda: maxent.UserObservationFeatures(lambda o: o, 2 ** 40),
]:
    try:
        call()
        print("accepted")
    except Exception as e:
        print(type(e).__name__, str(e))
"""


def test_sizes_beyond_memory_named():
    # In a child with 1 GiB of address space: unchecked, some of these allocate for minutes.
    rc, out = isolated(LIMITED_MEMORY_SCRIPT, limit_bytes=1 << 30, timeout=60)
    assert rc == 0, out
    lines = out.splitlines()
    expected = ["BeliefAveragedPolicy: num_states = 1073741824, num_actions = 1024: its parameters",
                "ObservationPolicy: num_observations = 1073741824, num_actions = 1024: its parameters",
                "grid_world: width = 65536, height = 65536: its transition and observation matrices",
                "ParticleFilter: particles = 68719476736: its particles and weights",
                "RawObservationFeatures: observation_dim = 1099511627776: each feature vector",
                "UserObservationFeatures: dimension = 1099511627776: each feature vector"]
    assert len(lines) == len(expected), out
    for line, text in zip(lines, expected):
        assert line.startswith("ConfigError " + text) and " would take at least " in line, line
