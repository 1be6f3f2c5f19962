#!/usr/bin/env bash
# scripts/slurm-study.sh — runs one study of maxent-paper or maxent-explore on a Slurm
# cluster: a job array with one task per shard, then a merge job that starts only when every
# task has succeeded. See README.md, "Running a study on a cluster".
#
#   scripts/slurm-study.sh [--dry-run] [-n SHARDS] [-o OUT] [-p PROGRAM] [-j NAME] [-s "OPTS"] [-S OPT]... -- ARGS...
#
#   --dry-run   check the arguments as below, then print the two job scripts and the exact
#               sbatch command lines instead of running them: submits nothing, writes
#               nothing, needs no sbatch on PATH
#   -h, --help  this text
#   -n SHARDS   array tasks, one shard each (default 4)
#   -o OUT      output directory on a file system every node sees (default out); the shards
#               go to OUT/<name>.shard-I-of-N/, the merged study to OUT/<name>/
#   -p PROGRAM  the maxent-paper or maxent-explore binary (default maxent-paper on PATH)
#   -j NAME     the study's name in the job names NAME-shards and NAME-merge (default
#               maxent-<first argument that is not an option>, e.g. maxent-fig2)
#   -s OPTS     more sbatch options for both jobs, split at spaces and tabs, e.g.
#               "--partition=short --time=02:00:00 --cpus-per-task=4" (one line: a value
#               with a line break is refused)
#   -S OPT      one more sbatch option, passed as one word (it may hold spaces); repeatable
#   ARGS        the program's arguments, as for one process (no --out, no --shard, and none
#               of --help, -h, --version, --list, which run no study); threads default to
#               the task's CPUs (--cpus-per-task)
#
# First the arguments are checked here (the program parses them with --version, so a typo
# costs nothing in the queue). Array task I runs, from a bash job script,
#     PROGRAM ARGS --out OUT --quiet --shard I/SHARDS
# and the merge job   PROGRAM merge OUT/*.shard-*-of-SHARDS --out OUT
# so the merged config.json records the command line of `PROGRAM ARGS --out OUT --quiet`,
# and the merged files are byte for byte those of that command run in one process. Slurm
# logs go to OUT/slurm-<job>_<task>.out and OUT/slurm-merge-<job>.out. Prints the job ids.
#
# Resubmitting the same command resubmits only the tasks that have not succeeded (a task
# that fails or is cancelled keeps its finished runs in OUT/.<name>.shard-I-of-N.runs/ and
# trains only the missing ones), cancels the earlier submission's merge job if it still
# waits, and submits a new merge job. A merge job whose tasks fail is cancelled by Slurm
# (--kill-on-invalid-dep=yes) instead of waiting forever. The job scripts and the record of
# finished tasks are kept in OUT/.slurm-study-<hash of the command>/. Use a fresh OUT per
# study: the merge takes every OUT/*.shard-*-of-SHARDS folder. Without Slurm, the same study
# is PROGRAM ARGS --out OUT in one process (the same results), or shards with GNU parallel
# and a merge (README.md, "A workstation with GNU parallel").
set -euo pipefail

# The header above, without its '#'s, up to the first line that is not a comment.
usage() { awk 'NR == 1 { next } !/^#/ { exit } { sub(/^# ?/, ""); print }' "$0"; }
fail() { echo "slurm-study.sh: $*" >&2; exit 2; }

shards=4
out=out
program=maxent-paper
name=""
sbatch_opts=()
dry_run=no
# The script's options, up to "--" or the first word that is not one (-n4 and -n 4 alike).
option() {
    case "$1" in
        -n) shards="$2" ;;
        -o) out="$2" ;;
        -p) program="$2" ;;
        -j) name="$2" ;;
        -s) # read would keep only the first line of a value with a line break
            [[ "$2" != *$'\n'* ]] || fail "-s $(printf '%q' "$2"): the value holds a line break; give the options on one line, or each with its own -S"
            read -r -a words <<<"$2"; sbatch_opts+=("${words[@]}") ;;
        -S) sbatch_opts+=("$2") ;;
    esac
}
while [[ $# -gt 0 ]]; do
    case "$1" in
        --) shift; break ;;
        --dry-run) dry_run=yes; shift ;;
        -h|--help) usage; exit 0 ;;
        -[nopjsS]) [[ $# -ge 2 ]] || fail "$1 needs a value (see --help)"
                   option "$1" "$2"; shift 2 ;;
        -[nopjsS]?*) option "${1:0:2}" "${1:2}"; shift ;;
        -*) echo "slurm-study.sh: unknown option '$1'; the program's arguments go after '--'" >&2
            usage >&2; exit 2 ;;
        *) break ;;
    esac
done
[[ "$shards" =~ ^[1-9][0-9]*$ ]] || fail "-n '$shards' is not a positive number of shards"
[[ $# -gt 0 ]] || fail "no program arguments (e.g. -- fig2a --seeds 0-15)"
[[ -n "$out" ]] || fail "-o: empty output directory"
for a in "$@"; do
    case "$a" in
        --out|--out=*|--shard|--shard=*) fail "ARGS must not hold $a (the script adds --out and --shard)" ;;
        # The program would print its help, version or list and exit 0: every task would
        # "succeed" without a run, and the merge would find no shard.
        --help|-h|--version|--list)
            fail "ARGS hold $a, which prints and runs no study: nothing submitted (for the program's own $a, run it without slurm-study.sh; for this script's help: slurm-study.sh --help)" ;;
    esac
done
# The compute nodes need the program by an absolute path.
if [[ "$program" == */* ]]; then
    program="$(cd "$(dirname "$program")" && pwd)/$(basename "$program")"
else
    program="$(command -v "$program")" || fail "'$program' not found on PATH"
fi
[[ -x "$program" ]] || fail "'$program' is not executable"

# A dry run of the arguments here: the program parses them as task 1 would, then exits.
if ! check="$("$program" "$@" --out "$out" --quiet --shard "1/${shards}" --version 2>&1)"; then
    echo "$check" >&2
    fail "the arguments do not parse (checked before submitting; nothing submitted)"
fi
if [[ "$dry_run" == no ]]; then
    command -v sbatch >/dev/null 2>&1 || fail "sbatch not found on PATH (is this a Slurm login node? --dry-run shows what would be submitted)"
fi

if [[ -z "$name" ]]; then
    for a in "$@"; do
        if [[ "$a" != -* ]]; then name="maxent-$(basename "$a")"; break; fi
    done
    name="${name:-maxent-study}"
fi
name="$(printf '%s' "$name" | tr -c 'A-Za-z0-9._+-' '_')"

# What Slurm reads as a file name pattern: '%' is written '%%'.
slurm_out="${out//%/%%}"

# The job scripts run under bash (never /bin/sh), so printf %q's quoting of any argument
# (spaces, tabs, newlines, non-ASCII) reads back as the same word.
q() { printf '%q' "$1"; }
task_cmd="$(q "$program")"
for a in "$@"; do task_cmd+=" $(q "$a")"; done
task_cmd+=" --out $(q "$out") --quiet"
key="$(printf '%s\n%s\n' "$task_cmd" "$shards" | sha256sum | cut -c1-12)"
state="${out}/.slurm-study-${key}"

task_script="#!/bin/bash
# slurm-study.sh: array task \${SLURM_ARRAY_TASK_ID} of ${shards}; records its success.
${task_cmd} --shard \"\${SLURM_ARRAY_TASK_ID}/${shards}\" || exit
: > $(q "$state")/task-\"\${SLURM_ARRAY_TASK_ID}\".done"
merge_script="#!/bin/bash
# slurm-study.sh: the merge of the ${shards} shards.
exec $(q "$program") merge $(q "$out")/*.shard-*-of-${shards} --out $(q "$out")"

# The tasks still to run: those without a record of success (and of whose shards something
# is missing: a task that succeeded wrote at least one OUT/*.shard-I-of-N folder).
todo=()
finished=()
for i in $(seq 1 "$shards"); do
    done_shard=no
    if [[ -e "$state/task-$i.done" ]]; then
        for f in "$out"/*.shard-"$i"-of-"$shards"; do
            [[ -e "$f/config.json" ]] && done_shard=yes
        done
    fi
    if [[ "$done_shard" == yes ]]; then finished+=("$i"); else todo+=("$i"); fi
done
list=""
if [[ ${#todo[@]} -gt 0 ]]; then
    list="$(IFS=,; echo "${todo[*]}")"
    [[ ${#finished[@]} -eq 0 ]] && list="1-${shards}"
fi
# The two submissions; the merge's dependency names the array job (its id once submitted).
array_cmd=(sbatch --parsable "${sbatch_opts[@]}" --job-name="${name}-shards" --array="$list"
           --output="${slurm_out}/slurm-%A_%a.out" "$state/task.sh")
merge_cmd() {  # merge_cmd [ARRAY_JOB]: sets merge_words
    local dependency=()
    [[ $# -gt 0 ]] && dependency=(--dependency="afterok:$1" --kill-on-invalid-dep=yes)
    merge_words=(sbatch --parsable "${sbatch_opts[@]}" --job-name="${name}-merge" "${dependency[@]}"
                 --output="${slurm_out}/slurm-merge-%j.out" "$state/merge.sh")
}

if [[ "$dry_run" == yes ]]; then
    line() { local w text=""; for w in "$@"; do text+="$(q "$w") "; done; echo "    ${text% }"; }
    indent() { sed 's/^/    /'; }
    echo "slurm-study.sh --dry-run: the arguments parse; nothing submitted, nothing written."
    echo "A submission would write $(q "$state/task.sh"):"
    indent <<<"$task_script"
    echo "and $(q "$state/merge.sh"):"
    indent <<<"$merge_script"
    [[ ${#finished[@]} -gt 0 ]] && echo "shards finished earlier: $(IFS=,; echo "${finished[*]}") (not resubmitted)"
    if [[ -s "$state/merge.job" ]]; then
        echo "(it would first cancel the earlier submission's merge job $(cat "$state/merge.job") if that is still pending)"
    fi
    echo "and run, from $(q "$PWD"):"
    if [[ -n "$list" ]]; then
        line "${array_cmd[@]}"
        merge_cmd ARRAY_JOB_ID
        line "${merge_words[@]}"
        echo "where ARRAY_JOB_ID is the job id the first sbatch prints (before any ';')."
    else
        merge_cmd
        line "${merge_words[@]}"
    fi
    exit 0
fi

mkdir -p -- "$out" "$state"
printf '%s\n' "$task_script" > "$state/task.sh"
printf '%s\n' "$merge_script" > "$state/merge.sh"

# An earlier submission's merge job that still waits would never run (its tasks failed or
# were cancelled) or would run a second merge: cancel it.
if [[ -s "$state/merge.job" ]] && command -v squeue >/dev/null 2>&1; then
    old="$(cat "$state/merge.job")"
    if [[ "$(squeue -h -j "$old" -o %T 2>/dev/null || true)" == PENDING ]]; then
        scancel "$old" && echo "cancelled the earlier submission's merge job ${old}, which was still pending"
    fi
fi

if [[ -n "$list" ]]; then
    array_job="$("${array_cmd[@]}")"
    array_job="${array_job%%;*}"
    merge_cmd "$array_job"
    if [[ ${#finished[@]} -gt 0 ]]; then
        echo "shards finished earlier: $(IFS=,; echo "${finished[*]}") (not resubmitted)"
    fi
    what="shards: job array ${array_job} (tasks ${list})"
else
    merge_cmd
    what="shards: all ${shards} finished earlier"
fi
merge_job="$("${merge_words[@]}")"
merge_job="${merge_job%%;*}"
echo "$merge_job" > "$state/merge.job"
echo "submitted ${what}; merge: job ${merge_job} (after all tasks succeed)"
echo "results: ${out}/<name>/ once job ${merge_job} has finished (squeue -j ${array_job:+${array_job},}${merge_job})"
