#include "core/ready_file.h"

#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fmt/format.h>

namespace stampede {

Expected<void> write_ready_file(const std::string& path, std::uint16_t port) {
  const std::string tmp = path + ".tmp";
  std::FILE* f = std::fopen(tmp.c_str(), "w");
  if (f == nullptr) {
    return make_error(
        fmt::format("--ready-file: cannot write '{}': {}", tmp, std::strerror(errno)));
  }
  const bool written = std::fprintf(f, "%u\n", static_cast<unsigned>(port)) > 0;
  const bool closed = std::fclose(f) == 0;
  if (!written || !closed || std::rename(tmp.c_str(), path.c_str()) != 0) {
    const int err = errno;
    std::remove(tmp.c_str());
    return make_error(fmt::format("--ready-file: cannot write '{}': {}", path, std::strerror(err)));
  }
  return {};
}

}  // namespace stampede
