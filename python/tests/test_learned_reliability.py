# Learned belief models from Python, reliably: Ctrl-C during fit_belief_model or
# score_sequences raises KeyboardInterrupt within a couple of seconds (EM reads the stop flag
# every iteration, scoring before every sequence), and read_sequences_csv refuses a FIFO,
# a device or a directory at once instead of blocking or filling memory.
import os
import subprocess
import sys
import tempfile

import pytest

import maxent

SCRIPT = r"""
import sys, maxent
kind = sys.argv[1]
try:
    if kind == "fit":
        w = maxent.grid_world(6, 6, layout="four_rooms", slip=0.1, observation="gaussian", variance=10.0, horizon=30)
        data = maxent.uniform_episodes(w, 300, seed=1)
        print("ready", flush=True)
        # tolerance 0 and 10^6 iterations: minutes of EM unless it stops
        maxent.fit_belief_model(data, latent_states=36, num_actions=w.num_actions,
                                num_observations=w.num_observations, horizon=30, restarts=50,
                                max_iterations=10**6, tolerance=0.0)
    else:
        # 256 states: scoring (L^2 per step) takes far longer than converting the sequences
        w = maxent.grid_world(16, 16, slip=0.1, observation="gaussian", variance=10.0, horizon=2000)
        data = maxent.uniform_episodes(w, 200, seed=1)
        print("ready", flush=True)
        maxent.score_sequences(w, data)  # tens of seconds in one call unless it stops
    print("finished", flush=True)
except KeyboardInterrupt:
    print("KeyboardInterrupt", flush=True)
    sys.exit(7)
"""


@pytest.mark.parametrize("kind", ["fit", "score"])
def test_ctrl_c_during_a_fit_or_a_score_raises_keyboard_interrupt_promptly(kind, interrupt_when_ready):
    # inside the call (scoring: past the conversion of the sequences)
    rc, out, err, took = interrupt_when_ready(["-c", SCRIPT, kind], 0.5 if kind == "fit" else 1.5, timeout=20)
    assert rc == 7, (out, err)
    assert "KeyboardInterrupt" in out and "finished" not in out
    assert took < 2.0, took


def test_read_sequences_csv_refuses_a_fifo_a_device_and_a_directory():
    with tempfile.TemporaryDirectory() as d:
        fifo = os.path.join(d, "pipe.csv")
        os.mkfifo(fifo)
        # In a child: a reader that blocked in open() would wait for a writer forever (holding
        # the GIL, deaf to Ctrl-C); the timeout turns that into a failure instead of a hang.
        code = ("import sys, maxent\ntry:\n    maxent.read_sequences_csv(sys.argv[1])\n"
                "except maxent.ParseError as e:\n    print(e)\n")
        p = subprocess.Popen([sys.executable, "-c", code, fifo], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=os.environ.copy())
        try:
            out, err = p.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            p.kill()
            p.communicate()
            pytest.fail("read_sequences_csv blocked on a FIFO")
        assert "pipe.csv:0:0: " in out and "a FIFO (named pipe), not a regular file" in out, (out, err)
        with pytest.raises(maxent.ParseError, match="a directory"):
            maxent.read_sequences_csv(d)
    with pytest.raises(maxent.ParseError, match="a character device"):
        maxent.read_sequences_csv("/dev/zero")  # a stream would read zeros until memory runs out
