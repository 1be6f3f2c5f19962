"""Builds the compiled module maxent._core with CMake for `pip install --no-build-isolation .`
(the metadata is in pyproject.toml).

Environment:
  MAXENT_PIP_BUILD_DIR  an already configured CMake build tree with -DMAXENT_BUILD_PYTHON=ON:
                        its module is brought up to date and packaged (no second build)
  CMAKE_ARGS            extra arguments for the CMake configure step (e.g. -DCMAKE_CXX_COMPILER=clang++)
  MAXENT_PIP_JOBS       parallel compile jobs (default: the number of CPUs)
The build tree otherwise is build/pip/cmake (ccache and Ninja are used when installed).
"""
import glob
import os
import shlex
import shutil
import subprocess
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

ROOT = os.path.dirname(os.path.abspath(__file__))


class CMakeBuild(build_ext):
    def build_extension(self, ext):
        build = os.environ.get("MAXENT_PIP_BUILD_DIR")
        if not build:
            build = os.path.join(ROOT, "build", "pip", "cmake")
            args = ["cmake", "-S", ROOT, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DMAXENT_BUILD_PYTHON=ON",
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
