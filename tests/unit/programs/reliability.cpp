// tests/unit/programs/reliability.cpp (through test_programs.cpp) — what the programs read back
// and write when the input is hostile: tampered shards (counts, nesting, values), files that
// are not regular files, corrupt kept runs, files added to an output folder during a run, a
// second writer, and the command-line bounds (smoothing, sizes that overflow or exceed memory).
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "maxent/belief/learned/sequences.hpp"
#include "maxent/core/random.hpp"

#include "runtime/choices.hpp"
#include "runtime/cli.hpp"
#include "runtime/config_json.hpp"
#include "runtime/experiments.hpp"
#include "runtime/files.hpp"
#include "runtime/json.hpp"
#include "runtime/merge.hpp"
#include "runtime/results.hpp"
#include "runtime/run_store.hpp"
#include "runtime/runner.hpp"
#include "runtime/settings.hpp"
#include "runtime/shards.hpp"
#include "../../fuzz/shard_fuzz.hpp"

namespace test_reliability {

namespace mp = maxent::programs;
namespace fs = std::filesystem;

std::string slurp(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    std::ostringstream s;
    s << in.rdbuf();
    return s.str();
}

void spit(const fs::path& p, const std::string& text) {
    fs::remove(p);
    std::ofstream(p, std::ios::binary) << text;
}

/// `text` with the first `from` replaced by `to` (which must be there).
std::string replaced(std::string text, const std::string& from, const std::string& to) {
    const std::size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    return text.replace(at, from.size(), to);
}

/// `text` with field `field` (0-based) of line `line` (0-based) of a CSV set to `value`.
std::string with_field(const std::string& text, std::size_t line, std::size_t field, const std::string& value) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string l; std::getline(in, l);) lines.push_back(l);
    REQUIRE(line < lines.size());
    std::vector<std::string> fields;
    std::istringstream f(lines[line]);
    for (std::string x; std::getline(f, x, ',');) fields.push_back(x);
    REQUIRE(field < fields.size());
    fields[field] = value;
    std::string joined;
    for (std::size_t i = 0; i < fields.size(); ++i) joined += (i ? "," : "") + fields[i];
    lines[line] = joined;
    std::string out;
    for (const std::string& l : lines) out += l + "\n";
    return out;
}

/// What `f()` writes on stderr.
template <class F>
std::string stderr_of(F&& f) {
    std::fflush(stderr);
    const int saved = ::dup(2);
    std::FILE* tmp = std::tmpfile();
    REQUIRE(tmp != nullptr);
    ::dup2(::fileno(tmp), 2);
    f();
    std::fflush(stderr);
    ::dup2(saved, 2);
    ::close(saved);
    std::rewind(tmp);
    std::string out;
    for (int c; (c = std::fgetc(tmp)) != EOF;) out += static_cast<char>(c);
    std::fclose(tmp);
    return out;
}

struct Scratch {
    fs::path path;
    explicit Scratch(const std::string& tag) {
        path = fs::temp_directory_path() / ("maxent_reliability_" + tag + "_" + std::to_string(::getpid()));
        fs::remove_all(path);
        fs::create_directories(path);
    }
    ~Scratch() {
        std::error_code ec;
        fs::remove_all(path, ec);
    }
};

/// fig2a, MSE only, seeds 0 and 1, K = 3, N = 2, 2 heatmap episodes.
mp::Settings small_settings() {
    mp::Settings s;
    s.seeds = {0, 1};
    s.iterations = 3;
    s.batch = 2;
    s.objectives = std::vector<mp::Objective>{mp::Objective::mse};
    s.heatmap_episodes = 2;
    return s;
}

/// Shard 1/2 of small_settings() written under `out`, as maxent-paper --shard 1/2 writes it.
fs::path write_small_shard(const fs::path& out) {
    const mp::Experiment& e = *mp::find_experiment("fig2a");
    const mp::Settings s = small_settings();
    const mp::ShardSpec shard{1, 2};
    const std::vector<char> sel = mp::shard_selection(mp::make_curves(e, s), s.seeds.size(), shard);
    const mp::ExperimentResult r = mp::run_experiment(e, s, 1, nullptr, nullptr, nullptr, &sel);
    const std::vector<std::string> args{"fig2a", "--seeds", "0-1", "--iterations", "3", "--batch", "2",
                                        "--objectives", "mse", "--heatmap-episodes", "2", "--shard", "1/2"};
    mp::RunInfo info;
    info.extra_fields.emplace_back("shard", mp::shard_section("maxent-paper", shard, args, r));
    mp::OutputFolder folder(out / "fig2a.shard-1-of-2");
    REQUIRE(mp::write_shard(folder, r, info).wrote);
    return out / "fig2a.shard-1-of-2";
}

TEST_CASE("merge refuses a shard whose counts are impossible, and JSON nested too deep", "[shards][reliability]") {
    Scratch d("counts");
    const fs::path dir = write_small_shard(d.path);
    const fs::path cfg = dir / "config.json";
    const std::string good = slurp(cfg);
    REQUIRE(mp::read_shard_folder(dir, "maxent-paper").runs.size() == 1);
    const std::vector<std::pair<std::string, std::string>> cases{
        {"\"count\": 2", "\"count\": 0"},
        {"\"count\": 2", "\"count\": 1000000000000"},
        {"\"count\": 2", "\"count\": 18446744073709551615"},
        {"\"count\": 2", "\"count\": 18446744073709551616"},
        {"\"index\": 1", "\"index\": 3"},
        {"\"threads\": 1", "\"threads\": 1000000000000"},
        {"\"threads\": 1", "\"threads\": 0"},
        {"\"table_rows\": 0", "\"table_rows\": 18446744073709551615"}};
    for (const auto& [from, to] : cases) {
        INFO(to);
        spit(cfg, replaced(good, from, to));
        CHECK_THROWS_AS(mp::read_shard_folder(dir, "maxent-paper"), mp::merge_error);
    }
    spit(cfg, replaced(good, "\"count\": 2", "\"count\": 0"));
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"), Catch::Contains("shard.count"));
    spit(cfg, replaced(good, "\"count\": 2", "\"count\": 1000000000000"));
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"),
                      Catch::Contains("shard.count: 1000000000000 is larger than 100000"));

    // 200000 levels: refused at the 65th, with the byte, not a stack overflow.
    const std::string deep(200000, '[');
    CHECK_THROWS_WITH(mp::parse_json(deep, "deep.json"),
                      Catch::Contains("deep.json: not valid JSON (arrays and objects nested deeper than 64 levels "
                                      "at byte 64)"));
    spit(cfg, deep);
    CHECK_THROWS_AS(mp::read_shard_folder(dir, "maxent-paper"), mp::json_error);
    std::string nested = "1";
    for (int i = 0; i < 64; ++i) nested = "[" + nested + "]";
    CHECK(mp::parse_json(nested, "ok").kind == mp::Json::Kind::array);  // 64 levels read
}

TEST_CASE("merge refuses non-finite and impossible values, naming file, line and run", "[shards][reliability]") {
    Scratch d("values");
    const fs::path dir = write_small_shard(d.path);
    const fs::path runs = dir / "runs.csv", visits = dir / "visits.csv";
    const std::string good_runs = slurp(runs), good_visits = slurp(visits);
    const std::string run = "run (mse, seed ";
    struct Case {
        std::size_t field;
        std::string value, says;
    };
    for (const Case& c : std::vector<Case>{{4, "inf", "the feedback is 'inf'"},
                                           {4, "-inf", "the feedback is '-inf'"},
                                           {3, "1e300", "the true-state entropy is '1e300'"},
                                           {3, "-0.5", "the true-state entropy is '-0.5'"},
                                           {3, "nan", "the true-state entropy is 'nan'"},
                                           {5, "1e13", "the belief entropy sum is '1e13'"}}) {
        INFO(c.value);
        spit(runs, with_field(good_runs, 2, c.field, c.value));
        CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"),
                          Catch::Contains("runs.csv' line 3: " + run) && Catch::Contains("iteration 1: " + c.says));
    }
    spit(runs, good_runs);
    spit(visits, with_field(good_visits, 1, 5, "18446744073709551615"));
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"),
                      Catch::Contains("visits.csv' line 2: " + run) && Catch::Contains("count '18446744073709551615'"));
    spit(visits, with_field(good_visits, 1, 3, "nan"));
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"),
                      Catch::Contains("visits.csv' line 2") && Catch::Contains("mean true-state entropy is 'nan'"));
    spit(visits, with_field(good_visits, 1, 2, "0"));
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"), Catch::Contains("episodes is '0'"));
    spit(visits, good_visits);

    // A UTF-8 byte-order mark before a header is named, not shown as an invisible character.
    spit(runs, "\xEF\xBB\xBF" + good_runs);
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"),
                      Catch::Contains("runs.csv' line 1: a UTF-8 byte-order mark"));
    spit(runs, good_runs);
    CHECK(mp::read_shard_folder(dir, "maxent-paper").runs.size() == 1);
}

TEST_CASE("files that are not regular files are refused at once, never read or waited on", "[shards][reliability]") {
    Scratch d("special");
    const fs::path dir = write_small_shard(d.path);
    const fs::path runs = dir / "runs.csv";
    fs::copy_file(runs, d.path / "runs.csv.good");
    fs::remove(runs);
    fs::create_symlink("/dev/zero", runs);
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"),
                      Catch::Contains(runs.string()) && Catch::Contains("a character device, not a regular file"));
    fs::remove(runs);
    REQUIRE(::mkfifo(runs.c_str(), 0600) == 0);  // no writer: a blocking open would wait forever
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"), Catch::Contains("a FIFO (named pipe)"));
    fs::remove(runs);
    fs::create_directory(runs);
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"), Catch::Contains("a directory"));
    fs::remove(runs);
    // visits.csv present as a FIFO is refused too (not taken for absent).
    spit(runs, slurp(d.path / "runs.csv.good"));
    fs::remove(dir / "visits.csv");
    REQUIRE(::mkfifo((dir / "visits.csv").c_str(), 0600) == 0);
    CHECK_THROWS_WITH(mp::read_shard_folder(dir, "maxent-paper"),
                      Catch::Contains("visits.csv': it is a FIFO (named pipe), not a regular file"));

    // The size bound, on a small limit.
    spit(d.path / "eleven", "01234567890");
    CHECK(mp::read_regular_file(d.path / "eleven", 11) == "01234567890");
    CHECK_THROWS_WITH(mp::read_regular_file(d.path / "eleven", 10), Catch::Contains("larger than 10 bytes"));
    CHECK_THROWS_WITH(mp::read_regular_file(d.path / "absent"), Catch::Contains("No such file"));
}

TEST_CASE("a kept learned run keeps its final model's text, byte for byte", "[shards][reliability]") {
    Scratch d("model");
    const mp::RunStore store(d.path / "area", "b");
    mp::SeedRun run;
    run.seed = 1;
    run.complete = true;
    run.records = {{0.5, 0.25, 1.0}};
    run.fits = {maxent::FitRecord{}};
    run.visits = {2, {1, 3}, 0.5};
    // A POMDP file (a kept model must read as one) with a line that looks like a section.
    run.learned_model = "states: 2\nactions: 1\nobservations: 1\n# model 99\n\nT: 0\nidentity\nO: 0\nuniform\n";
    store.save("k", run);
    const auto back = store.load("k");
    REQUIRE(back);
    CHECK(back->learned_model == run.learned_model);
    CHECK(back->visits == run.visits);
    run.learned_model.clear();  // a run without a model has none after loading
    store.save("k", run);
    REQUIRE(store.load("k"));
    CHECK(store.load("k")->learned_model.empty());
}

TEST_CASE("a kept run's own measures of its final policy read back exactly, and bad ones are refused",
          "[shards][reliability]") {
    Scratch d("finals");
    const mp::RunStore store(d.path / "area", "b");
    mp::SeedRun run;
    run.seed = 3;
    run.complete = true;
    run.visits = {2, {1, 3}, 0.5};
    run.finals = {-2.7356481307964353, 0.1, 1.0 / 3.0};  // maxent-rescue's kNN entropies may be negative
    store.save("k", run);
    const auto back = store.load("k");
    REQUIRE(back);
    CHECK(back->finals == run.finals);  // bit for bit (%.17g)
    CHECK(back->visits == run.visits);
    const std::string good = "maxent-run 1\nkey k\nbuild b\nseed 3\ntable 0 0\nrecords 0\n";
    CHECK(mp::RunStore::parse_run(good + "finals 2\n1 -2.5\n", "k", "b")->finals == std::vector<double>{1.0, -2.5});
    CHECK_THROWS_WITH(mp::RunStore::parse_run(good + "finals 2\n1 x\n", "k", "b"), Catch::Contains("not 2 numbers"));
    CHECK_THROWS_WITH(mp::RunStore::parse_run(good + "finals 1\n1 2\n", "k", "b"), Catch::Contains("more than 1"));
    CHECK_THROWS_WITH(mp::RunStore::parse_run(good + "finals 1\ninf\n", "k", "b"), Catch::Contains("a final measure"));
    CHECK_THROWS_WITH(mp::RunStore::parse_run(good + "finals 9\n1\n", "k", "b"), Catch::Contains("bad 'finals'"));
}

TEST_CASE("a kept learned run whose model is lost or not a POMDP file is not reused", "[shards][reliability]") {
    Scratch d("lostmodel");
    const mp::RunStore store(d.path / "area", "b");
    const std::string key = "env|mbe|learned|L=2";  // a learned-belief run's key (run_key)
    mp::SeedRun run;
    run.seed = 1;
    run.complete = true;
    run.records = {{0.5, 0.25, 1.0}};
    run.fits = {maxent::FitRecord{}};
    run.learned_model = "states: 2\nactions: 1\nobservations: 1\nT: 0\nidentity\nO: 0\nuniform\n";
    store.save(key, run);
    REQUIRE(store.load(key));
    CHECK(store.load(key)->learned_model == run.learned_model);
    const fs::path file = store.file_of(key);
    std::string text;
    {
        std::ifstream in(file, std::ios::binary);
        text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    auto rewrite = [&](const std::string& t) { std::ofstream(file, std::ios::binary | std::ios::trunc) << t; };
    // The model's text corrupted (same length, so only reading it as a POMDP file can tell).
    std::string corrupt = text;
    corrupt.replace(corrupt.find("identity"), 8, "idxntity");
    rewrite(corrupt);
    CHECK_FALSE(mp::RunStore(d.path / "area", "b").load(key));
    CHECK_THROWS_WITH(mp::RunStore::parse_run(corrupt, key, "b"), Catch::Contains("the learned model"));
    // The model lost: the file cut before its "model" line.
    rewrite(text.substr(0, text.find("model ")));
    CHECK_FALSE(mp::RunStore(d.path / "area", "b").load(key));
    CHECK_THROWS_WITH(mp::RunStore::parse_run(text.substr(0, text.find("model ")), key, "b"),
                      Catch::Contains("no 'model' line"));
    // A model the format cannot hold is kept as "model 0" and reads back as none.
    run.learned_model.clear();
    store.save(key, run);
    REQUIRE(store.load(key));
    CHECK(store.load(key)->learned_model.empty());
}

TEST_CASE("a corrupt kept run is ignored, named, and trained again", "[shards][reliability]") {
    Scratch d("store");
    const mp::Experiment& e = *mp::find_experiment("fig2a");
    mp::Settings s = small_settings();
    s.seeds = {0};
    s.heatmap_episodes = 0;
    const mp::ExperimentResult first = mp::run_experiment(e, s, 1, nullptr, nullptr, nullptr, nullptr, nullptr);
    const std::string key = mp::run_key(e.env, mp::make_curves(e, s)[0], s, 0);
    const fs::path area = d.path / ".fig2a.runs";
    {
        const mp::RunStore saver(area, "b");
        (void)mp::run_experiment(e, s, 1, nullptr, nullptr, nullptr, nullptr, &saver);
    }
    const fs::path file = mp::RunStore(area, "b").file_of(key);
    const std::string good = slurp(file);
    REQUIRE(mp::RunStore(area, "b").load(key));
    for (std::size_t k = 0; k < 5; ++k) {
        std::string bad;
        std::string says;
        if (k == 0) bad = replaced(good, "records 3", "records 100000000000000"), says = "K = 3";
        if (k == 1) bad = good + "visits 2 0.5 1000000000000000\n0 1\n", says = "more than the counts line holds";
        if (k == 2) bad = good + "visits 2 0.5 2\n18446744073709551615 1\n", says = "visit counts summing to more";
        if (k == 3) {  // a nan record value
            const std::size_t at = good.find("records 3\n") + 10;
            bad = good.substr(0, at) + "nan" + good.substr(good.find(' ', at));
            says = "the true-state entropy";
        }
        if (k == 4) {
            fs::remove(file);
            REQUIRE(::mkfifo(file.c_str(), 0600) == 0);
            says = "a FIFO";
        } else {
            spit(file, bad);
        }
        INFO(says);
        const mp::RunStore store(area, "b");
        std::optional<mp::SeedRun> loaded;
        const std::string err = stderr_of([&] { CHECK_NOTHROW(loaded = store.load(key)); });
        CHECK_FALSE(loaded);
        CHECK_THAT(err, Catch::Contains("ignoring the kept run '" + file.string()) && Catch::Contains(says) &&
                            Catch::Contains("trained again"));
        // The rerun trains it again and gets the same run; the message is said once.
        mp::ExperimentResult again;
        const std::string err2 =
            stderr_of([&] { again = mp::run_experiment(e, s, 1, nullptr, nullptr, nullptr, nullptr, &store); });
        CHECK(err2.empty());  // said above, by this store, already
        CHECK(again.reused == 0);
        REQUIRE(again.curves[0].runs[0].complete);
        const auto& a = again.curves[0].runs[0].records;
        const auto& b = first.curves[0].runs[0].records;
        REQUIRE(a.size() == b.size());
        for (std::size_t i = 0; i < a.size(); ++i) CHECK(a[i].true_entropy == b[i].true_entropy);
        REQUIRE(slurp(file) == good);  // saved anew
    }
}

TEST_CASE("files added to the folder during a run are kept, and a second writer is refused", "[paper][reliability]") {
    Scratch d("foreign");
    const fs::path final_dir = d.path / "fig2a";
    {
        mp::OutputFolder f(final_dir);
        mp::write_string_atomically(f.staging() / "runs.csv", "old\n");
        f.commit();
    }
    {
        mp::OutputFolder f(final_dir);  // the run starts: the folder holds only maxent's files
        spit(final_dir / "notes.txt", "mine");  // added while it runs
        fs::create_directory(final_dir / "analysis");
        spit(final_dir / "analysis" / "a.txt", "also mine");
        mp::write_string_atomically(f.staging() / "runs.csv", "new\n");
        f.commit();
    }
    CHECK(slurp(final_dir / "runs.csv") == "new\n");
    CHECK(slurp(final_dir / "notes.txt") == "mine");
    CHECK(slurp(final_dir / "analysis" / "a.txt") == "also mine");

    const fs::path other = d.path / "fig2b";
    {
        mp::OutputFolder first(other);
        CHECK_THROWS_WITH(mp::OutputFolder(other),
                          Catch::Contains("another maxent process (pid " + std::to_string(::getpid()) + ")") &&
                              Catch::Contains(other.string()));
        mp::write_string_atomically(first.staging() / "runs.csv", "first\n");
        first.commit();
    }
    { mp::OutputFolder next(other); }  // free again once the first committed
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& x : fs::directory_iterator(d.path)) ++entries;
    CHECK(entries == 2);  // fig2a and fig2b: no lock, staging or old folder left
}

TEST_CASE("the command line refuses bad smoothing, overflowing integers and sizes beyond memory", "[paper][reliability]") {
    for (const char* bad : {"0", "-1", "1e308", "1e101", "inf", "nan"})
        CHECK_THROWS_WITH(mp::parse_command_line({"nosim2b", "--smoothing", bad}),
                          Catch::Contains("--smoothing: '" + std::string(bad) + "'"));
    CHECK_THROWS_WITH(mp::parse_command_line({"nosim2b", "--smoothing", "0"}), Catch::Contains("is not in (0, "));
    CHECK(mp::parse_command_line({"nosim2b", "--smoothing", "1e100"}).settings.learning.smoothing ==
          maxent::max_iohmm_smoothing);
    CHECK(mp::parse_command_line({"nosim2b", "--smoothing", "1e-300"}).settings.learning.smoothing == 1e-300);

    CHECK_THROWS_WITH(mp::parse_command_line({"--iterations", "99999999999999999999999"}),
                      Catch::Contains("--iterations: '99999999999999999999999' is too large") &&
                          Catch::Contains("does not even fit 64 bits"));
    CHECK_THROWS_WITH(mp::parse_command_line({"--seeds", "99999999999999999999999"}),
                      Catch::Contains("which does not fit 64 bits"));
    CHECK_THROWS_WITH(mp::parse_command_line({"--seeds", "0-99999999999999999999999"}),
                      Catch::Contains("which does not fit 64 bits"));
    CHECK(mp::seed_value("--seed", "18446744073709551615") == std::numeric_limits<std::uint64_t>::max());
    CHECK_THROWS_WITH(mp::seed_value("--seed", "18446744073709551616"), Catch::Contains("too large"));
    for (const char* bad : {" 5", "5 ", "+5", "-5", "5.0", ""})
        CHECK_THROWS_WITH(mp::parse_command_line({"--warmup", bad}), Catch::Contains("is not a positive integer"));

    CHECK_THROWS_WITH(mp::require_memory("--latent-states 30000", "the learned model", 1e30),
                      Catch::Contains("--latent-states 30000: the learned model would take at least") &&
                          Catch::Contains("GiB of memory, more than this machine's"));
    CHECK_NOTHROW(mp::require_memory("--latent-states 3", "the learned model", 1e3));
    CHECK(mp::iohmm_fit_bytes(30000, 4, 10, 25) > 2.8e10);  // 2 L^2 A doubles alone
}

TEST_CASE("a UTF-8 byte-order mark before the sequences' header is skipped", "[reliability]") {
    std::istringstream in("\xEF\xBB\xBFsequence,step,action,observation\na,1,0,1\na,2,,0\n");
    const auto seqs = maxent::read_sequences_csv(in, "bom.csv");
    REQUIRE(seqs.size() == 1);
    CHECK(seqs[0].observations.size() == 2);
    std::istringstream late("sequence,step,action,observation\n\xEF\xBB\xBF" "a,1,0,1\na,2,,0\n");
    CHECK_THROWS_AS(maxent::read_sequences_csv(late, "late.csv"), maxent::parse_error);  // only before the header
}

TEST_CASE("the shard readers' fuzzer: seeds, regressions and mutations read or throw maxent::error",
          "[shards][reliability]") {
    Scratch d("fuzz");
    const fs::path data = fs::path(MAXENT_TEST_DATA_DIR) / "shards";
    std::vector<std::string> inputs;
    for (const char* sub : {"seeds", "regressions"}) {
        REQUIRE(fs::is_directory(data / sub));
        for (const auto& entry : fs::directory_iterator(data / sub))
            if (entry.is_regular_file() && entry.path().filename() != "README.md") inputs.push_back(slurp(entry.path()));
    }
    REQUIRE(inputs.size() >= 15);
    auto feed = [&](const std::string& x) {
        maxent::fuzz::shard_input(reinterpret_cast<const std::uint8_t*>(x.data()), x.size(), d.path / "shard");
    };
    for (const std::string& x : inputs) feed(x);
    // What the fuzzer does, briefly: byte flips, truncations, repeated lines (fixed seed).
    maxent::DefaultRng g = maxent::stream(29, 0, 0);
    for (const std::string& x : inputs)
        for (int k = 0; k < 20; ++k) {
            std::string m = x;
            const std::size_t at = 1 + maxent::uniform_index(g, m.size() - 1);
            switch (k % 3) {
                case 0: m[at] = static_cast<char>(maxent::uniform_index(g, 256)); break;
                case 1: m.resize(at); break;
                default: m.insert(at, m.substr(at, 80)); break;
            }
            feed(m);
        }
}

}  // namespace test_reliability
