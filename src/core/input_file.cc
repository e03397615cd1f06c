#include "core/input_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace stampede {
namespace {

// Closes the descriptor on every return path.
struct FileCloser {
  int fd;
  ~FileCloser() { ::close(fd); }
};

std::string size_text(std::size_t bytes) {
  if (bytes % kMiB == 0) return std::to_string(bytes / kMiB) + " MiB";
  return std::to_string(bytes) + " bytes";
}

}  // namespace

Expected<std::string> read_input_file(const std::string& path, std::size_t max_bytes,
                                      std::string_view what) {
  auto fail = [&](const std::string& reason) {
    const std::string named = what.empty() ? "" : std::string(what) + " ";
    return make_error("cannot read " + named + "'" + path + "': " + reason);
  };
  // O_NONBLOCK: opening a FIFO that has no writer must not wait for one.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
  if (fd < 0) return fail(std::strerror(errno));
  FileCloser closer{fd};
  struct stat st {};
  if (::fstat(fd, &st) != 0) return fail(std::strerror(errno));
  if (S_ISDIR(st.st_mode)) return fail("is a directory");
  if (!S_ISREG(st.st_mode)) return fail("not a regular file");
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    return fail("larger than " + size_text(max_bytes));
  }
  // The size may change while we read (and is 0 for some files in /proc): read to the end, but
  // never more than the limit.
  std::string text;
  char chunk[65536];
  for (;;) {
    const ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail(std::strerror(errno));
    if (n == 0) break;
    if (text.size() + static_cast<std::size_t>(n) > max_bytes) {
      return fail("larger than " + size_text(max_bytes));
    }
    text.append(chunk, static_cast<std::size_t>(n));
  }
  return text;
}

}  // namespace stampede
