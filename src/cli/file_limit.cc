#include "cli/file_limit.h"

#include <sys/resource.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <system_error>

#include <fmt/format.h>

#include "core/fd_limit.h"

namespace stampede::loadgen {
namespace {

constexpr std::uint64_t kDescriptorsPerWorker = 2;
constexpr std::uint64_t kDescriptorMargin = 32;

// The descriptors open in this process now (the folder listing them is not counted).
std::uint64_t open_descriptors() {
  std::error_code ec;
  std::uint64_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec)) {
    ++n;
  }
  return n > 0 ? n - 1 : 0;
}

// "-c 4000" or, for a shard, "-c 4000 (1000 of them in shard 1/4)".
std::string connections_text(const Config& config) {
  if (config.shard.whole()) return fmt::format("-c {}", config.concurrency);
  return fmt::format("-c {} ({} of them in shard {}/{})", config.concurrency,
                     config.shard.connections_of(config.concurrency), config.shard.index,
                     config.shard.count);
}

}  // namespace

std::uint64_t descriptors_needed(const Config& config, std::uint64_t open_now) {
  const std::uint64_t connections = config.shard.connections_of(config.concurrency);
  const std::uint64_t workers = std::min<std::uint64_t>(config.cores, connections);
  return open_now + connections + kDescriptorsPerWorker * workers + kDescriptorMargin;
}

Expected<void> check_file_limit(const Config& config, std::uint64_t open_now, FileLimit limit) {
  if (limit.unlimited) return {};
  const std::uint64_t needed = descriptors_needed(config, open_now);
  if (needed <= limit.soft) return {};
  return make_error(fmt::format(
      "{} needs about {} open files, more than this process may open ({}; hard limit {}): "
      "lower -c or raise the limit with ulimit -n",
      connections_text(config), needed, limit.soft, limit.hard));
}

Expected<void> fit_file_limit(const Config& config) {
  raise_fd_limit();
  rlimit limit{};
  if (getrlimit(RLIMIT_NOFILE, &limit) != 0) return {};
  FileLimit now;
  now.unlimited = limit.rlim_cur == RLIM_INFINITY;
  now.soft = static_cast<std::uint64_t>(limit.rlim_cur);
  now.hard = static_cast<std::uint64_t>(limit.rlim_max);
  return check_file_limit(config, open_descriptors(), now);
}

}  // namespace stampede::loadgen
