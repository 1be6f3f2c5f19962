// maxent/belief/learned/sequences.hpp — the data a belief model is learned from: recorded
// action–observation sequences, taken from rollouts or read from / written to CSV.
//
// One `ActionObservationSequence` holds the actions a_1..a_K and the observations
// o_1..o_{K+1}, in `maxent::Trajectory`'s layout: o_1 is seen before the first action, o_{k+1}
// on arriving after a_k. `to_sequence(trajectory)` takes one from a rollout.
//
// CSV format (`read_sequences_csv`): a header line `sequence,step,action,observation`, then
// one row per step k = 1..K+1 of each sequence: its id (any text without commas, at least one
// character), k, the action a_k (empty on the last step K+1, which has no action) and the
// observation o_k. Actions and observations are non-negative decimal integers (the world's
// indices). The rows of one sequence are contiguous, with steps 1, 2, 3, ...; a sequence ends
// with its row whose action is empty; an id cannot come back after its sequence has ended.
// Spaces and tabs around fields are ignored, as are blank lines, a trailing '\r' and a UTF-8
// byte-order mark before the header (spreadsheets write one). Every error is a parse_error
// "source:line:column: ..." naming the field and the value.
#pragma once

#include <charconv>
#include <cstddef>
#include <cstdint>
#include <istream>
#include <ostream>
#include <span>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "maxent/core/error.hpp"
#include "maxent/core/read_file.hpp"
#include "maxent/core/trajectory.hpp"

namespace maxent {

/// One recorded sequence: actions a_1..a_K and observations o_1..o_{K+1} (Trajectory's layout).
struct ActionObservationSequence {
    std::vector<std::size_t> actions;       ///< a_1 .. a_K
    std::vector<std::size_t> observations;  ///< o_1 .. o_{K+1}
    std::string id;                         ///< optional name, used in messages (the CSV's sequence column)

    friend bool operator==(const ActionObservationSequence&, const ActionObservationSequence&) = default;
};

/// The actions and observations of a rollout (its true states, beliefs, ... are not used).
/// Throws config_error when the trajectory does not hold one more observation than actions.
[[nodiscard]] inline ActionObservationSequence to_sequence(const Trajectory& t, std::string id = {}) {
    if (t.observations.size() != t.actions.size() + 1)
        throw config_error(detail::message("to_sequence: the trajectory has ", t.actions.size(), " actions and ",
                                           t.observations.size(),
                                           " observations; it needs one more observation than actions"));
    return {t.actions, t.observations, std::move(id)};
}

namespace detail {

/// [begin, end) of s without the spaces and tabs around it.
inline std::string_view trim_blanks(std::string_view s) {
    std::size_t b = 0, e = s.size();
    while (b < e && (s[b] == ' ' || s[b] == '\t')) ++b;
    while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t')) --e;
    return s.substr(b, e - b);
}

}  // namespace detail

/// Reads sequences in the CSV format of this header's comment. `source` names the
/// input in messages ("source:line:column: ..."). Throws parse_error.
[[nodiscard]] inline std::vector<ActionObservationSequence> read_sequences_csv(std::istream& in,
                                                                               const std::string& source = "<csv>") {
    static constexpr const char* field_names[4] = {"sequence", "step", "action", "observation"};
    std::vector<ActionObservationSequence> out;
    std::unordered_map<std::string, std::size_t> seen;  // id -> line of its first row
    bool header = false;
    bool open = false;  // the last sequence still expects rows (no empty action yet)
    std::size_t open_last_line = 0;
    std::string line;
    std::size_t line_number = 0;
    auto fail = [&](std::size_t ln, std::size_t column, const std::string& what) {
        throw parse_error(detail::message(source, ":", ln, ":", column, ": ", what));
    };
    while (std::getline(in, line)) {
        ++line_number;
        if (line_number == 1 && line.starts_with("\xEF\xBB\xBF")) line.erase(0, 3);  // a UTF-8 byte-order mark
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (detail::trim_blanks(line).empty()) continue;
        // Split into fields, remembering the 1-based column where each begins.
        std::vector<std::string_view> fields;
        std::vector<std::size_t> columns;
        const std::string_view text(line);
        std::size_t start = 0;
        for (;;) {
            const std::size_t comma = text.find(',', start);
            const std::string_view raw = text.substr(start, comma == std::string_view::npos ? text.size() - start
                                                                                             : comma - start);
            std::size_t lead = 0;
            while (lead < raw.size() && (raw[lead] == ' ' || raw[lead] == '\t')) ++lead;
            fields.push_back(detail::trim_blanks(raw));
            columns.push_back(start + lead + 1);
            if (comma == std::string_view::npos) break;
            start = comma + 1;
        }
        if (fields.size() != 4)
            fail(line_number, 1,
                 detail::message("expected 4 fields (sequence,step,action,observation), got ", fields.size()));
        if (!header) {
            for (std::size_t f = 0; f < 4; ++f)
                if (fields[f] != field_names[f])
                    fail(line_number, columns[f],
                         detail::message("the header must be 'sequence,step,action,observation'; field ", f + 1,
                                         " is '", fields[f], "', expected '", field_names[f], "'"));
            header = true;
            continue;
        }
        auto number = [&](std::size_t f) {
            const std::string_view v = fields[f];
            std::size_t value = 0;
            const auto [ptr, ec] = std::from_chars(v.data(), v.data() + v.size(), value);
            if (v.empty() || ec != std::errc{} || ptr != v.data() + v.size())
                fail(line_number, columns[f],
                     detail::message("field '", field_names[f], "': '", v, "' is not a non-negative integer",
                                     ec == std::errc::result_out_of_range ? " (too large)" : ""));
            return value;
        };
        const std::string id(fields[0]);
        if (id.empty()) fail(line_number, columns[0], "field 'sequence' is empty (a sequence needs an id)");
        const std::size_t step = number(1);
        const bool continues = open && out.back().id == id;
        if (!continues) {
            if (open)
                fail(line_number, columns[0],
                     detail::message("sequence '", out.back().id, "' (last row at line ", open_last_line,
                                     ") ends without a row whose action is empty; now sequence '", id, "' begins"));
            if (const auto it = seen.find(id); it != seen.end())
                fail(line_number, columns[0],
                     detail::message("sequence '", id, "' appears again; its rows began at line ", it->second,
                                     " and it has ended (the rows of a sequence must be contiguous)"));
            seen.emplace(id, line_number);
            out.push_back({{}, {}, id});
            open = true;
        }
        ActionObservationSequence& s = out.back();
        const std::size_t expected = s.observations.size() + 1;
        if (step != expected)
            fail(line_number, columns[1],
                 detail::message("field 'step': '", fields[1], "' in sequence '", id, "', expected ", expected,
                                 " (steps count 1, 2, 3, ... within a sequence)"));
        const bool last = fields[2].empty();
        if (!last) s.actions.push_back(number(2));
        s.observations.push_back(number(3));
        open = !last;
        open_last_line = line_number;
    }
    if (in.bad()) throw parse_error(detail::message(source, ":", line_number, ":0: reading failed"));
    if (!header) throw parse_error(detail::message(source, ":", line_number + 1, ":1: no header line "
                                                                                    "'sequence,step,action,observation'"));
    if (open)
        throw parse_error(detail::message(source, ":", open_last_line, ":1: sequence '", out.back().id,
                                          "' ends at the end of the input without a row whose action is empty"));
    return out;
}

/// read_sequences_csv on a file, read whole by read_regular_file (core/read_file.hpp): a FIFO,
/// a device or a directory is refused at once, never waited on, and a file above `max_bytes`
/// is refused; parse_error "path:0:0: cannot read ..." then, or if it cannot be opened.
[[nodiscard]] inline std::vector<ActionObservationSequence> read_sequences_csv_file(
    const std::string& path, std::uintmax_t max_bytes = max_read_file_bytes) {
    std::string text;
    try {
        text = read_regular_file(path, max_bytes);
    } catch (const file_read_error& e) {
        throw parse_error(detail::message(path, ":0:0: ", e.what()));
    }
    std::istringstream in(std::move(text));
    return read_sequences_csv(in, path);
}

/// Writes sequences in the CSV format read_sequences_csv reads (ids: the sequence's id, or
/// its index when the id is empty; ids must not contain commas or newlines).
inline void write_sequences_csv(std::ostream& out, std::span<const ActionObservationSequence> sequences) {
    out << "sequence,step,action,observation\n";
    for (std::size_t n = 0; n < sequences.size(); ++n) {
        const auto& s = sequences[n];
        const std::string id = s.id.empty() ? std::to_string(n) : s.id;
        for (std::size_t k = 0; k < s.observations.size(); ++k) {
            out << id << ',' << k + 1 << ',';
            if (k < s.actions.size()) out << s.actions[k];
            out << ',' << s.observations[k] << '\n';
        }
    }
}

}  // namespace maxent
