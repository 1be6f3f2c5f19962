# The paper's experiments by name.
import numpy as np
import pytest

import maxent


def test_registry():
    names = [e["name"] for e in maxent.experiments()]
    assert names[:2] == ["fig2a", "fig2b"] and "fig5b" in names and "nosim2c" in names
    fig3a = next(e for e in maxent.experiments() if e["name"] == "fig3a")
    assert "mbe@0.01" in fig3a["curves"]
    assert maxent.experiment_environment("fig2d").num_observations == 4


def test_run_experiment():
    r = maxent.run_experiment("fig4a", iterations=5, seeds=[0, 1], objectives=["mse"], threads=2)
    assert r["name"] == "fig4a" and set(r["curves"]) == {"mse/O", "mse/BA", "mse/S"}
    assert r["curves"]["mse/BA"]["true_entropy"].shape == (2, 5)
    n = maxent.run_experiment("nosim2b", iterations=4, seeds=[0], objectives=[], learned=["mbe"], latent_states=5)
    c = n["curves"]["learned-mbe"]
    assert c["learned"] and len(c["fits"][0]) >= 1
    with pytest.raises(maxent.ConfigError, match=r"curve 'learned-mbe/B': learned beliefs: the "
                       r"belief-state class B is not offered with a learned model"):
        maxent.run_experiment("nosim2b", iterations=2, seeds=[0], objectives=["mse"], policies=["O", "B"],
                              learned=["mbe"], latent_states=5)
    for learning, message in (({"warmups": 3}, "unknown learning setting 'warmups'"),
                              ({"warmup": 0}, r"learning\['warmup'\] must be an integer >= 1, got 0"),
                              ({"window": 2.5}, r"learning\['window'\] must be an integer >= 1, got 2.5"),
                              ({"smoothing": -1}, r"learning\['smoothing'\] must be a finite number >= 0, got -1"),
                              ({"learned_prior": 1}, r"learning\['learned_prior'\] must be True or False, got 1")):
        with pytest.raises(maxent.ConfigError, match=message):
            maxent.run_experiment("nosim2b", iterations=2, seeds=[0], learning=learning)
    with pytest.raises(maxent.ConfigError, match="latent_states is given twice"):
        maxent.run_experiment("nosim2b", iterations=2, seeds=[0], latent_states=4, learning={"latent_states": 5})
    with pytest.raises(maxent.ConfigError, match="unknown experiment 'fig9'"):
        maxent.run_experiment("fig9")
    with pytest.raises(maxent.ConfigError, match="unknown objective 'foo'"):
        maxent.run_experiment("fig2a", objectives=["foo"])
