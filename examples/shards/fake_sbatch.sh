#!/bin/sh
# examples/shards/fake_sbatch.sh — a stand-in `sbatch` for the Slurm test (slurm_test.cmake):
# put first on PATH as `sbatch`, it runs each job at once on this machine instead of queueing
# it. Understands what scripts/slurm-study.sh uses: --parsable, --array=LO-HI (the tasks run
# concurrently, each with SLURM_ARRAY_TASK_ID set), --dependency=afterok:ID (the job runs only
# if job ID succeeded, else it is recorded as never run, as Slurm leaves it pending forever),
# --output (with %A, %a, %j) and --wrap; other options are accepted and ignored. Prints the
# job id. State (job ids and their outcome, a log of submissions) is kept in $FAKE_SLURM_STATE.
set -u
state="${FAKE_SLURM_STATE:?FAKE_SLURM_STATE is not set}"
mkdir -p "$state"
array="" dep="" wrap="" output="slurm-%j.out"
while [ $# -gt 0 ]; do
    case "$1" in
        --array=*) array="${1#--array=}" ;;
        --dependency=*) dep="${1#--dependency=}" ;;
        --output=*) output="${1#--output=}" ;;
        --wrap) wrap="$2"; shift ;;
        --wrap=*) wrap="${1#--wrap=}" ;;
        *) ;;
    esac
    shift
done
id=$(cat "$state/next" 2>/dev/null || echo 1000)
echo $((id + 1)) > "$state/next"
echo "job $id array=$array dependency=$dep" >> "$state/submissions"
case "$dep" in
    afterok:*)
        if [ "$(cat "$state/${dep#afterok:}" 2>/dev/null)" != ok ]; then
            echo never > "$state/$id"
            echo "$id"
            exit 0
        fi ;;
esac
status=ok
if [ -n "$array" ]; then
    lo=${array%-*}
    hi=${array#*-}
    pids=""
    i=$lo
    while [ "$i" -le "$hi" ]; do
        log=$(printf '%s' "$output" | sed "s/%A/$id/g; s/%a/$i/g; s/%j/$id/g")
        SLURM_JOB_ID=$id SLURM_ARRAY_JOB_ID=$id SLURM_ARRAY_TASK_ID=$i sh -c "$wrap" > "$log" 2>&1 &
        pids="$pids $!"
        i=$((i + 1))
    done
    for p in $pids; do
        wait "$p" || status=failed
    done
else
    log=$(printf '%s' "$output" | sed "s/%j/$id/g")
    SLURM_JOB_ID=$id sh -c "$wrap" > "$log" 2>&1 || status=failed
fi
echo "$status" > "$state/$id"
echo "$id"
