"""bench/test_particles_numpy.py: the numpy peer (bench/particles_numpy.py) filters the same
world as maxent's particle filter, with the same update, so that their speeds compare.

  * exact checks, by hand, of its world and update on made-up particles: the sensor
    likelihood, the move (a wall blocks outside a doorway, a doorway lets through, the border
    clamps), the 8 x 8 histogram bin, the bilinear 6 x 6 features, systematic resampling;
  * statistics against the C++ filter (RescueWorld, 8 x 8 bins, bilinear 6 x 6 features,
    threshold 1/2), recorded from BM_ParticleFaithfulness of maxent_bench_particles (whose
    values are deterministic for its seeds), or read live from the binary named by
    MAXENT_BENCH_PARTICLES: over 40 episodes of 99 updates with 1,000 particles, the fraction
    of particle moves a wall blocks, the mean n_eff / n, the resampling rate, the mean
    posterior position and its mean distance to the true position agree within 4 combined
    standard errors (independent episodes on each side); and on a fixed script of 12 actions
    and readings with 10^5 particles, the posterior means agree within 0.004 (the Monte Carlo
    error of each mean is about sd / sqrt(n_eff) < 0.0003 with sd < 0.05 and n_eff > 3·10^4;
    path degeneracy after resamplings can multiply it by a few, hence the margin).
Run: /usr/bin/python3 -m pytest -q bench/test_particles_numpy.py (about 3 s).
"""
import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import particles_numpy as pn  # noqa: E402

# BM_ParticleFaithfulness's counters (mean, standard error over 40 episodes).
CPP_STATS = {
    "blocked": (0.03569, 0.00516),
    "ess": (0.71565, 0.00743),
    "resampled": (0.16162, 0.00873),
    "mean_x": (0.21168, 0.01535),
    "mean_y": (0.19816, 0.01787),
    "error": (0.05144, 0.00116),
}
# Its posterior means (x, y) after each update of SCRIPT, 10^5 particles.
CPP_POSTERIOR = [(0.13001, 0.07008), (0.18443, 0.07045), (0.2784, 0.07135), (0.3391, 0.07223),
                 (0.33961, 0.13077), (0.34052, 0.1777), (0.34197, 0.20706), (0.39933, 0.19911),
                 (0.51277, 0.21339), (0.58315, 0.21125), (0.58594, 0.23498), (0.58693, 0.29843)]
# kFaithfulnessScript of bench_particles.cpp: (action, sensor cell).
SCRIPT = [(3, 0), (3, 0), (3, 1), (3, 1), (0, 1), (0, 1), (0, 1), (3, 1), (3, 2), (3, 2), (0, 2), (0, 6)]


def cpp_reference():
    exe = os.environ.get("MAXENT_BENCH_PARTICLES")
    if not exe:
        return CPP_STATS, CPP_POSTERIOR
    out = subprocess.run([exe, "--benchmark_filter=BM_ParticleFaithfulness", "--benchmark_format=json"],
                         check=True, capture_output=True, text=True).stdout
    b = json.loads(out)["benchmarks"][0]
    stats = {k: (b[k], b[k + "_se"]) for k in CPP_STATS}
    return stats, [(b["post_x_%d" % t], b["post_y_%d" % t]) for t in range(1, 13)]


def test_likelihood_and_cells_by_hand():
    # (0.3, 0.8): cell ix = 1, iy = 3 of the 4 x 4 sensor grid -> 13; 0.7 + 0.3 / 16 = 0.71875.
    x, y = np.array([0.3, 1.0, 0.0]), np.array([0.8, 1.0, 0.0])
    assert list(pn.cell(x, y)) == [13, 15, 0]  # the edges x = 1, y = 1 belong to the last cell
    assert list(pn.likelihood(13, x, y)) == pytest.approx([0.71875, 0.01875, 0.01875], rel=1e-15, abs=0)
    # The 8 x 8 belief bin: ix = 2, iy = 6 -> 50.
    assert list(pn.histogram_bins(x, y)) == [50, 63, 0]


def test_moves_by_hand():
    zero = np.zeros(4)
    # Right from x = 0.45: crossing x = 1/2 at y = 0.1 (wall) is blocked, at y = 0.25 (a doorway,
    # 0.19..0.31) it passes; up from y = 0.97 clamps at 1; left from x = 0.02 clamps at 0.
    x = np.array([0.45, 0.45, 0.3, 0.02])
    y = np.array([0.10, 0.25, 0.97, 0.6])
    nx, ny, blocked = pn.move(x[:2], y[:2], 3, zero[:2], zero[:2])
    assert list(blocked) == [True, False]
    assert nx[0] == 0.45 and ny[0] == 0.10
    assert nx[1] == pytest.approx(0.51, abs=1e-15) and ny[1] == 0.25
    nx, ny, blocked = pn.move(x[2:3], y[2:3], 0, zero[:1], zero[:1])
    assert ny[0] == 1.0 and not blocked[0]
    nx, ny, blocked = pn.move(x[3:], y[3:], 2, zero[:1], zero[:1])
    assert nx[0] == 0.0 and ny[0] == 0.6
    # Noise: sd 0.02 per axis (a standard normal of 1 moves 0.02 more).
    nx, ny, _ = pn.move(np.array([0.2]), np.array([0.2]), 1, np.array([1.0]), np.array([-1.0]))
    assert nx[0] == pytest.approx(0.22) and ny[0] == pytest.approx(0.2 - 0.06 - 0.02)


def test_features_and_resampling_by_hand():
    # (0.25, 0.75) on 6 x 6 nodes: fx = 1.25, fy = 3.75 -> nodes (1, 3), (2, 3), (1, 4), (2, 4)
    # with weights 0.75 * 0.25, 0.25 * 0.25, 0.75 * 0.75, 0.25 * 0.75, times w = 2.
    phi = pn.bilinear_features(np.array([0.25]), np.array([0.75]), np.array([2.0]))
    expected = np.zeros(36)
    expected[[19, 20, 25, 26]] = [2 * 0.1875, 2 * 0.0625, 2 * 0.5625, 2 * 0.1875]
    assert np.allclose(phi, expected, rtol=0, atol=1e-15)
    # Systematic: positions (0.1 + j) / 4 = 0.025, 0.275, 0.525, 0.775 in the cumulative weights
    # 0.5, 0.75, 1, 1 -> indices 0, 0, 1, 2 (the zero weight never drawn).
    assert list(pn.systematic(np.array([0.5, 0.25, 0.25, 0.0]), 0.1)) == [0, 0, 1, 2]


def test_statistics_agree_with_the_cpp_filter():
    stats, _ = cpp_reference()
    mine = pn.statistics(n=1000, episodes=40, seed=5)
    for k, (c_mean, c_se) in stats.items():
        v = np.array(mine[k])
        mean, se = v.mean(), v.std(ddof=1) / math.sqrt(len(v))
        assert abs(mean - c_mean) <= 4.0 * math.hypot(se, c_se), (k, mean, se, c_mean, c_se)


def test_posterior_means_agree_with_the_cpp_filter():
    _, posterior = cpp_reference()
    rng = np.random.default_rng(8)
    f = pn.Filter(100000, np.random.default_rng(9))
    for t, (a, o) in enumerate(SCRIPT):
        f.update(a, o, rng)
        mx, my = float(np.dot(f.w, f.x)), float(np.dot(f.w, f.y))
        assert abs(mx - posterior[t][0]) <= 0.004, (t + 1, mx, posterior[t][0])
        assert abs(my - posterior[t][1]) <= 0.004, (t + 1, my, posterior[t][1])
