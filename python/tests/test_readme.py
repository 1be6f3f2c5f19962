# python/tests/test_readme.py — the README's Python example (between its readme-example:python
# markers) runs as written, in a scratch folder, and makes what it says it makes.
import os
import re
import subprocess
import sys

README = os.path.join(os.environ.get("MAXENT_PY_SOURCE", os.path.join(os.path.dirname(__file__), "..", "..")),
                      "README.md")


def readme_block(name):
    text = open(README, encoding="utf-8").read()
    m = re.search(r"<!-- readme-example:%s:begin -->\n```python\n(.*?)```\n<!-- readme-example:%s:end -->" % (name, name),
                  text, re.S)
    assert m, f"no readme-example:{name} block in {README}"
    return m.group(1)


def test_readme_python_example(tmp_path):
    code = readme_block("python")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    for f in ("curve.png", "heatmap.png", "policy.npz"):
        assert (tmp_path / f).stat().st_size > 0, f
    m = re.search(r"trained (\S+), uniform (\S+)", p.stdout)
    assert m, p.stdout
    assert "180/180" in p.stderr  # the progress bar reached the end (3 seeds x 60 iterations)


def test_readme_python_range_example(tmp_path):
    code = readme_block("python-range")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert "knn knn" in p.stdout
    m = re.search(r"trained (\S+), uniform (\S+)", p.stdout)
    assert m and float(m.group(1)) > float(m.group(2)), p.stdout


def test_readme_python_actions_example(tmp_path):
    code = readme_block("python-actions")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    assert (tmp_path / "cart.npz").stat().st_size > 0
    m = re.search(r"trained (\S+), uniform (\S+)", p.stdout)
    assert m and float(m.group(1)) > float(m.group(2)) + 0.5, p.stdout


def test_readme_python_beliefs_example(tmp_path):
    code = readme_block("python-beliefs")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 2 and lines[0].startswith("uniform b_1: H(b_1) 2.77") and lines[1].startswith("learned b_1"), \
        p.stdout


def test_readme_python_learners_example(tmp_path):
    code = readme_block("python-learners")
    p = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stdout + p.stderr
    lines = p.stdout.splitlines()
    assert len(lines) == 4, p.stdout
    assert lines[0].startswith("cloned-hmm: 8 states"), p.stdout  # 2 clones for each of room_id's 4 rooms
    assert lines[2].startswith("truth: 9 states"), p.stdout
    assert lines[3].startswith("em-select tried L = [1, ") and lines[3].endswith("given []"), p.stdout
