#!/usr/bin/env bash
# scripts/fuzz.sh — builds the libFuzzer target of the POMDP file reader with clang and
# fuzzes it for a given number of seconds.
#
#   scripts/fuzz.sh [seconds=60] [work dir=build-fuzz]
#
# Seed corpus: the classic models shipped in tests/data/classic and the
# corner-case files in tests/data/pomdp. New inputs go to <work dir>/corpus, crashing inputs
# to <work dir>/artifacts/ (turn each into a regression file under
# tests/data/pomdp/regressions/). Needs clang++ with libFuzzer (Debian: clang-14 ships it
# in libclang-common-14-dev). Extra arguments after the first two go to libFuzzer.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
seconds="${1:-60}"
work="${2:-$root/build-fuzz}"
shift $(( $# > 2 ? 2 : $# ))
classic="$root/tests/data/classic"
cxx="${CXX_FUZZ:-clang++}"

if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "fuzz.sh: $cxx not found (install clang)" >&2
    exit 1
fi
eigen_flags="$(pkg-config --cflags eigen3 2>/dev/null || echo -I/usr/include/eigen3)"

mkdir -p "$work/corpus" "$work/artifacts"
echo "fuzz.sh: building $work/fuzz_pomdp_file"
# shellcheck disable=SC2086
"$cxx" -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root/include" $eigen_flags \
    "$root/tests/fuzz/fuzz_pomdp_file.cpp" -o "$work/fuzz_pomdp_file"

seeds=()
[[ -d "$classic" ]] && seeds+=("$classic")
[[ -d "$root/tests/data/pomdp" ]] && seeds+=("$root/tests/data/pomdp")
[[ -d "$root/tests/data/pomdp/regressions" ]] && seeds+=("$root/tests/data/pomdp/regressions")

echo "fuzz.sh: fuzzing for $seconds s (corpus $work/corpus, seeds: ${seeds[*]:-none})"
exec "$work/fuzz_pomdp_file" "$work/corpus" "${seeds[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$root/tests/fuzz/pomdp.dict" -artifact_prefix="$work/artifacts/" "$@"
