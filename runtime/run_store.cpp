// runtime/run_store.cpp — the run store's functions (run_store.hpp: RunCache, RunStore, the
// keys), compiled once, and the check of a kept learned model's text
// (check_learned_model_text), so that the headers do not include the POMDP file parser. It
// compiles in the runner's unity group, whose runner.cpp parses run_store.hpp anyway.
#include "run_store.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <sstream>
#include <unistd.h>

#include <string_view>

#include "maxent/model/pomdp_file.hpp"

namespace maxent::programs {

void check_learned_model_text(std::string_view text, std::string_view name) {
    (void)parse_pomdp(text, name);
}

}  // namespace maxent::programs

namespace maxent::programs {

std::string settings_key(const Curve& c, const Settings& s, std::uint64_t seed) {
    std::string k = cat("|", name_of(c.objective), "|", format_number(c.noise), "|", name_of(c.policy));
    k += cat("|K=", std::to_string(s.iterations), "|N=", std::to_string(s.batch), "|alpha=",
             format_number(s.effective_alpha()), "|rho=", format_number(s.rho), "|", name_of(s.estimator), "|",
             name_of(s.step), "|", name_of(s.counting), "|seed=", std::to_string(seed));
    if (c.learned) k += cat("|learned|", s.learning.key());
    if (c.learned && c.learner != "em") k += cat("|learner=", c.learner);
    if (c.learned && learner_selects(c.learner)) k += cat("|select_max=", std::to_string(s.learning.select_max_states));
    return k;
}

std::uint64_t fnv1a64(std::string_view bytes, std::uint64_t h) {
    for (const char ch : bytes) {
        h ^= static_cast<unsigned char>(ch);
        h *= 0x100000001b3ULL;
    }
    return h;
}

std::string hex64(std::uint64_t x) {
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(x));
    return buf;
}

}  // namespace maxent::programs

namespace maxent::programs {

std::filesystem::path RunStore::file_of(const std::string& key) const {
    char name[32];
    std::snprintf(name, sizeof name, "%016llx.run", static_cast<unsigned long long>(fnv1a64(key)));
    return dir_ / name;
}

std::optional<SeedRun> RunStore::load(const std::string& key) const {
    if (!enabled()) return std::nullopt;
    const std::filesystem::path file = file_of(key);
    std::error_code ec;
    if (std::filesystem::symlink_status(file, ec).type() == std::filesystem::file_type::not_found)
        return std::nullopt;
    try {
        return parse_run(read_regular_file(file), key, build_);
    } catch (const run_store_error& e) {
        warn(file, e.what());
    } catch (const input_error& e) {
        warn(file, e.what());
    }
    return std::nullopt;
}

std::optional<SeedRun> RunStore::parse_run(std::string_view text, const std::string& key,
                                                      const std::string& build) {
    std::size_t pos = 0, line_no = 0;
    std::string_view line;
    auto next = [&]() -> bool {
        if (pos >= text.size()) return false;
        std::size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        line = text.substr(pos, end - pos);
        pos = end + 1;
        ++line_no;
        return true;
    };
    auto remaining = [&] { return pos >= text.size() ? std::size_t{0} : text.size() - pos; };
    auto bad = [&](std::string_view why) -> run_store_error {
        return run_store_error(cat("line ", std::to_string(line_no), ": ", why));
    };
    auto expect = [&](std::string_view prefix) -> std::string_view {
        if (!next() || line.substr(0, prefix.size()) != prefix) throw bad(cat("expected '", prefix, "'"));
        return line.substr(prefix.size());
    };
    (void)expect("maxent-run 1");
    if (line != "maxent-run 1") throw bad("expected 'maxent-run 1'");
    if (expect("key ") != key || expect("build ") != build) return std::nullopt;
    SeedRun run;
    if (!parse_uint(expect("seed "), run.seed)) throw bad("bad seed");
    {
        const std::string_view t = expect("table ");
        const std::size_t space = t.find(' ');
        std::uint64_t rows = 0, bytes = 0;
        if (space == std::string_view::npos || !parse_uint(t.substr(0, space), rows) ||
            !parse_uint(t.substr(space + 1), bytes) || rows > max_kept_table_size || bytes > max_kept_table_size)
            throw bad(cat("bad table size '", t, "'"));
        run.table_rows = static_cast<std::size_t>(rows);
        run.table_bytes = static_cast<std::size_t>(bytes);
    }
    std::uint64_t count = 0;
    if (!parse_uint(expect("records "), count)) throw bad("bad record count");
    if (const auto k = iterations_of(key); k && count != *k)
        throw bad(cat(std::to_string(count), " records, but the run has K = ", std::to_string(*k), " iterations"));
    if (count > remaining() / 6)  // a record line holds at least "0 0 0\n"
        throw bad(cat(std::to_string(count), " records, more than the file holds"));
    run.records.reserve(static_cast<std::size_t>(count));
    for (std::uint64_t i = 0; i < count; ++i) {
        if (!next()) throw bad(cat("the file ends after ", std::to_string(i), " of ", std::to_string(count), " records"));
        IterationRecord r;
        double* fields[3] = {&r.true_entropy, &r.feedback, &r.belief_entropy_sum};
        const char* p = line.data();
        const char* end = line.data() + line.size();
        for (int f = 0; f < 3; ++f) {
            const auto res = std::from_chars(p, end, *fields[f]);
            if (res.ec != std::errc()) throw bad("not three numbers");
            p = res.ptr;
            if (f < 2) {
                if (p == end || *p != ' ') throw bad("not three numbers");
                ++p;
            }
        }
        if (p != end) throw bad("not three numbers");
        check_value(r.true_entropy, 0.0, max_run_value, "the true-state entropy", bad);
        check_value(r.feedback, -max_run_value, max_run_value, "the feedback", bad);
        check_value(r.belief_entropy_sum, 0.0, max_run_value, "the belief entropy sum", bad);
        run.records.push_back(r);
    }
    bool more = next();
    if (more && line.substr(0, 5) == "fits ") {  // learned-belief runs
        const std::string_view h = line.substr(5);
        const std::size_t space = h.find(' ');
        std::uint64_t n = 0;
        if (space == std::string_view::npos || !parse_uint(h.substr(0, space), n) ||
            !parse_double(h.substr(space + 1), run.truth_heldout))
            throw bad("bad 'fits' line");
        check_value(run.truth_heldout, -max_run_log_likelihood, max_run_log_likelihood, "the true model's held-out log-likelihood", bad,
                    true);
        if (n > remaining() / 12)  // a fit line holds at least "0 0 0 0 0 0\n"
            throw bad(cat(std::to_string(n), " fits, more than the file holds"));
        for (std::uint64_t i = 0; i < n; ++i) {
            if (!next()) throw bad("the file ends within the fits");
            std::istringstream f{std::string(line)};
            FitRecord r;
            int converged = 0;
            std::string train, heldout, rest;
            if (!(f >> r.iteration >> r.episodes >> r.em_iterations >> converged >> train >> heldout) ||
                (f >> rest) || !parse_double(train, r.train_log_likelihood) ||
                !parse_double(heldout, r.heldout_log_likelihood) || (converged != 0 && converged != 1))
                throw bad("not a fit");
            check_value(r.train_log_likelihood, -max_run_log_likelihood, max_run_log_likelihood, "the training log-likelihood", bad);
            check_value(r.heldout_log_likelihood, -max_run_log_likelihood, max_run_log_likelihood, "the held-out log-likelihood", bad, true);
            r.converged = converged != 0;
            run.fits.push_back(r);
        }
        more = next();
    }
    if (more && line.substr(0, 9) == "selected ") {  // runs of a learner that selects its size
        std::istringstream f{std::string(line.substr(9))};
        std::string alpha, rest;
        SelectedModel& m = run.selected;
        if (!(f >> m.latent_states >> alpha >> m.allocation >> m.candidates) || (f >> rest) ||
            !parse_double(alpha, m.pseudo_count) || m.latent_states == 0 || m.candidates == 0)
            throw bad("bad 'selected' line");
        check_value(m.pseudo_count, 0.0, max_run_value, "the selected pseudo-count", bad);
        more = next();
    }
    if (more && line.substr(0, 7) == "visits ") {  // heatmap counts
        const std::string_view h = line.substr(7);
        const std::size_t a = h.find(' ');
        const std::size_t b = a == std::string_view::npos ? a : h.find(' ', a + 1);
        std::uint64_t episodes = 0, states = 0;
        if (b == std::string_view::npos || !parse_uint(h.substr(0, a), episodes) ||
            !parse_double(h.substr(a + 1, b - a - 1), run.visits.mean_entropy) ||
            !parse_uint(h.substr(b + 1), states))
            throw bad("bad 'visits' line");
        if (episodes == 0 || episodes > max_kept_heatmap_episodes)
            throw bad(cat(std::to_string(episodes), " heatmap episodes, not in [1, ",
                          std::to_string(max_kept_heatmap_episodes), "]"));
        run.visits.episodes = static_cast<std::size_t>(episodes);
        check_value(run.visits.mean_entropy, 0.0, max_run_value, "the heatmap's mean entropy", bad);
        if (!next()) throw bad("no visit counts");
        if (states > (line.size() + 1) / 2)  // a count and a space each
            throw bad(cat(std::to_string(states), " states, more than the counts line holds"));
        run.visits.counts.reserve(static_cast<std::size_t>(states));
        std::uint64_t total = 0;
        std::size_t p = 0;
        for (std::uint64_t i = 0; i < states; ++i) {
            if (p > line.size()) throw bad(cat("fewer than ", std::to_string(states), " counts"));
            const std::size_t end = std::min(line.find(' ', p), line.size());
            std::uint64_t x = 0;
            if (!parse_uint(line.substr(p, end - p), x)) throw bad(cat("not ", std::to_string(states), " counts"));
            if (x > max_kept_run_visits - total)
                throw bad(cat("visit counts summing to more than ", std::to_string(max_kept_run_visits)));
            total += x;
            run.visits.counts.push_back(x);
            p = end + 1;
        }
        if (p < line.size() + 1) throw bad(cat("more than ", std::to_string(states), " counts"));
        more = next();
    }
    if (more && line.substr(0, 7) == "finals ") {  // measures of the final policy
        std::uint64_t n = 0;
        if (!parse_uint(line.substr(7), n) || !next() || n > (line.size() + 1) / 2) throw bad("bad 'finals'");
        std::size_t p = 0;
        for (std::uint64_t i = 0; i < n; ++i) {
            const std::size_t end = std::min(line.find(' ', p), line.size());
            double x = 0.0;
            if (p > line.size() || !parse_double(line.substr(p, end - p), x))
                throw bad(cat("not ", std::to_string(n), " numbers after 'finals'"));
            check_value(x, -max_run_value, max_run_value, "a final measure", bad);
            run.finals.push_back(x);
            p = end + 1;
        }
        if (p < line.size() + 1) throw bad(cat("more than ", std::to_string(n), " numbers after 'finals'"));
        more = next();
    }
    const bool learned = key.find("|learned|") != std::string::npos;
    if (more && line.substr(0, 6) == "model ") {  // the final learned model's POMDP text
        std::uint64_t bytes = 0;
        if (!parse_uint(line.substr(6), bytes) || bytes > remaining()) throw bad("bad 'model' line");
        run.learned_model = std::string(text.substr(pos, static_cast<std::size_t>(bytes)));
        pos += static_cast<std::size_t>(bytes);
        if (!run.learned_model.empty()) {
            try {
                check_learned_model_text(run.learned_model, "the learned model");
            } catch (const maxent::error& e) {
                throw bad(e.what());
            }
        }
        more = false;
    } else if (learned) {
        throw bad("no 'model' line: a learned-belief run keeps its final learned model");
    }
    if (more || pos < text.size()) throw bad("unexpected text after the run");
    run.complete = true;
    return run;
}

void RunStore::save(const std::string& key, const SeedRun& run) const {
    if (!enabled() || !run.complete) return;
    std::error_code ec;
    std::filesystem::create_directories(dir_, ec);
    if (ec) throw run_store_error(cat("cannot create the work area '", dir_.string(), "': ", ec.message()));
    std::string text = cat("maxent-run 1\nkey ", key, "\nbuild ", build_, "\nseed ", std::to_string(run.seed),
                           "\ntable ", std::to_string(run.table_rows), " ", std::to_string(run.table_bytes),
                           "\nrecords ", std::to_string(run.records.size()), "\n");
    char buf[64];
    for (const IterationRecord& r : run.records) {
        const double v[3] = {r.true_entropy, r.feedback, r.belief_entropy_sum};
        for (int f = 0; f < 3; ++f) {
            const auto res = std::to_chars(buf, buf + sizeof buf, v[f], std::chars_format::general, 17);
            text.append(buf, res.ptr);
            text += f < 2 ? ' ' : '\n';
        }
    }
    if (!run.fits.empty()) {  // learned-belief runs only
        auto number = [&](double v) {
            const auto res = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::general, 17);
            return std::string(buf, res.ptr);
        };
        text += cat("fits ", std::to_string(run.fits.size()), " ", number(run.truth_heldout), "\n");
        for (const FitRecord& f : run.fits)
            text += cat(std::to_string(f.iteration), " ", std::to_string(f.episodes), " ",
                        std::to_string(f.em_iterations), " ", f.converged ? "1" : "0", " ",
                        number(f.train_log_likelihood), " ", number(f.heldout_log_likelihood), "\n");
    }
    if (run.selected.latent_states > 0) {  // runs of a learner that selects its size
        const auto res = std::to_chars(buf, buf + sizeof buf, run.selected.pseudo_count, std::chars_format::general, 17);
        text += cat("selected ", std::to_string(run.selected.latent_states), " ", std::string_view(buf, res.ptr), " ",
                    run.selected.allocation, " ", std::to_string(run.selected.candidates), "\n");
    }
    if (run.visits.episodes > 0) {  // heatmap counts
        const auto res = std::to_chars(buf, buf + sizeof buf, run.visits.mean_entropy, std::chars_format::general, 17);
        text += cat("visits ", std::to_string(run.visits.episodes), " ", std::string_view(buf, res.ptr), " ",
                    std::to_string(run.visits.counts.size()), "\n");
        for (std::size_t i = 0; i < run.visits.counts.size(); ++i)
            text += cat(i ? " " : "", std::to_string(run.visits.counts[i]));
        text += "\n";
    }
    if (!run.finals.empty()) {  // measures of the final policy
        text += cat("finals ", std::to_string(run.finals.size()), "\n");
        for (std::size_t i = 0; i < run.finals.size(); ++i) {
            const auto res = std::to_chars(buf, buf + sizeof buf, run.finals[i], std::chars_format::general, 17);
            text += cat(i ? " " : "", std::string_view(buf, res.ptr));
        }
        text += "\n";
    }
    if (key.find("|learned|") != std::string::npos || !run.learned_model.empty())  // learned-belief runs: the final model's POMDP text
        text += cat("model ", std::to_string(run.learned_model.size()), "\n", run.learned_model);
    const std::filesystem::path file = file_of(key);
    const std::filesystem::path tmp = cat(file.string(), ".tmp-", std::to_string(::getpid()));
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) throw run_store_error(cat("cannot open ", tmp.string(), " for writing: ", std::strerror(errno)));
    const bool written = std::fwrite(text.data(), 1, text.size(), f) == text.size();
    const bool closed = std::fclose(f) == 0;
    if (!written || !closed || std::rename(tmp.c_str(), file.c_str()) != 0) {
        const int err = errno;
        std::remove(tmp.c_str());
        throw run_store_error(cat("cannot write ", file.string(), ": ", std::strerror(err)));
    }
}

void RunStore::clear() const noexcept {
    if (!enabled()) return;
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
}

std::optional<std::uint64_t> RunStore::iterations_of(std::string_view key) {
    const std::size_t at = key.find("|K=");
    if (at == std::string_view::npos) return std::nullopt;
    const std::string_view rest = key.substr(at + 3);
    std::uint64_t k = 0;
    if (!parse_uint(rest.substr(0, rest.find('|')), k)) return std::nullopt;
    return k;
}

void RunStore::warn(const std::filesystem::path& file, std::string_view why) const {
    const std::lock_guard<std::mutex> lock(warned_->mutex);
    if (!warned_->files.insert(file.string()).second) return;
    std::fprintf(stderr, "maxent: ignoring the kept run '%s' (%s); the run is trained again\n", file.string().c_str(),
                 std::string(why).c_str());
}

bool RunStore::parse_uint(std::string_view s, std::uint64_t& out) {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

bool RunStore::parse_double(std::string_view s, double& out) {
    const auto r = std::from_chars(s.data(), s.data() + s.size(), out);
    return r.ec == std::errc() && r.ptr == s.data() + s.size();
}

}  // namespace maxent::programs
namespace maxent::programs {

const SeedRun* RunCache::find(const std::string& key) const {
    const auto it = runs_.find(key);
    return it == runs_.end() ? nullptr : &it->second;
}

}  // namespace maxent::programs
