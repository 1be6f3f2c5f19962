# setup.py's check of the interpreter that runs `pip install --no-build-isolation .`: what it
# lacks (wheel, numpy, pybind11, the Python headers) is named in one line, with an interpreter
# that has them all, before anything is built (no more "invalid command 'bdist_wheel'").
import os
import subprocess
import sys

SOURCE = os.environ.get("MAXENT_PY_SOURCE", os.path.join(os.path.dirname(__file__), "..", ".."))
SETUP = os.path.join(SOURCE, "setup.py")


def run_setup(tmp_path, missing, path=None):
    """Runs setup.py as pip's backend would (bdist_wheel), with the modules `missing` made unimportable."""
    code = ("import runpy, sys\n"
            f"for m in {missing!r}: sys.modules[m] = None\n"
            f"sys.argv = [{SETUP!r}, 'bdist_wheel']\n"
            f"runpy.run_path({SETUP!r}, run_name='__main__')\n")
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env=env)


def test_this_interpreter_has_what_the_build_needs():
    p = subprocess.run([sys.executable, SETUP, "--maxent-check-requirements"], capture_output=True, text=True,
                       timeout=60)
    assert p.returncode == 0 and p.stdout.strip() == "", p.stdout + p.stderr


def test_missing_modules_are_named_with_an_interpreter_that_has_them(tmp_path):
    # A python3 on PATH that is this (complete) interpreter under another name.
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "python3"
    wrapper.write_text(f"#!/bin/sh\nexec {sys.executable} \"$@\"\n")
    wrapper.chmod(0o755)
    p = run_setup(tmp_path, ["numpy", "wheel", "setuptools.command.bdist_wheel"],
                  path=f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    assert p.returncode == 1, p.stdout + p.stderr
    lines = p.stderr.strip().splitlines()
    assert len(lines) == 1, p.stderr
    line = lines[0]
    assert line.startswith(f"maxent: cannot build with {sys.executable}: it lacks wheel, numpy; "), line
    other = "/usr/bin/python3" if os.path.realpath("/usr/bin/python3") != os.path.realpath(sys.executable) \
        else str(wrapper)
    assert f"{other} has them: run `{other} -m pip install --no-build-isolation .`" in line, line
    assert not (tmp_path / "build").exists()  # nothing was built


def test_no_interpreter_has_them(tmp_path):
    p = run_setup(tmp_path, ["numpy"], path=str(tmp_path))  # no other python3 to offer, but maybe /usr/bin/python3
    assert p.returncode == 1
    line = p.stderr.strip()
    assert "it lacks numpy;" in line and "\n" not in line
    assert ("has them: run" in line) or ("scripts/install-deps.sh installs them" in line), line
