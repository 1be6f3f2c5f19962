#!/usr/bin/env bash
# scripts/slurm-study.sh — runs one study of maxent-paper or maxent-explore on a Slurm
# cluster: a job array with one task per shard, then a merge job that starts only when every
# task has succeeded (--dependency=afterok). See README.md, "Running a study on a cluster".
#
#   scripts/slurm-study.sh [-n SHARDS] [-o OUT] [-p PROGRAM] [-s "SBATCH OPTIONS"] -- ARGS...
#
#   -n SHARDS   array tasks, one shard each (default 4)
#   -o OUT      output directory on a file system every node sees (default out); the shards
#               go to OUT/<name>.shard-I-of-N/, the merged study to OUT/<name>/
#   -p PROGRAM  the maxent-paper or maxent-explore binary (default maxent-paper on PATH)
#   -s OPTS     more sbatch options for both jobs, e.g. "--partition=short --time=02:00:00
#               --cpus-per-task=4" (then give ARGS --threads 4)
#   ARGS        the program's arguments, as for one process (no --out, no --shard)
#
# Array task I (1..SHARDS) runs   PROGRAM ARGS --out OUT --quiet --shard I/SHARDS
# and the merge job               PROGRAM merge OUT/*.shard-*-of-SHARDS --out OUT
# so the merged config.json records the command line of `PROGRAM ARGS --out OUT --quiet`,
# and the merged files are byte for byte those of that command run in one process. Slurm
# logs go to OUT/slurm-<job>_<task>.out and OUT/slurm-merge-<job>.out. Prints the two job ids.
#
# A task that fails or is cancelled keeps its finished runs (OUT/.<name>.shard-I-of-N.runs/):
# submit the same command again, and each task trains only its missing runs. Use a fresh OUT
# per study: the merge takes every OUT/*.shard-*-of-SHARDS folder.
set -euo pipefail

usage() { sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; }

shards=4
out=out
program=maxent-paper
sbatch_opts=""
while getopts "n:o:p:s:h" opt; do
    case "$opt" in
        n) shards="$OPTARG" ;;
        o) out="$OPTARG" ;;
        p) program="$OPTARG" ;;
        s) sbatch_opts="$OPTARG" ;;
        h) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
[[ "${1:-}" == "--" ]] && shift
if ! [[ "$shards" =~ ^[1-9][0-9]*$ ]]; then
    echo "slurm-study.sh: -n '$shards' is not a positive number of shards" >&2
    exit 2
fi
if [[ $# -eq 0 ]]; then
    echo "slurm-study.sh: no program arguments (e.g. -- fig2a --seeds 0-15)" >&2
    exit 2
fi
# The compute nodes need the program by an absolute path.
if [[ "$program" == */* ]]; then
    program="$(cd "$(dirname "$program")" && pwd)/$(basename "$program")"
else
    program="$(command -v "$program")" || { echo "slurm-study.sh: '$program' not found on PATH" >&2; exit 2; }
fi
[[ -x "$program" ]] || { echo "slurm-study.sh: '$program' is not executable" >&2; exit 2; }
mkdir -p "$out"

quoted_args=""
for a in "$@"; do quoted_args+=" $(printf '%q' "$a")"; done
qprog="$(printf '%q' "$program")"
qout="$(printf '%q' "$out")"

# shellcheck disable=SC2086  # sbatch_opts is a list of options
array_job="$(sbatch --parsable $sbatch_opts --job-name=maxent-shards --array="1-${shards}" \
    --output="${out}/slurm-%A_%a.out" \
    --wrap "exec ${qprog}${quoted_args} --out ${qout} --quiet --shard \"\${SLURM_ARRAY_TASK_ID}/${shards}\"")"
array_job="${array_job%%;*}"
# shellcheck disable=SC2086
merge_job="$(sbatch --parsable $sbatch_opts --job-name=maxent-merge --dependency="afterok:${array_job}" \
    --output="${out}/slurm-merge-%j.out" \
    --wrap "exec ${qprog} merge ${qout}/*.shard-*-of-${shards} --out ${qout}")"
merge_job="${merge_job%%;*}"
echo "submitted shards: job array ${array_job} (tasks 1-${shards}); merge: job ${merge_job} (after all tasks succeed)"
echo "results: ${out}/<name>/ once job ${merge_job} has finished (squeue -j ${array_job},${merge_job})"
