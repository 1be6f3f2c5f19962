// maxent/model/labels.hpp — a finite set of user-typed labels with index maps both ways.
//
// The POMDP's state, action and observation sets are the user's own types (a grid-cell
// struct, an enum, a std::string read from a file). `LabelSet<T>` stores them in the
// order given, maps index -> label in O(1) and label -> index through a hash map (when
// std::hash<T> exists), an ordered map (when T has operator<) or a linear scan (when T
// only has operator==). Duplicates are rejected on construction with model_error.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <functional>
#include <map>
#include <optional>
#include <type_traits>
#include <ostream>
#include <sstream>
#include <string>
#include <unordered_map>
#include <utility>
#include <variant>
#include <vector>

#include "maxent/core/error.hpp"

namespace maxent {

/// T can be written to a std::ostream (used to name labels in error messages).
template <class T>
concept Streamable = requires(std::ostream& os, const T& t) { os << t; };

/// T can key a std::unordered_map with std::hash.
template <class T>
concept Hashable = std::equality_comparable<T> && requires(const T& t) {
    { std::hash<T>{}(t) } -> std::convertible_to<std::size_t>;
};

/// What a label type must offer: copyable and comparable for equality.
template <class T>
concept Label = std::copy_constructible<T> && std::equality_comparable<T>;

/// The label type `T` of a LabelSet (a FinitePomdp's State, Action or Observation) checked
/// with one readable message per missing requirement instead of a constraint trace.
template <class T>
consteval bool require_label() {
    // Plain bools, so that the compiler prints the message and not the concepts' trace.
    constexpr bool comparable = std::equality_comparable<T>;
    constexpr bool copyable = std::copy_constructible<T>;
    static_assert(comparable,
                  "maxent: a label type (FinitePomdp's State, Action or Observation; see the 'required "
                  "from' line for which) has no `operator==`: labels are compared to find their indices. "
                  "Add `bool operator==(const T&) const = default;` to it");
    static_assert(copyable,
                  "maxent: a label type (FinitePomdp's State, Action or Observation) must be copyable");
    return comparable && copyable;
}

namespace detail {
/// "'label'" when T is streamable, otherwise "#index".
template <class T>
std::string describe_label(const T& label, std::size_t index) {
    if constexpr (Streamable<T>) {
        std::ostringstream out;
        out << '\'' << label << '\'';
        return out.str();
    } else {
        return detail::message("#", index);
    }
}
}  // namespace detail

template <class T>
class LabelSet {
    // Instantiated for its static_asserts, which say what T lacks; `|| true` so that the
    // failure is reported once, not a second time here.
    static_assert(require_label<T>() || true);

public:
    LabelSet() = default;

    /// `what` names the set in error messages ("state", "action", "observation").
    LabelSet(std::vector<T> labels, std::string what) : labels_(std::move(labels)), what_(std::move(what)) {
        if (labels_.empty()) throw model_error(detail::message("the ", what_, " set is empty"));
        if constexpr (!Label<T>) {
            // require_label has said what is missing; nothing more to report.
        } else if constexpr (Hashable<T>) {
            std::unordered_map<T, std::size_t> m;
            m.reserve(labels_.size());
            for (std::size_t i = 0; i < labels_.size(); ++i) {
                auto [it, inserted] = m.emplace(labels_[i], i);
                if (!inserted) duplicate(it->second, i);
            }
            index_ = std::move(m);
        } else if constexpr (std::totally_ordered<T>) {
            std::map<T, std::size_t> m;
            for (std::size_t i = 0; i < labels_.size(); ++i) {
                auto [it, inserted] = m.emplace(labels_[i], i);
                if (!inserted) duplicate(it->second, i);
            }
            index_ = std::move(m);
        } else {
            for (std::size_t i = 0; i < labels_.size(); ++i)
                for (std::size_t j = 0; j < i; ++j)
                    if (labels_[j] == labels_[i]) duplicate(j, i);
        }
    }

    [[nodiscard]] std::size_t size() const noexcept { return labels_.size(); }
    [[nodiscard]] const std::vector<T>& labels() const noexcept { return labels_; }
    [[nodiscard]] const std::string& what() const noexcept { return what_; }

    /// The label at index i; an index outside [0, size()) is a bad argument (config_error).
    [[nodiscard]] const T& operator[](std::size_t i) const {
        if (i >= labels_.size())
            throw config_error(detail::message(what_, " index ", i, " is outside [0, ",
                                           labels_.size(), ")"));
        return labels_[i];
    }

    /// Index of `label`; throws unknown_label_error naming it when absent.
    [[nodiscard]] std::size_t index(const T& label) const {
        if (auto i = find(label)) return *i;
        if constexpr (Streamable<T>) {
            std::ostringstream out;
            out << label;
            throw unknown_label_error(detail::message("unknown ", what_, " '", out.str(), "'"));
        } else {
            throw unknown_label_error(detail::message("unknown ", what_, " (label not in the set of ",
                                                      labels_.size(), ")"));
        }
    }

    [[nodiscard]] bool contains(const T& label) const { return find(label).has_value(); }

    /// The label at index i for messages: "'name'" or "#i".
    [[nodiscard]] std::string describe(std::size_t i) const {
        return i < labels_.size() ? detail::describe_label(labels_[i], i) : detail::message("#", i);
    }

    /// A label that may not be in the set, for messages: "'name'", or "(not printable)".
    [[nodiscard]] static std::string describe_value(const T& label) {
        if constexpr (Streamable<T>) {
            std::ostringstream out;
            out << '\'' << label << '\'';
            return out.str();
        } else {
            return "(a label without operator<<)";
        }
    }

    /// The index of `label`, if it is in the set.
    [[nodiscard]] std::optional<std::size_t> find(const T& label) const {
        if constexpr (!Label<T>) {
            return std::nullopt;
        } else if constexpr (Hashable<T>) {
            const auto& m = std::get<1>(index_);
            auto it = m.find(label);
            if (it != m.end()) return it->second;
            return std::nullopt;
        } else if constexpr (std::totally_ordered<T>) {
            const auto& m = std::get<2>(index_);
            auto it = m.find(label);
            if (it != m.end()) return it->second;
            return std::nullopt;
        } else {
            auto it = std::find(labels_.begin(), labels_.end(), label);
            if (it != labels_.end()) return static_cast<std::size_t>(it - labels_.begin());
            return std::nullopt;
        }
    }

private:
    [[noreturn]] void duplicate(std::size_t first, std::size_t second) const {
        throw model_error(detail::message("duplicate ", what_, " label ", describe(second), " at index ",
                                          second, " (first at index ", first, ")"));
    }

    struct no_index {};
    using hash_map = std::conditional_t<Hashable<T>, std::unordered_map<T, std::size_t>, no_index>;
    struct no_index2 {};
    using ordered_map =
        std::conditional_t<!Hashable<T> && std::totally_ordered<T>, std::map<T, std::size_t>, no_index2>;

    std::vector<T> labels_;
    std::string what_;
    std::variant<std::monostate, hash_map, ordered_map> index_;
};

}  // namespace maxent
