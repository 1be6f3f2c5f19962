# python/tests/test_package.py — the package around the compiled module: pickling and deepcopy
# (exact round trips), Policy.save/load, progress callbacks, simulators in evaluate, the
# estimator-quality budget, the sequence CSV reader, model descriptions, the plotting helpers.
import copy
import io
import os
import pickle

import numpy as np
import pytest

import maxent
from conftest import ring_arrays


def _trained(room, cls=maxent.BeliefAveragedPolicy, **kw):
    p = cls(room.num_states, room.num_actions)
    return maxent.train(room, None, p, "mse", iterations=kw.pop("iterations", 5), batch=3, seed=kw.pop("seed", 1),
                        **kw)


# --- pickling, deepcopy, == ---------------------------------------------------------------------

def test_model_pickle_round_trip(ring, room, noisy_room):
    for m in (ring, room, noisy_room):
        for back in (pickle.loads(pickle.dumps(m)), copy.deepcopy(m)):
            assert back == m and back is not m
            assert back.description == m.description
            assert list(back.states) == list(m.states)
            for a in range(m.num_actions):
                assert np.array_equal(back.transition_matrix(a), m.transition_matrix(a))
    # a model that differs in one entry is not equal
    P, Z, mu = ring_arrays()
    P2 = P.copy()
    P2[0, 0, 0], P2[0, 0, 1] = 0.2, 0.8
    assert maxent.Model(P, Z, mu, 4) != maxent.Model(P2, Z, mu, 4)


def test_per_action_model_pickle():
    P, Z, mu = ring_arrays()
    Zs = np.stack([Z, Z[:, ::-1]])
    m = maxent.Model(P, Zs, mu, 3, initial_observation=Z)
    assert m.observation_depends_on_action
    back = pickle.loads(pickle.dumps(m))
    assert back == m and back.observation_depends_on_action
    assert np.array_equal(back.initial_observation_matrix, m.initial_observation_matrix)


def test_trained_model_results_are_identical_after_pickling(room):
    """A model and a policy that went through pickle train to the same bits."""
    r1 = _trained(room)
    room2 = pickle.loads(pickle.dumps(room))
    r2 = _trained(room2)
    assert np.array_equal(r1.true_entropy, r2.true_entropy)
    assert r1 == r2


@pytest.mark.parametrize("cls", [maxent.ObservationPolicy, maxent.BeliefAveragedPolicy,
                                 maxent.BelievedStatePolicy, maxent.BeliefMixturePolicy])
def test_policy_pickle_deepcopy_save_load(room, tmp_path, cls):
    rows = room.num_observations if cls is maxent.ObservationPolicy else room.num_states
    p = cls(rows, room.num_actions)
    p.parameters = np.random.default_rng(3).normal(size=p.parameters.shape)
    for back in (pickle.loads(pickle.dumps(p)), copy.deepcopy(p), copy.copy(p)):
        assert back == p and back.class_name == p.class_name
        assert np.array_equal(back.parameters, p.parameters)
    path = p.save(tmp_path / "policy")
    assert path.endswith(".npz")
    q = maxent.Policy.load(path)
    assert q == p and q.class_name == p.class_name and q.parameters.shape == (rows, room.num_actions)
    q.parameters = q.parameters + 1.0
    assert q != p


def test_policy_load_refuses_other_files(tmp_path):
    np.savez(tmp_path / "x.npz", a=np.zeros(3))
    with pytest.raises(ValueError, match="x.npz"):
        maxent.Policy.load(tmp_path / "x.npz")


def test_tabular_policy_pickle_refused(room):
    with pytest.raises(TypeError, match="TabularBeliefPolicy"):
        pickle.dumps(maxent.TabularBeliefPolicy(room.num_states, room.num_actions))


def test_step_rules_pickle():
    for r in (maxent.ConstantStep(0.25), maxent.Adam(0.01, 0.8, 0.99, 1e-7), maxent.LazyAdam(0.02)):
        back = pickle.loads(pickle.dumps(r))
        assert back == r and back.name == r.name and back.alpha == r.alpha
        assert copy.deepcopy(r) == r
    assert maxent.Adam(0.01, 0.8) != maxent.Adam(0.01, 0.9)


def test_step_rule_round_trip_trains_identically(room):
    rule = maxent.Adam(0.05, 0.8, 0.99, 1e-7)
    p = maxent.BeliefAveragedPolicy(room.num_states, room.num_actions)
    a = maxent.train(room, None, p, "mse", step=rule, iterations=4, batch=2)
    b = maxent.train(room, None, p, "mse", step=pickle.loads(pickle.dumps(rule)), iterations=4, batch=2)
    assert a == b


def test_train_result_pickle(room, ring):
    r = _trained(room, iterations=7)
    for back in (pickle.loads(pickle.dumps(r)), copy.deepcopy(r)):
        assert back == r
        assert back.seed == r.seed and back.iterations == 7 and back.stopped_early == r.stopped_early
        assert np.array_equal(back.true_entropy, r.true_entropy)
        assert np.array_equal(back.gradient_norm, r.gradient_norm)
        assert back.policy == r.policy
        assert back.windowed_means(3) == r.windowed_means(3)
    assert _trained(room, iterations=7, seed=2) != r
    learned = maxent.train_learned(ring, maxent.BeliefAveragedPolicy(2, 2), "mbe", latent_states=2, warmup=5,
                                   heldout=0, refit_every=0, iterations=3, batch=2)
    back = pickle.loads(pickle.dumps(learned))
    assert back == learned and len(back.fits) == len(learned.fits) == 1


# --- progress ---------------------------------------------------------------------------------

def test_progress_callback_counts_calls(room):
    calls = []
    r = _trained(room, iterations=10, progress=calls.append, progress_every=3)
    # after iterations 3, 6, 9 and the last (10)
    assert [c["iteration"] + 1 for c in calls] == [3, 6, 9, 10]
    assert all(c["iterations"] == 10 and c["seed"] == 1 for c in calls)
    assert calls[-1]["true_entropy"] == r.true_entropy[-1]
    # the callback does not change the run
    assert r == _trained(room, iterations=10)


def test_progress_false_stops_and_returns(room):
    r = _trained(room, iterations=50, progress=lambda info: info["iteration"] < 4)
    assert r.stopped_early and r.iterations == 5


def test_progress_exception_propagates(room):
    def boom(info):
        raise KeyError("stop here")
    with pytest.raises(KeyError, match="stop here"):
        _trained(room, iterations=5, progress=boom)


def test_progress_bar(room, capsys):
    r = _trained(room, iterations=6, progress=True, seeds=[0, 1])
    assert len(r) == 2
    err = capsys.readouterr().err
    assert "12/12" in err and "\r" in err


def test_progress_with_seeds_and_learned(ring):
    calls = []
    maxent.train_learned(ring, maxent.BeliefAveragedPolicy(2, 2), "mbe", latent_states=2, warmup=5, heldout=0,
                         refit_every=0, iterations=4, batch=2, seeds=[3, 4], threads=2, progress=calls.append,
                         progress_every=2)
    assert sorted((c["seed"], c["iteration"]) for c in calls) == [(3, 1), (3, 3), (4, 1), (4, 3)]


def test_progress_refuses_non_callable(room):
    with pytest.raises(TypeError, match="progress"):
        _trained(room, progress=3)
    with pytest.raises(ValueError, match="progress_every"):
        _trained(room, progress=print, progress_every=0)


# --- simulators in evaluate, evaluate_uniform, windowed_means -----------------------------------

class Corridor:
    """A corridor of n cells: action 1 moves right, 0 left; the observation is the cell, seen exactly."""
    num_actions = 2
    horizon = 4

    def __init__(self, n=4):
        self.num_observations = self.num_state_bins = n
        self.n = n

    def sample_initial_state(self, rng):
        return 0

    def sample_initial_observation(self, s, rng):
        return s

    def sample_next_state(self, s, a, rng):
        return min(self.n - 1, s + 1) if a == 1 else max(0, s - 1)

    def sample_observation(self, a, s, rng):
        return s

    def observation_likelihood(self, a, o, s):
        return 1.0 if o == s else 0.0

    def state_bin(self, s):
        return s


def test_evaluate_simulator():
    world = Corridor()
    pf = maxent.ParticleFilter(world, particles=20)
    always_right = maxent.ObservationPolicy(4, 2)
    always_right.parameters = np.array([[-50.0, 50.0]] * 4)
    e = maxent.evaluate(world, pf, always_right, episodes=10)
    # states 0, 1, 2, 3, 3 (T = 4 counted steps under the paper's counting: 1, 2, 3, 3 or 0..3)
    assert e["episodes"] == 10
    assert e["true_entropy"]["low"] == e["true_entropy"]["high"]  # deterministic: no spread
    u = maxent.evaluate_uniform(world, pf, episodes=50, seed=2)
    assert u["true_entropy"]["mean"] < e["true_entropy"]["mean"]
    assert maxent.evaluate_uniform(world, pf, episodes=50, seed=2) == u  # a pure function of the seed


def test_evaluate_generative_view_refused(room):
    view = maxent.GenerativeView(room)
    pf = maxent.ParticleFilter(view, particles=30)
    with pytest.raises(maxent.ConfigError, match=r"evaluate: a GenerativeView is evaluated through its finite model"):
        maxent.evaluate(view, pf, maxent.BeliefAveragedPolicy(room.num_states, room.num_actions), episodes=20)


def test_windowed_means_on_simulator_result():
    world = Corridor()
    pf = maxent.ParticleFilter(world, particles=10)
    r = maxent.train(world, pf, maxent.ObservationPolicy(4, 2), "mse", iterations=6, batch=2)
    w = r.windowed_means(3)
    assert [x["count"] for x in w] == [3, 3]
    assert w[0]["mean"] == pytest.approx(np.mean(r.true_entropy[:3]), rel=1e-12)


def test_evaluate_simulator_refuses_wrong_updater(room):
    with pytest.raises(maxent.ConfigError, match="ParticleFilter"):
        maxent.evaluate(Corridor(), None, maxent.ObservationPolicy(4, 2))


# --- exact options --------------------------------------------------------------------------------

def test_estimator_quality_max_leaves(room):
    p = maxent.BeliefAveragedPolicy(room.num_states, room.num_actions)
    with pytest.raises(maxent.BudgetError):
        maxent.estimator_quality(room, p, "mse", "batch-mean", repetitions=2, batch=2, max_leaves=10)
    q = maxent.estimator_quality(room, p, "mse", "batch-mean", repetitions=2, batch=2, max_leaves=10 ** 9)
    assert q["repetitions"] == 2
    with pytest.raises(maxent.BudgetError):
        maxent.exact_objective(room, p, "mse", max_horizon=2)


# --- sequences CSV, descriptions -------------------------------------------------------------------

CSV = "sequence,step,action,observation\nA,1,0,1\nA,2,1,0\nA,3,,1\nB,1,1,1\nB,2,,0\n"


def test_sequence_csv_reader(tmp_path):
    path = tmp_path / "seq.csv"
    path.write_text(CSV)
    seqs = maxent.read_sequences_csv(str(path))
    assert [(list(a), list(o)) for a, o in seqs] == [([0, 1], [1, 0, 1]), ([1], [1, 0])]
    with_ids = maxent.parse_sequences_csv(CSV, with_ids=True)
    assert [i for i, _, _ in with_ids] == ["A", "B"]
    model, info = maxent.fit_belief_model(seqs, 2, 2, 2, horizon=2, restarts=1, max_iterations=5)
    assert model.num_states == 2
    with pytest.raises(maxent.ParseError, match=r"<text>:3:"):
        maxent.parse_sequences_csv("sequence,step,action,observation\nA,1,0,1\nA,2,x,1\n")


def test_description_of_array_models(ring):
    d = ring.description
    assert "S=4" in d and "A=2" in d and "O=2" in d and "shared" in d and "labelled" in d
    P, Z, mu = ring_arrays()
    m = maxent.Model(P, np.stack([Z, Z]), mu, 3)
    assert "per action" in m.description and "labelled" not in m.description
    assert "from arrays" in repr(m)


# --- plots ---------------------------------------------------------------------------------------

def test_learning_curve_band(room):
    runs = maxent.train(room, None, maxent.BeliefAveragedPolicy(room.num_states, room.num_actions), "mse",
                        iterations=4, batch=2, seeds=[0, 1, 2])
    x, mean, low, high = maxent.learning_curve(runs)
    values = np.array([r.true_entropy for r in runs])
    assert np.allclose(mean, values.mean(axis=0), rtol=0, atol=1e-15)
    # t(0.975, 2) = 4.302652729911275 (tables); half width t s / sqrt(3)
    half = 4.302652729911275 * values.std(axis=0, ddof=1) / np.sqrt(3)
    assert np.allclose(high - mean, half, rtol=1e-9, atol=1e-15)
    assert np.allclose(mean - low, half, rtol=1e-9, atol=1e-15)


def test_plots_draw(room, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    runs = maxent.train(room, None, maxent.BeliefAveragedPolicy(room.num_states, room.num_actions), "mse",
                        iterations=4, batch=2, seeds=[0, 1])
    ax = maxent.plot_learning_curve(runs, label="BA")
    assert len(ax.lines) == 1 and len(ax.collections) == 1
    counts = maxent.visit_counts(room, runs[0].policy, episodes=20)
    # every episode counts T = 4 steps (paper counting: s_2..s_{T+1})
    assert counts.sum() == 20 * room.horizon
    ax2 = maxent.plot_heatmap(counts, model=room)
    image = ax2.images[0].get_array()
    assert image.shape == (3, 3) and np.isclose(np.nansum(image), 1.0)
    ax2.figure.savefig(tmp_path / "heat.png")
    assert os.path.getsize(tmp_path / "heat.png") > 0


def test_plot_learning_curve_legend_and_uniform_line(room, tmp_path):
    import matplotlib
    matplotlib.use("Agg")
    runs = maxent.train(room, None, maxent.BeliefAveragedPolicy(room.num_states, room.num_actions), "mse",
                        iterations=4, batch=2, seeds=[0, 1])
    ax = maxent.plot_learning_curve(runs, label="reg-mbe/BA")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["reg-mbe/BA"]
    # the uniform policy's level: a number, evaluate_uniform's result, a study folder's uniform.csv
    base = maxent.evaluate_uniform(room, None, episodes=20)
    for uniform, level in ((1.25, 1.25), (base, base["true_entropy"]["mean"])):
        ax = maxent.plot_learning_curve(runs, label="BA", uniform=uniform)
        ref = [l for l in ax.lines if l.get_label().startswith("uniform policy")]
        assert len(ref) == 1 and list(ref[0].get_ydata()) == [level, level]
        assert ref[0].get_linestyle() == ":"
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["BA", f"uniform policy ({level:.3f})"]
    (tmp_path / "summary.csv").write_text("objective,iteration,mean,ci_low,ci_high,n\nmse,0,1.0,0.5,1.5,2\n"
                                          "mse,1,2.0,1.5,2.5,2\n")
    (tmp_path / "uniform.csv").write_text("seed,episodes,true_entropy\n0,1000,1.5\n1,1000,2.5\n")
    ax = maxent.plot_learning_curve(str(tmp_path), uniform=True)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["true_entropy", "uniform policy (2.000)"]
    with pytest.raises(TypeError, match="uniform=True reads a study folder"):
        maxent.plot_learning_curve(runs, uniform=True)
    with pytest.raises(ValueError, match="not a finite level"):
        maxent.plot_learning_curve(runs, uniform=float("nan"))


def test_visit_counts_leave_theta_unchanged(room):
    p = maxent.BeliefAveragedPolicy(room.num_states, room.num_actions)
    p.parameters = np.random.default_rng(1).normal(size=p.parameters.shape)
    before = p.parameters.copy()
    maxent.visit_counts(room, p, episodes=5)
    assert np.array_equal(p.parameters, before)


def test_study_folder(tmp_path):
    (tmp_path / "summary.csv").write_text("objective,iteration,mean,ci_low,ci_high,n\n"
                                          "mse,0,1.0,0.5,1.5,2\nmse,1,2.0,1.5,2.5,2\nmbe,0,0.5,0.5,0.5,2\n")
    (tmp_path / "heatmap.csv").write_text("objective,x,y,fraction\nuniform,0,0,0.5\nuniform,1,0,0.5\n"
                                          "mse,0,0,0.25\nmse,1,0,0.75\n")
    x, mean, low, high = maxent.learning_curve(str(tmp_path), label="mse")
    assert list(x) == [0, 1] and list(mean) == [1.0, 2.0] and list(low) == [0.5, 1.5]
    import matplotlib
    matplotlib.use("Agg")
    ax = maxent.plot_heatmap(str(tmp_path))
    assert ax.get_title() == "mse"
    assert np.array_equal(ax.images[0].get_array(), [[0.25, 0.75]])


def test_docstrings_have_signatures():
    for name in ("train", "train_learned", "evaluate", "evaluate_uniform", "estimator_quality", "Adam",
                 "read_sequences_csv", "fit_belief_model"):
        doc = getattr(maxent, name).__doc__
        assert doc and doc.lstrip().startswith(name + "("), name


def test_type_stubs_cover_the_module():
    import ast
    stub = os.path.join(os.path.dirname(maxent.__file__), "__init__.pyi")
    tree = ast.parse(open(stub).read())
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
    public = {n for n in dir(maxent._core) if not n.startswith("_")}
    assert public - names == set()
