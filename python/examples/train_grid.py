#!/usr/bin/env python3
"""Trains the paper's four feedbacks on a grid world from Python and plots the learning curves.

The true-state entropy per iteration (the batch mean over the N trajectories, what the paper's
Figure 2 plots), averaged over seeds that run on threads inside C++, for MSE, MOE, MBE and
Reg-MBE with the belief-averaged policy on environment (i) of the paper (a 5 x 5 room,
deterministic, observation variance 10), with the uniform policy's entropy as a line.

    PYTHONPATH=build-release/python /usr/bin/python3 python/examples/train_grid.py --out curves.png
"""
import argparse
import math

import matplotlib.pyplot as plt  # MPLBACKEND=Agg draws without a display
import numpy as np

import maxent


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--iterations", type=int, default=2000)
    ap.add_argument("--seeds", type=int, default=4)
    ap.add_argument("--smooth", type=int, default=50, help="moving-average window of the plotted curves")
    ap.add_argument("--out", default="curves.png")
    args = ap.parse_args()

    world = maxent.grid_world(5, 5, observation="gaussian", variance=10.0)
    filt = maxent.BayesFilter(world)  # the paper's uniform b_1
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for feedback in (maxent.MSE(), maxent.MOE(), maxent.MBE(), maxent.RegMBE(0.02)):
        runs = maxent.train(world, filt, maxent.BeliefAveragedPolicy(world.num_states, world.num_actions), feedback,
                            maxent.BatchMeanBaseline(), maxent.ConstantStep(0.3), iterations=args.iterations,
                            seeds=list(range(args.seeds)))
        curves = np.stack([r.true_entropy for r in runs])
        mean = curves.mean(axis=0)
        w = max(1, min(args.smooth, len(mean)))
        smooth = np.convolve(mean, np.ones(w) / w, mode="valid")
        ax.plot(np.arange(w - 1, len(mean)), smooth, label=feedback.name)
        print(f"{feedback.name:8s} true-state entropy: first {mean[:w].mean():.3f}, last {mean[-w:].mean():.3f}")
    uniform = maxent.evaluate_uniform(world, filt, episodes=500)["true_entropy"]["mean"]
    ax.axhline(uniform, color="grey", linestyle="--", label="uniform policy")
    ax.axhline(math.log(world.num_states), color="black", linewidth=0.5, label="log S")
    ax.set_xlabel("iteration")
    ax.set_ylabel("true-state entropy (nats)")
    ax.set_title(f"5x5 room, obs. variance 10, {args.seeds} seeds")
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(args.out, dpi=120)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
