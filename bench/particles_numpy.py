#!/usr/bin/python3
"""bench/particles_numpy.py: the peer of maxent_bench_particles, a vectorised numpy
bootstrap particle filter of the same rescue world, written as a careful Python researcher
would (every particle operation a whole-array numpy call, buffers reused where numpy allows).

The world (model/rescue_world.hpp, RescueWorld with its defaults): the unit square, walls at
x = 1/2 and y = 1/2 with doorways of width 0.12 centred at 1/4 and 3/4; actions 0 up, 1 down,
2 left, 3 right move by 0.06 plus N(0, 0.02^2) noise per axis, a move crossing a wall outside a
doorway is blocked, the border clamps; the sensor reads the cell of a 4 x 4 grid, right with
probability 0.7, else uniform over the 16 cells. Each step simulates the true world (a
uniform action, the true move, the reading), then updates the filter: predict, weigh by the
likelihood, normalise, n_eff = 1 / sum w^2, systematic resampling when n_eff < n/2, then the
8 x 8 histogram and bilinear features on 6 x 6 nodes, as BM_ParticleStep does. Episodes of
T = 100 steps restart the filter from its prior particles.

  /usr/bin/python3 bench/particles_numpy.py [--sizes 100,1000,10000,100000] [--seconds S]
                                            [--json FILE] [--no-tune] [--stats]

The glibc allocator is tuned (the fair version): unless --no-tune, the script re-runs itself
with MALLOC_TRIM_THRESHOLD_ and MALLOC_MMAP_THRESHOLD_ set, so that numpy's large temporaries
are reused instead of being mapped and unmapped at every call. Times are the process's CPU
time (time.process_time) on one core, per particle-step. --stats prints the faithfulness
statistics that bench/test_particles_numpy.py compares with the C++ filter's.
"""
import argparse
import json
import os
import sys
import time

TUNED = {"MALLOC_TRIM_THRESHOLD_": str(1 << 30), "MALLOC_MMAP_THRESHOLD_": str(1 << 30)}
if __name__ == "__main__" and "--no-tune" not in sys.argv and os.environ.get("MALLOC_MMAP_THRESHOLD_") is None:
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1", **TUNED)
    os.execve(sys.executable, [sys.executable] + sys.argv, env)

import numpy as np  # noqa: E402  (after the re-exec: the allocator settings apply from the start)

STEP, NOISE, DOOR, K, ACCURACY = 0.06, 0.02, 0.12, 4, 0.7
START_LO, START_HI, HORIZON = 0.02, 0.12, 100
FLOOR = (1.0 - ACCURACY) / (K * K)
BINS, NODES = 8, 6
DX = np.array([0.0, 0.0, -STEP, STEP])  # by action: up, down, left, right
DY = np.array([STEP, -STEP, 0.0, 0.0])


def in_doorway(along):
    """Whether a coordinate along a wall at 1/2 lies in one of its doorways."""
    h = 0.5 * DOOR
    return (np.abs(along - 0.25) <= h) | (np.abs(along - 0.75) <= h)


def move(x, y, a, nx, ny):
    """Positions moved by action a with standard normal noise (nx, ny): clamped to the arena,
    kept where they were when the move crosses an inner wall outside a doorway. Returns
    (x', y', blocked)."""
    tx = np.clip(x + (DX[a] + NOISE * nx), 0.0, 1.0)
    ty = np.clip(y + (DY[a] + NOISE * ny), 0.0, 1.0)
    blocked = np.zeros(np.shape(x), dtype=bool)
    for u0, u1, v0, v1 in ((x, tx, y, ty), (y, ty, x, tx)):
        cross = (u0 < 0.5) != (u1 < 0.5)
        if np.any(cross):
            with np.errstate(divide="ignore", invalid="ignore"):  # t is used only where cross holds
                t = (0.5 - u0) / (u1 - u0)
                blocked |= cross & ~in_doorway(v0 + t * (v1 - v0))
    return np.where(blocked, x, tx), np.where(blocked, y, ty), blocked


def cell(x, y):
    """The sensor cell ix + K iy of positions (the edges x = 1, y = 1 in the last cell)."""
    ix = np.minimum(K - 1, (x * K).astype(np.int64))
    iy = np.minimum(K - 1, (y * K).astype(np.int64))
    return ix + K * iy


def likelihood(o, x, y):
    """Obs(o | s) = accuracy [o = cell(s)] + (1 - accuracy) / K^2."""
    return np.where(cell(x, y) == o, ACCURACY, 0.0) + FLOOR


def histogram_bins(x, y):
    """The 8 x 8 belief bin ix + 8 iy of positions."""
    ix = np.minimum(BINS - 1, (x * BINS).astype(np.int64))
    iy = np.minimum(BINS - 1, (y * BINS).astype(np.int64))
    return ix + BINS * iy


def bilinear_features(x, y, w):
    """sum_i w_i phi(x_i): bilinear weights on the 6 x 6 nodes of the unit square."""
    fx, fy = x * (NODES - 1), y * (NODES - 1)
    i = np.minimum(NODES - 2, fx.astype(np.int64))
    j = np.minimum(NODES - 2, fy.astype(np.int64))
    tx, ty = fx - i, fy - j
    k = i + NODES * j
    idx = np.concatenate((k, k + 1, k + NODES, k + NODES + 1))
    wts = np.concatenate((w * (1 - tx) * (1 - ty), w * tx * (1 - ty), w * (1 - tx) * ty, w * tx * ty))
    return np.bincount(idx, weights=wts, minlength=NODES * NODES)


def systematic(w, u):
    """Systematic resampling: for positions (u + j) / n, j < n, the index whose cumulative
    weight interval holds each (w normalised, u in [0, 1))."""
    n = len(w)
    c = np.cumsum(w)
    return np.minimum(n - 1, np.searchsorted(c, (u + np.arange(n)) / n, side="right"))


def sense(rng, x, y):
    if rng.random() < ACCURACY:
        return int(cell(np.array([x]), np.array([y]))[0])
    return int(rng.integers(K * K))


class Filter:
    """The bootstrap filter: particles as two arrays, weights normalised."""

    def __init__(self, n, rng, threshold=0.5):
        self.n, self.threshold = n, threshold
        self.prior_x = START_LO + (START_HI - START_LO) * rng.random(n)
        self.prior_y = START_LO + (START_HI - START_LO) * rng.random(n)
        self.z = np.empty((2, n))
        self.resamples = 0
        self.initial()

    def initial(self):
        self.x, self.y = self.prior_x.copy(), self.prior_y.copy()
        self.w = np.full(self.n, 1.0 / self.n)
        self.ess = float(self.n)

    def update(self, a, o, rng):
        rng.standard_normal(out=self.z)
        self.x, self.y, self.blocked = move(self.x, self.y, a, self.z[0], self.z[1])
        w = self.w * likelihood(o, self.x, self.y)
        total = w.sum()
        if not total > 0.0:  # depletion: equal weights (the world's sensor never gives it)
            w = np.full(self.n, 1.0 / self.n)
        else:
            w /= total
        self.ess = 1.0 / np.dot(w, w)
        if self.ess < self.threshold * self.n:
            self.resamples += 1
            idx = systematic(w, rng.random())
            self.x, self.y = self.x[idx], self.y[idx]
            w = np.full(self.n, 1.0 / self.n)
        self.w = w
        self.hist = np.bincount(histogram_bins(self.x, self.y), weights=w, minlength=BINS * BINS)
        self.phi = bilinear_features(self.x, self.y, w)


def true_world_step(rng, s):
    a = int(rng.integers(4))
    nx, ny = rng.standard_normal(2)
    x, y, _ = move(np.array([s[0]]), np.array([s[1]]), a, np.array([nx]), np.array([ny]))
    s = (float(x[0]), float(y[0]))
    return a, s, sense(rng, *s)


def time_filter(n, seconds, seed=2):
    """CPU ns per particle-step over whole episodes, at least `seconds` of CPU."""
    rng = np.random.default_rng(seed)
    f = Filter(n, np.random.default_rng(1))
    steps = 0
    start = time.process_time()
    while True:
        f.initial()
        s = (START_LO + (START_HI - START_LO) * rng.random(), START_LO + (START_HI - START_LO) * rng.random())
        for _ in range(HORIZON - 1):
            a, s, o = true_world_step(rng, s)
            f.update(a, o, rng)
            steps += 1
        elapsed = time.process_time() - start
        if elapsed >= seconds:
            return 1e9 * elapsed / (steps * n), steps, f.resamples / steps


def statistics(n=1000, episodes=40, seed=5):
    """Faithfulness statistics per episode of T = 100 (99 updates, threshold 1/2): the fraction
    of the filter's particle moves blocked by a wall, the mean n_eff / n before resampling, the
    resampling rate, the mean posterior position and the mean distance between the posterior
    mean and the true position. Returns a dict of lists (one value per episode)."""
    rng = np.random.default_rng(seed)
    f = Filter(n, np.random.default_rng(seed + 1))
    out = {k: [] for k in ("blocked", "ess", "resampled", "mean_x", "mean_y", "error")}
    for _ in range(episodes):
        f.initial()
        f.resamples = 0
        s = (START_LO + (START_HI - START_LO) * rng.random(), START_LO + (START_HI - START_LO) * rng.random())
        acc = {k: 0.0 for k in out}
        for _ in range(HORIZON - 1):
            a, s, o = true_world_step(rng, s)
            f.update(a, o, rng)
            mx, my = float(np.dot(f.w, f.x)), float(np.dot(f.w, f.y))
            acc["blocked"] += f.blocked.mean()
            acc["ess"] += f.ess / n
            acc["mean_x"] += mx
            acc["mean_y"] += my
            acc["error"] += ((mx - s[0]) ** 2 + (my - s[1]) ** 2) ** 0.5
        for k in ("blocked", "ess", "mean_x", "mean_y", "error"):
            out[k].append(acc[k] / (HORIZON - 1))
        out["resampled"].append(f.resamples / (HORIZON - 1))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--sizes", default="100,1000,10000,100000")
    p.add_argument("--seconds", type=float, default=2.0, help="CPU seconds per size (default 2)")
    p.add_argument("--json", help="write the results here (for scripts/bench.sh)")
    p.add_argument("--no-tune", action="store_true", help="leave the allocator as it is")
    p.add_argument("--stats", action="store_true", help="print the faithfulness statistics and exit")
    args = p.parse_args()
    if args.stats:
        st = statistics()
        for k, v in st.items():
            v = np.array(v)
            print("%-10s mean %.5f  s.e. %.5f" % (k, v.mean(), v.std(ddof=1) / np.sqrt(len(v))))
        return
    results = []
    tuned = os.environ.get("MALLOC_MMAP_THRESHOLD_") is not None
    print("numpy %s, allocator %s" % (np.__version__, "tuned" if tuned else "as is"))
    for n in [int(x) for x in args.sizes.split(",")]:
        ns, steps, resampled = time_filter(n, args.seconds)
        results.append({"particles": n, "ns_per_particle_step": ns, "steps": steps, "resampled_fraction": resampled})
        print("n = %6d: %8.1f ns per particle-step (CPU), %d steps, resampled %.3f" % (n, ns, steps, resampled))
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"numpy": np.__version__, "allocator_tuned": tuned, "results": results}, fh, indent=1)


if __name__ == "__main__":
    main()
