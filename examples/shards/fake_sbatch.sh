#!/bin/bash
# examples/shards/fake_sbatch.sh — a stand-in `sbatch` for the Slurm test with no cluster
# (slurm_test.cmake): put first on PATH as `sbatch`, it runs each job at once on this machine
# instead of queueing it. Understands what scripts/slurm-study.sh uses: --parsable,
# --array=LIST (ranges LO-HI and commas; the tasks run concurrently, each with
# SLURM_ARRAY_TASK_ID set), --dependency=afterok:ID (the job runs only if job ID succeeded;
# else it is recorded as "cancelled" with --kill-on-invalid-dep=yes, "never" without, as
# Slurm leaves it pending forever), --output (with %A, %a, %j, %%), --cpus-per-task=C (sets
# SLURM_CPUS_PER_TASK), and the job script (run with its #! interpreter, as sbatch does).
# Other options are recorded and ignored. Array tasks listed in $FAKE_SLURM_CANCEL (commas)
# are not run and count as failed, as if cancelled. Prints the job id. State (job ids and
# outcomes, a log of submissions) is kept in $FAKE_SLURM_STATE.
set -u
state="${FAKE_SLURM_STATE:?FAKE_SLURM_STATE is not set}"
mkdir -p "$state"
array="" dep="" output="slurm-%j.out" name="" kill=no cpus="" others="" script=""
while [ $# -gt 0 ]; do
    case "$1" in
        --array=*) array="${1#--array=}" ;;
        --dependency=*) dep="${1#--dependency=}" ;;
        --output=*) output="${1#--output=}" ;;
        --job-name=*) name="${1#--job-name=}" ;;
        --kill-on-invalid-dep=yes) kill=yes ;;
        --cpus-per-task=*) cpus="${1#--cpus-per-task=}" ;;
        --parsable) ;;
        --wrap|--wrap=*) echo "fake sbatch: --wrap is not supported (runs under /bin/sh)" >&2; exit 1 ;;
        -*) others+=" [$1]" ;;
        *) script="$1"; shift; break ;;
    esac
    shift
done
[ -n "$script" ] && [ -r "$script" ] || { echo "fake sbatch: no job script" >&2; exit 1; }
id=$(cat "$state/next" 2>/dev/null || echo 1000)
echo $((id + 1)) > "$state/next"
echo "job $id name=$name array=$array dependency=$dep kill=$kill cpus=$cpus options=$others" >> "$state/submissions"
case "$dep" in
    afterok:*)
        if [ "$(cat "$state/${dep#afterok:}" 2>/dev/null)" != ok ]; then
            if [ "$kill" = yes ]; then echo cancelled > "$state/$id"; else echo never > "$state/$id"; fi
            echo "$id"
            exit 0
        fi ;;
esac
# A file name pattern: %A, %a, %j replaced, %% a literal %.
log_name() { printf '%s' "$output" | sed "s/%%/\x01/g; s/%A/$id/g; s/%a/$1/g; s/%j/$id/g; s/\x01/%/g"; }
interpreter="$(head -n 1 "$script")"
[[ "$interpreter" == '#!'* ]] || { echo "fake sbatch: $script has no #! line" >&2; exit 1; }
interpreter="${interpreter#\#!}"
export SLURM_JOB_ID="$id"
[ -n "$cpus" ] && export SLURM_CPUS_PER_TASK="$cpus"
status=ok
if [ -n "$array" ]; then
    tasks=()
    IFS=, read -r -a parts <<<"$array"
    for p in "${parts[@]}"; do
        if [[ "$p" == *-* ]]; then tasks+=($(seq "${p%-*}" "${p#*-}")); else tasks+=("$p"); fi
    done
    pids=()
    for i in "${tasks[@]}"; do
        if [[ ",${FAKE_SLURM_CANCEL:-}," == *",$i,"* ]]; then status=failed; continue; fi
        SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i $interpreter "$script" > "$(log_name "$i")" 2>&1 &
        pids+=($!)
    done
    for p in "${pids[@]}"; do
        wait "$p" || status=failed
    done
else
    $interpreter "$script" > "$(log_name "")" 2>&1 || status=failed
fi
echo "$status" > "$state/$id"
echo "$id"
