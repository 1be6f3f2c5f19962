#!/usr/bin/env bash
# tests/scripts/slurm_study_test.sh — scripts/slurm-study.sh from a user's command line, with no
# cluster: every sbatch it may find is a stand-in that records its arguments and prints a job id.
#   dry-run   `slurm-study.sh --dry-run ...` exits 0, prints the two job scripts and the two
#             sbatch lines, calls no sbatch and writes nothing (also with no sbatch on PATH at
#             all); the printed lines, run as printed (with the array's job id for
#             ARRAY_JOB_ID), give sbatch exactly the arguments a real submission of the same
#             command gives it, and the printed job scripts are the files it writes.
#   refusals  refused with exit 2, the offending value named, nothing submitted: -s with a
#             line break in its value (read would keep the first line only); ARGS holding
#             --help, -h, --version or --list (the program prints and exits 0, so its own
#             pre-submit check passes and every task would "succeed" without a run).
# Usage: slurm_study_test.sh MODE PROJECT_ROOT PROGRAM (the maxent-paper binary). Exit 0 when
# all hold; else 1, naming the case.
set -u
mode="${1:?usage: slurm_study_test.sh dry-run|refusals PROJECT_ROOT PROGRAM}"
root="${2:?}"
program="${3:?}"
script="$root/scripts/slurm-study.sh"
t="$(mktemp -d)"; trap 'rm -rf "$t"' EXIT
cd "$t" || exit 1
failures=0
bad() { echo "FAIL [$case]: $*"; echo "  stdout:"; sed 's/^/    /' "$t/out"; echo "  stderr:"; sed 's/^/    /' "$t/err"; failures=$((failures + 1)); }

# A recording sbatch: each call's arguments, one per line, then a line "--end--"; prints the
# next job id (4711, 4712, ...).
mkdir -p "$t/bin"
cat > "$t/bin/sbatch" <<S
#!/usr/bin/env bash
printf '%s\n' "\$@" >> "$t/sbatch.log"; echo --end-- >> "$t/sbatch.log"
n=\$(grep -c -- '^--end--\$' "$t/sbatch.log"); echo \$((4710 + n))
S
chmod +x "$t/bin/sbatch"
run() { PATH="$t/bin:$PATH" bash "$script" "$@" > "$t/out" 2> "$t/err"; rc=$?; }
out="study dir"  # a space, as on many users' file systems
args=(fig2a --seeds 0-1 --iterations 2 --no-plot)
opts=(-n 2 -o "$out" -p "$program" -s "--time=00:05:00 --cpus-per-task=1" -S "--comment=two words")

if [[ "$mode" == dry-run ]]; then
    case="dry run"
    run --dry-run "${opts[@]}" -- "${args[@]}"
    [[ $rc -eq 0 ]] || bad "exit $rc, expected 0"
    [[ ! -e "$t/sbatch.log" ]] || bad "sbatch was called"
    [[ ! -e "$out" ]] || bad "'$out' was created"
    mapfile -t lines < <(grep '^    sbatch ' "$t/out")
    [[ ${#lines[@]} -eq 2 ]] || bad "${#lines[@]} sbatch lines printed, expected 2"
    [[ "${lines[0]:-}" == *"--array=1-2 "* && "${lines[1]:-}" == *"--dependency=afterok:ARRAY_JOB_ID --kill-on-invalid-dep=yes "* ]] ||
        bad "the sbatch lines lack the array or the merge's dependency"
    grep -q -- "--shard \"\${SLURM_ARRAY_TASK_ID}/2\"" "$t/out" || bad "the task script (with --shard) is not printed"
    grep -q -- " merge " "$t/out" || bad "the merge script is not printed"
    dry="$(cat "$t/out")"

    case="dry run, no sbatch on PATH"
    mkdir -p "$t/tools"  # what the script needs, and no Slurm command
    for tool in bash dirname basename tr sha256sum cut seq sed cat awk; do ln -s "$(command -v "$tool")" "$t/tools/$tool"; done
    PATH="$t/tools" bash "$script" --dry-run "${opts[@]}" -- "${args[@]}" > "$t/out" 2> "$t/err"; rc=$?
    [[ $rc -eq 0 ]] || bad "exit $rc, expected 0"
    [[ "$(cat "$t/out")" == "$dry" ]] || bad "printed something else than with sbatch on PATH"

    case="the printed lines are the submission"
    # As printed, from the printed directory, with the stand-in; then the real submission.
    for line in "${lines[@]}"; do
        PATH="$t/bin:$PATH" eval "${line//ARRAY_JOB_ID/4711}" > /dev/null
    done
    mv "$t/sbatch.log" "$t/printed.log"
    run "${opts[@]}" -- "${args[@]}"
    [[ $rc -eq 0 ]] || bad "the submission exited $rc"
    cmp -s "$t/printed.log" "$t/sbatch.log" || bad "sbatch's arguments differ: $(diff "$t/printed.log" "$t/sbatch.log" | tr '\n' ' ')"
    for f in task merge; do
        file=("$out"/.slurm-study-*/"$f.sh")
        printed="$(awk -v f="$f.sh:" 'index($0, f) && /^(A submission would write|and) / { on = 1; next } on && /^    / { sub(/^    /, ""); print; next } { on = 0 }' <<<"$dry")"
        [[ -f "${file[0]}" && "$printed" == "$(cat "${file[0]}")" ]] || bad "$f.sh differs from the printed script"
    done
elif [[ "$mode" == refusals ]]; then
    case="-s with a line break"
    run "${opts[@]}" -s $'--time=00:05:00\n--partition=short' -- "${args[@]}"
    [[ $rc -eq 2 ]] || bad "exit $rc, expected 2"
    grep -q -- "-s .*line break" "$t/err" || bad "the message does not name -s and the line break"
    [[ ! -e "$t/sbatch.log" ]] || bad "something was submitted"
    for help in --help -h --version --list; do
        case="ARGS with $help"
        run "${opts[@]}" -- "${args[@]}" "$help"
        [[ $rc -eq 2 ]] || bad "exit $rc, expected 2"
        grep -q -- "ARGS hold $help, which prints and runs no study: nothing submitted" "$t/err" || bad "no message naming $help"
        [[ ! -e "$t/sbatch.log" ]] || bad "something was submitted"
        rm -f "$t/sbatch.log"
    done
    case="this script's own --help"
    run --help
    [[ $rc -eq 0 ]] && grep -q -- '--dry-run' "$t/out" || bad "slurm-study.sh --help does not list --dry-run"
else
    echo "unknown mode '$mode'"; exit 2
fi
if [[ $failures -gt 0 ]]; then echo "slurm-study.sh $mode: $failures failure(s)"; exit 1; fi
echo "slurm-study.sh $mode: all hold"
