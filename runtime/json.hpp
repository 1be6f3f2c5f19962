// runtime/json.hpp — a reader of the JSON the programs write (config.json): objects,
// arrays, strings, numbers (kept as their text, so they read back exactly with from_chars),
// true, false, null. A document that does not parse, or nests arrays and objects deeper than
// max_json_depth (the reader recurses), throws json_error naming the byte.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "maxent/core/error.hpp"

#include "text.hpp"

namespace maxent::programs {

/// A document that is not valid JSON; the message names what was read and the byte.
class json_error : public maxent::error {
public:
    using maxent::error::error;
};

struct JsonMember;

/// A JSON value; numbers keep their text (so they read back exactly with from_chars).
struct Json {
    enum class Kind { null, boolean, number, string, array, object } kind = Kind::null;
    std::string text;  ///< string (unescaped), number (as written), "true"/"false"
    std::vector<Json> items;
    std::vector<JsonMember> members;  ///< (a std::pair of an incomplete Json does not compile with clang)

    [[nodiscard]] const Json* find(std::string_view name) const;
};

/// An object's member: its name and value.
struct JsonMember {
    std::string first;
    Json second;
};

/// The deepest nesting of arrays and objects parse_json reads (config.json nests 4 levels).
inline constexpr std::size_t max_json_depth = 64;

namespace detail {
class JsonReader {
public:
    JsonReader(std::string_view text, std::string what) : t_(text), what_(std::move(what)) {}
    Json document();

private:
    [[noreturn]] void fail(std::string_view why) const {
        throw json_error(cat(what_, ": not valid JSON (", why, " at byte ", std::to_string(p_), ")"));
    }
    void space() {
        while (p_ < t_.size() && (t_[p_] == ' ' || t_[p_] == '\n' || t_[p_] == '\r' || t_[p_] == '\t')) ++p_;
    }
    bool take(char c);
    std::string string_body();
    Json value();

    std::string_view t_;
    std::string what_;
    std::size_t p_ = 0;
    std::size_t depth_ = 0;  ///< arrays and objects open at p_
};
}  // namespace detail

[[nodiscard]] inline Json parse_json(std::string_view text, const std::string& what) {
    return detail::JsonReader(text, what).document();
}

}  // namespace maxent::programs
