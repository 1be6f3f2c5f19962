// runtime/simulator.hpp — a world given at run time (a simulator written in another language,
// the Python module's worlds) behind virtual draws, so that the runtime compiles its trainers
// (run_algorithm1, algorithm_simulator.hpp) without knowing the implementer's types.
//
// IndexSimulator observes indices and weighs them by a likelihood; VectorSimulator observes
// float vectors (SimulatorObservation) and weighs them by a log-likelihood; both take action
// indices (IndexActionSimulator). ContinuousSimulator takes continuous actions (action_type
// Eigen::VectorXd, in its ActionBox: the library's continuous-action contract, model/concepts.hpp)
// and observes float vectors, as VectorSimulator. All may give their true states as points
// (state_point_dimension() > 0 when they do). States are OpaqueValue: a
// pointer the implementer owns, with its own retain/release (Python: a PyObject* and its
// reference count), so copying a state costs what copying the implementer's handle costs.
// Whatever those functions need (the Python GIL) the implementer holds while a run calls them:
// the runtime calls them only from the thread that calls run_algorithm1.
#pragma once

#include <algorithm>
#include <cstddef>
#include <functional>
#include <ostream>
#include <span>
#include <utility>

#include <Eigen/Core>

#include "maxent/core/actions.hpp"
#include "maxent/core/random.hpp"

namespace maxent::programs {

/// A value owned by a simulator's implementer: a pointer and the functions that keep it alive.
class OpaqueValue {
public:
    struct Ops {
        void (*retain)(void*) noexcept;   ///< one more holder
        void (*release)(void*) noexcept;  ///< one holder fewer
    };

    OpaqueValue() = default;
    /// Takes over one reference to `p` (released by the destructor).
    OpaqueValue(void* p, const Ops* ops) noexcept : p_(p), ops_(ops) {}
    OpaqueValue(const OpaqueValue& o) noexcept : p_(o.p_), ops_(o.ops_) {
        if (p_ != nullptr) ops_->retain(p_);
    }
    OpaqueValue(OpaqueValue&& o) noexcept : p_(std::exchange(o.p_, nullptr)), ops_(o.ops_) {}
    OpaqueValue& operator=(OpaqueValue o) noexcept {
        std::swap(p_, o.p_);
        std::swap(ops_, o.ops_);
        return *this;
    }
    ~OpaqueValue() {
        if (p_ != nullptr) ops_->release(p_);
    }
    [[nodiscard]] void* get() const noexcept { return p_; }

private:
    void* p_ = nullptr;
    const Ops* ops_ = nullptr;
};

/// What every kind of simulator has: sizes, the initial state's sampler, the true state's bin, and
/// optionally the true state as a point (state_point_dimension() 0: none, and state_point is
/// not called; the implementer's state_point_dimension may throw to refuse kNN counting).
class Simulator {
public:
    using state_type = OpaqueValue;
    Simulator() = default;
    Simulator(const Simulator&) = default;
    Simulator& operator=(const Simulator&) = default;
    virtual ~Simulator() = default;

    [[nodiscard]] virtual std::size_t horizon() const = 0;
    [[nodiscard]] virtual std::size_t num_state_bins() const = 0;
    [[nodiscard]] virtual OpaqueValue sample_initial_state(DefaultRng& g) const = 0;
    [[nodiscard]] virtual std::size_t state_bin(const OpaqueValue& s) const = 0;
    [[nodiscard]] virtual std::size_t state_point_dimension() const = 0;
    virtual void state_point(const OpaqueValue& s, std::span<double> out) const = 0;
};

/// A simulator whose actions are the indices [0, num_actions()).
class IndexActionSimulator : public Simulator {
public:
    [[nodiscard]] virtual std::size_t num_actions() const = 0;
    [[nodiscard]] virtual OpaqueValue sample_next_state(const OpaqueValue& s, std::size_t a, DefaultRng& g) const = 0;
};

/// A simulator observing indices in [0, num_observations()).
class IndexSimulator : public IndexActionSimulator {
public:
    [[nodiscard]] virtual std::size_t num_observations() const = 0;
    [[nodiscard]] virtual std::size_t sample_initial_observation(const OpaqueValue& s, DefaultRng& g) const = 0;
    [[nodiscard]] virtual std::size_t sample_observation(std::size_t a, const OpaqueValue& s, DefaultRng& g) const = 0;
    [[nodiscard]] virtual double observation_likelihood(std::size_t a, std::size_t o, const OpaqueValue& s) const = 0;
};

/// An observation of a VectorSimulator: its d coordinates at x, kept alive by `value` (the
/// implementer's object holding them, which its methods receive back).
struct SimulatorObservation {
    OpaqueValue value;
    const double* x = nullptr;
    std::size_t d = 0;
    /// As messages show it: its coordinates.
    friend std::ostream& operator<<(std::ostream& os, const SimulatorObservation& o) {
        os << '(';
        for (std::size_t j = 0; j < o.d; ++j) os << (j ? ", " : "") << o.x[j];
        return os << ')';
    }
};

/// A simulator observing float vectors of observation_dim() entries.
class VectorSimulator : public IndexActionSimulator {
public:
    using observation_type = SimulatorObservation;
    [[nodiscard]] virtual std::size_t observation_dim() const = 0;
    [[nodiscard]] virtual SimulatorObservation sample_initial_observation(const OpaqueValue& s, DefaultRng& g) const = 0;
    [[nodiscard]] virtual SimulatorObservation sample_observation(std::size_t a, const OpaqueValue& s,
                                                                  DefaultRng& g) const = 0;
    [[nodiscard]] virtual double observation_log_likelihood(std::size_t a, const SimulatorObservation& o,
                                                            const OpaqueValue& s) const = 0;
    [[nodiscard]] std::size_t observation_point_dimension() const { return observation_dim(); }
    void observation_point(const SimulatorObservation& o, std::span<double> out) const {
        std::copy(o.x, o.x + o.d, out.begin());
    }
};

/// A simulator with continuous actions a ∈ action_box() (action_box().dimension() coordinates,
/// as an Eigen::VectorXd: the library's rollout reads each action into one vector it keeps, so
/// a step allocates nothing) observing float vectors of observation_dim() entries.
class ContinuousSimulator : public Simulator {
public:
    using action_type = Eigen::VectorXd;
    using observation_type = SimulatorObservation;
    [[nodiscard]] virtual ActionBox action_box() const = 0;
    [[nodiscard]] virtual std::size_t observation_dim() const = 0;
    [[nodiscard]] virtual OpaqueValue sample_next_state(const OpaqueValue& s, const action_type& a,
                                                        DefaultRng& g) const = 0;
    [[nodiscard]] virtual SimulatorObservation sample_initial_observation(const OpaqueValue& s, DefaultRng& g) const = 0;
    [[nodiscard]] virtual SimulatorObservation sample_observation(const action_type& a, const OpaqueValue& s,
                                                                  DefaultRng& g) const = 0;
    [[nodiscard]] virtual double observation_log_likelihood(const action_type& a, const SimulatorObservation& o,
                                                            const OpaqueValue& s) const = 0;
    [[nodiscard]] std::size_t observation_point_dimension() const { return observation_dim(); }
    void observation_point(const SimulatorObservation& o, std::span<double> out) const {
        std::copy(o.x, o.x + o.d, out.begin());
    }
};

/// A particle filter's binning of a simulator's states, given at run time.
struct SimulatorBinning {
    std::function<std::size_t(const OpaqueValue&)> fn;
    std::size_t operator()(const OpaqueValue& s) const { return fn(s); }
};

}  // namespace maxent::programs
