// maxent/model/detail/pomdp_lexer.hpp — tokenizer and number scanning for the POMDP file format.
//
// Implementation detail of maxent/model/pomdp_file.hpp (reading models of the paper's
// Section 2.1, M = (S, A, O, P, Obs, T, μ), from Cassandra's pomdp-solve text format).
// The lexer makes one pass over a string buffer and never allocates: a token is a view
// into the buffer plus its byte offset; line and column are computed from the offset only
// when an error is reported. Tokens are
//   * ':'                                   (always a token of its own),
//   * words: maximal runs of bytes that are not whitespace, ':' or '#',
//   * end of input.
// '#' starts a comment that runs to the end of the line; a leading UTF-8 byte order mark is
// skipped. Numbers are scanned with
// std::from_chars (no locale, no allocation); "inf", "nan" and hexadecimal forms are
// rejected, a leading '+' is accepted.
#pragma once

#include <array>
#include <charconv>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <system_error>

namespace maxent::detail::pomdp_text {

enum class TokenKind : unsigned char { end, colon, word };

struct Token {
    TokenKind kind = TokenKind::end;
    std::string_view text;   ///< the token's bytes (empty at end of input)
    std::size_t offset = 0;  ///< byte offset of the token's first byte in the buffer

    [[nodiscard]] bool is_word() const noexcept { return kind == TokenKind::word; }
    [[nodiscard]] bool is_word(std::string_view w) const noexcept { return kind == TokenKind::word && text == w; }
    [[nodiscard]] bool is_colon() const noexcept { return kind == TokenKind::colon; }
    [[nodiscard]] bool is_end() const noexcept { return kind == TokenKind::end; }
};

[[nodiscard]] constexpr bool is_space(char c) noexcept {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}
[[nodiscard]] constexpr bool is_digit(char c) noexcept { return c >= '0' && c <= '9'; }

/// Streaming tokenizer with a lookahead of up to three tokens.
class Lexer {
public:
    static constexpr std::size_t max_lookahead = 3;

    /// A leading UTF-8 byte order mark is skipped.
    explicit Lexer(std::string_view source) noexcept : src_(source) {
        if (src_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    }

    /// The k-th token ahead (k = 0: the next one), k < max_lookahead.
    [[nodiscard]] const Token& peek(std::size_t k = 0) {
        if (k >= max_lookahead) k = max_lookahead - 1;  // callers never ask further
        while (count_ <= k) {
            buffer_[(head_ + count_) % buffer_.size()] = scan();
            ++count_;
        }
        return buffer_[(head_ + k) % buffer_.size()];
    }

    /// Consumes and returns the next token (end of input repeats forever).
    Token next() {
        const Token t = peek(0);
        head_ = (head_ + 1) % buffer_.size();
        --count_;
        return t;
    }

    [[nodiscard]] std::string_view source() const noexcept { return src_; }

private:
    Token scan() noexcept {
        const std::size_t n = src_.size();
        while (pos_ < n) {
            const char c = src_[pos_];
            if (is_space(c)) {
                ++pos_;
            } else if (c == '#') {
                const std::size_t nl = src_.find('\n', pos_);
                pos_ = nl == std::string_view::npos ? n : nl + 1;
            } else {
                break;
            }
        }
        if (pos_ >= n) return Token{TokenKind::end, {}, n};
        if (src_[pos_] == ':') {
            ++pos_;
            return Token{TokenKind::colon, src_.substr(pos_ - 1, 1), pos_ - 1};
        }
        const std::size_t start = pos_;
        while (pos_ < n) {
            const char c = src_[pos_];
            if (is_space(c) || c == ':' || c == '#') break;
            ++pos_;
        }
        return Token{TokenKind::word, src_.substr(start, pos_ - start), start};
    }

    std::string_view src_;
    std::size_t pos_ = 0;
    std::array<Token, max_lookahead + 1> buffer_{};
    std::size_t head_ = 0;
    std::size_t count_ = 0;
};

/// 1-based line and byte column of a byte offset.
struct Position {
    std::size_t line = 1;
    std::size_t column = 1;
};

[[nodiscard]] inline Position position_of(std::string_view src, std::size_t offset) noexcept {
    if (offset > src.size()) offset = src.size();
    Position p;
    std::size_t line_start = 0;
    for (std::size_t i = 0; i < offset; ++i)
        if (src[i] == '\n') {
            ++p.line;
            line_start = i + 1;
        }
    p.column = offset - line_start + 1;
    return p;
}

enum class NumberStatus { ok, malformed, out_of_range };

/// True when the word has the shape of a number: an optional sign, then a digit or '.'.
[[nodiscard]] constexpr bool looks_numeric(std::string_view t) noexcept {
    if (t.empty()) return false;
    const std::size_t d = (t[0] == '+' || t[0] == '-') ? 1 : 0;
    return d < t.size() && (is_digit(t[d]) || t[d] == '.');
}

/// A finite real number in decimal or exponent notation, the whole word.
[[nodiscard]] inline NumberStatus parse_real(std::string_view t, double& out) noexcept {
    if (!looks_numeric(t)) return NumberStatus::malformed;
    const char* first = t.data() + (t[0] == '+' ? 1 : 0);  // from_chars rejects a leading '+'
    const char* last = t.data() + t.size();
    double v = 0.0;
    const auto [ptr, ec] = std::from_chars(first, last, v, std::chars_format::general);
    if (ec == std::errc::result_out_of_range) return NumberStatus::out_of_range;
    if (ec != std::errc{} || ptr != last) return NumberStatus::malformed;
    if (!std::isfinite(v)) return NumberStatus::out_of_range;
    out = v;
    return NumberStatus::ok;
}

/// A whole number written with digits only (no sign), the whole word.
[[nodiscard]] inline NumberStatus parse_whole(std::string_view t, std::uint64_t& out) noexcept {
    if (t.empty()) return NumberStatus::malformed;
    for (const char c : t)
        if (!is_digit(c)) return NumberStatus::malformed;
    std::uint64_t v = 0;
    const auto [ptr, ec] = std::from_chars(t.data(), t.data() + t.size(), v, 10);
    if (ec == std::errc::result_out_of_range) return NumberStatus::out_of_range;
    if (ec != std::errc{} || ptr != t.data() + t.size()) return NumberStatus::malformed;
    out = v;
    return NumberStatus::ok;
}

/// The token quoted for an error message: printable bytes as they are, others as \xNN,
/// long words cut after 40 bytes.
[[nodiscard]] inline std::string describe(const Token& t) {
    if (t.kind == TokenKind::end) return "end of file";
    constexpr std::size_t limit = 40;
    std::string out = "'";
    const std::size_t n = t.text.size() < limit ? t.text.size() : limit;
    for (std::size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(t.text[i]);
        if (c >= 0x20 && c < 0x7f) {
            out += static_cast<char>(c);
        } else {
            constexpr char hex[] = "0123456789abcdef";
            out += "\\x";
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    if (t.text.size() > limit) out += "...";
    out += '\'';
    return out;
}

}  // namespace maxent::detail::pomdp_text
