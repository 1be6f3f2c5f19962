"""Builds the compiled module maxent._core with CMake for `pip install --no-build-isolation .`
(the metadata is in pyproject.toml).

The interpreter that runs pip must have setuptools, wheel (for setuptools < 70.1), numpy and the
Python headers, and CMake must find pybind11 (Debian: python3-setuptools, python3-wheel,
python3-numpy, python3-dev, pybind11-dev; scripts/install-deps.sh installs them for
/usr/bin/python3). Before anything is built, a missing one is named in one line, with an
interpreter on this machine that has them all (`python setup.py --maxent-check-requirements`
prints what this one lacks, comma-separated, nothing when complete).

Environment:
  MAXENT_PIP_BUILD_DIR  an already configured CMake build tree with -DMAXENT_BUILD_PYTHON=ON:
                        its module is brought up to date and packaged (no second build)
  CMAKE_ARGS            extra arguments for the CMake configure step (e.g. -DCMAKE_CXX_COMPILER=clang++)
  MAXENT_PIP_JOBS       parallel compile jobs (default: the number of CPUs)
The build tree otherwise is build/pip/cmake (ccache and Ninja are used when installed).
"""
import glob
import importlib.util
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig

ROOT = os.path.dirname(os.path.abspath(__file__))

# Where pybind11-dev (and CMake installs of pybind11) put pybind11Config.cmake.
PYBIND11_CMAKE_DIRS = ("/usr/lib/cmake/pybind11", "/usr/share/cmake/pybind11", "/usr/local/lib/cmake/pybind11",
                       "/usr/local/share/cmake/pybind11", os.path.join(sys.prefix, "share", "cmake", "pybind11"))


def missing_build_requirements(find_spec=importlib.util.find_spec, exists=os.path.exists, environ=os.environ):
    """What this interpreter lacks to build and use the package, as pip names them (a list)."""
    def has(module):
        try:
            return find_spec(module) is not None
        except (ImportError, ValueError):  # a submodule of a missing package
            return False
    missing = [m for m in ("setuptools",) if not has(m)]
    if not has("wheel") and not has("setuptools.command.bdist_wheel"):  # setuptools >= 70.1 has its own
        missing.append("wheel")
    if not has("numpy"):
        missing.append("numpy")
    if not environ.get("MAXENT_PIP_BUILD_DIR"):  # a fresh CMake build: pybind11 and the headers
        if not has("pybind11") and "pybind11_DIR" not in environ.get("CMAKE_ARGS", "") and \
                not any(exists(os.path.join(d, "pybind11Config.cmake")) for d in PYBIND11_CMAKE_DIRS):
            missing.append("pybind11")
        if not exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")):
            missing.append("the Python headers (python3-dev)")
    return missing


def requirements_message(missing, executable, complete):
    """The one line printed when `missing` is not empty; `complete`: an interpreter that has them all, or None."""
    line = f"maxent: cannot build with {executable}: it lacks {', '.join(missing)}; "
    if complete:
        return line + (f"{complete} has them: run `{complete} -m pip install --no-build-isolation .` "
                       f"(or pip of a venv made by `{complete} -m venv --system-site-packages`)")
    return line + ("no python3 on this machine has them all: scripts/install-deps.sh installs them for "
                   "/usr/bin/python3 (Debian's python3-wheel, python3-numpy, python3-dev, pybind11-dev)")


def interpreter_with_requirements():
    """/usr/bin/python3, then the other python3 on PATH, that this script finds complete; None if none is."""
    here = os.path.realpath(sys.executable)
    seen = set()
    for c in ["/usr/bin/python3"] + [os.path.join(d, "python3") for d in os.get_exec_path()]:
        if not os.access(c, os.X_OK) or os.path.realpath(c) in seen or os.path.realpath(c) == here:
            continue
        seen.add(os.path.realpath(c))
        try:
            p = subprocess.run([c, os.path.abspath(__file__), "--maxent-check-requirements"], capture_output=True,
                               text=True, timeout=60, cwd=ROOT)
        except (OSError, subprocess.SubprocessError):
            continue
        if p.returncode == 0 and not p.stdout.strip():
            return c
    return None


if sys.argv[1:] == ["--maxent-check-requirements"]:
    print(", ".join(missing_build_requirements()))
    sys.exit(0)
_missing = missing_build_requirements()
if _missing:
    print(requirements_message(_missing, sys.executable, interpreter_with_requirements()), file=sys.stderr)
    sys.exit(1)

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("MAXENT_PIP_BUILD_DIR")
        if not build:
            build = os.path.join(ROOT, "build", "pip", "cmake")
            # -O2, not CMake's -O3, for the runtime's trainers too (python/CMakeLists.txt: -O3 costs
            # about 12% more compile CPU for no measurable speed; the same bits).
            args = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release",
                    "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG", "-DMAXENT_BUILD_PYTHON=ON",
                    "-DMAXENT_BUILD_TESTS=OFF", "-DMAXENT_BUILD_EXAMPLES=OFF", "-DMAXENT_BUILD_BENCHMARKS=OFF",
                    f"-DPython_EXECUTABLE={sys.executable}"]
            if shutil.which("ninja"):
                args += ["-G", "Ninja"]
            if shutil.which("ccache"):
                args.append("-DCMAKE_CXX_COMPILER_LAUNCHER=ccache")
            args += shlex.split(os.environ.get("CMAKE_ARGS", ""))
            subprocess.check_call(args)
        jobs = os.environ.get("MAXENT_PIP_JOBS", str(os.cpu_count() or 1))
        subprocess.check_call(["cmake", "--build", build, "--target", "maxent_python", "--parallel", jobs])
        built = glob.glob(os.path.join(build, "python", "maxent", "_core*.so"))
        if len(built) != 1:
            raise RuntimeError(f"expected one module maxent/_core*.so under {build}/python, found {built}")
        target = self.get_ext_fullpath(ext.name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        shutil.copyfile(built[0], target)


os.makedirs(os.path.join(ROOT, "build", "pip"), exist_ok=True)
setup(ext_modules=[Extension("maxent._core", sources=[])], cmdclass={"build_ext": CMakeBuild},
      options={"build": {"build_base": os.path.join("build", "pip")}, "egg_info": {"egg_base": "build/pip"}})
