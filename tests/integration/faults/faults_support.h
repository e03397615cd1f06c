// Helpers for the fault-injection tests: stampede serve/balance as child processes (so /proc
// figures are per process), what /proc says about them (support/proc_stats.h),
// raw loopback sockets, one-shot HTTP exchanges and a fixed-rate run of the generator.
// Everything binds or connects to 127.0.0.1 and every wait is bounded.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "support/proc_stats.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::faults {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

using testing::cpu_ms;
using testing::fd_count;
using testing::memory;
using testing::Memory;

// `stampede SUBCOMMAND ARGS... --ready-file F` as a child, run through `launcher` when it is not
// empty (e.g. {"/usr/bin/prlimit", "--nofile=40:40"}: a program that execs the rest, so pid() is
// stampede's); port() is 0 when it did not start within 10 s. The destructor kills it.
class Stampede {
 public:
  explicit Stampede(std::vector<std::string> args, std::vector<std::string> launcher = {});
  ~Stampede();
  std::uint16_t port() const { return port_; }
  pid_t pid() const { return process_->pid(); }
  testing::ChildProcess& process() { return *process_; }
  std::string url(const std::string& path = "/") const;

 private:
  testing::TempDir dir_;
  std::unique_ptr<testing::ChildProcess> process_;
  std::uint16_t port_ = 0;
};

// A TCP connection to 127.0.0.1:port (blocking unless `nonblocking`); -1 on failure.
int connect_loopback(std::uint16_t port, bool nonblocking = false);

struct Reply {
  int status = 0;  // 0: no complete status line
  std::string head, body;
  std::string raw;  // every byte received
  std::string header(const std::string& lower_name) const;
};

// Sends `request` on a fresh connection and reads one response (framed by Content-Length,
// else by the close), giving up after `timeout`. nullopt when nothing arrived.
std::optional<Reply> exchange(std::uint16_t port, const std::string& request,
                              std::chrono::milliseconds timeout = 5000ms);
inline std::string get_request(const std::string& target) {
  return "GET " + target + " HTTP/1.1\r\nHost: x\r\n\r\n";
}

// Raises this process's RLIMIT_NOFILE soft limit to the hard one; returns the hard limit.
std::uint64_t raise_nofile();

// `stampede URL --rps R -t SECONDS -c C -k --json`: what the legitimate traffic saw.
struct RateFigures {
  bool ran = false;
  std::uint64_t total = 0, errors = 0;
  double p50_ms = 0, p99_ms = 0;
  double success_pct() const {
    return total == 0 ? 0 : 100.0 * static_cast<double>(total - errors) / total;
  }
  std::string text() const;
};
RateFigures run_rate(const std::string& url, int rps, int seconds, int connections = 10);

}  // namespace stampede::faults
