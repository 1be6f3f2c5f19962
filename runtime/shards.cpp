// runtime/shards.cpp — the bodies of shards.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "shards.hpp"

#include <algorithm>
#include <numeric>

namespace maxent::programs {

std::vector<std::size_t> assign_shards(const std::vector<std::uint64_t>& costs,
                                                            std::size_t count) {
    std::vector<std::size_t> order(costs.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return costs[a] > costs[b]; });
    std::vector<std::uint64_t> load(count, 0);
    std::vector<std::size_t> out(costs.size(), 0);
    for (const std::size_t j : order) {
        const std::size_t s = static_cast<std::size_t>(std::min_element(load.begin(), load.end()) - load.begin());
        out[j] = s;
        load[s] += costs[j];
    }
    return out;
}

std::vector<char> shard_selection(const std::vector<Curve>& curves, std::size_t seeds,
                                                       const ShardSpec& shard) {
    std::vector<std::uint64_t> costs;
    for (const Curve& c : curves)
        for (std::size_t i = 0; i < seeds; ++i) costs.push_back(run_cost(c));
    const std::vector<std::size_t> slice = assign_shards(costs, shard.count);
    std::vector<char> selected(costs.size());
    for (std::size_t j = 0; j < costs.size(); ++j) selected[j] = slice[j] + 1 == shard.index ? 1 : 0;
    return selected;
}

std::vector<std::string> without_shard(const std::vector<std::string>& args) {
    std::vector<std::string> out;
    for (std::size_t i = 0; i < args.size(); ++i) {
        if (args[i] == "--shard") {
            ++i;
            continue;
        }
        if (args[i].rfind("--shard=", 0) == 0) continue;
        out.push_back(args[i]);
    }
    return out;
}

std::string shard_section(std::string_view program, const ShardSpec& shard,
                                               const std::vector<std::string>& args, const ExperimentResult& r,
                                               const std::string& more) {
    std::string j = cat("{\"program\": ", json_string(program), ", \"index\": ", std::to_string(shard.index),
                        ", \"count\": ", std::to_string(shard.count), ", \"arguments\": [");
    for (std::size_t i = 0; i < args.size(); ++i) j += cat(i ? ", " : "", json_string(args[i]));
    j += "], \"runs\": [";
    bool first = true;
    for (const CurveRuns& c : r.curves)
        for (const SeedRun& run : c.runs) {
            if (!run.complete) continue;
            j += cat(first ? "" : ", ", "{\"curve\": ", json_string(c.curve.label), ", \"seed\": ",
                     std::to_string(run.seed), ", \"table_rows\": ", std::to_string(run.table_rows),
                     ", \"table_bytes\": ", std::to_string(run.table_bytes), "}");
            first = false;
        }
    j += "]";
    if (!more.empty()) j += cat(", ", more);
    return j + "}";
}

std::string shard_files_json(const std::filesystem::path& dir) {
    namespace fs = std::filesystem;
    std::vector<std::string> names;
    for (const fs::directory_entry& e : fs::directory_iterator(dir)) {
        const std::string f = e.path().filename().string();
        if (e.is_directory()) {
            for (const fs::directory_entry& g : fs::directory_iterator(e.path()))
                names.push_back(cat(f, "/", g.path().filename().string()));
        } else if (f != "config.json") {
            names.push_back(f);
        }
    }
    std::sort(names.begin(), names.end());
    std::string j = "{";
    for (std::size_t i = 0; i < names.size(); ++i)
        j += cat(i ? ", " : "", json_string(names[i]), ": \"", hex64(fnv1a64(read_regular_file(dir / names[i]))), "\"");
    return j + "}";
}

RunInfo with_shard_files(RunInfo info, const std::filesystem::path& dir) {
    for (auto& [name, value] : info.extra_fields)
        if (name == "shard" && !value.empty() && value.back() == '}') {
            value.pop_back();
            value += cat(", \"files\": ", shard_files_json(dir), "}");
        }
    return info;
}

void write_visits_csv(std::FILE* f, const ExperimentResult& r) {
    std::string chunk;
    chunk.append(visits_csv_header).append("\n");
    for (const CurveRuns& c : r.curves)
        for (const SeedRun& run : c.runs) {
            if (!run.complete) continue;
            for (std::size_t k = 0; k < run.visits.counts.size(); ++k) {
                chunk.append(c.curve.label).append(",");
                detail::append_uint(chunk, run.seed);
                chunk.append(",");
                detail::append_uint(chunk, run.visits.episodes);
                chunk.append(",");
                detail::append_g17(chunk, run.visits.mean_entropy);
                chunk.append(",");
                detail::append_uint(chunk, k);
                chunk.append(",");
                detail::append_uint(chunk, run.visits.counts[k]);
                chunk.append("\n");
                detail::flush_chunk(f, chunk);
            }
        }
    detail::flush_chunk(f, chunk, true);
}

WrittenFiles write_shard(OutputFolder& folder, const ExperimentResult& r, const RunInfo& info) {
    WrittenFiles w;
    w.dir = folder.path();
    if (r.complete_runs() == 0 && r.selected_runs() > 0) {
        folder.discard();
        return w;
    }
    const std::filesystem::path& dir = folder.staging();
    write_file_atomically(dir / output_name("runs.csv"), [&](std::FILE* f) { write_runs_csv(f, r); });
    if (has_learned_curves(r))
        write_file_atomically(dir / output_name("learning.csv"), [&](std::FILE* f) { write_learning_csv(f, r); });
    if (has_learned_curves(r)) write_learned_models(dir, r);
    if (r.settings.heatmap_episodes > 0)
        write_file_atomically(dir / output_name("visits.csv"), [&](std::FILE* f) { write_visits_csv(f, r); });
    write_string_atomically(dir / output_name("config.json"), config_json(r, with_shard_files(info, dir)));
    folder.commit();
    w.wrote = true;
    return w;
}

}  // namespace maxent::programs
