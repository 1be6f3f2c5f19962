# python/tests/test_learned_select.py — train_learned with the learners that select their size
# (em-select, em-spectral-select, cloned-hmm-select; runtime/runner.hpp select_learned_model_for_run):
# each run chooses on its own warm-up episodes before its policy is sized, says what it chose in
# r.selection, gives the same bits as maxent-explore's run of the same settings, refuses bad settings
# naming the value, and stops on Ctrl-C during the selection.
import csv
import json
import os
import pickle
import subprocess

import numpy as np
import pytest

import maxent

EXPLORE = os.environ.get("MAXENT_PY_EXPLORE")
SOURCE = os.environ.get("MAXENT_PY_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
MINI_HALL2 = os.path.join(SOURCE, "tests", "data", "classic", "mini-hall2.pomdp")
WORLD = maxent.read_pomdp_file(MINI_HALL2, empty_rows="self-loop")  # maxent-explore's T = S = 13
A, O = WORLD.num_actions, WORLD.num_observations
# Small settings, the same as FLAGS below.
SETTINGS = dict(warmup=30, heldout=10, refit_every=3, window=10, restarts=1, em_iterations=5)
FLAGS = ["--warmup", "30", "--refit-every", "3", "--window", "10", "--restarts", "1", "--em-iterations", "5"]
MAX = 18  # em-select: L in 1, 2, 4, 8, 16; cloned-hmm-select: clone totals 9 and 18


def run(learner, policy=None, **kw):
    kw = {**SETTINGS, **kw}
    return maxent.train_learned(WORLD, policy or maxent.BeliefAveragedPolicy(1, A), "mbe", learner=learner,
                                iterations=6, seeds=[0, 1], threads=2, **kw)


def test_em_select_chooses_L_per_run_and_sizes_the_policy_with_it():
    for r in run("em-select", select_max_states=MAX):
        s = r.selection
        assert s["learner"] == "em-select" and s["max_latent_states"] == MAX
        assert s["latent_states"] in (1, 2, 4, 8, 16) and 1 <= s["candidates"] <= 5 * 3
        assert s["allocation"] == "none" and s["clones"] is None
        assert s["smoothing"] == s["pseudo_count"] and s["pseudo_count"] in (0.001, 0.01, 0.1)
        # the belief model and the policy over its latent states have the chosen L
        assert r.belief_model.num_states == s["latent_states"]
        assert r.parameters.shape == (s["latent_states"], A)
        assert r.iterations == 6
        assert pickle.loads(pickle.dumps(r)).selection == s
    # the learners that are given L record no selection
    assert run("em", latent_states=4, policy=maxent.BeliefAveragedPolicy(4, A))[0].selection is None


def test_cloned_hmm_select_chooses_the_clones_with_an_observation_policy():
    for r in run("cloned-hmm-select", maxent.ObservationPolicy(O, A), select_max_states=MAX):
        s = r.selection
        assert s["latent_states"] in (O, 2 * O) and sum(s["clones"]) == s["latent_states"] and len(s["clones"]) == O
        assert s["allocation"] in ("even", "frequency")
        assert r.belief_model.num_states == s["latent_states"] and r.parameters.shape == (O, A)


@pytest.mark.skipif(not EXPLORE, reason="MAXENT_PY_EXPLORE (maxent-explore) not set")
def test_the_selections_equal_maxent_explore(tmp_path):
    subprocess.run([EXPLORE, MINI_HALL2, "--empty-rows", "self-loop", "--seeds", "0-1", "--iterations", "6",
                    "--objectives", "none", "--learned", "mbe", "--learners", "em-select,cloned-hmm-select",
                    "--select-max-states", str(MAX), "--threads", "2", "--out", str(tmp_path), "--quiet",
                    "--no-plot"] + FLAGS, check=True, capture_output=True)
    folder = tmp_path / "mini-hall2"
    rows = list(csv.DictReader(open(folder / "runs.csv")))
    config = json.load(open(folder / "config.json"))
    chosen = {c["label"]: c["selected"] for c in config["curves"] if "selected" in c}
    for learner in ("em-select", "cloned-hmm-select"):
        label = "learned-mbe+" + learner
        py = run(learner, select_max_states=MAX)
        mine = [r for r in rows if r["objective"] == label]
        assert len(mine) == 2 * 6
        for row in mine:
            r = py[int(row["seed"])]
            k = int(row["iteration"])
            assert r.true_entropy[k] == float(row["true_entropy"]), (row, learner)  # ==: the same bits
            assert r.feedback[k] == float(row["feedback"]), (row, learner)
            assert r.belief_entropy_sum[k] == float(row["belief_entropy_sum"]), (row, learner)
        for sel in chosen[label]:
            s = py[sel["seed"]].selection
            assert (s["latent_states"], s["pseudo_count"], s["allocation"], s["candidates"]) == \
                (sel["latent_states"], sel["pseudo_count"], sel["allocation"], sel["candidates"])


def test_bad_selection_settings_are_refused_naming_the_value():
    with pytest.raises(maxent.ConfigError, match="learner 'em-select' chooses L .*latent_states must be 0, got 4"):
        run("em-select", latent_states=4)
    with pytest.raises(maxent.ConfigError, match=r"select_max_states must be in \[1, 100000000\].*got 0"):
        run("em-select", select_max_states=0)
    with pytest.raises(maxent.ConfigError, match="select_max_states is read by the learners that select their size "
                                                 "only .* not by 'em'"):
        run("em", latent_states=4, policy=maxent.BeliefAveragedPolicy(4, A), select_max_states=8)
    trained = maxent.BeliefAveragedPolicy(2, A)
    trained.parameters = np.ones((2, A))
    with pytest.raises(maxent.ConfigError, match="made anew with the chosen L rows and θ = 0; this one's θ is not 0"):
        run("cloned-hmm-select", trained)
    with pytest.raises(maxent.ConfigError, match="'em-spectral' is fit_belief_model's only"):
        run("em-spectral")


SCRIPT = r"""
import maxent
w = maxent.grid_world(6, 6, layout="four_rooms", observation="gaussian", variance=10.0)
try:
    print("ready", flush=True)
    # The selection on 4000 warm-up episodes of 36 steps, EM steps without end: many seconds alone.
    maxent.train_learned(w, maxent.BeliefAveragedPolicy(1, 4), "mbe", learner="em-select", warmup=4000,
                         em_iterations=10**6, iterations=10**8, threads=1)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    raise SystemExit(7)
"""


def test_ctrl_c_stops_a_selection(interrupt_when_ready):
    rc, out, err, took = interrupt_when_ready(["-c", SCRIPT], 0.5)
    assert rc == 7, (out, err)
    assert "KeyboardInterrupt" in out
    assert took < 1.0, took
