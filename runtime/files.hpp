// runtime/files.hpp — the output files of the programs, written safely: every file
// through "<file>.tmp" and a rename (write_file_atomically), and every experiment's folder
// replaced as one set (OutputFolder); and every file read back, as a bounded regular file
// (read_regular_file).
//
// One consistent set: a run first checks OUT and creates a hidden staging folder
// OUT/.<name>.partial-<pid> before any work, so a bad --out fails at once; it writes the
// whole set there, renders the plots there (a PNG is present only when gnuplot drew it from
// these files), and only then swaps the two folders in one atomic step
// (renameat2(RENAME_EXCHANGE); where the file system lacks it: OUT/<name> ->
// OUT/.<name>.old-<pid>, then staging -> OUT/<name>). A kill (even SIGKILL) or an error at any
// moment leaves OUT/<name> holding the complete previous set or the complete new one, never a
// mix; staging and old folders of dead processes are removed by the next run. The folder
// belongs to the program: what it may hold is ONE list, output_entries, through which the
// writers name their files (output_name) and which commit() checks the staged set against, so
// a program always takes its own previous set (learned/ included) for its own; an existing
// OUT/<name> holding anything else is refused; files added to it while a run goes on are moved
// into the new set at the swap, never deleted. A run holds OUT/.<name>.lock (flock) from the
// check to the swap, and a lock on its staging folder (then OUT/<name>) as long: a second run
// into the same folder meanwhile is refused, naming the first one's pid, even when the lock
// file was removed.
// Folder names come from safe_folder_name (no '.', '..', path separators or control characters).
#pragma once

#include <cstdio>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>


#include "maxent/core/error.hpp"
#include "maxent/core/read_file.hpp"

#include "text.hpp"

namespace maxent::programs {

/// An error writing an output file; the message names the path.
class output_error : public maxent::error {
public:
    using maxent::error::error;
};

/// An input file that cannot be read as one: not a regular file, larger than allowed, or
/// unreadable; the message names the path and why.
class input_error : public maxent::error {
public:
    using maxent::error::error;
};

/// The most bytes any file the programs read back may hold (runs.csv, visits.csv,
/// learning.csv, config.json, run-store files): a bound on the memory a read takes.
inline constexpr std::uintmax_t max_input_file_bytes = std::uintmax_t{1} << 31;

/// The bytes of `path`, which must be a regular file (a symbolic link to one is followed) of
/// at most `max_bytes`. Opened without blocking and checked on the open descriptor, so a
/// FIFO, a device such as /dev/zero, a directory or a socket is refused at once, never read
/// or waited on; a file that grows past `max_bytes` while read is refused too. Throws
/// input_error naming the path.
[[nodiscard]] std::string read_regular_file(const std::filesystem::path& path,
                                                   std::uintmax_t max_bytes = max_input_file_bytes);

// ---------------------------------------------------------------------------------------
// Atomic files
// ---------------------------------------------------------------------------------------

/// Writes `path` through `write(FILE*)` into "<path>.tmp", then renames it over `path`
/// (atomic on POSIX file systems). Throws output_error naming the path on any failure
/// (and removes the temporary file).
void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::FILE*)>& write);

inline void write_string_atomically(const std::filesystem::path& path, const std::string& text) {
    write_file_atomically(path, [&](std::FILE* f) { std::fwrite(text.data(), 1, text.size(), f); });
}

// ---------------------------------------------------------------------------------------
// The experiment's folder, replaced as a whole (see the header comment)
// ---------------------------------------------------------------------------------------

/// Everything a program may write into an experiment's folder: the ONE list of its outputs.
/// A file entry is a regular file of that name; a folder entry (`holds` set) is a folder of
/// regular files whose names end in `holds` (learned/<label>-seed<k>.pomdp). "<name>.tmp" of
/// each file is also ours (write_file_atomically). The writers name their files through
/// output_name(), which does not compile for a name missing here, and OutputFolder::commit()
/// refuses a staged set holding anything not listed here (a writer that bypassed it), so
/// whatever a run commits, the next run into the same folder recognises as its own.
struct OutputEntry {
    std::string_view name;
    std::string_view holds{};  ///< a folder's file suffix; empty for a file
};
inline constexpr OutputEntry output_entries[] = {
    {"config.json"}, {"runs.csv"},    {"summary.csv"}, {"curves.gp"},    {"curves.png"},   {"gnuplot.log"},
    {"bounds.csv"},  {"samples.csv"}, {"learning.csv"}, {"heatmap.csv"}, {"heatmap.gp"},  {"heatmap.png"},
    {"uniform.csv"}, {"visits.csv"},  {"final.csv"},   {"learned", ".pomdp"}};

/// `name`, checked at compile time to be one of output_entries (a file, or a folder entry).
consteval std::string_view output_name(std::string_view name) {
    for (const OutputEntry& e : output_entries)
        if (e.name == name) return name;
    throw "output_name: not one of output_entries; add it there (files.hpp)";
}

namespace detail {
/// Whether `f` is `name` or "<name>.tmp".
[[nodiscard]] constexpr bool is_name_or_tmp(std::string_view f, std::string_view name) {
    return f == name || (f.size() == name.size() + 4 && f.substr(0, name.size()) == name && f.substr(name.size()) == ".tmp");
}
/// Whether `f` ends in `suffix` (or "<suffix>.tmp") and has a stem.
[[nodiscard]] constexpr bool has_suffix_or_tmp(std::string_view f, std::string_view suffix) {
    if (f.size() > 4 && f.substr(f.size() - 4) == ".tmp") f.remove_suffix(4);
    return f.size() > suffix.size() && f.substr(f.size() - suffix.size()) == suffix;
}
}  // namespace detail

/// The entry of output_entries that the folder's entry `f` (a file name, no path) is, if any.
[[nodiscard]] constexpr const OutputEntry* output_entry(std::string_view f) {
    for (const OutputEntry& e : output_entries)
        if (e.holds.empty() ? detail::is_name_or_tmp(f, e.name) : f == e.name) return &e;
    return nullptr;
}

/// Why the entry `path` of an experiment's folder is not one of the program's outputs, or ""
/// when it is (a listed file that is a regular file; a listed folder holding only regular
/// files with its suffix).
[[nodiscard]] std::string not_owned_reason(const std::filesystem::path& path);

/// A folder name for `name` (e.g. a model file's stem): every '/', '\\' and control character
/// becomes '_', leading dots are dropped (so never ".", ".." or a hidden name), and an empty
/// result becomes `fallback`. "...pomdp"'s stem ".." gives `fallback`; "tiger.95" stays.
[[nodiscard]] std::string safe_folder_name(std::string_view name, std::string_view fallback = "model");

/// Creates the output directory `out` (and its parents) or throws output_error saying why
/// (e.g. "'runs.txt' exists and is not a directory", "Permission denied").
void create_output_directory(const std::filesystem::path& out);

/// One experiment's folder OUT/<name>, replaced as a whole: files are written into
/// staging() and commit() puts the set in place; a folder never committed is removed
/// (discard(), also by the destructor), leaving OUT/<name> as it was.
class OutputFolder {
public:
    OutputFolder() = default;

    /// Creates `final_dir`'s parent, checks `final_dir` (absent, or a folder holding only
    /// output_file_names), removes the staging and old folders of dead processes, and
    /// creates the staging folder, all before any work. Throws output_error naming the path
    /// and the system's reason.
    explicit OutputFolder(std::filesystem::path final_dir);
    OutputFolder(const OutputFolder&) = delete;
    OutputFolder& operator=(const OutputFolder&) = delete;
    OutputFolder(OutputFolder&& o) noexcept
        : final_(std::move(o.final_)),
          staging_(std::move(o.staging_)),
          lock_(std::move(o.lock_)),
          active_(std::exchange(o.active_, false)),
          lock_fd_(std::exchange(o.lock_fd_, -1)),
          staging_fd_(std::exchange(o.staging_fd_, -1)) {}
    OutputFolder& operator=(OutputFolder&& o) noexcept;
    ~OutputFolder() { discard(); }

    /// Where the files go until commit().
    [[nodiscard]] const std::filesystem::path& staging() const noexcept { return staging_; }
    /// OUT/<name>, where they are after commit() (the path to show the user).
    [[nodiscard]] const std::filesystem::path& path() const noexcept { return final_; }

    /// Puts the staged set in place of OUT/<name> and removes the previous set. Throws
    /// output_error (OUT/<name> then still holds the previous set, except after a failed
    /// second rename of the fallback, said in the message).
    void commit();

    /// Removes the staging folder (nothing committed). Never throws.
    void discard() noexcept;

private:
    /// After the swap: moves into the new set whatever the previous set held that is not
    /// maxent's (files a user added while the run went on are kept, never deleted), then
    /// removes the previous set. When an entry cannot be moved, the previous set stays, renamed
    /// OUT/<name>.previous-<pid> (not a folder the next run removes), and output_error says so.
    void retire_previous_set(const std::filesystem::path& previous);

    /// Takes OUT/.<name>.lock (flock, holding this process's pid) for the folder's lifetime, so
    /// that a second run into the same folder is refused while this one goes on; a lock of a
    /// dead process is free (the system drops it). Where the file system has no locks, nothing
    /// is refused.
    void lock(const std::filesystem::path& parent);

    /// Releases the lock and removes its file. Never throws.
    void unlock() noexcept;

    /// With the lock file held: refuses (releasing it) when another process still writes the
    /// folder although its lock file was removed (by hand, or a cleanup of hidden files): that
    /// process holds a lock on its staging folder OUT/.<name>.partial-<pid>, or on OUT/<name>
    /// itself between its swap and its release.
    void refuse_other_writer();

    /// Removes parent/.<name>.partial-<pid> and parent/.<name>.old-<pid> of processes that
    /// no longer exist (a concurrent run's folders are left alone).
    void remove_stale(const std::filesystem::path& parent) const;

    std::filesystem::path final_;
    std::filesystem::path staging_;
    std::filesystem::path lock_;
    bool active_ = false;
    int lock_fd_ = -1;
    int staging_fd_ = -1;  ///< the staging folder (then OUT/<name>), locked until unlock()
};

}  // namespace maxent::programs
