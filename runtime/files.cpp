// runtime/files.cpp — the bodies of files.hpp's functions, compiled once into the runtime library (the
// header keeps their declarations and documentation).
#include "files.hpp"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

namespace maxent::programs {

std::string read_regular_file(const std::filesystem::path& path,
                                                   std::uintmax_t max_bytes) {
    try {
        return maxent::read_regular_file(path, max_bytes);  // the library's checked reader
    } catch (const maxent::file_read_error& e) {
        throw input_error(e.what());
    }
}

void write_file_atomically(const std::filesystem::path& path, const std::function<void(std::FILE*)>& write) {
    const std::filesystem::path tmp = path.string() + ".tmp";
    std::FILE* f = std::fopen(tmp.c_str(), "wb");
    if (f == nullptr) throw output_error(cat("cannot open ", tmp.string(), " for writing: ", std::strerror(errno)));
    static thread_local std::vector<char> buffer(1 << 20);
    std::setvbuf(f, buffer.data(), _IOFBF, buffer.size());
    try {
        write(f);
    } catch (...) {
        std::fclose(f);
        std::remove(tmp.c_str());
        throw;
    }
    errno = 0;
    bool ok = std::fflush(f) == 0 && std::ferror(f) == 0;
    int err = errno;
    if (std::fclose(f) != 0 && ok) {
        ok = false;
        err = errno;
    }
    if (!ok) {
        std::remove(tmp.c_str());
        throw output_error(cat("error while writing ", tmp.string(), ": ", err != 0 ? std::strerror(err) : "write error"));
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        err = errno;
        std::remove(tmp.c_str());
        throw output_error(cat("cannot rename ", tmp.string(), " to ", path.string(), ": ", std::strerror(err)));
    }
}

std::string not_owned_reason(const std::filesystem::path& path) {
    namespace fs = std::filesystem;
    const std::string f = path.filename().string();
    const OutputEntry* e = output_entry(f);
    std::error_code ec;
    const fs::file_status st = fs::symlink_status(path, ec);
    if (e == nullptr) return cat("'", f, "', which is not one of maxent's output files");
    if (e->holds.empty()) return fs::is_regular_file(st) ? std::string() : cat("'", f, "', which is not a regular file");
    if (!fs::is_directory(st)) return cat("'", f, "', which is not a folder");
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string g = it->path().filename().string();
        if (!detail::has_suffix_or_tmp(g, e->holds) || !fs::is_regular_file(it->symlink_status(ec)))
            return cat("'", f, "/", g, "', which is not one of maxent's output files");
    }
    if (ec) return cat("'", f, "', which cannot be read: ", ec.message());
    return {};
}

std::string safe_folder_name(std::string_view name, std::string_view fallback) {
    std::string out;
    for (const char ch : name) {
        const auto c = static_cast<unsigned char>(ch);
        if (out.empty() && ch == '.') continue;
        out += (ch == '/' || ch == '\\' || c < 0x20 || c == 0x7f) ? '_' : ch;
    }
    return out.empty() ? std::string(fallback) : out;
}

void create_output_directory(const std::filesystem::path& out) {
    std::error_code ec;
    if (std::filesystem::exists(out, ec) && !std::filesystem::is_directory(out, ec))
        throw output_error(cat("cannot use '", out.string(), "' as the output directory: ", std::strerror(ENOTDIR),
                               " (it exists and is not a directory)"));
    std::filesystem::create_directories(out, ec);
    if (ec) throw output_error(cat("cannot create the directory '", out.string(), "': ", ec.message()));
}

}  // namespace maxent::programs
namespace maxent::programs {

namespace {
/// not_owned_reason of the first entry of `dir` that is not a run's output, "" when none is;
/// output_error when `dir` cannot be read.
std::string first_not_owned(const std::filesystem::path& dir) {
    std::error_code ec;
    for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (std::string why = not_owned_reason(it->path()); !why.empty()) return why;
    if (ec) throw output_error(cat("cannot read the directory '", dir.string(), "': ", ec.message()));
    return {};
}
}  // namespace

OutputFolder::OutputFolder(std::filesystem::path final_dir) : final_(std::move(final_dir)) {
    namespace fs = std::filesystem;
    const fs::path parent = final_.parent_path().empty() ? fs::path(".") : final_.parent_path();
    create_output_directory(parent);
    lock(parent);
    try {  // a refused folder releases the lock
        std::error_code ec;
        const fs::file_status st = fs::symlink_status(final_, ec);
        if (fs::exists(st) || fs::is_symlink(st)) {
            if (fs::is_symlink(st))
                throw output_error(cat("cannot use '", final_.string(), "' as the experiment's folder: it is a "
                                       "symbolic link, and a run replaces the folder itself; give --out the "
                                       "directory it points into"));
            if (!fs::is_directory(st))
                throw output_error(cat("cannot use '", final_.string(), "' as the experiment's folder: ",
                                       std::strerror(ENOTDIR), " (it exists and is not a directory)"));
            if (const std::string why = first_not_owned(final_); !why.empty())
                throw output_error(cat("'", final_.string(), "' holds ", why,
                                       "; a run replaces the folder as a whole, so move it away or choose "
                                       "another --out"));
        }
        remove_stale(parent);
        staging_ = parent / cat(".", final_.filename().string(), ".partial-", std::to_string(::getpid()));
        fs::remove_all(staging_, ec);  // a leftover of an earlier process with our pid
        if (!fs::create_directory(staging_, ec) || ec)
            throw output_error(cat("cannot create the directory '", staging_.string(), "': ",
                                   ec ? ec.message() : std::string("it exists")));
        active_ = true;
        // The staging folder is locked too (and stays locked as OUT/<name> until the lock
        // is released): a second run whose lock file was removed meanwhile still sees us.
        staging_fd_ = ::open(staging_.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (staging_fd_ >= 0 && ::flock(staging_fd_, LOCK_EX | LOCK_NB) != 0) {
            ::close(staging_fd_);
            staging_fd_ = -1;
        }
    } catch (...) {
        unlock();
        throw;
    }
}

OutputFolder& OutputFolder::operator=(OutputFolder&& o) noexcept {
    if (this != &o) {
        discard();
        final_ = std::move(o.final_);
        staging_ = std::move(o.staging_);
        lock_ = std::move(o.lock_);
        active_ = std::exchange(o.active_, false);
        lock_fd_ = std::exchange(o.lock_fd_, -1);
        staging_fd_ = std::exchange(o.staging_fd_, -1);
    }
    return *this;
}

void OutputFolder::commit() {
    namespace fs = std::filesystem;
    if (!active_) throw output_error(cat("OutputFolder: nothing staged for '", final_.string(), "'"));
    std::error_code ec;
    // Only what output_entries lists, so that the next run into the folder takes it as its own.
    if (const std::string why = first_not_owned(staging_); !why.empty())
        throw output_error(cat("the set staged for '", final_.string(), "' holds ", why,
                               " (a writer that output_entries in files.hpp does not list); nothing "
                               "committed"));
    if (::rename(staging_.c_str(), final_.c_str()) == 0) {  // no previous set (or an empty folder)
        active_ = false;
        unlock();
        return;
    }
    int err = errno;
    if (err == ENOTEMPTY || err == EEXIST) {
        if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, final_.c_str(), RENAME_EXCHANGE) == 0) {
            active_ = false;
            retire_previous_set(staging_);
            return;
        }
        err = errno;
        if (err == EINVAL || err == ENOSYS) {  // no RENAME_EXCHANGE on this file system: two renames
            const fs::path old = staging_.parent_path() /
                                 cat(".", final_.filename().string(), ".old-", std::to_string(::getpid()));
            fs::remove_all(old, ec);
            if (::rename(final_.c_str(), old.c_str()) != 0) {
                err = errno;
            } else if (::rename(staging_.c_str(), final_.c_str()) != 0) {
                err = errno;
                if (::rename(old.c_str(), final_.c_str()) != 0)
                    throw output_error(cat("cannot rename '", staging_.string(), "' to '", final_.string(),
                                           "': ", std::strerror(err), "; the previous set is in '",
                                           old.string(), "'"));
            } else {
                active_ = false;
                retire_previous_set(old);
                return;
            }
        }
    }
    throw output_error(
        cat("cannot rename '", staging_.string(), "' to '", final_.string(), "': ", std::strerror(err)));
}

void OutputFolder::discard() noexcept {
    if (active_) {
        active_ = false;
        std::error_code ec;
        std::filesystem::remove_all(staging_, ec);
    }
    unlock();
}

void OutputFolder::retire_previous_set(const std::filesystem::path& previous) {
    namespace fs = std::filesystem;
    std::error_code ec;
    std::string failed;
    for (fs::directory_iterator it(previous, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string f = it->path().filename().string();
        const OutputEntry* e = output_entry(f);
        std::error_code ignored;
        const fs::file_status st = it->symlink_status(ignored);
        if (e != nullptr && !e->holds.empty() && fs::is_directory(st)) {  // ours: move on only what is not
            std::error_code sub;
            for (fs::directory_iterator jt(it->path(), sub), end2; !sub && jt != end2; jt.increment(sub)) {
                const std::string g = jt->path().filename().string();
                if (detail::has_suffix_or_tmp(g, e->holds) && fs::is_regular_file(jt->symlink_status(ignored)))
                    continue;
                fs::create_directory(final_ / f, ignored);
                if (::rename(jt->path().c_str(), (final_ / f / g).c_str()) != 0 && failed.empty())
                    failed = cat("'", f, "/", g, "': ", std::strerror(errno));
            }
            continue;
        }
        if (e != nullptr && e->holds.empty() && fs::is_regular_file(st)) continue;
        if (::rename(it->path().c_str(), (final_ / f).c_str()) != 0 && failed.empty())
            failed = cat("'", f, "': ", std::strerror(errno));
    }
    if (ec && failed.empty()) failed = ec.message();
    if (failed.empty()) {
        fs::remove_all(previous, ec);  // if this fails, the next run removes it
        unlock();
        return;
    }
    const fs::path kept = previous.parent_path() / cat(final_.filename().string(), ".previous-", std::to_string(::getpid()));
    const bool renamed = ::rename(previous.c_str(), kept.c_str()) == 0;
    unlock();
    throw output_error(cat("the new set is in '", final_.string(), "', but the previous set held files that are not "
                           "maxent's and could not be moved into it (", failed, "); they are in '",
                           (renamed ? kept : previous).string(), "'"));
}

void OutputFolder::lock(const std::filesystem::path& parent) {
    lock_ = parent / cat(".", final_.filename().string(), ".lock");
    for (int attempt = 0; attempt < 100; ++attempt) {
        const int fd = ::open(lock_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
        if (fd < 0)
            throw output_error(cat("cannot create the lock file '", lock_.string(), "': ", std::strerror(errno)));
        if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
            const int err = errno;
            if (err != EWOULDBLOCK) {  // no locks here: go on without
                ::close(fd);
                return;
            }
            char buf[32] = {};
            const ssize_t n = ::pread(fd, buf, sizeof buf - 1, 0);
            ::close(fd);
            std::string pid = n > 0 ? std::string(buf, static_cast<std::size_t>(n)) : std::string();
            while (!pid.empty() && (pid.back() == '\n' || pid.back() == ' ')) pid.pop_back();
            throw output_error(cat("another maxent process", pid.empty() ? std::string() : cat(" (pid ", pid, ")"),
                                   " is writing '", final_.string(), "' (it holds the lock '", lock_.string(),
                                   "'); wait for it to finish or choose another --out"));
        }
        struct stat held {}, named {};
        if (::fstat(fd, &held) == 0 && ::stat(lock_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
            held.st_dev == named.st_dev) {
            const std::string pid = cat(std::to_string(::getpid()), "\n");
            if (::ftruncate(fd, 0) != 0 || ::pwrite(fd, pid.data(), pid.size(), 0) < 0) {
            }  // the pid is only for the message of a refused run
            lock_fd_ = fd;
            refuse_other_writer();
            return;
        }
        ::close(fd);  // its holder removed the file meanwhile: take the new one
    }
}

void OutputFolder::unlock() noexcept {
    if (staging_fd_ >= 0) ::close(staging_fd_);
    staging_fd_ = -1;
    if (lock_fd_ < 0) return;
    struct stat held {}, named {};
    if (::fstat(lock_fd_, &held) == 0 && ::stat(lock_.c_str(), &named) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev)
        ::unlink(lock_.c_str());  // (a file someone put there after removing ours is not ours to remove)
    ::close(lock_fd_);
    lock_fd_ = -1;
}

void OutputFolder::refuse_other_writer() {
    namespace fs = std::filesystem;
    const fs::path parent = lock_.parent_path();
    const std::string prefix = cat(".", final_.filename().string(), ".partial-");
    auto held_by_other = [](const fs::path& dir) {
        const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) return false;
        const bool held = ::flock(fd, LOCK_EX | LOCK_NB) != 0 && errno == EWOULDBLOCK;
        ::close(fd);
        return held;
    };
    std::string other;
    std::error_code ec;
    for (fs::directory_iterator it(parent, ec), end; !ec && it != end && other.empty(); it.increment(ec)) {
        const std::string f = it->path().filename().string();
        if (f.size() <= prefix.size() || f.compare(0, prefix.size(), prefix) != 0) continue;
        const std::string digits = f.substr(prefix.size());
        if (digits == std::to_string(::getpid()) || digits.find_first_not_of("0123456789") != std::string::npos)
            continue;
        if (held_by_other(it->path())) other = cat(" (pid ", digits, ")");
    }
    if (other.empty() && !held_by_other(final_)) return;
    unlock();
    throw output_error(cat("another maxent process", other, " is writing '", final_.string(),
                           "' (it holds a lock on its folder, although the lock file '", lock_.string(),
                           "' was removed); wait for it to finish or choose another --out"));
}

void OutputFolder::remove_stale(const std::filesystem::path& parent) const {
    namespace fs = std::filesystem;
    const std::string name = final_.filename().string();
    std::error_code ec;
    std::vector<fs::path> stale;
    for (fs::directory_iterator it(parent, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string f = it->path().filename().string();
        for (const std::string_view kind : {".partial-", ".old-"}) {
            const std::string prefix = cat(".", name, kind);
            if (f.size() <= prefix.size() || f.compare(0, prefix.size(), prefix) != 0) continue;
            const std::string digits = f.substr(prefix.size());
            if (digits.find_first_not_of("0123456789") != std::string::npos || digits.size() > 9) continue;
            const auto pid = static_cast<pid_t>(std::stol(digits));
            if (pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH) stale.push_back(it->path());
        }
    }
    for (const fs::path& p : stale) fs::remove_all(p, ec);
}

}  // namespace maxent::programs
