// maxent/core/error.hpp — the library's single exception hierarchy.
//
// Every failure the library reports is an exception derived from maxent::error, and every
// message names the offending value (a row and column, a field name, an action and an
// observation, a file position). Catch maxent::error to handle all of them.
#pragma once

#include <cstddef>
#include <sstream>
#include <stdexcept>
#include <string>
#include <utility>

namespace maxent {

/// Base of every exception thrown by maxent.
class error : public std::runtime_error {
public:
    explicit error(const std::string& what) : std::runtime_error(what) {}
};

/// A model (POMDP) that fails validation: a row off the simplex, a negative or non-finite
/// probability, a dimension mismatch, an empty set, a duplicate label, a zero horizon.
class model_error : public error {
public:
    using error::error;
};

/// A bad argument or configuration value (a non-positive step size, an empty batch, ...).
class config_error : public error {
public:
    using error::error;
};

/// A label that is not part of the model's state, action or observation set.
class unknown_label_error : public error {
public:
    using error::error;
};

/// A Bayes update with an observation that has zero likelihood under the predicted belief.
class zero_likelihood_error : public error {
public:
    zero_likelihood_error(std::size_t action, std::size_t observation, std::size_t step,
                          const std::string& what)
        : error(what), action_(action), observation_(observation), step_(step) {}
    [[nodiscard]] std::size_t action() const noexcept { return action_; }
    [[nodiscard]] std::size_t observation() const noexcept { return observation_; }
    [[nodiscard]] std::size_t step() const noexcept { return step_; }

private:
    std::size_t action_;
    std::size_t observation_;
    std::size_t step_;
};

/// An exact computation (enumeration of trajectories or beliefs) that would exceed the
/// size or memory budget it was given.
class budget_error : public error {
public:
    using error::error;
};

/// A NaN or infinite number where a finite one is required: an input (a gradient, a score,
/// a feedback, a count) or a result (parameters after a step, a norm). It is a config_error
/// (a bad value), so handlers of config_error see it too.
class numeric_error : public config_error {
public:
    using config_error::config_error;
};

/// A syntax or content error in a model file; the message names file, line and column.
class parse_error : public error {
public:
    using error::error;
};

namespace detail {

/// Builds a message from any streamable parts: detail::message("row ", r, " sums to ", x).
template <class... Parts>
[[nodiscard]] std::string message(const Parts&... parts) {
    std::ostringstream out;
    out.precision(17);
    (out << ... << parts);
    return out.str();
}

}  // namespace detail
}  // namespace maxent
