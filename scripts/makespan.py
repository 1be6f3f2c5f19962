#!/usr/bin/env python3
"""scripts/makespan.py RUN_TIMES.csv — the run-time model of docs/performance.md ("One work
queue"): the makespan of a command's runs on W workers, from per-run durations measured on one
thread (maxent-paper ... --threads 1 with MAXENT_RUN_TIMES=RUN_TIMES.csv: lines
experiment,curve,seed,estimated_cost,seconds in job order).

Two schedules, both list scheduling (each job, in order, to the first worker that is free, as
maxent::run_parallel hands out jobs):
  per experiment  the experiments one after another, each its own pool in job order (before);
  one queue       all runs in one pool, by decreasing estimated cost, ties in job order
                  (runner.hpp run_experiments: what the programs do now).
Also the lower bound max(total / W, longest run). Prints W, the makespans and efficiencies
(T1 / (W * T_W)).
"""
import csv
import heapq
import sys


def list_schedule(durations, workers):
    free = [0.0] * workers
    heapq.heapify(free)
    end = 0.0
    for d in durations:
        t = heapq.heappop(free) + d
        end = max(end, t)
        heapq.heappush(free, t)
    return end


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    runs = []
    with open(sys.argv[1], newline="") as f:
        for row in csv.reader(f):
            runs.append((row[0], row[1], int(row[2]), int(row[3]), float(row[4])))
    experiments = []
    for r in runs:
        if r[0] not in experiments:
            experiments.append(r[0])
    total = sum(r[4] for r in runs)
    longest = max(r[4] for r in runs)
    queue = [r[4] for r in sorted(runs, key=lambda r: -r[3])]  # sorted() is stable
    print(f"{len(runs)} runs of {len(experiments)} experiments ({','.join(experiments)}), "
          f"{total:.2f} s on one thread, longest run {longest:.3f} s, "
          f"shortest {min(r[4] for r in runs):.3f} s")
    print("| W | per experiment (s) | efficiency | one queue (s) | efficiency | lower bound (s) |")
    print("|---:|---:|---:|---:|---:|---:|")
    for w in (1, 2, 4, 8, 16, 32, 64):
        before = sum(list_schedule([r[4] for r in runs if r[0] == e], w) for e in experiments)
        after = list_schedule(queue, w)
        bound = max(total / w, longest)
        print(f"| {w} | {before:.2f} | {100 * total / (w * before):.0f}% | {after:.2f} | "
              f"{100 * total / (w * after):.0f}% | {bound:.2f} |")


if __name__ == "__main__":
    main()
