// runtime/text.hpp — the runtime's text helpers: cat (concatenation), iequals
// (case-insensitive ASCII comparison) and format_number (the shortest decimal text of a
// double). The ground floor of the runtime: it includes nothing of it.
#pragma once

#include <charconv>
#include <cstddef>
#include <string>
#include <string_view>
#include <system_error>

namespace maxent::programs {

/// Concatenates text pieces (strings, string views, literals). Used instead of
/// `"literal" + std::string(...)`, on which GCC 12 reports a false -Wrestrict.
template <class... Parts>
[[nodiscard]] std::string cat(const Parts&... parts) {
    std::string out;
    (out.append(std::string_view(parts)), ...);
    return out;
}

/// Shortest decimal text that reads back as the same double ("0.3", "0.01", "12000").
[[nodiscard]] inline std::string format_number(double x) {
    char buf[64];
    const auto r = std::to_chars(buf, buf + sizeof buf, x);
    return std::string(buf, r.ec == std::errc() ? r.ptr : buf);
}

/// Case-insensitive ASCII comparison.
[[nodiscard]] inline bool iequals(std::string_view a, std::string_view b) {
    if (a.size() != b.size()) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
        auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
        if (lower(a[i]) != lower(b[i])) return false;
    }
    return true;
}

}  // namespace maxent::programs
