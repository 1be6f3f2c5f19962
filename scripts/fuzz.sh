#!/usr/bin/env bash
# scripts/fuzz.sh — builds a libFuzzer target with clang and fuzzes it for a given number of
# seconds.
#
#   scripts/fuzz.sh [pomdp|shards|sequences|writer] [seconds=60] [work dir=build-fuzz[-<target>]]
#
# pomdp (the default): the POMDP file reader; seed corpus: the classic models shipped in
# tests/data/classic and the corner-case files in tests/data/pomdp.
# shards: the readers of what the programs read back (config.json, runs.csv, visits.csv,
# learning.csv, run-store .run files, whole shard folders; tests/fuzz/shard_fuzz.hpp); seed
# corpus: tests/data/shards/seeds (files of real shards and kept runs, each after its
# reader's selector byte) and tests/data/shards/regressions.
# sequences: the sequence CSV reader (read, write back, read again; tests/fuzz/sequences_fuzz.hpp);
# seed corpus: tests/data/sequences/regressions.
# writer: the POMDP writer's round trip (bytes -> model -> text -> model, compared with ==;
# tests/fuzz/writer_fuzz.hpp); seed corpus: tests/data/pomdp_writer/regressions.
# New inputs go to <work dir>/corpus, crashing inputs to <work dir>/artifacts/ (turn each into
# a regression file under tests/data/{pomdp,shards,sequences,pomdp_writer}/regressions/,
# which the unit tests replay). Needs clang++ with libFuzzer (Debian: clang-14 ships it in
# libclang-common-14-dev). Extra arguments after the first ones go to libFuzzer.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
target=pomdp
if [[ "${1:-}" == pomdp || "${1:-}" == shards || "${1:-}" == sequences || "${1:-}" == writer ]]; then
    target="$1"
    shift
fi
seconds="${1:-60}"
default_work="$root/build-fuzz"
[[ "$target" != pomdp ]] && default_work="$root/build-fuzz-$target"
work="${2:-$default_work}"
shift $(( $# > 2 ? 2 : $# ))
classic="$root/tests/data/classic"
cxx="${CXX_FUZZ:-clang++}"

if ! command -v "$cxx" >/dev/null 2>&1; then
    echo "fuzz.sh: $cxx not found (install clang)" >&2
    exit 1
fi
eigen_flags="$(pkg-config --cflags eigen3 2>/dev/null || echo -I/usr/include/eigen3)"

mkdir -p "$work/corpus" "$work/artifacts"
seeds=()
if [[ "$target" == pomdp ]]; then
    binary="$work/fuzz_pomdp_file"
    source="$root/tests/fuzz/fuzz_pomdp_file.cpp"
    dict=(-dict="$root/tests/fuzz/pomdp.dict")
    [[ -d "$classic" ]] && seeds+=("$classic")
    [[ -d "$root/tests/data/pomdp" ]] && seeds+=("$root/tests/data/pomdp")
    [[ -d "$root/tests/data/pomdp/regressions" ]] && seeds+=("$root/tests/data/pomdp/regressions")
elif [[ "$target" == sequences ]]; then
    binary="$work/fuzz_sequences_csv"
    source="$root/tests/fuzz/fuzz_sequences_csv.cpp"
    dict=(-dict="$root/tests/fuzz/sequences.dict")
    seeds+=("$root/tests/data/sequences/regressions")
elif [[ "$target" == writer ]]; then
    binary="$work/fuzz_pomdp_writer"
    source="$root/tests/fuzz/fuzz_pomdp_writer.cpp"
    dict=()
    seeds+=("$root/tests/data/pomdp_writer/regressions")
else
    binary="$work/fuzz_shard_files"
    source="$root/tests/fuzz/fuzz_shard_files.cpp"
    dict=(-dict="$root/tests/fuzz/shards.dict")
    [[ -d "$root/tests/data/shards/seeds" ]] && seeds+=("$root/tests/data/shards/seeds")
    [[ -d "$root/tests/data/shards/regressions" ]] && seeds+=("$root/tests/data/shards/regressions")
fi
echo "fuzz.sh: building $binary"
# shellcheck disable=SC2086
"$cxx" -std=c++20 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
    -I"$root/include" $eigen_flags "$source" -o "$binary"

echo "fuzz.sh: fuzzing $target for $seconds s (corpus $work/corpus, seeds: ${seeds[*]:-none})"
exec "$binary" "$work/corpus" "${seeds[@]}" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    ${dict[@]+"${dict[@]}"} -artifact_prefix="$work/artifacts/" "$@"
