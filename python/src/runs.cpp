// python/src/runs.cpp — what every train call shares: its options from the Python arguments, its
// seeds and results, the job runner that releases the GIL (run_jobs), the signal poll of a run on
// the calling thread, the progress callback, and Python objects held off the GIL (PyRef).
#include <chrono>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

#include "common.hpp"
#include "runtime/runner.hpp"  // require_no_repeats
#include "maxent/core/parallel.hpp"

namespace maxent::python {

// ---------------------------------------------------------------------------------------
// Python objects held off the GIL
// ---------------------------------------------------------------------------------------

PyRef::PyRef(py::object o)
    : obj(new py::object(std::move(o)), [](py::object* p) {
          py::gil_scoped_acquire gil;
          delete p;
      }) {}

bool Progress::operator()(std::uint64_t seed, const IterationMetrics& m) const {
    if (!fn.obj) return true;
    const std::size_t done = m.iteration + 1;
    if (done % every != 0 && done != iterations) return true;
    py::gil_scoped_acquire gil;
    py::dict d;
    d["seed"] = seed;
    d["iteration"] = m.iteration;
    d["iterations"] = iterations;
    d["true_entropy"] = m.true_entropy;
    d["feedback"] = m.feedback;
    d["belief_entropy_sum"] = m.belief_entropy_sum;
    d["gradient_norm"] = m.gradient_norm;
    const py::object r = fn.get()(d);
    if (r.is_none()) return true;
    if (PyBool_Check(r.ptr()) || PyObject_IsInstance(r.ptr(), numpy_bool_type) == 1) return PyObject_IsTrue(r.ptr()) == 1;
    throw py::type_error(detail::message("progress returned ", std::string(py::repr(r)),
                                         "; return None or True to go on, False to stop the run"));
}

TrainOptions train_options(std::size_t iterations, std::size_t batch, std::uint64_t seed,
                           std::optional<std::vector<std::uint64_t>> seeds, const std::string& counting,
                           bool track, std::size_t threads, const py::object& progress, std::size_t every) {
    TrainOptions o;
    o.config.iterations = iterations;
    o.config.batch = batch;
    o.config.seed = seed;
    o.config.counting = to_counting(counting);
    o.config.track_belief_entropy = track;
    o.config.validate();
    o.seeds = std::move(seeds);
    if (o.seeds && o.seeds->empty()) throw config_error("train: seeds is empty");
    // Each seed is one independent run, as the programs' --seeds and run_experiment say.
    if (o.seeds)
        programs::require_no_repeats("train", "seeds", *o.seeds, [](std::uint64_t x) { return std::to_string(x); },
                                     "; each seed is one independent run, so repeats would count one run as two");
    o.threads = threads;
    if (!progress.is_none()) {
        if (!PyCallable_Check(progress.ptr()))
            throw py::type_error(detail::message("train: progress must be a callable (or True: a progress bar, or None), "
                                                 "got ", std::string(py::repr(progress))));
        if (every == 0) throw py::value_error("train: progress_every must be >= 1, got 0");
        o.progress.fn = PyRef(progress);
        o.progress.every = every;
        o.progress.iterations = iterations;
    }
    return o;
}

std::vector<std::uint64_t> seeds_of(const TrainOptions& o) {
    return o.seeds ? *o.seeds : std::vector<std::uint64_t>{o.config.seed};
}

py::object results(std::vector<PyTrainResult> runs, const TrainOptions& o) {
    if (!o.seeds) return py::cast(std::move(runs.front()));
    py::list out;
    for (auto& r : runs) out.append(py::cast(std::move(r)));
    return out;
}

// ---------------------------------------------------------------------------------------
// Jobs with the GIL released, and signals
// ---------------------------------------------------------------------------------------

void run_jobs(std::size_t count, std::size_t threads, const std::function<void(std::size_t)>& job,
              std::atomic<bool>& stop) {
    if (count == 0) return;
    const std::size_t workers = std::min(count, threads == 0 ? hardware_threads() : threads);
    std::atomic<std::size_t> next{0};
    std::mutex mutex;
    std::condition_variable cv;
    std::size_t running = workers;
    std::vector<std::exception_ptr> errors(count);
    std::vector<std::thread> pool;
    {
        py::gil_scoped_release release;
        for (std::size_t w = 0; w < workers; ++w)
            pool.emplace_back([&] {
                for (;;) {
                    const std::size_t i = next.fetch_add(1);
                    if (i >= count || stop.load()) break;
                    try {
                        job(i);
                    } catch (...) {
                        errors[i] = std::current_exception();
                        stop.store(true);
                    }
                }
                std::lock_guard<std::mutex> lock(mutex);
                if (--running == 0) cv.notify_all();
            });
    }
    // Wait with the GIL released; take it every 100 ms to let Python see signals.
    bool interrupted = false;
    for (;;) {
        bool done = false;
        {
            py::gil_scoped_release release;
            std::unique_lock<std::mutex> lock(mutex);
            done = cv.wait_for(lock, std::chrono::milliseconds(100), [&] { return running == 0; });
        }
        if (done) break;
        if (!interrupted && PyErr_CheckSignals() != 0) {
            interrupted = true;
            stop.store(true);
        }
    }
    {
        py::gil_scoped_release release;
        for (auto& t : pool) t.join();
    }
    if (interrupted) throw py::error_already_set();
    for (auto& e : errors)
        if (e) std::rethrow_exception(e);
}

bool SignalPoll::operator()(const IterationMetrics&) {
    const auto now = std::chrono::steady_clock::now().time_since_epoch();
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(now).count();
    if (ns - last_ns < 100'000'000) return true;
    last_ns = ns;
    if (PyErr_CheckSignals() != 0) {
        interrupted = true;
        return false;
    }
    return true;
}

}  // namespace maxent::python
