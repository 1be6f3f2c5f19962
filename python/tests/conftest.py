# python/tests/conftest.py — the module under test comes from the build tree (CTest sets
# PYTHONPATH=<build>/python); small worlds shared by the tests.
import math
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import maxent



class NoisyWalk:
    """A walk on 0..4 (state 0 first; an action that is 1 steps right, any other left, within the
    ends) seen through a noisy float reading of the position, N(s, 0.5^2) (observation_dim = 1).
    No actions declared: subclasses add num_actions, or action_dim and its box."""
    observation_dim = 1
    horizon = 8
    num_state_bins = 5

    def sample_initial_state(self, rng):
        return 0

    def sample_next_state(self, s, a, rng):
        return min(max(s + (1 if a == 1 else -1), 0), 4)

    def sample_observation(self, a, s, rng):
        return np.array([s + 0.5 * rng.normal()])

    def sample_initial_observation(self, s, rng):
        return self.sample_observation(0, s, rng)

    def observation_likelihood(self, a, o, s):
        return math.exp(-2.0 * (o[0] - s) ** 2)

    def state_bin(self, s):
        return s


@pytest.fixture
def room():
    """A 3 x 3 room seen exactly, horizon 4: small enough to enumerate."""
    return maxent.grid_world(3, 3, horizon=4)


@pytest.fixture
def noisy_room():
    """A 4 x 4 room with slip 0.1 and Gaussian observations of variance 10."""
    return maxent.grid_world(4, 4, slip=0.1, observation="gaussian", variance=10.0)


def ring_arrays(n=4):
    """A ring of n rooms: 'fwd' moves on with 0.9, 'stay' stays; a noisy warm/cold sensor."""
    P = np.zeros((2, n, n))
    for s in range(n):
        P[0, s, (s + 1) % n] = 0.9
        P[0, s, s] += 0.1
        P[1, s, s] = 1.0
    Z = np.array([[0.8, 0.2] if s < n // 2 else [0.2, 0.8] for s in range(n)])
    mu = np.zeros(n)
    mu[0] = 1.0
    return P, Z, mu


@pytest.fixture
def ring():
    P, Z, mu = ring_arrays()
    return maxent.Model(P, Z, mu, 4, states=["a", "b", "c", "d"], actions=["fwd", "stay"],
                        observation_labels=["warm", "cold"])


@pytest.fixture
def interrupt_when_ready():
    """interrupt_when_ready(args, wait, timeout=10) -> (returncode, stdout, stderr, seconds):
    starts `python args...`, waits for its first line "ready", then `wait` seconds (the child
    must still run), sends SIGINT and returns how the child ended and how long after the signal."""
    def run(args, wait, timeout=10):
        p = subprocess.Popen([sys.executable, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             env=os.environ.copy())
        try:
            assert p.stdout.readline().strip() == "ready"
            time.sleep(wait)
            assert p.poll() is None
            sent = time.perf_counter()
            p.send_signal(signal.SIGINT)
            out, err = p.communicate(timeout=timeout)
            return p.returncode, out, err, time.perf_counter() - sent
        finally:
            if p.poll() is None:
                p.kill()
                p.communicate()
    return run
