#include "support/proc_stats.h"

#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <string>

#include "support/process.h"

namespace stampede::testing {

std::size_t fd_count(pid_t pid) {
  std::error_code ec;
  std::size_t n = 0;
  for (auto it = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++n;
  }
  return n;
}

long cpu_ms(pid_t pid) {
  const std::string stat = testing::read_file("/proc/" + std::to_string(pid) + "/stat");
  const std::size_t paren = stat.rfind(')');
  if (paren == std::string::npos) return 0;
  std::istringstream fields(stat.substr(paren + 2));
  std::string f;
  long ticks = 0;
  for (int i = 3; i <= 15 && fields >> f; ++i) {
    if (i == 14 || i == 15) ticks += std::stol(f);  // utime, stime
  }
  return ticks * 1000 / sysconf(_SC_CLK_TCK);
}

Memory memory(pid_t pid) {
  std::istringstream in(testing::read_file("/proc/" + std::to_string(pid) + "/status"));
  Memory m;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("VmRSS:", 0) == 0) m.rss_kib = std::stol(line.substr(6));
    if (line.rfind("VmHWM:", 0) == 0) m.hwm_kib = std::stol(line.substr(6));
  }
  return m;
}

}  // namespace stampede::testing
