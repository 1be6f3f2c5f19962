# The example scripts run (matplotlib with the non-interactive Agg backend).
import os
import subprocess
import sys

EXAMPLES = os.path.join(os.path.dirname(__file__), "..", "examples")


def test_train_grid_plots(tmp_path):
    out = tmp_path / "curves.png"
    env = dict(os.environ, MPLBACKEND="Agg")
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, "train_grid.py"), "--iterations", "60", "--seeds",
                        "2", "--smooth", "10", "--out", str(out)], env=env, capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
    assert out.stat().st_size > 10000 and out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert "reg-mbe" in p.stdout


def test_generative_slowdown_script():
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, "generative_slowdown.py"), "--iterations", "2",
                        "--particles", "20"], capture_output=True, text=True)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "identical results: True" in p.stdout
