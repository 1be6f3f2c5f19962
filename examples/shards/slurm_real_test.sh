#!/usr/bin/env bash
# examples/shards/slurm_real_test.sh PAPER SCRIPT REPO OUT — scripts/slurm-study.sh on a real
# single-node Slurm (Debian's slurm-wlm and munge) that this test starts on localhost in
# OUT/cluster (slurm_cluster.sh) and stops, by the daemons' process ids, on exit (also on
# failure). Installs slurm-wlm and munge first where they are missing and this is root
# (scripts/install-deps.sh --if-missing). Exits 77 (CTest's SKIP_RETURN_CODE) saying why
# only where the daemons cannot run: not installed and not root, or they fail to start.
#   1. fig2a (4 seeds, K = 20) as 4 array tasks of 1 CPU each, into a folder whose name has a
#      space, non-ASCII letters and a '%', merged: byte for byte the one-process files, every
#      task ran 1 thread;
#   2. the same on tasks of all the node's CPUs (one at a time) with task 4 cancelled while
#      pending: the merge job is cancelled by Slurm (not left pending), the resubmitted
#      command runs only task 4 and merges, byte for byte the one-process files;
#   3. a study whose task 1 fails at run time: the merge job is cancelled, nothing merged.
set -euo pipefail
paper="$1" script="$2" repo="$3" out="$4"
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
# shellcheck source=slurm_cluster.sh
source "$here/slurm_cluster.sh"
skip() { echo "SKIPPED: the Slurm test cannot run here: $*"; exit 77; }
start_time=$SECONDS

if ! why="$(slurm_cluster_missing)"; then
    if [[ "$(id -u)" -eq 0 ]] && command -v apt-get >/dev/null 2>&1; then
        echo "$why: installing with scripts/install-deps.sh --if-missing"
        bash "$repo/scripts/install-deps.sh" --if-missing || skip "$why, and install-deps.sh failed"
        why="$(slurm_cluster_missing)" || skip "$why"
    else
        skip "$why"
    fi
fi

rm -rf "$out"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
cleanup() {
    local jobs
    [[ -n "${watchdog:-}" ]] && kill "$watchdog" 2>/dev/null
    if [[ -n "${SLURM_CONF:-}" ]]; then
        jobs="$(squeue -h -o %A 2>/dev/null | sort -u | tr '\n' ' ')"
        [[ -n "${jobs// /}" ]] && scancel $jobs 2>/dev/null
    fi
    slurm_cluster_stop
}
trap cleanup EXIT
slurm_cluster_start "$out/cluster" || skip "the Slurm daemons did not start (logs above)"
# Should this test be killed (a CTest timeout) before its trap runs, a watchdog in its own
# session stops the daemons once this shell is gone.
setsid bash -c "source '$here/slurm_cluster.sh'; SLURM_TEST_DIR='$out/cluster'
                while kill -0 $$ 2>/dev/null; do sleep 1; done; slurm_cluster_stop" >/dev/null 2>&1 &
watchdog=$!
cpus="$SLURM_TEST_CPUS"
echo "cluster up in $((SECONDS - start_time)) s: node maxentnode with $cpus CPUs, SLURM_CONF=$SLURM_CONF"

fail() {
    echo "FAILED: $*" >&2
    local f
    for f in "$out"/*/*/slurm-*.out "$out"/cluster/log/*.log; do
        [[ -f "$f" ]] && { echo "--- $f" >&2; tail -n 30 "$f" >&2; }
    done
    exit 1
}
# wait_done JOB...: until no task of the jobs is pending or running (60 s at most).
wait_done() {
    local i states
    for i in $(seq 1 600); do
        states="$(squeue -h -t all -j "$(IFS=,; echo "$*")" -o %T 2>/dev/null | sort -u | tr '\n' ' ')"
        [[ "$states" =~ PENDING|RUNNING|CONFIGURING|COMPLETING ]] || { echo "$states"; return 0; }
        sleep 0.1
    done
    fail "jobs $* still not done after 60 s: $states"
}
state_of() { squeue -h -t all -j "$1" -o %T; }
# submit DIR ARGS...: runs slurm-study.sh in DIR; prints its output; sets array_job, merge_job.
submit() {
    local dir="$1" text
    shift
    text="$(cd "$dir" && bash "$script" -p "$paper" "$@")" || fail "slurm-study.sh $*: exit $?"
    echo "$text"
    array_job="$(sed -n 's/.*job array \([0-9]*\) .*/\1/p' <<<"$text")"
    merge_job="$(sed -n 's/.*merge: job \([0-9]*\) .*/\1/p' <<<"$text")"
}
# same DIR REF: the merged fig2a in DIR is byte for byte REF (a one-process folder).
same() {
    local f
    for f in config.json runs.csv summary.csv uniform.csv curves.gp curves.png heatmap.csv heatmap.gp heatmap.png; do
        [[ -e "$2/$f" ]] || continue
        cmp -s "$1/$f" "$2/$f" || fail "$1/$f differs from the one-process $2/$f"
    done
}
study="josé study 100%"
args=(fig2a --seeds 0-3 --iterations 20)

# The references: one process each, as a task with 1 CPU and with all the node's CPUs.
for c in 1 "$cpus"; do
    mkdir -p "$out/ref$c"
    (cd "$out/ref$c" && SLURM_JOB_ID=1 SLURM_CPUS_PER_TASK=$c "$paper" "${args[@]}" --out "$study" --quiet >/dev/null) ||
        fail "the one-process run"
done

# 1. Four tasks of 1 CPU, merged.
mkdir -p "$out/one"
submit "$out/one" -n 4 -o "$study" -s "--cpus-per-task=1" -- "${args[@]}"
wait_done "$array_job" "$merge_job" >/dev/null
[[ "$(state_of "$merge_job")" == COMPLETED ]] || fail "merge job $merge_job: $(state_of "$merge_job")"
[[ "$(squeue -h -t all -j "$array_job" -o %j | sort -u)" == maxent-fig2a-shards ]] || fail "job name"
for i in 1 2 3 4; do
    grep -q ', 1 threads)' "$out/one/$study/slurm-${array_job}_$i.out" || fail "task $i did not run 1 thread"
done
grep -q 'fig2a: merged 4 shards: 16 runs' "$out/one/$study/slurm-merge-$merge_job.out" || fail "merge log"
same "$out/one/$study/fig2a" "$out/ref1/$study/fig2a"
echo "1. 4 tasks and the merge: identical to one process ($((SECONDS - start_time)) s)"

# 2. Tasks of all the node's CPUs, task 4 cancelled while pending, resubmitted.
mkdir -p "$out/two"
submit "$out/two" -n 4 -o "$study" -s "--cpus-per-task=$cpus" -- "${args[@]}"
scancel "${array_job}_4"
wait_done "$array_job" "$merge_job" >/dev/null
[[ ! -e "$out/two/$study/fig2a.shard-4-of-4" ]] || fail "task 4 ran although it was cancelled while pending"
[[ "$(state_of "$merge_job")" == CANCELLED ]] ||
    fail "merge job $merge_job: $(state_of "$merge_job") after a task was cancelled, expected CANCELLED"
[[ ! -e "$out/two/$study/fig2a" ]] || fail "merged although task 4 was cancelled"
first_array="$array_job"
text="$(submit "$out/two" -n 4 -o "$study" -s "--cpus-per-task=$cpus" -- "${args[@]}")"
echo "$text"
grep -q 'shards finished earlier: 1,2,3 (not resubmitted)' <<<"$text" || fail "resubmission: $text"
array_job="$(sed -n 's/.*job array \([0-9]*\) .*/\1/p' <<<"$text")"
merge_job="$(sed -n 's/.*merge: job \([0-9]*\) .*/\1/p' <<<"$text")"
wait_done "$array_job" "$merge_job" >/dev/null
[[ "$(state_of "$merge_job")" == COMPLETED ]] || fail "merge job $merge_job: $(state_of "$merge_job")"
[[ "$(squeue -h -t all -j "$array_job" -o %K)" == 4 ]] || fail "the resubmission ran tasks other than 4"
grep -q ", $cpus threads)" "$out/two/$study/slurm-${array_job}_4.out" || fail "task 4 did not run $cpus threads"
same "$out/two/$study/fig2a" "$out/ref$cpus/$study/fig2a"
echo "2. task 4 cancelled: merge job cancelled by Slurm; resubmitted: only task 4 ran (job $array_job after $first_array), merged identical ($((SECONDS - start_time)) s)"

# 3. A study whose task 1 fails at run time.
mkdir -p "$out/fails/failing"
echo "not a folder" > "$out/fails/failing/fig2a.shard-1-of-2"
submit "$out/fails" -n 2 -o failing -s "--cpus-per-task=1" -- "${args[@]}"
wait_done "$array_job" "$merge_job" >/dev/null
[[ "$(state_of "${array_job}_1")" == FAILED ]] || fail "task 1: $(state_of "${array_job}_1"), expected FAILED"
[[ "$(state_of "$merge_job")" == CANCELLED ]] || fail "merge job of a failed study: $(state_of "$merge_job")"
[[ ! -e "$out/fails/failing/fig2a" ]] || fail "a failed study was merged"
echo "3. a failing task: its merge job cancelled, nothing merged ($((SECONDS - start_time)) s)"
echo "Slurm test passed in $((SECONDS - start_time)) s (cluster stopped on exit)"
