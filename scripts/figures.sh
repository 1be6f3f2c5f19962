#!/usr/bin/env bash
# scripts/figures.sh — regenerates the reproduced figures shown in the README.
#
# Builds maxent-paper and maxent-proxy-gaps (Release, in build/, like scripts/main.sh), draws
# Figure 1 (Theorem 5.3's bounds, maxent-proxy-gaps: seconds), runs every experiment of
# the paper at its full settings (16 seeds 0..15, K = 12000, N = 10, alpha = 0.3, rho = 0.02,
# T = S, batch-mean baseline), one experiment at a time, and writes
#   docs/figures/<experiment>.png    the learning curves (copied from out-figures/<experiment>/)
#   docs/figures/<experiment>_heatmap.png  where the final policies go (heatmap.png, when drawn)
#   docs/figures/results.csv         per curve: the mean true-state entropy (or, for fig2f/fig2h,
#                                    the regulariser) at the last iteration, its 95% Student-t
#                                    bounds across seeds, the number of seeds, and the average of
#                                    the mean over the last 100 iterations
#   docs/figures/timings.csv         per experiment: wall time and CPU time (user + system) in
#                                    seconds, threads, the machine's core count, the commit
# The raw outputs (runs.csv, summary.csv, config.json) stay in out-figures/ (not committed).
#
# Usage: bash scripts/figures.sh [--collect-only] [EXPERIMENT...] [-- EXTRA maxent-paper OPTIONS]
#   --collect-only: do not run; copy the PNGs and end values of the runs already in out-figures/
#   no experiment: all of them (31 minutes of wall time on 2 idle cores on 2026-11-23, Figure 2
#   alone 3.5 minutes; up to twice that on a slower machine of the same kind)
#   e.g. bash scripts/figures.sh fig2a fig2c
#        bash scripts/figures.sh fig2a -- --seeds 0-3 --iterations 1000   (a quick look;
#        the PNGs and tables are then NOT the paper's settings: do not commit them)
# fig2f and fig2h plot runs of fig2e and fig2g: they are run together with them.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

experiments=()
extra=()
collect_only=0
while [[ $# -gt 0 ]]; do
    if [[ "$1" == "--collect-only" ]]; then
        collect_only=1
        shift
        continue
    fi
    if [[ "$1" == "--" ]]; then
        shift
        extra=("$@")
        break
    fi
    experiments+=("$1")
    shift
done
if [[ ${#experiments[@]} -eq 0 ]]; then
    experiments=(fig1 fig2a fig2b fig2c fig2d fig2e fig2g fig3a fig3b fig3c fig3d
                 fig4a fig4b fig4c fig4d fig4e fig4f fig5a fig5b)
fi

bash scripts/install-deps.sh --if-missing
generator="Unix Makefiles"
if command -v ninja >/dev/null 2>&1; then
    generator="Ninja"
fi
if [[ -f build/CMakeCache.txt ]] && ! grep -qx "CMAKE_GENERATOR:INTERNAL=${generator}" build/CMakeCache.txt; then
    rm -rf build
fi
cmake -S . -B build -G "${generator}" -DCMAKE_BUILD_TYPE=Release \
    -DMAXENT_BUILD_EXAMPLES=ON -DMAXENT_BUILD_TESTS=OFF -DMAXENT_BUILD_BENCHMARKS=OFF >/dev/null
cmake --build build -j "$(nproc 2>/dev/null || echo 2)" --target maxent-paper maxent-proxy-gaps
exe="build/examples/maxent-paper"

out="out-figures"
figs="docs/figures"
mkdir -p "${out}" "${figs}"
commit="$(git rev-parse --short HEAD 2>/dev/null || echo unknown)"
cores="$(nproc 2>/dev/null || echo '?')"
timings="${figs}/timings.csv"
results="${figs}/results.csv"
[[ -f "${timings}" ]] || echo "experiment,wall_s,cpu_s,threads,cores,commit" >"${timings}"
[[ -f "${results}" ]] || echo "experiment,curve,plotted,iteration,mean,ci_low,ci_high,n,mean_last100" >"${results}"

# upsert <file> <key prefix> <new lines...>: drops the lines of the file starting with the
# key prefix and appends the new ones (so re-running one experiment updates its rows).
upsert() {
    local file="$1" key="$2"
    shift 2
    local tmp="${file}.tmp"
    grep -v "^${key}," "${file}" >"${tmp}" || true
    printf '%s\n' "$@" >>"${tmp}"
    mv "${tmp}" "${file}"
}

# CPU seconds (user + system) used so far by this shell's finished children. bash's `times`
# must run in this shell itself (a $(...) subshell would report its own children), so it
# writes to a file that children_cpu_read parses.
cpu_file="$(mktemp)"
trap 'rm -f "${cpu_file}"' EXIT
children_cpu_read() {
    tail -n 1 "${cpu_file}" | awk '{
        t = 0
        for (i = 1; i <= 2; ++i) { split($i, p, "m"); sub("s", "", p[2]); t += p[1] * 60 + p[2] }
        printf "%.3f", t }'
}

for e in "${experiments[@]}"; do
    if [[ "${e}" == fig1 ]]; then
        # Figure 1 is analytic (Theorem 5.3's bounds) plus a check on rollouts: no training.
        echo "=== fig1"
        [[ ${collect_only} -eq 0 ]] && build/examples/maxent-proxy-gaps --out "${out}"
        cp "${out}/fig1/curves.png" "${figs}/fig1.png" 2>/dev/null ||
            echo "figures: no ${out}/fig1/curves.png (is gnuplot installed?)" >&2
        continue
    fi
    names=("${e}")
    case "${e}" in
        fig2e) names=(fig2e fig2f) ;;
        fig2g) names=(fig2g fig2h) ;;
        fig2f | fig2h) echo "figures: ${e} is drawn from the runs of $([[ ${e} == fig2f ]] && echo fig2e || echo fig2g); run that" >&2; continue ;;
    esac
    echo "=== ${names[*]}"
    if [[ ${collect_only} -eq 0 ]]; then
        times >"${cpu_file}"
        cpu_before="$(children_cpu_read)"
        start="${EPOCHREALTIME}"
        "${exe}" "${names[@]}" --out "${out}" ${extra[@]+"${extra[@]}"}
        wall="$(awk -v a="${start}" -v b="${EPOCHREALTIME}" 'BEGIN { printf "%.1f", b - a }')"
        times >"${cpu_file}"
        cpu="$(awk -v a="${cpu_before}" -v b="$(children_cpu_read)" 'BEGIN { printf "%.1f", b - a }')"
        threads="$(sed -n 's/.*"threads": *\([0-9]*\).*/\1/p' "${out}/${e}/config.json" | head -n 1)"
        upsert "${timings}" "${e}" "${e},${wall},${cpu},${threads:-?},${cores},${commit}"
        echo "    wall ${wall} s, CPU ${cpu} s"
    fi
    for n in "${names[@]}"; do
        cp "${out}/${n}/curves.png" "${figs}/${n}.png" 2>/dev/null ||
            echo "figures: no ${out}/${n}/curves.png (is gnuplot installed?)" >&2
        if [[ -f "${out}/${n}/heatmap.png" ]]; then cp "${out}/${n}/heatmap.png" "${figs}/${n}_heatmap.png"; fi
        # Per curve of summary.csv (objective,iteration,mean,ci_low,ci_high,n): the row of the last
        # iteration, and the average of the mean over the last 100 iterations (less noisy).
        plotted="true_entropy"
        [[ ${n} == fig2f || ${n} == fig2h ]] && plotted="belief_entropy_sum"
        mapfile -t rows < <(awk -F, -v e="${n}" -v p="${plotted}" '
            FNR == 1 { pass++; next }
            pass == 1 { if ($2 + 0 > kmax) kmax = $2 + 0; next }
            {
                if ($2 + 0 == kmax) last[$1] = $0
                if ($2 + 0 > kmax - 100) { sum[$1] += $3; cnt[$1]++ }
            }
            END {
                for (c in last) {
                    split(last[c], f, ",")
                    printf "%s,%s,%s,%s,%s,%s,%s,%s,%.6f\n", e, f[1], p, f[2], f[3], f[4], f[5], f[6], sum[c] / cnt[c]
                }
            }' "${out}/${n}/summary.csv" "${out}/${n}/summary.csv" | sort)
        upsert "${results}" "${n}" "${rows[@]}"
    done
done
echo "figures: PNGs in ${figs}/, end values in ${results}, times in ${timings}"
