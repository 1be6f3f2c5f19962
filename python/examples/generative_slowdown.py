#!/usr/bin/env python3
"""A simulator written in Python, filtered by the particle filter, against the same world in C++.

GridSimulator is a generative world in Python: the sampling methods of maxent's GenerativePomdp
(sample_initial_state, sample_initial_observation, sample_next_state, sample_observation), the
observation likelihood a particle filter weighs by, and the binning of states that MSE counts.
It samples the rows of a finite model with the generator it is handed (rng.categorical, the
library's inverse CDF), so it is the same world as maxent.GenerativeView(model), draw for draw:
training on either gives the same numbers, and the time ratio is the cost of calling Python.

    PYTHONPATH=build-release/python /usr/bin/python3 python/examples/generative_slowdown.py
"""
import argparse
import time

import numpy as np

import maxent


class GridSimulator:
    """A finite model's dynamics as a Python simulator (states are ints)."""

    def __init__(self, model):
        self.num_actions = model.num_actions
        self.num_observations = model.num_observations
        self.horizon = model.horizon
        self.num_state_bins = model.num_states
        self.mu = model.initial_distribution
        self.P = [model.transition_matrix(a) for a in range(model.num_actions)]
        self.Z = [model.observation_matrix(a) for a in range(model.num_actions)]
        self.Z1 = model.initial_observation_matrix

    def sample_initial_state(self, rng):
        return rng.categorical(self.mu)

    def sample_initial_observation(self, s, rng):
        return rng.categorical(self.Z1[s])

    def sample_next_state(self, s, a, rng):
        return rng.categorical(self.P[a][s])

    def sample_observation(self, a, s, rng):
        return rng.categorical(self.Z[a][s])

    def observation_likelihood(self, a, o, s):
        return self.Z[a][s, o]

    def state_bin(self, s):
        return s


def compare(model, iterations, batch, particles, seed=0):
    """Trains MSE with the belief-averaged policy on both worlds; returns (results, seconds)."""
    out = {}
    for name, world in (("C++ GenerativeView", maxent.GenerativeView(model)), ("Python GridSimulator",
                                                                               GridSimulator(model))):
        pf = maxent.ParticleFilter(world, particles=particles, seed=seed)
        policy = maxent.BeliefAveragedPolicy(pf.bins, model.num_actions)
        start = time.perf_counter()
        r = maxent.train(world, pf, policy, "mse", iterations=iterations, batch=batch, seed=seed, threads=1)
        out[name] = (r, time.perf_counter() - start)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=20)
    ap.add_argument("--batch", type=int, default=10)
    ap.add_argument("--particles", type=int, default=200)
    args = ap.parse_args()
    model = maxent.grid_world(4, 4, slip=0.1, observation="gaussian", variance=10.0)
    res = compare(model, args.iterations, args.batch, args.particles)
    (rc, tc), (rp, tp) = res["C++ GenerativeView"], res["Python GridSimulator"]
    same = np.array_equal(rc.parameters, rp.parameters) and np.array_equal(rc.true_entropy, rp.true_entropy)
    print(f"4x4 room, slip 0.1, Gaussian observations; particle filter n = {args.particles}; "
          f"K = {args.iterations}, N = {args.batch}")
    print(f"C++ world:    {tc:8.3f} s")
    print(f"Python world: {tp:8.3f} s   ({tp / tc:.0f}x slower)")
    print(f"identical results: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    raise SystemExit(main())
