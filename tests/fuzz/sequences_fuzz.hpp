// tests/fuzz/sequences_fuzz.hpp — the body of the libFuzzer target of the sequence CSV reader
// (fuzz_sequences_csv.cpp), shared with the unit test that replays its regressions
// (tests/unit/test_learned_model.cpp): any bytes either read as sequences or throw
// maxent::parse_error — never a crash, a hang, undefined behaviour or another exception — and
// what reads writes back (write_sequences_csv) as text that reads as the same sequences.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "maxent/belief/learned/sequences.hpp"

namespace maxent::fuzz {

/// Traps (a crash the fuzzer reports) unless `ok`.
inline void require_sequences(bool ok) {
    if (!ok) __builtin_trap();
}

/// One input: read, check the sequences' shape, write, read again, compare. Returns whether
/// the text read (false: it threw parse_error).
inline bool sequences_csv_round_trip(std::string_view bytes) {
    std::vector<ActionObservationSequence> first;
    try {
        std::istringstream in{std::string(bytes)};
        first = read_sequences_csv(in, "fuzz");
    } catch (const parse_error&) {
        return false;
    }
    for (const ActionObservationSequence& s : first) {
        require_sequences(!s.id.empty() && s.id.find(',') == std::string::npos);
        require_sequences(s.observations.size() == s.actions.size() + 1);
    }
    std::ostringstream out;
    write_sequences_csv(out, first);
    std::istringstream again(out.str());
    std::vector<ActionObservationSequence> second;
    try {
        second = read_sequences_csv(again, "written");
    } catch (const parse_error&) {
        __builtin_trap();  // what the writer writes must read
    }
    require_sequences(second == first);
    return true;
}

}  // namespace maxent::fuzz
