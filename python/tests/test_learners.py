# python/tests/test_learners.py — fit_belief_model's and train_learned's learners by their C++
# names (runtime/settings.hpp learner_kinds, belief/learned/select.hpp): the model each returns,
# what each is given of the world, and the refusals (oracles without world=, unknown names);
# train_learned's selections: test_learned_select.py.
import numpy as np
import pytest

import maxent

WORLD = maxent.grid_world(3, 3, observation="room_id")
A, O, T, S = WORLD.num_actions, WORLD.num_observations, WORLD.horizon, WORLD.num_states
EPISODES = maxent.uniform_episodes(WORLD, 40, seed=3)


def fit(learner, latent_states=4, **kw):
    kw.setdefault("restarts", 1)
    kw.setdefault("max_iterations", 40)
    return maxent.fit_belief_model(EPISODES, latent_states, A, O, T, learner=learner, **kw)


def same_model(a, b):
    return (a.num_states == b.num_states and np.array_equal(a.initial_distribution, b.initial_distribution) and
            all(np.array_equal(a.transition_matrix(a.actions[i]), b.transition_matrix(b.actions[i])) and
                np.array_equal(a.observation_matrix(a.actions[i]), b.observation_matrix(b.actions[i]))
                for i in range(A)))


@pytest.mark.parametrize("learner", ["em", "em-sparse", "em-spectral"])
def test_the_em_learners_fit_L_states_from_the_logs_only(learner):
    model, info = fit(learner)
    assert model.num_states == 4 and info["learner"] == learner and info["given"] == []
    assert np.all(np.isfinite(info["log_likelihood"])) and info["log_likelihood"][-1] > info["log_likelihood"][0]


def test_em_by_name_is_the_default_call_bit_for_bit():
    plain, i0 = maxent.fit_belief_model(EPISODES, 4, A, O, T, restarts=1, max_iterations=40)
    named, i1 = fit("em")
    assert same_model(plain, named)
    assert np.array_equal(i0["log_likelihood"], i1["log_likelihood"])


def test_em_sparse_is_em_with_the_sparse_transition_prior():
    # runner.cpp apply_learner: em-sparse sets a Dirichlet(0.1) prior on the transitions only
    sparse, _ = fit("em-sparse")
    by_prior, _ = fit("em", prior={"transitions": 0.1})
    plain, _ = fit("em")
    assert same_model(sparse, by_prior) and not same_model(sparse, plain)


def test_cloned_hmm_has_as_many_states_as_clones():
    counts = list(range(1, O + 1))
    model, info = fit("cloned-hmm", latent_states=0, clones=counts)
    assert model.num_states == sum(counts) and list(info["clones"]) == counts
    even, info = fit("cloned-hmm", latent_states=0, clones=2 * O)
    assert even.num_states == 2 * O and list(info["clones"]) == [2] * O
    by_L, _ = fit("cloned-hmm", latent_states=2 * O)  # L split evenly, as maxent-paper's cloned-hmm
    assert same_model(even, by_L)
    # a clone's emission row is its observation's indicator
    E = even.observation_matrix(even.actions[0])
    assert np.array_equal(E, np.repeat(np.eye(O), 2, axis=0))
    with pytest.raises(maxent.ConfigError, match="clones = 6 .* latent_states = 5"):
        fit("cloned-hmm", latent_states=5, clones=6)


def test_known_motion_holds_the_worlds_transitions_exactly():
    model, info = fit("em-known-motion", latent_states=0, world=WORLD)
    assert model.num_states == S and info["given"] == ["transitions", "number of states"]
    for i in range(A):
        assert np.array_equal(model.transition_matrix(model.actions[i]), WORLD.transition_matrix(WORLD.actions[i]))
    learned_sensor = model.observation_matrix(model.actions[0])
    assert not np.array_equal(learned_sensor, WORLD.observation_matrix(WORLD.actions[0]))  # it learns the sensor


def test_known_sensor_holds_the_worlds_emissions_exactly():
    model, info = fit("em-known-sensor", latent_states=0, world=WORLD)
    assert model.num_states == S and info["given"] == ["emissions", "number of states"]
    for i in range(A):
        assert np.array_equal(model.observation_matrix(model.actions[i]), WORLD.observation_matrix(WORLD.actions[i]))
    assert not np.array_equal(model.transition_matrix(model.actions[0]), WORLD.transition_matrix(WORLD.actions[0]))


@pytest.mark.parametrize("learner", ["em-known-motion", "em-known-sensor"])
def test_an_oracle_without_the_world_is_refused(learner):
    with pytest.raises(maxent.ConfigError, match=f"'{learner}' is an oracle ablation.*world="):
        fit(learner, latent_states=S)
    with pytest.raises(maxent.ConfigError, match="L must be the world's S = 9, got 4"):
        fit(learner, latent_states=4, world=WORLD)


def test_world_is_refused_where_it_would_not_be_read():
    with pytest.raises(maxent.ConfigError, match="'em' learns from the logs only"):
        fit("em", world=WORLD)


@pytest.mark.parametrize("learner", ["em-select", "em-spectral-select"])
def test_em_select_chooses_one_of_its_candidates(learner):
    model, info = fit(learner, latent_states=0, selection={"latent_states": [1, 2, 4], "pseudo_counts": [0.01, 0.1]})
    cands = info["candidates"]
    assert [(c["latent_states"], c["pseudo_count"]) for c in cands] == [(L, a) for L in (1, 2, 4) for a in (0.01, 0.1)]
    chosen = cands[info["chosen"]]
    assert chosen["chosen"] and sum(c["chosen"] for c in cands) == 1
    assert model.num_states == chosen["latent_states"] and info["given"] == []
    best = max(c["heldout_per_observation"] for c in cands)
    assert cands[info["highest"]]["heldout_per_observation"] == best
    assert chosen["heldout_per_observation"] >= best - chosen["gap_per_observation"] - 1e-12


def test_em_select_doubling_search_lists_every_candidate():
    model, info = fit("em-select", latent_states=0, selection={"max_latent_states": 8, "pseudo_counts": [0.01]})
    Ls = [c["latent_states"] for c in info["candidates"]]
    assert Ls == [1, 2, 4, 8][:len(Ls)] and model.num_states in Ls


def test_cloned_hmm_select_chooses_clone_counts():
    model, info = fit("cloned-hmm-select", latent_states=0,
                      selection={"latent_states": [O, 2 * O], "pseudo_counts": [0.001]})
    chosen = info["candidates"][info["chosen"]]
    assert model.num_states == chosen["latent_states"] == sum(info["clones"])
    assert all(c["allocation"] in ("even", "frequency") for c in info["candidates"])


def test_selection_settings_are_checked():
    with pytest.raises(maxent.ConfigError, match="latent_states must be 0, got 4"):
        fit("em-select", latent_states=4)
    with pytest.raises(maxent.ConfigError, match="unknown selection setting 'max_states'"):
        fit("em-select", latent_states=0, selection={"max_states": 4})
    with pytest.raises(maxent.ConfigError, match="selection= is read by the -select learners only"):
        fit("em", selection={"max_latent_states": 4})


def test_an_unknown_learner_is_refused_naming_the_known_ones():
    with pytest.raises(maxent.ConfigError, match="unknown learner 'hmm'.*em, em-sparse, cloned-hmm, em-known-motion, "
                                                 "em-known-sensor, em-spectral, em-select"):
        fit("hmm")
    with pytest.raises(maxent.ConfigError, match="unknown learner 'hmm'"):
        maxent.train_learned(WORLD, maxent.ObservationPolicy(O, A), learner="hmm", iterations=1)


def learned_run(learner, **kw):
    return maxent.train_learned(WORLD, maxent.BeliefAveragedPolicy(S, A), learner=learner, latent_states=0,
                                warmup=20, heldout=5, window=20, restarts=1, em_iterations=20, refit_every=2,
                                refit_iterations=2, iterations=3, batch=2, seed=1, **kw)


def test_train_learned_known_motion_keeps_the_worlds_transitions():
    r = learned_run("em-known-motion")
    for i in range(A):
        assert np.array_equal(r.belief_model.transition_matrix(r.belief_model.actions[i]),
                              WORLD.transition_matrix(WORLD.actions[i]))
    plain = learned_run("em")
    assert not np.array_equal(plain.belief_model.transition_matrix(plain.belief_model.actions[0]),
                              WORLD.transition_matrix(WORLD.actions[0]))


def test_train_learned_cloned_hmm_and_the_spectral_start_refused():
    r = maxent.train_learned(WORLD, maxent.ObservationPolicy(O, A), learner="cloned-hmm", latent_states=2 * O,
                             warmup=20, heldout=5, window=20, restarts=1, em_iterations=20, refit_every=2,
                             refit_iterations=2, iterations=2, batch=2, seed=1)
    assert r.belief_model.num_states == 2 * O
    # the selections are train_learned's too (test_learned_select.py); the spectral start alone is not
    with pytest.raises(maxent.ConfigError, match="'em-spectral' is fit_belief_model's only"):
        learned_run("em-spectral")
