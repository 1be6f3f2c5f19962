// runtime/signals.hpp — the programs' stop request: SIGINT (Ctrl-C) and SIGTERM (what
// schedulers and `kill` send before SIGKILL) both ask a long run to stop and keep what it
// finished.
//
// The first SIGINT or SIGTERM sets a lock-free flag that the training jobs poll before every
// iteration (runner.hpp); the program then writes the runs that completed and exits with
// 128 + the signal's number (130 for SIGINT, 143 for SIGTERM). SA_RESETHAND restores the
// default action of that signal, so a second one of the same kind ends the process at once.
#pragma once

#include <atomic>
#include <csignal>

#include <signal.h>

namespace maxent::programs {

namespace detail {
inline std::atomic<bool> stop_requested{false};
inline std::atomic<int> stop_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the stop flag is written by a signal handler: it must be lock-free");
extern "C" inline void on_stop_signal(int sig) {
    stop_signal.store(sig);
    stop_requested.store(true);
}
}  // namespace detail

/// Installs the handler for SIGINT and SIGTERM (see the header comment).
inline void install_stop_handlers() {
    struct sigaction sa {};
    sa.sa_handler = detail::on_stop_signal;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = static_cast<int>(SA_RESETHAND);
    sigaction(SIGINT, &sa, nullptr);
    sigaction(SIGTERM, &sa, nullptr);
}

/// The flag the jobs poll (set by the first SIGINT or SIGTERM).
[[nodiscard]] inline const std::atomic<bool>& stop_flag() noexcept { return detail::stop_requested; }

[[nodiscard]] inline bool stop_requested() noexcept { return detail::stop_requested.load(); }

/// The exit status after a stop: 128 + the signal's number (130 when none was recorded).
[[nodiscard]] inline int stop_exit_status() noexcept {
    const int sig = detail::stop_signal.load();
    return 128 + (sig > 0 ? sig : SIGINT);
}

/// "SIGINT" or "SIGTERM", for messages.
[[nodiscard]] inline const char* stop_signal_name() noexcept {
    return detail::stop_signal.load() == SIGTERM ? "SIGTERM" : "SIGINT (Ctrl-C)";
}

}  // namespace maxent::programs
