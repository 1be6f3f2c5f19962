// maxent/core/read_file.hpp — reading a whole input file safely: only a regular file, of
// bounded size, opened without blocking.
//
// A plain stream opened on a FIFO blocks forever (and a blocked open ignores Ctrl-C), and one
// opened on /dev/zero or an endless pipe fills memory. read_regular_file opens with O_NONBLOCK,
// checks the open descriptor (fstat) and refuses anything but a regular file (a symbolic link
// to one is followed) before reading a byte, and stops at `max_bytes`, also for a file that
// grows while it is read. Every file the library reads (sequence CSVs, POMDP files) and the
// programs' files go through it. Errors: file_read_error naming the path and why.
#pragma once

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "maxent/core/error.hpp"

namespace maxent {

/// A file that cannot be read as one: missing or unreadable, not a regular file, or larger
/// than allowed; the message names the path and why.
class file_read_error : public error {
public:
    using error::error;
};

/// The default bound on the bytes of a file read whole: 2 GiB.
inline constexpr std::uintmax_t max_read_file_bytes = std::uintmax_t{1} << 31;

/// The bytes of `path`, a regular file of at most `max_bytes` (this header's comment).
/// Throws file_read_error "cannot read '<path>': <why>".
[[nodiscard]] inline std::string read_regular_file(const std::filesystem::path& path,
                                                   std::uintmax_t max_bytes = max_read_file_bytes) {
    auto fail = [&](const std::string& why) {
        return file_read_error(detail::message("cannot read '", path.string(), "': ", why));
    };
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) throw fail(std::strerror(errno));
    struct FdCloser {
        int fd;
        ~FdCloser() { ::close(fd); }
    } closer{fd};
    struct stat st {};
    if (::fstat(fd, &st) != 0) throw fail(std::strerror(errno));
    if (!S_ISREG(st.st_mode)) {
        const char* kind = S_ISDIR(st.st_mode)    ? "a directory"
                           : S_ISFIFO(st.st_mode) ? "a FIFO (named pipe)"
                           : S_ISCHR(st.st_mode)  ? "a character device"
                           : S_ISBLK(st.st_mode)  ? "a block device"
                           : S_ISSOCK(st.st_mode) ? "a socket"
                                                  : "not a regular file";
        throw fail(detail::message("it is ", kind, ", not a regular file"));
    }
    const auto too_large = [&] { return fail(detail::message("it is larger than ", max_bytes, " bytes")); };
    if (static_cast<std::uintmax_t>(st.st_size) > max_bytes) throw too_large();
    std::string text(static_cast<std::size_t>(st.st_size), '\0');
    std::size_t used = 0;
    for (;;) {
        if (used == text.size()) {
            if (text.size() >= max_bytes) {  // at the limit: any further byte is one too many
                char extra = 0;
                const ssize_t n = ::read(fd, &extra, 1);
                if (n > 0) throw too_large();
                if (n == 0) break;
                if (errno == EINTR) continue;
                throw fail(std::strerror(errno));
            }
            text.resize(static_cast<std::size_t>(std::min<std::uintmax_t>(max_bytes, text.size() + 65536)));
        }
        const ssize_t n = ::read(fd, text.data() + used, text.size() - used);
        if (n == 0) break;
        if (n < 0) {
            if (errno == EINTR) continue;
            throw fail(std::strerror(errno));
        }
        used += static_cast<std::size_t>(n);
    }
    text.resize(used);
    return text;
}

}  // namespace maxent
