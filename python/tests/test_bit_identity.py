# Results from Python are bit-identical to the same runs from C++: the library alone
# (python/tests/reference.cpp, built as maxent_python_reference) and the maxent-paper program.
import csv
import os
import subprocess

import numpy as np
import pytest

import maxent

REFERENCE = os.environ.get("MAXENT_PY_REFERENCE")
PAPER = os.environ.get("MAXENT_PY_PAPER")


def parse_reference(text):
    runs, lines, i = {}, text.splitlines(), 0
    while i < len(lines):
        name = lines[i].split()[1]
        rows, cols = map(int, lines[i + 1].split()[1:])
        theta = np.array([float(x) for x in lines[i + 2:i + 2 + rows * cols]]).reshape(rows, cols)
        i += 2 + rows * cols
        k = int(lines[i].split()[1])
        hist = np.array([[float(x) for x in l.split()] for l in lines[i + 1:i + 1 + k]])
        runs[name] = (theta, hist)
        i += 1 + k
    return runs


def history(r):
    return np.stack([r.true_entropy, r.feedback, r.belief_entropy_sum, r.gradient_norm], axis=1)


@pytest.mark.skipif(not REFERENCE, reason="MAXENT_PY_REFERENCE (the C++ reference program) not set")
def test_train_equals_the_library_in_cpp():
    ref = parse_reference(subprocess.run([REFERENCE], check=True, capture_output=True, text=True).stdout)
    room = maxent.grid_world(4, 4, slip=0.1, observation="gaussian", variance=10.0)
    r1 = maxent.train(room, maxent.BayesFilter(room), maxent.BeliefAveragedPolicy(16, 4), maxent.RegMBE(0.02),
                      maxent.BatchMeanBaseline(), maxent.ConstantStep(0.3), iterations=40, batch=10, seed=3)
    rooms = maxent.grid_world(6, 6, layout="four_rooms", observation="room_id")
    r2 = maxent.train(rooms, maxent.BayesFilter(rooms), maxent.BelievedStatePolicy(36, 4), maxent.MBE(),
                      maxent.LeaveOneOutBaseline(), maxent.Adam(0.05), iterations=25, batch=8, seed=11,
                      counting="authors")
    r3 = maxent.train(room, maxent.BayesFilter(room), maxent.BeliefAveragedPolicy(16, 4), maxent.MSE(),
                      maxent.PerStepBaseline(), maxent.LazyAdam(0.1, beta1=0.8, beta2=0.99, epsilon=1e-6),
                      iterations=20, batch=6, seed=5)
    for name, r in (("1", r1), ("2", r2), ("3", r3)):
        theta, hist = ref[name]
        assert np.array_equal(r.parameters, theta), name  # ==, not approximately
        assert np.array_equal(history(r), hist), name


@pytest.mark.skipif(not PAPER, reason="MAXENT_PY_PAPER (maxent-paper) not set")
@pytest.mark.parametrize("name,flags,kw", [
    ("fig2a", ["--objectives", "mse,reg-mbe"], {"objectives": ["mse", "reg-mbe"]}),
    ("fig3c", ["--objectives", "mbe", "--noise", "0.03"], {"objectives": ["mbe"], "noises": [0.03]}),
    ("fig4b", ["--objectives", "moe", "--estimator", "optimal"], {"objectives": ["moe"], "estimator": "optimal"}),
    ("fig2a", ["--objectives", "mbe", "--estimator", "per-step", "--step", "lazy-adam"],
     {"objectives": ["mbe"], "estimator": "per-step", "step": "lazy-adam"}),
    # learned beliefs with the policy classes other than BA (observations; believed state, mixture over L);
    # one seed, whose first fit converges early (the fits are most of the time)
    ("nosim2d", ["--seeds", "1", "--objectives", "mse", "--policies", "O,S,BM", "--learned", "mbe",
                 "--latent-states", "4", "--heatmap-episodes", "0"],
     {"seeds": [1], "objectives": ["mse"], "policies": ["O", "S", "BM"], "learned": ["mbe"], "latent_states": 4}),
    # the learning flags through run_experiment's `learning` dict
    ("nosim2b", ["--objectives", "mse", "--learned", "reg-mbe", "--latent-states", "6", "--warmup", "40",
                 "--refit-every", "12", "--refit-iterations", "3", "--window", "25", "--smoothing", "0.5",
                 "--learned-prior", "--heatmap-episodes", "0"],
     {"objectives": ["mse"], "learned": ["reg-mbe"],
      "learning": {"latent_states": 6, "warmup": 40, "refit_every": 12, "refit_iterations": 3, "window": 25,
                   "smoothing": 0.5, "learned_prior": True}}),
])
def test_run_experiment_equals_maxent_paper(tmp_path, name, flags, kw):
    kw = {"seeds": [0, 1], **kw}
    seeds = [] if "--seeds" in flags else ["--seeds", "0-1"]  # (a flag given twice is refused)
    subprocess.run([PAPER, name] + seeds + ["--iterations", "30", "--threads", "2", "--out", str(tmp_path),
                    "--quiet", "--no-plot"] + flags, check=True, capture_output=True)
    rows = list(csv.DictReader(open(tmp_path / name / "runs.csv")))
    py = maxent.run_experiment(name, iterations=30, threads=2, **kw)
    assert {r["objective"] for r in rows} == set(py["curves"])
    for row in rows:
        c = py["curves"][row["objective"]]
        s, k = c["seeds"].index(int(row["seed"])), int(row["iteration"])
        for col in ("true_entropy", "feedback", "belief_entropy_sum"):
            assert c[col][s, k] == float(row[col]), (row, col)  # %.17g reads back as the same double
    assert len(rows) == len(kw["seeds"]) * 30 * len(py["curves"])
