#!/usr/bin/env bash
# scripts/main.sh — the main job on a fresh machine: installs the dependencies if missing,
# builds the one program it runs, maxent-paper (Release, in build/; no tests, benchmarks or
# install rules configured), and runs the bundled grid-world experiment, which writes its
# CSV and PNG results. Extra arguments go to the experiment. The other programs build with
# `cmake --build build` (all) or `--target <name>`.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

bash scripts/install-deps.sh --if-missing

generator="Unix Makefiles"
if command -v ninja >/dev/null 2>&1; then
    generator="Ninja"
fi
if [[ -f build/CMakeCache.txt ]] && ! grep -qx "CMAKE_GENERATOR:INTERNAL=${generator}" build/CMakeCache.txt; then
    rm -rf build
fi
cmake -S . -B build -G "${generator}" -DCMAKE_BUILD_TYPE=Release \
    -DMAXENT_BUILD_EXAMPLES=ON -DMAXENT_BUILD_TESTS=OFF -DMAXENT_BUILD_BENCHMARKS=OFF \
    -DMAXENT_BUILD_PYTHON=OFF -DMAXENT_INSTALL=OFF
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target maxent-paper

# --- run step (one line; adjust the experiment and its arguments here) -----------------------
if [[ -x build/examples/maxent-paper ]]; then build/examples/maxent-paper "$@"; else echo "main: build/examples/maxent-paper is not built yet; nothing to run" >&2; fi
