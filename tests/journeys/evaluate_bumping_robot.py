# A user's script: a robot in a corridor that bumps into the walls (a move into a wall leaves
# it where it is), written as a Python simulator with noisy position readings and a true
# position as its state point, filtered by particles, and evaluated with maxent.evaluate and
# maxent.evaluate_uniform at their defaults. Its true positions repeat whenever it bumps; the
# script checks that both calls complete with finite numbers and name how ties were counted.
# (tests/CMakeLists.txt runs it as journey.evaluate_bumping_robot_python.)
import math
import sys

import numpy as np

import maxent


class Corridor:
    num_actions = 2          # 0: left, 1: right
    observation_dim = 1      # a noisy reading of the position, in metres
    state_point_dim = 1      # the true position, for the kNN true-state entropy
    horizon = 20
    num_state_bins = 5

    def sample_initial_state(self, rng):
        return 0.0           # against the left wall

    def sample_initial_observation(self, s, rng):
        return self.sample_observation(0, s, rng)

    def sample_next_state(self, s, a, rng):
        return min(4.0, max(0.0, s + (1.0 if a == 1 else -1.0)))

    def sample_observation(self, a, s, rng):
        return s + 0.3 * rng.normal()

    def observation_likelihood(self, a, o, s):
        return math.exp(-0.5 * ((o - s) / 0.3) ** 2)

    def state_bin(self, s):
        return int(s)

    def state_point(self, s):
        return np.array([s])


world = Corridor()
pf = maxent.ParticleFilter(world, particles=50)
uniform = maxent.evaluate_uniform(world, pf, episodes=20, seed=1)
leftward = maxent.ObservationFeaturePolicy(maxent.RawObservationFeatures(1), 2)
leftward.parameters = np.array([[0.0, 0.0], [2.0, -2.0]])  # mostly pushes into the left wall
pushing = maxent.evaluate(world, pf, leftward, episodes=20, seed=1)

for name, e in (("uniform", uniform), ("pushing left", pushing)):
    knn = e["true_entropy_knn"]
    print(f"{name}: true-state entropy {e['true_entropy']['mean']:.3f} (bins), {knn['mean']:.3f} "
          f"[{knn['low']:.3f}, {knn['high']:.3f}] nats (kNN, k = {e['knn_k']}); ties: {e['knn_rule']}, "
          f"resolution {e['knn_resolution_low']:.3g} .. {e['knn_resolution_high']:.3g}, "
          f"{e['knn_floored']} points")
    values = [e[q]["mean"] for q in ("true_entropy", "observation_entropy", "true_entropy_knn")]
    values += [knn["low"], knn["high"]]
    if not all(math.isfinite(v) for v in values) or e["knn_rule"] != "scale" or e["knn_floored"] == 0:
        sys.exit(f"unexpected evaluation: {e}")
