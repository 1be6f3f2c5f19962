#!/usr/bin/env bash
# scripts/install-deps.sh — installs the build and test dependencies of maxent with apt-get
# (Debian/Ubuntu): compilers (GCC; Clang with its sanitizer runtimes, for the sanitizer run of scripts/test.sh), CMake, Ninja, Eigen 3.4, Catch2 v2, Google Benchmark, gnuplot, GNU parallel (the sharded-study test),
# Slurm and munge (slurm-wlm, munge: the Slurm test starts its own single-node cluster on
# localhost with its own configuration, whatever the packages' services do), and for the Python module (python/): pybind11, Python's
# headers, numpy, scipy (an independent check of the kNN estimator in the Python tests), pytest, matplotlib, and pip, setuptools, wheel and venv for `pip install --no-build-isolation .`.
# Runs apt-get directly as root, through sudo otherwise. Idempotent.
#
#   bash scripts/install-deps.sh              # apt-get update && apt-get install
#   bash scripts/install-deps.sh --if-missing # only the packages not installed yet; silent
#                                             # when none is missing
set -euo pipefail

packages=(build-essential g++ clang libclang-rt-dev cmake ninja-build libeigen3-dev catch2 libbenchmark-dev gnuplot-nox parallel
          slurm-wlm munge
          pybind11-dev python3-dev python3-numpy python3-scipy python3-pytest python3-matplotlib
          python3-pip python3-setuptools python3-wheel python3-venv)

if [[ "${1:-}" == "--if-missing" ]]; then
    if ! command -v dpkg-query >/dev/null 2>&1; then
        echo "install-deps: dpkg not found; not a Debian system, assuming the dependencies are installed" >&2
        exit 0
    fi
    # One dpkg-query for all packages (fast): the installed ones, then the rest are missing.
    # dpkg-query exits 1 when a package was never installed (on a fresh machine: most of
    # them) and still lists the others, so its exit status says nothing here: whatever it
    # does not list as installed is installed below.
    listing="$(dpkg-query -W -f='${Package} ${Status}\n' "${packages[@]}" 2>/dev/null)" || true
    installed=" $(awk '$NF == "installed" && $(NF-1) == "ok" { printf "%s ", $1 }' <<<"$listing") "
    missing=()
    for p in "${packages[@]}"; do
        [[ "$installed" == *" $p "* ]] || missing+=("$p")
    done
    if [[ ${#missing[@]} -eq 0 ]]; then
        exit 0
    fi
    echo "install-deps: missing ${missing[*]}"
    packages=("${missing[@]}")
elif [[ $# -gt 0 ]]; then
    echo "usage: $0 [--if-missing]" >&2
    exit 2
fi

sudo=()
if [[ "$(id -u)" -ne 0 ]]; then
    if ! command -v sudo >/dev/null 2>&1; then
        echo "install-deps: not root and sudo is not available; install as root: ${packages[*]}" >&2
        exit 1
    fi
    sudo=(sudo)
fi

apt=("${sudo[@]}" env DEBIAN_FRONTEND=noninteractive apt-get)
echo "install-deps: apt-get install ${packages[*]}"
"${apt[@]}" update -qq </dev/null
"${apt[@]}" install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 "${packages[@]}" </dev/null >/dev/null
echo "install-deps: done"
