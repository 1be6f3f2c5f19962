# Training releases the GIL (another Python thread runs meanwhile) and Ctrl-C raises
# KeyboardInterrupt within a second.
import os
import threading
import time

import pytest

import maxent


def test_other_python_threads_run_while_training():
    world = maxent.grid_world(6, 6, layout="four_rooms", observation="gaussian", variance=10.0)
    done = threading.Event()
    result = {}

    def work():
        result["r"] = maxent.train(world, None, maxent.BeliefAveragedPolicy(36, 4), "mse", iterations=1500,
                                   seeds=[0, 1], threads=2)
        done.set()

    t = threading.Thread(target=work)
    start = time.perf_counter()
    t.start()
    ticks = 0
    while not done.is_set():
        ticks += 1  # pure Python: advances only while the training thread does not hold the GIL
    t.join()
    elapsed = time.perf_counter() - start
    assert len(result["r"]) == 2 and elapsed > 0.05
    # Without the GIL released the loop would be stuck for the whole run; with it, it spins freely
    # (millions of ticks per second; the bound leaves room for a loaded machine).
    assert ticks > 20000 * elapsed, (ticks, elapsed)


SCRIPT = r"""
import sys, maxent
kind = sys.argv[1]
try:
    print("ready", flush=True)
    if kind == "finite":
        w = maxent.grid_world(6, 6, layout="four_rooms", observation="gaussian", variance=10.0)
        maxent.train(w, None, maxent.BeliefAveragedPolicy(36, 4), "mse", iterations=10**8, seeds=[0, 1], threads=2)
    elif kind == "feedback":
        w = maxent.grid_world(4, 4)
        maxent.train(w, None, maxent.BeliefAveragedPolicy(16, 4), lambda t: 1.0 * len(t.states), iterations=10**8)
    else:
        sys.path.insert(0, sys.argv[2])
        from generative_slowdown import GridSimulator
        sim = GridSimulator(maxent.grid_world(4, 4, slip=0.1))
        maxent.train(sim, maxent.ParticleFilter(sim, particles=20), maxent.BeliefAveragedPolicy(16, 4),
                     iterations=10**8)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(7)
"""


@pytest.mark.parametrize("kind", ["finite", "feedback", "python-world"])
def test_ctrl_c_raises_keyboard_interrupt_within_a_second(kind, interrupt_when_ready):
    examples = os.path.join(os.path.dirname(__file__), "..", "examples")
    rc, out, err, took = interrupt_when_ready(["-c", SCRIPT, kind, examples], 0.5)  # well inside train()
    assert rc == 7, (out, err)
    assert "KeyboardInterrupt" in out
    assert took < 1.0, took
