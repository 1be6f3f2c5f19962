#!/usr/bin/env bash
# scripts/bench.sh — build and run the whole benchmark suite (bench/), write every
# benchmark's JSON and a Markdown summary (see docs/performance.md for what is measured).
#
#   scripts/bench.sh [--quick] [--build-dir DIR] [--out DIR] [--jobs N] [--threads N]
#                    [--repetitions N] [--skip NAME[,NAME...]] [--skip-build]
#
#   --quick       smoke run: fewer iterations/repetitions/seeds (MAXENT_BENCH_QUICK=1,
#                 one repetition, convergence with K = 1500 and 4 seeds); numbers are rough
#   --build-dir   Release build directory (default: build-bench)
#   --out         results directory (default: bench-results)
#   --jobs        parallel compile jobs (default: 2)
#   --threads     threads of the convergence study (default: 2)
#   --repetitions repetitions of the per-iteration benchmark, each a whole run of K = 12000
#                 iterations; the summary uses the median (default: 1)
#   --skip        benchmarks not to run, by name without the maxent_bench_ prefix, e.g.
#                 --skip reachable_beliefs,convergence (they are listed in the summary)
#   --skip-build  run what is already built
#   --summary-only  only rewrite <out>/summary.md from the results already in <out>
#
# Writes <out>/<name>.json for each Google Benchmark executable maxent_bench_<name>
# (--benchmark_out, JSON), <out>/convergence.json, <out>/timings.txt and <out>/summary.md.
# Beside maxent_bench_particles it runs its numpy peer (bench/particles_numpy.py, allocator
# tuned: <out>/particles_numpy.json) and the peer's faithfulness test against the built
# binary (<out>/particles_numpy_test.txt); --skip particles_numpy leaves both out, and both
# are skipped when /usr/bin/python3 has no numpy (or pytest, for the test).
# Needs cmake, a C++20 compiler, Google Benchmark (libbenchmark-dev), Eigen 3.4 and
# /usr/bin/python3 (standard library only) for the summary.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="$root/build-bench"
out="$root/bench-results"
jobs=2
threads=2
quick=0
skip_build=0
summary_only=0
repetitions=1
skip=","

while [[ $# -gt 0 ]]; do
  case "$1" in
    --quick) quick=1 ;;
    --build-dir) build="$2"; shift ;;
    --out) out="$2"; shift ;;
    --jobs) jobs="$2"; shift ;;
    --threads) threads="$2"; shift ;;
    --repetitions) repetitions="$2"; shift ;;
    --skip) skip=",$2,"; shift ;;
    --skip-build) skip_build=1 ;;
    --summary-only) summary_only=1 ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "bench.sh: unknown argument '$1' (try --help)" >&2; exit 2 ;;
  esac
  shift
done

python=/usr/bin/python3
[[ -x "$python" ]] || python="$(command -v python3)"

mkdir -p "$out"
start_all=$(date +%s)
timings="$out/timings.txt"
failed=()
skipped=()
total=0
if [[ $summary_only -eq 1 ]]; then
  total=$(sed -n 's/^total \([0-9]*\) s$/\1/p' "$timings" 2>/dev/null || true)
  total=${total:-0}
else
: > "$timings"

# Every Google Benchmark target declared in bench/CMakeLists.txt, plus the convergence study.
mapfile -t targets < <(sed -n 's/^[[:space:]]*maxent_add_benchmark([[:space:]]*\([A-Za-z0-9_]*\).*/\1/p' "$root/bench/CMakeLists.txt")

if [[ $skip_build -eq 0 ]]; then
  cmake -S "$root" -B "$build" -DCMAKE_BUILD_TYPE=Release -DMAXENT_BUILD_BENCHMARKS=ON \
        -DMAXENT_BUILD_TESTS=OFF -DMAXENT_BUILD_EXAMPLES=OFF -DMAXENT_INSTALL=OFF > "$out/cmake.log"
  t0=$(date +%s)
  for t in "${targets[@]}" maxent_bench_convergence; do
    echo "== building $t"
    if ! cmake --build "$build" -j "$jobs" --target "$t" >> "$out/build.log" 2>&1; then
      echo "bench.sh: WARNING: $t failed to build (see $out/build.log); skipped" >&2
      failed+=("$t")
    fi
  done
  echo "build $(( $(date +%s) - t0 )) s" >> "$timings"
fi

is_skipped() { [[ "$skip" == *",${1#maxent_bench_},"* ]]; }
is_failed() { local x; for x in "${failed[@]+"${failed[@]}"}"; do [[ "$x" == "$1" ]] && return 0; done; return 1; }

for t in "${targets[@]}"; do
  name="${t#maxent_bench_}"
  exe="$build/bench/$t"
  if is_skipped "$t"; then skipped+=("$name"); continue; fi
  if is_failed "$t" || [[ ! -x "$exe" ]]; then
    echo "bench.sh: WARNING: $exe not available; skipped" >&2
    continue
  fi
  extra=()
  if [[ "$name" == "iteration" && $quick -eq 0 && $repetitions -gt 1 ]]; then
    # Several whole runs of K = 12000 iterations each; the summary uses the median.
    extra=(--benchmark_repetitions="$repetitions" --benchmark_report_aggregates_only=true)
  fi
  echo "== running $t"
  t0=$(date +%s)
  if ! MAXENT_BENCH_QUICK=$quick "$exe" --benchmark_out="$out/$name.json" --benchmark_out_format=json \
       "${extra[@]+"${extra[@]}"}" > "$out/$name.txt" 2> "$out/$name.stderr"; then
    echo "bench.sh: WARNING: $t failed (see $out/$name.stderr)" >&2
    failed+=("$t")
  fi
  echo "$name $(( $(date +%s) - t0 )) s" >> "$timings"
done

# The numpy peer of the particle benchmark, and its faithfulness test against the C++ filter.
if is_skipped particles_numpy; then
  skipped+=(particles_numpy)
elif "$python" -c "import numpy" 2>/dev/null; then
  echo "== running bench/particles_numpy.py (the numpy peer of maxent_bench_particles)"
  t0=$(date +%s)
  seconds=2
  [[ $quick -eq 1 ]] && seconds=0.3
  if ! "$python" "$root/bench/particles_numpy.py" --seconds "$seconds" --json "$out/particles_numpy.json" \
       > "$out/particles_numpy.txt" 2>&1; then
    echo "bench.sh: WARNING: bench/particles_numpy.py failed (see $out/particles_numpy.txt)" >&2
    failed+=(particles_numpy)
  fi
  if [[ -x "$build/bench/maxent_bench_particles" ]] && "$python" -c "import pytest" 2>/dev/null; then
    if ! MAXENT_BENCH_PARTICLES="$build/bench/maxent_bench_particles" "$python" -m pytest -q -p no:cacheprovider \
         "$root/bench/test_particles_numpy.py" > "$out/particles_numpy_test.txt" 2>&1; then
      echo "bench.sh: WARNING: the numpy peer's faithfulness test failed (see $out/particles_numpy_test.txt)" >&2
      failed+=(particles_numpy_faithfulness)
    fi
  fi
  echo "particles_numpy $(( $(date +%s) - t0 )) s" >> "$timings"
else
  echo "bench.sh: WARNING: $python has no numpy; the numpy peer of the particle benchmark is skipped" >&2
fi

conv="$build/bench/maxent_bench_convergence"
if is_skipped convergence; then
  skipped+=(convergence)
elif ! is_failed maxent_bench_convergence && [[ -x "$conv" ]]; then
  echo "== running maxent_bench_convergence (the longest part)"
  t0=$(date +%s)
  qflag=()
  [[ $quick -eq 1 ]] && qflag=(--quick)
  "$conv" --out "$out/convergence.json" --threads "$threads" "${qflag[@]+"${qflag[@]}"}" > "$out/convergence.txt"
  echo "convergence $(( $(date +%s) - t0 )) s" >> "$timings"
fi

total=$(( $(date +%s) - start_all ))
echo "total $total s" >> "$timings"
fi  # summary_only

# The run's commit and date (kept in <out>/run-info.txt so that --summary-only reports them).
if [[ $summary_only -eq 1 && -f "$out/run-info.txt" ]]; then
  commit="$(sed -n 's/^commit //p' "$out/run-info.txt")"
  run_date="$(sed -n 's/^date //p' "$out/run-info.txt")"
  read -r -a skipped <<< "$(sed -n 's/^skipped //p' "$out/run-info.txt")"
  read -r -a failed <<< "$(sed -n 's/^failed //p' "$out/run-info.txt")"
else
  commit="$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)"
  if [[ -n "$(git -C "$root" status --porcelain 2>/dev/null | head -1)" ]]; then commit="$commit (with uncommitted changes)"; fi
  run_date="$(date -u +%Y-%m-%d)"
  printf 'commit %s\ndate %s\nskipped %s\nfailed %s\n' "$commit" "$run_date" \
         "${skipped[*]+"${skipped[*]}"}" "${failed[*]+"${failed[*]}"}" > "$out/run-info.txt"
fi

"$python" - "$out" "$commit" "$quick" "$total" "$repetitions" "${failed[*]+"${failed[*]}"}" "${skipped[*]+"${skipped[*]}"}" "$run_date" <<'PYTHON'
import json, math, os, sys, datetime

out, commit, quick, total = sys.argv[1], sys.argv[2], sys.argv[3] == "1", int(sys.argv[4])
repetitions, failed, skipped = int(sys.argv[5]), sys.argv[6].split(), sys.argv[7].split()
run_date = sys.argv[8]

def load(name):
    path = os.path.join(out, name + ".json")
    if not os.path.exists(path):
        return None
    try:
        with open(path) as f:
            return json.load(f)
    except ValueError:
        return None

def rows(doc, prefix):
    """The benchmarks whose name starts with prefix: the median aggregate when repetitions
    were run, the plain iteration otherwise; keyed by run_name."""
    if doc is None:
        return {}
    chosen = {}
    for b in doc.get("benchmarks", []):
        if not b.get("name", "").startswith(prefix):
            continue
        key = b.get("run_name", b["name"])
        if b.get("run_type") == "aggregate":
            if b.get("aggregate_name") == "median":
                chosen[key] = b
        elif key not in chosen:
            chosen[key] = b
    return chosen

def to_us(b, field="cpu_time"):
    scale = {"ns": 1e-3, "us": 1.0, "ms": 1e3, "s": 1e6}[b.get("time_unit", "ns")]
    return b[field] * scale

def fmt(x, digits=3):
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    if x == 0:
        return "0"
    if abs(x) >= 1000 or abs(x) < 1e-3:
        return "%.*g" % (digits, x)
    return "%.*g" % (digits, x)

def strip_iterations(name):
    return name.split("/iterations:")[0].split("/min_time:")[0]

lines = []
w = lines.append
today = run_date or datetime.date.today().isoformat()
w("# maxent benchmark summary")
w("")
w("Run of %s on commit %s%s, written by `scripts/bench.sh`; total wall time %d s." %
  (today, commit, " — QUICK MODE (rough numbers)" if quick else "", total))
ctx = None
for name in ("iteration", "size_sweep", "estimators", "allocations"):
    d = load(name)
    if d:
        ctx = d.get("context", {})
        break
if ctx:
    load_avg = ctx.get("load_avg", [])
    w("Machine: %s CPUs at %s MHz, load average at start %s; build: %s." % (
        ctx.get("num_cpus", "?"), ctx.get("mhz_per_cpu", "?"),
        ", ".join("%.2f" % x for x in load_avg) if load_avg else "?", ctx.get("maxent_build", "unknown")))
w("Times are CPU times of the benchmark thread (one core); wall times are higher when the machine is shared.")
if failed:
    w("")
    w("**Failed** (no or partial results): %s." % ", ".join(failed))
if skipped:
    w("")
    w("Skipped on request (`--skip`): %s." % ", ".join(skipped))
w("")

# ---------------------------------------------------------------- iteration
it = rows(load("iteration"), "iteration/")
if it:
    w("## One training iteration (target: at most 100 ns per environment step, i.e. 25 µs per iteration on the 5 x 5 room)")
    w("")
    w("Trainer::iterate() of the real Trainer: N = 10 rollouts, feedbacks, batch-mean estimator, constant step α = 0.3; "
      "BA policy, exact Bayes filter, deterministic transitions, paper state counting; mean over one whole run of "
      "K = %s iterations. Steps per iteration = N · T." % (
        "2000" if quick else ("12000" if repetitions <= 1 else "12000, median of %d repetitions" % repetitions)))
    w("")
    w("| problem | feedback | track_belief_entropy | µs / iteration (CPU) | ns / step | target µs / iteration | within target | wall µs / iteration | batch-mean H at the end |")
    w("|---|---|---|---|---|---|---|---|---|")
    for key in sorted(it, key=lambda k: (k.split("/")[1], ["mse", "moe", "mbe", "reg-mbe"].index(k.split("/")[2]), k)):
        b = it[key]
        parts = strip_iterations(key).split("/")
        steps = b.get("steps_per_iteration", 0)
        us = to_us(b)
        ns_step = 1000 * us / steps if steps else float("nan")
        target = steps * 0.1
        w("| %s (%s) | %s | %s | %.1f | %.0f | %.0f | %s | %.1f | %.3f |" % (
            parts[1], b.get("label", "").split(" N=")[0], parts[2], parts[3].split(":")[1], us, ns_step, target,
            "yes" if us <= target else "no (%.1fx)" % (us / target), to_us(b, "real_time"), b.get("true_entropy_end", float("nan"))))
    w("")
    w("Reference: the authors' Python code takes about 13 ms of CPU per iteration on the 5 x 5 room "
      "(about 50 µs per step).")
    w("")

# ---------------------------------------------------------------- allocations
al = rows(load("allocations"), "allocations/")
if al:
    w("## Heap allocations per iteration after 2 warm-up iterations (target: 0)")
    w("")
    w("| benchmark | operator new / iteration | Eigen malloc / iteration | counted iterations |")
    w("|---|---|---|---|")
    for key in al:
        b = al[key]
        w("| %s | %s | %s | %d |" % (strip_iterations(key).replace("allocations/", ""), fmt(b.get("new_per_iteration")),
                                     fmt(b.get("eigen_malloc_per_iteration")), int(b.get("counted_iterations", 0))))
    w("")
    w("`self_check` allocates one std::vector and one Eigen vector per iteration: it must show 1 and 1.")
    w("")

# ---------------------------------------------------------------- size sweep
sw = rows(load("size_sweep"), "sweep/")
if sw:
    w("## Cost against problem size (targets: time per step no worse than linear in S; S = 10^6 built in "
      "under 10 s, one iteration under 50 ms, peak under 2 GiB, time per step flat from S = 6400 on: slope under 0.1)")
    w("")
    w("Single rooms, deterministic, Gaussian observations k = 10 with the sparse threshold 1e-12 (at most 21 entries "
      "per row), T = 1000 for every side, BA policy, exact filter (with its belief support), MSE. `iteration`: "
      "Trainer::iterate() with N = 10 (estimator and step included), per step = / (N · T); `rollout`: one "
      "Sampler::run, per step = / T; `construct`: make_grid_world of the room. Sides from 160 on run a fixed number "
      "of iterations (in the benchmark's name).")
    w("")
    fams = {}
    for key, b in sw.items():
        fam = key.split("/")[1]
        side = int(strip_iterations(key).split("side:")[1].split("/")[0])
        fams.setdefault(fam, {})[side] = b
    ok = lambda b: b is not None and not b.get("error_occurred")
    per_step = lambda b: to_us(b) / b["steps_per_iteration"] if ok(b) else float("nan")
    sides = sorted(set(s for f in fams.values() for s in f))
    w("| side | S | construct: ms (CPU) | construct: peak RSS (MB) | iteration: ms (CPU) | iteration: µs / step | "
      "rollout: µs / step | iteration: peak RSS (MB) | RSS at start (MB) | model (MB) | score path |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")
    notes = []
    for s in sides:
        bc = fams.get("construct", {}).get(s)
        bi = fams.get("iteration", {}).get(s)
        br = fams.get("rollout", {}).get(s)
        for fam, b in (("construct", bc), ("iteration", bi), ("rollout", br)):
            if b is not None and b.get("error_occurred"):
                notes.append("side %d, %s: skipped — %s" % (s, fam, b.get("error_message", "")))
        any_b = next((b for b in (bi, br, bc) if ok(b)), None)
        if any_b is None:
            w("| %d | — | skipped | | | | | | | | |" % s)
            continue
        w("| %d | %d | %s | %s | %s | %s | %s | %s | %s | %s | %s |" % (
            s, int(any_b["S"]), fmt(to_us(bc) / 1e3) if ok(bc) else "—", fmt(bc.get("peak_rss_MB")) if ok(bc) else "—",
            fmt(to_us(bi) / 1e3) if ok(bi) else "—", fmt(per_step(bi)), fmt(per_step(br)),
            fmt(bi.get("peak_rss_MB")) if ok(bi) else "—", fmt(bi.get("rss_start_MB")) if ok(bi) else "—",
            fmt(any_b.get("model_MB")),
            ("dense" if any_b.get("dense_scores", 1) else "row-sparse") if "dense_scores" in any_b else "—"))
    w("")
    for n in notes:
        w("- %s" % n)
    if notes:
        w("")
    w("Peak RSS: VmHWM of the benchmark of that size (the whole process: the peak is reset when the benchmark "
      "starts, and the RSS at its start includes what earlier benchmarks left to the allocator). Model: every sparse "
      "matrix, transpose and running sum the model stores (label maps not included).")
    w("")

    def fit(pairs):
        xs = [math.log(x) for x, _ in pairs]
        ys = [math.log(y) for _, y in pairs]
        n = len(xs)
        mx, my = sum(xs) / n, sum(ys) / n
        sxx = sum((x - mx) ** 2 for x in xs)
        sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys))
        slope = sxy / sxx
        ss_tot = sum((y - my) ** 2 for y in ys)
        ss_res = sum((y - (my + slope * (x - mx))) ** 2 for x, y in zip(xs, ys))
        return slope, (1 - ss_res / ss_tot if ss_tot > 0 else 1.0)

    for fam, by_side in sorted(fams.items()):
        good = sorted((b for b in by_side.values() if ok(b)), key=lambda b: b["S"])
        if fam == "construct":
            pairs = [(b["S"], to_us(b)) for b in good]
            what = "construction time"
        else:
            pairs = [(b["S"], per_step(b)) for b in good]
            what = "time per step"
        for label, sel in (("all sides", pairs), ("S >= 6400", [p for p in pairs if p[0] >= 6400])):
            if len(sel) >= 2:
                slope, r2 = fit(sel)
                w("- `%s`, %s: least-squares fit log(%s) = a + b log(S) over S = %s: **slope b = %.3f** (R² = %.3f)." % (
                    fam, label, what, ", ".join(str(int(x)) for x, _ in sel), slope, r2))
    big = lambda fam: next((b for s, b in sorted(fams.get(fam, {}).items(), reverse=True) if ok(b)), None)
    bc, bi = big("construct"), big("iteration")
    if bc is not None:
        w("- construction at S = %d: %.2f s of CPU (%s the 10 s target), peak RSS %s MB." % (
            int(bc["S"]), to_us(bc) / 1e6, "within" if to_us(bc) < 10e6 else "ABOVE", fmt(bc.get("peak_rss_MB"))))
    if bi is not None:
        w("- one iteration at S = %d: %.1f ms of CPU (%s the 50 ms target), %.2f µs per step, peak RSS %s MB (%s the "
          "2048 MB target)." % (int(bi["S"]), to_us(bi) / 1e3, "within" if to_us(bi) < 50e3 else "ABOVE", per_step(bi),
                                fmt(bi.get("peak_rss_MB")), "within" if bi.get("peak_rss_MB", 1e9) < 2048 else "ABOVE"))
    w("")

# ---------------------------------------------------------------- estimators
es = rows(load("estimators"), "estimator/")
ec = {strip_iterations(k): v for k, v in rows(load("estimators"), "estimator_call/").items()}
if es:
    w("## Gradient estimators against the exact gradient")
    w("")
    w("Each row: R estimates (one per benchmark iteration), each from N fresh trajectories (common random numbers "
      "across estimators); bias = ‖mean ĝ − ∇J‖ with its noise level bias_se = sqrt(tr Cov / R); "
      "bias vs c∇J uses c = (N−1)/N for the batch-mean baseline (its known shrinkage; 0 for N = 1, where it returns 0) and "
      "c = 1 otherwise; variance = trace of the covariance; cosine = mean over estimates of cos(ĝ, ∇J) (0 for ĝ = 0).")
    w("")
    probs = {}
    for key, b in es.items():
        _, prob, est, n = strip_iterations(key).split("/")
        probs.setdefault(prob, []).append((est, int(n.split(":")[1]), b))
    order = ["reinforce", "batch-mean", "leave-one-out", "optimal"]
    for prob, entries in probs.items():
        b0 = entries[0][2]
        w("### %s — %s, ‖∇J‖ = %s, R = %d" % (prob, b0.get("label", ""), fmt(b0["grad_norm"], 4), int(b0["R"])))
        w("")
        w("| estimator | N | bias ‖E ĝ − ∇J‖ | bias_se | relative bias | ‖E ĝ − c∇J‖ | variance (trace) | cosine | cos(mean ĝ, ∇J) | zero estimates | µs / estimate (incl. sampling) | ns / estimator call |")
        w("|---|---|---|---|---|---|---|---|---|---|---|---|")
        for est, n, b in sorted(entries, key=lambda e: (order.index(e[0]) if e[0] in order else 9, e[1])):
            call = ec.get("estimator_call/%s/%s/N:%d" % (prob, est, n))
            w("| %s | %d | %s | %s | %s | %s | %s | %.3f | %.4f | %s | %s | %s |" % (
                est, n, fmt(b["bias_norm"]), fmt(b["bias_se"]), fmt(b["rel_bias"]), fmt(b["bias_vs_expected"]),
                fmt(b["variance_trace"]), b["cosine"], b["cosine_of_mean"], fmt(b["zero_fraction"]),
                fmt(to_us(b)), fmt(1000 * to_us(call)) if call else "—"))
        w("")

# ---------------------------------------------------------------- convergence
conv = load("convergence")
if conv:
    K = conv["K"]
    w("## Iterations until the batch-mean true-state entropy first reaches 0.95 log 25 = %.4f" % conv["threshold"])
    w("")
    w("5 x 5 room, deterministic, T = 25, BA policy, exact filter, MSE feedback, N = 10, seeds 0..%d, at most K = %d "
      "iterations; Adam with α = %g (β1 = 0.9, β2 = 0.999, ε = 1e-8). Quartiles over all %d seeds, a run that never "
      "reaches the threshold counting as +∞ (\"> K\" when a quantile falls on such runs). The paper's choice is in bold. "
      "For runs that never reach it: median over those runs of the best batch mean and of the mean of the last 500 "
      "iterations. Wall time %.0f s on %d threads (%.0f s CPU, %d iterations, %.0f µs CPU per iteration)." % (
          conv["seeds"] - 1, K, conv["adam"]["alpha"], conv["seeds"], conv["wall_seconds"], conv["threads"],
          conv["cpu_seconds"], conv["iterations_total"], 1e6 * conv["cpu_seconds"] / max(1, conv["iterations_total"])))
    w("")
    w("| k | estimator | step | reached | min | Q1 | median | Q3 | max | not reached: best | not reached: end |")
    w("|---|---|---|---|---|---|---|---|---|---|---|")

    def quantile(sorted_vals, q):
        pos = (len(sorted_vals) - 1) * q
        lo, hi = int(math.floor(pos)), int(math.ceil(pos))
        a, b = sorted_vals[lo], sorted_vals[hi]
        if math.isinf(a) or math.isinf(b):
            return None
        return a + (b - a) * (pos - lo)

    def median(vals):
        vals = sorted(vals)
        if not vals:
            return None
        return quantile(vals, 0.5)

    for c in conv["configs"]:
        hits = sorted(r["hit"] if r["hit"] is not None else math.inf for r in c["runs"])
        reached = sum(1 for h in hits if not math.isinf(h))
        qs = []
        for q in (0.0, 0.25, 0.5, 0.75, 1.0):
            v = quantile(hits, q)
            qs.append("> %d" % K if v is None else "%.0f" % v)
        best = median([r["best"] for r in c["runs"] if r["hit"] is None])
        end = median([r["end"] for r in c["runs"] if r["hit"] is None and r["end"] is not None])
        step = "constant α = %g" % c["alpha"] if c["step"] == "constant" else "Adam α = %g" % c["alpha"]
        paper = c["estimator"] == "batch-mean" and c["step"] == "constant"
        cell = (lambda s: "**%s**" % s) if paper else (lambda s: s)
        w("| %s | %s | %s | %d/%d | %s | %s | %s | %s | %s | %s | %s |" % (
            fmt(c["k"]), cell(c["estimator"]), cell(step), reached, len(hits), *qs,
            "%.3f" % best if best is not None else "—", "%.3f" % end if end is not None else "—"))
    w("")

# ---------------------------------------------------------------- particles against numpy
pt = rows(load("particles"), "BM_ParticleStep/")
rg = rows(load("range_particles"), "BM_RangeParticleStep/")
peer = load("particles_numpy")
if pt or peer:
    w("## Particle filter against its numpy peer (target: at most 20 ns per particle-step, at least 3x numpy at 10^4 and 10^5)")
    w("")
    w("CPU time per particle-step on one core: one update (predict, weigh, normalise, n_eff, systematic resampling "
      "below n_eff = n/2, 8 x 8 histogram) plus bilinear 6 x 6 features, the true world simulated, episodes of "
      "T = 100. maxent: `BM_ParticleStep` (cell sensor) and `BM_RangeParticleStep` (4 range beams); numpy: "
      "`bench/particles_numpy.py`, the same cell-sensor world vectorised (allocator %s)%s." % (
          "tuned" if peer and peer.get("allocator_tuned") else "as is",
          "" if not os.path.exists(os.path.join(out, "particles_numpy_test.txt")) else
          "; its faithfulness test: %s" % ((open(os.path.join(out, "particles_numpy_test.txt")).read().strip().splitlines()
                                            or ["no output"])[-1])))
    w("")
    w("| particles | maxent, cell sensor (ns) | numpy, cell sensor (ns) | maxent ahead | maxent, range sensor (ns) |")
    w("|---|---|---|---|---|")
    by_n = {int(r["particles"]): r["ns_per_particle_step"] for r in (peer or {}).get("results", [])}
    cpp = {int(strip_iterations(k).split("/")[1]): b.get("per_particle_step", float("nan")) * 1e9 for k, b in pt.items()
           if strip_iterations(k).split("/")[1].isdigit()}
    rng = {int(strip_iterations(k).split("/")[1]): b.get("per_particle_step", float("nan")) * 1e9 for k, b in rg.items()
           if strip_iterations(k).split("/")[1].isdigit()}
    for n in sorted(set(cpp) | set(by_n) | set(rng)):
        c, p_, r_ = cpp.get(n), by_n.get(n), rng.get(n)
        w("| %d | %s | %s | %s | %s |" % (n, fmt(c), fmt(p_), "%.1fx" % (p_ / c) if c and p_ else "—", fmt(r_)))
    w("")

# ---------------------------------------------------------------- other benchmarks
others = [n[:-5] for n in sorted(os.listdir(out)) if n.endswith(".json")
          and n[:-5] not in ("iteration", "allocations", "size_sweep", "estimators", "convergence")]
for name in others:
    d = load(name)
    if not d or "benchmarks" not in d:
        continue
    w("## %s" % name)
    w("")
    w("| benchmark | CPU time | wall time | items / s | bytes / s | label |")
    w("|---|---|---|---|---|---|")
    for b in d["benchmarks"]:
        if b.get("run_type") == "aggregate" and b.get("aggregate_name") != "median":
            continue
        w("| %s | %s %s | %s %s | %s | %s | %s |" % (
            b["name"], fmt(b["cpu_time"]), b.get("time_unit", "ns"), fmt(b["real_time"]), b.get("time_unit", "ns"),
            fmt(b.get("items_per_second")), fmt(b.get("bytes_per_second")), b.get("label", "")))
    w("")

timings = os.path.join(out, "timings.txt")
if os.path.exists(timings):
    w("## Wall time of the script's parts")
    w("")
    w("| part | wall time |")
    w("|---|---|")
    for line in open(timings):
        part, _, rest = line.strip().partition(" ")
        w("| %s | %s |" % (part, rest))
    w("")

with open(os.path.join(out, "summary.md"), "w") as f:
    f.write("\n".join(lines))
print("\n".join(lines))
PYTHON

if [[ ${#failed[@]} -gt 0 ]]; then
  echo "bench.sh: WARNING: failed: ${failed[*]}" >&2
fi
echo "bench.sh: results in $out (summary: $out/summary.md), total $total s"
