// runtime/progress.hpp — a throttled progress line on stderr for long experiments.
//
// The paper's runs took 30–60 minutes per curve in the authors' Python (Appendix D, wall-clock
// table); here one experiment takes seconds to minutes, still worth a progress line:
//     fig2a  [2/4 mbe] seeds 5/16 | runs 37/64 | 12345 it/s | 58% | ETA 0m41s
// A background thread reads the jobs' atomic counters (results.hpp ProgressCounters) and
// redraws the line at most 4 times a second on a terminal ("\r", cleared line), or prints a
// plain line every 5 seconds when forced on a non-terminal (--progress). Mode::off prints
// nothing.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "results.hpp"

namespace maxent::programs {

class ProgressReporter {
public:
    enum class Mode { off, terminal, lines };

    /// Starts reporting (unless mode is off). `total_iterations` counts only the iterations
    /// of jobs that will actually train (cached runs excluded).
    ProgressReporter(Mode mode, std::string experiment, std::vector<std::string> curve_labels,
                     std::size_t seeds_per_curve, std::uint64_t total_iterations, const ProgressCounters& counters)
        : mode_(mode),
          experiment_(std::move(experiment)),
          labels_(std::move(curve_labels)),
          seeds_(seeds_per_curve),
          total_(total_iterations),
          counters_(counters),
          start_(std::chrono::steady_clock::now()) {
        if (mode_ != Mode::off) thread_ = std::thread([this] { loop(); });
    }
    ProgressReporter(const ProgressReporter&) = delete;
    ProgressReporter& operator=(const ProgressReporter&) = delete;
    ~ProgressReporter() { finish(); }

    /// Stops the thread and ends the line (terminal mode).
    void finish() {
        if (!thread_.joinable()) return;
        {
            std::lock_guard<std::mutex> lock(mutex_);
            done_ = true;
        }
        cv_.notify_all();
        thread_.join();
        print();
        if (mode_ == Mode::terminal) std::fputc('\n', stderr);
        std::fflush(stderr);
    }

    /// The current line (without "\r" or "\n").
    [[nodiscard]] std::string line() const {
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
        const std::uint64_t done = counters_.iterations.load(std::memory_order_relaxed);
        std::size_t runs = 0, current = labels_.size();
        for (std::size_t c = 0; c < labels_.size(); ++c) {
            const std::size_t d = counters_.runs_done[c].load(std::memory_order_relaxed);
            runs += d;
            if (current == labels_.size() && d < seeds_) current = c;
        }
        std::string out = experiment_;
        char buf[160];
        if (current < labels_.size()) {
            std::snprintf(buf, sizeof buf, "  [%zu/%zu %s] seeds %zu/%zu", current + 1, labels_.size(),
                          labels_[current].c_str(), counters_.runs_done[current].load(std::memory_order_relaxed),
                          seeds_);
            out += buf;
        }
        const double rate = elapsed > 0.0 ? static_cast<double>(done) / elapsed : 0.0;
        std::snprintf(buf, sizeof buf, " | runs %zu/%zu | %.0f it/s", runs, labels_.size() * seeds_, rate);
        out += buf;
        if (total_ > 0) {
            const double frac = static_cast<double>(done) / static_cast<double>(total_);
            std::snprintf(buf, sizeof buf, " | %.0f%%", 100.0 * frac);
            out += buf;
            if (done > 0 && done < total_) {
                const auto eta = static_cast<long long>(elapsed * (1.0 - frac) / frac + 0.5);
                std::snprintf(buf, sizeof buf, " | ETA %lldm%02llds", eta / 60, eta % 60);
                out += buf;
            }
        }
        return out;
    }

private:
    void print() const {
        const std::string l = line();
        if (mode_ == Mode::terminal)
            std::fprintf(stderr, "\r\033[K%s", l.c_str());
        else
            std::fprintf(stderr, "%s\n", l.c_str());
        std::fflush(stderr);
    }

    void loop() {
        const auto period = mode_ == Mode::terminal ? std::chrono::milliseconds(250) : std::chrono::milliseconds(5000);
        std::unique_lock<std::mutex> lock(mutex_);
        while (!cv_.wait_for(lock, period, [this] { return done_; })) print();
    }

    Mode mode_;
    std::string experiment_;
    std::vector<std::string> labels_;
    std::size_t seeds_;
    std::uint64_t total_;
    const ProgressCounters& counters_;
    std::chrono::steady_clock::time_point start_;
    std::mutex mutex_;
    std::condition_variable cv_;
    bool done_ = false;
    std::thread thread_;
};

}  // namespace maxent::programs
