// runtime/json.cpp — the bodies of json.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "json.hpp"

namespace maxent::programs {

const Json* Json::find(std::string_view name) const {
    for (const JsonMember& m : members)
        if (m.first == name) return &m.second;
    return nullptr;
}

}  // namespace maxent::programs
namespace maxent::programs {
namespace detail {

Json JsonReader::document() {
    Json v = value();
    space();
    if (p_ != t_.size()) fail("text after the value");
    return v;
}

bool JsonReader::take(char c) {
    space();
    if (p_ < t_.size() && t_[p_] == c) {
        ++p_;
        return true;
    }
    return false;
}

std::string JsonReader::string_body() {
    std::string out;
    while (p_ < t_.size() && t_[p_] != '"') {
        char c = t_[p_++];
        if (c != '\\') {
            out += c;
            continue;
        }
        if (p_ >= t_.size()) fail("unterminated string");
        c = t_[p_++];
        switch (c) {
            case 'n': out += '\n'; break;
            case 't': out += '\t'; break;
            case 'r': out += '\r'; break;
            case 'b': out += '\b'; break;
            case 'f': out += '\f'; break;
            case 'u': {
                if (p_ + 4 > t_.size()) fail("bad \\u escape");
                unsigned cp = 0;
                const auto r = std::from_chars(t_.data() + p_, t_.data() + p_ + 4, cp, 16);
                if (r.ptr != t_.data() + p_ + 4) fail("bad \\u escape");
                p_ += 4;
                if (cp < 0x80) {
                    out += static_cast<char>(cp);
                } else if (cp < 0x800) {
                    out += static_cast<char>(0xC0 | (cp >> 6));
                    out += static_cast<char>(0x80 | (cp & 0x3F));
                } else {
                    out += static_cast<char>(0xE0 | (cp >> 12));
                    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
                    out += static_cast<char>(0x80 | (cp & 0x3F));
                }
                break;
            }
            default: out += c;
        }
    }
    if (p_ >= t_.size()) fail("unterminated string");
    ++p_;
    return out;
}

Json JsonReader::value() {
    space();
    if (p_ >= t_.size()) fail("unexpected end");
    Json v;
    const char c = t_[p_];
    if ((c == '{' || c == '[') && ++depth_ > max_json_depth)
        fail(cat("arrays and objects nested deeper than ", std::to_string(max_json_depth), " levels"));
    if (c == '{') {
        ++p_;
        v.kind = Json::Kind::object;
        if (take('}')) {
            --depth_;
            return v;
        }
        do {
            if (!take('"')) fail("expected a name");
            std::string name = string_body();
            if (!take(':')) fail("expected ':'");
            Json member = value();
            v.members.push_back({std::move(name), std::move(member)});
        } while (take(','));
        if (!take('}')) fail("expected '}'");
        --depth_;
    } else if (c == '[') {
        ++p_;
        v.kind = Json::Kind::array;
        if (take(']')) {
            --depth_;
            return v;
        }
        do v.items.push_back(value());
        while (take(','));
        if (!take(']')) fail("expected ']'");
        --depth_;
    } else if (c == '"') {
        ++p_;
        v.kind = Json::Kind::string;
        v.text = string_body();
    } else if (t_.substr(p_, 4) == "true" || t_.substr(p_, 5) == "false") {
        v.kind = Json::Kind::boolean;
        v.text = c == 't' ? "true" : "false";
        p_ += v.text.size();
    } else if (t_.substr(p_, 4) == "null") {
        p_ += 4;
    } else {
        const std::size_t start = p_;
        while (p_ < t_.size() && std::string_view("+-0123456789.eE").find(t_[p_]) != std::string_view::npos) ++p_;
        if (p_ == start) fail("unexpected character");
        v.kind = Json::Kind::number;
        v.text = std::string(t_.substr(start, p_ - start));
    }
    return v;
}

}  // namespace detail
}  // namespace maxent::programs
