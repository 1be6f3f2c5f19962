// runtime/plots.cpp — the bodies of plots.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "plots.hpp"

#include <algorithm>
#include <cmath>
#include <sys/wait.h>
#include <unistd.h>

namespace maxent::programs {

std::string settings_line(const ExperimentResult& r, std::string_view separator) {
    const Settings& s = r.settings;
    std::string classes;
    std::vector<PolicyClass> seen;
    for (const CurveRuns& c : r.curves) {
        bool dup = false;
        for (const PolicyClass p : seen) dup = dup || p == c.curve.policy;
        if (dup) continue;
        seen.push_back(c.curve.policy);
        classes += cat(classes.empty() ? "" : "/", name_of(c.curve.policy));
    }
    const std::string seeds = cat(std::to_string(s.seeds.size()), s.seeds.size() == 1 ? " seed" : " seeds");
    return cat(classes, " policy; α = ", format_number(s.effective_alpha()), " (", name_of(s.step),
               " step), N = ", std::to_string(s.batch), ", K = ", std::to_string(s.iterations), ", ρ = ",
               format_number(s.rho), ", ", seeds, separator, name_of(s.estimator), " baseline, ", name_of(s.counting),
               " state counting");
}

PlotSpec plot_spec(const Experiment& e) {
    PlotSpec p;
    p.generator = cat("maxent-paper: ", e.name);
    p.subject = cat(e.name, " (", e.figure, "): ", e.env.describe());
    p.states = e.env.num_states();
    p.horizon = e.env.num_states();  // the grid worlds' horizon T = S
    p.plotted = e.plotted;
    return p;
}

std::string gnuplot_string(std::string_view s) {
    std::string out = "'";
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (ch == '\n')
            out += "'.\"\\n\".'";
        else if (ch == '\'')
            out += "''";
        else
            out += (c < 0x20 || c == 0x7f) ? '?' : ch;
    }
    return out + "'";
}

std::string gnuplot_comment_text(std::string_view s) {
    std::string out;
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        out += (c < 0x20 || c == 0x7f) ? '?' : ch;
    }
    return out;
}

std::vector<SummaryRow> moving_average(const std::vector<SummaryRow>& rows, std::size_t w) {
    const std::size_t n = rows.size();
    std::vector<SummaryRow> out = rows;
    if (w <= 1 || n == 0) return out;
    // Running sums of (mean, low, high): sum[k] holds rows 0 .. k-1.
    std::vector<double> m(n + 1, 0.0), lo(n + 1, 0.0), hi(n + 1, 0.0);
    for (std::size_t k = 0; k < n; ++k) {
        m[k + 1] = m[k] + rows[k].ci.mean;
        lo[k + 1] = lo[k] + rows[k].ci.low;
        hi[k + 1] = hi[k] + rows[k].ci.high;
    }
    for (std::size_t k = 0; k < n; ++k) {
        const std::size_t a = k >= (w - 1) / 2 ? k - (w - 1) / 2 : 0;
        const std::size_t b = std::min(n, k + w / 2 + 1);
        const auto count = static_cast<double>(b - a);
        out[k].ci.mean = (m[b] - m[a]) / count;
        out[k].ci.low = (lo[b] - lo[a]) / count;
        out[k].ci.high = (hi[b] - hi[a]) / count;
    }
    return out;
}

std::string distinct_colour(std::size_t wanted, std::vector<std::string>& used) {
    auto taken = [&](const std::string& c) { return std::find(used.begin(), used.end(), c) != used.end(); };
    for (std::size_t k = 0; k < 9; ++k) {
        const std::string c = plot_palette[(wanted + k) % 9];
        if (!taken(c)) return used.emplace_back(c);
    }
    for (std::size_t n = used.size();; ++n) {
        // hue h, saturation 0.55, value 0.8 or 0.55 (alternating), as RGB
        const double h = std::fmod(static_cast<double>(n) * 0.618033988749895, 1.0) * 6.0;
        const double v = n % 2 == 0 ? 0.8 : 0.55, sat = 0.55;
        const double c = v * sat, x = c * (1.0 - std::fabs(std::fmod(h, 2.0) - 1.0)), m = v - c;
        double rgb[3] = {0, 0, 0};
        const int sector = static_cast<int>(h);
        const double seq[6][3] = {{c, x, 0}, {x, c, 0}, {0, c, x}, {0, x, c}, {x, 0, c}, {c, 0, x}};
        for (int j = 0; j < 3; ++j) rgb[j] = seq[sector % 6][j] + m;
        char buf[8];
        std::snprintf(buf, sizeof buf, "#%02X%02X%02X", static_cast<unsigned>(std::lround(rgb[0] * 255.0)),
                      static_cast<unsigned>(std::lround(rgb[1] * 255.0)), static_cast<unsigned>(std::lround(rgb[2] * 255.0)));
        if (!taken(buf)) return used.emplace_back(buf);
    }
}

std::string gnuplot_script(const PlotSpec& p, const ExperimentResult& r,
                                                const std::vector<CurveSummary>& summary) {
    const std::size_t S = p.states;
    const auto quote = gnuplot_string;
    // Colour: Paul Tol's colour-blind-safe "muted" palette, nine colours distinguishable from
    // each other. With one curve per objective the colour is the objective's (mse, moe, mbe,
    // reg-mbe: the same in every figure; with learned beliefs, four colours further and
    // dashed); otherwise curve i takes colour i, and curves of one objective that differ in
    // noise σ or policy class also differ in dash type.
    // Every drawn curve has a colour of its own (distinct_colour): first each curve whose colour no
    // earlier curve wants keeps it, then a curve whose colour is taken (the second learner's curve
    // of one objective, or more than nine curves) takes the next free one.
    std::size_t per_objective = 0;  // curves per objective (noise levels x policy classes)
    for (const CurveRuns& c : r.curves)
        if (!c.curve.learned && c.curve.objective == r.curves.front().curve.objective) ++per_objective;
    std::vector<std::size_t> wanted(summary.size(), 0);
    std::vector<std::string> colours(summary.size()), used;
    std::vector<char> settled(summary.size(), 0);
    for (std::size_t i = 0; i < summary.size(); ++i) {
        const Curve& curve = r.curves[i].curve;
        // A learned-belief curve takes the colour four places after its objective's, dashed.
        const std::size_t slot = static_cast<std::size_t>(curve.objective) + (curve.learned ? 4 : 0);
        wanted[i] = per_objective == 1 ? slot % 9 : i % 9;
        const std::string c = plot_palette[wanted[i]];
        if (summary[i].rows.empty() || std::find(used.begin(), used.end(), c) != used.end()) continue;
        colours[i] = c;
        used.push_back(c);
        settled[i] = 1;
    }
    for (std::size_t i = 0; i < summary.size(); ++i)
        if (!settled[i] && !summary[i].rows.empty()) colours[i] = distinct_colour(wanted[i], used);
    const char* band_alpha = r.curves.size() > 4 ? "0.12" : "0.2";
    const std::size_t W = std::max<std::size_t>(1, p.smooth);

    std::string data, plots;
    std::size_t drawn = 0, bin = 1;
    for (std::size_t i = 0; i < summary.size(); ++i) {
        const CurveSummary& c = summary[i];
        if (c.rows.empty()) continue;
        bin = plot_bin_width(c.rows.size());
        const std::vector<SummaryRow> rows = W == 1 ? c.rows : moving_average(c.rows, W);
        const std::string block = cat("$curve", std::to_string(i));
        data += cat(block, " << EOD\n");
        for (std::size_t b = 0; b < rows.size(); b += bin) {
            const std::size_t end = std::min(rows.size(), b + bin);
            double x = 0, y = 0, lo = 0, hi = 0;
            for (std::size_t k = b; k < end; ++k) {
                x += static_cast<double>(rows[k].iteration);
                y += rows[k].ci.mean;
                lo += rows[k].ci.low;
                hi += rows[k].ci.high;
            }
            const auto n = static_cast<double>(end - b);
            char line[128];
            std::snprintf(line, sizeof line, "%.10g %.10g %.10g %.10g\n", x / n, y / n, lo / n, hi / n);
            data += line;
        }
        data += "EOD\n";
        const std::size_t secondary = per_objective == 0 ? 0 : i % per_objective;
        const Curve& curve = r.curves[i].curve;
        const std::string color = cat("rgb \"", colours[i], "\"");
        const std::string dash = cat(" dt ", std::to_string(curve.learned ? 2 : 1 + secondary % 5));
        plots += cat(drawn ? ", \\\n     " : "plot ", block, " using 1:3:4 with filledcurves lc ", color, " notitle");
        plots += cat(", \\\n     ", block, " using 1:2 with lines lw 1.8 lc ", color, dash, " title ",
                     quote(cat(c.label, "  (n = ", std::to_string(c.rows.front().ci.n), ")")));
        ++drawn;
    }
    if (drawn == 0) return {};

    const double logS = std::log(static_cast<double>(S));
    std::string ref_value, ref_title;
    char buf[96];
    if (p.plotted == Plotted::true_entropy) {
        ref_value = format_number(logS);
        std::snprintf(buf, sizeof buf, "log S = log %zu = %.3f", S, logS);
    } else {
        const double T = static_cast<double>(p.horizon);
        ref_value = format_number(T * logS);
        std::snprintf(buf, sizeof buf, "T log S = %zu log %zu = %.1f", p.horizon, S, T * logS);
    }
    ref_title = buf;
    plots += cat(", \\\n     ", ref_value, " with lines dt 2 lw 1.5 lc rgb \"black\" title ", quote(ref_title));
    for (const PlotSpec::Line& line : p.extra_lines)
        plots += cat(", \\\n     ", format_number(line.value), " with lines dt ", std::to_string(line.dash),
                     " lw 1.5 lc rgb \"#555555\" title ", quote(line.title));

    std::string g;
    g += cat("# Generated by ", gnuplot_comment_text(p.generator), ". Run inside this folder: gnuplot curves.gp\n");
    g += "# Data: per curve, bins of iterations: mean iteration, mean, ci_low, ci_high (means over the bin)\n";
    g += data;
    g += "set encoding utf8\n";
    g += "if (strstrt(GPVAL_TERMINALS, \"pngcairo\") > 0) {\n"
         "  set terminal pngcairo size 1200,760 enhanced font \"Sans,11\"\n"
         "} else {\n"
         "  set terminal png size 1200,760 enhanced\n"
         "}\n";
    g += "set output \"curves.png.tmp\"\n";
    std::string binning =
        bin == 1 ? std::string("every iteration")
                 : cat("each point the mean of ", std::to_string(bin), " iterations (all in summary.csv)");
    if (W > 1) binning = cat("moving average over ", std::to_string(W), " iterations, ", binning);
    const std::string title =
        cat(p.subject, "\n", settings_line(r, ",\n"), ";\nmean and 95% CI over seeds; ", binning);
    g += cat("set title ", quote(title), " noenhanced\n");
    g += "set xlabel \"iteration k\"\n";
    g += p.plotted == Plotted::true_entropy ? "set ylabel \"true-state entropy\"\n" : "set ylabel \"Σ_t H(b_t)\"\n";
    g += "set grid\n";
    // Inside the frame, where the curves are not: learning curves rise (bottom right is free),
    // Σ_t H(b_t) curves fall (top right); an opaque box keeps it readable over the bands.
    g += p.plotted == Plotted::true_entropy ? "set key inside right bottom vertical noenhanced opaque box\n"
                                            : "set key inside right top vertical noenhanced opaque box\n";
    g += cat("set style fill transparent solid ", band_alpha, " noborder\n");
    g += cat("set xrange [0:", std::to_string(r.settings.iterations > 1 ? r.settings.iterations - 1 : 1), "]\n");
    g += cat(plots, "\n");
    g += "set output\n";
    return g;
}

std::string shell_quote(const std::string& s) {
    std::string out = "'";
    for (const char c : s) {
        if (c == '\'')
            out += "'\\''";
        else
            out += c;
    }
    return out + "'";
}

PlotOutcome render_gnuplot(const std::filesystem::path& dir, std::string_view stem, bool render,
                                  const std::filesystem::path& shown, bool append_log) {
    const std::filesystem::path named = shown.empty() ? dir : shown;
    const std::string gp = cat(stem, ".gp"), png_name = cat(stem, ".png"), tmp_name = cat(stem, ".png.tmp");
    const std::filesystem::path png = dir / png_name;
    const std::string how = cat("cd ", shell_quote(named.string()), " && gnuplot ", gp, " && mv ", tmp_name, " ", png_name);
    if (!render) return {false, false, cat("plot skipped (--no-plot); draw it with: ", how)};
    if (!gnuplot_available())
        return {false, false,
                cat("gnuplot not found, so no ", png_name, " (the CSV files are written). Install it with "
                    "`apt-get install gnuplot-nox`, then run: ",
                    how)};
    const std::string cmd =
        cat("cd ", shell_quote(dir.string()), " && gnuplot ", gp, append_log ? " 2>>gnuplot.log" : " 2>gnuplot.log");
    const int status = std::system(cmd.c_str());
    const std::filesystem::path tmp = dir / tmp_name;
    std::error_code ec;
    if (status != 0 || !std::filesystem::exists(tmp, ec)) {
        std::filesystem::remove(tmp, ec);
        const std::string how_failed =
            status == -1 ? std::string("could not be started")
            : WIFEXITED(status) ? cat("exited with status ", std::to_string(WEXITSTATUS(status)))
            : WIFSIGNALED(status) ? cat("was killed by signal ", std::to_string(WTERMSIG(status)))
                                  : cat("failed (status ", std::to_string(status), ")");
        return {false, true,
                cat("gnuplot ", how_failed, ", so there is no ", png_name, "; see ", (named / "gnuplot.log").string())};
    }
    std::filesystem::rename(tmp, png, ec);
    if (ec) return {false, true, cat("cannot rename ", tmp.string(), " to ", png.string(), ": ", ec.message())};
    const std::filesystem::path log = dir / "gnuplot.log";
    if (std::filesystem::exists(log, ec) && std::filesystem::file_size(log, ec) == 0) std::filesystem::remove(log, ec);
    return {true, false, (named / png_name).string()};
}

PlotOutcome write_plot_script(const std::filesystem::path& dir, const std::string& script, bool render,
                                     const std::filesystem::path& shown) {
    if (script.empty()) return {false, false, "no complete run: nothing to plot"};
    write_string_atomically(dir / "curves.gp", script);
    return render_gnuplot(dir, "curves", render, shown);
}

}  // namespace maxent::programs
