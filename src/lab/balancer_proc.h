// The balancer under test. The built-in one (`stampede balance`) and a --balancer-cmd are both
// child processes started for each run and stopped after it, through the same code; an external
// --balancer-url is only checked. Either way the lab learns where to send load, and fails with a
// message naming the balancer when it does not start or answers nothing.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "http/url.h"
#include "lab/config.h"
#include "lab/instances.h"
#include "lab/interrupt.h"
#include "lab/process.h"
#include "net/socket.h"

namespace stampede::lab {

inline constexpr std::int64_t kDefaultBackendTimeoutMs = 30000;

// What the placeholders of --balancer-cmd become for one run.
struct Placeholders {
  std::string strategy;        // {strategy}
  std::int64_t health_ms = 0;  // {health}
  int retries = 1;             // {retries}: the limit scenario's, else the built-in's default 1
  // {timeout}: the run's backend timeout (the hang's --backend-timeout), else the built-in
  // balancer's default, 30000.
  std::int64_t timeout_ms = kDefaultBackendTimeoutMs;
  std::uint16_t port = 0;  // {port}: where the balancer is to listen
  std::string dir;         // {dir}: the lab's scratch directory
  // {instances}: "a=127.0.0.1:P,b=..."; {addr:NAME}: "127.0.0.1:P"; {port:NAME}: "P".
  std::vector<std::pair<std::string, std::string>> instances;  // name, host:port
};

// Replaces the placeholders above in `command`; any other text, braces included (a shell's
// ${VAR}), is left as it is.
std::string substitute(std::string_view command, const Placeholders& values);

// Whether the lab can set the balancer's retries: the built-in one, or a command with {retries}.
bool varies_retries(const BalancerSpec& spec);
// Whether the lab can set the balancer's backend timeout (the hang's --backend-timeout): the
// built-in one, or a command with {timeout}.
bool varies_timeout(const BalancerSpec& spec);

// Parses /lb-stats in the shapes it is known in: stampede's {"backends": [{"name", "up"}]} and
// the guide's {"pool": [{"id", "up"}]}. Name -> up; empty when the body is neither.
std::map<std::string, bool> parse_up_flags(std::string_view body);

struct BalancerOptions {
  BalancerSpec spec;
  std::optional<http::Url> url;  // spec.url parsed (LabPlan::balancer_url); nullopt when not given
  std::string stampede_path;     // runs `balance` for the built-in balancer
  std::string work_dir;          // ready files and logs
};

// The protocol of the lab's first request through the balancer (start()): the run's own. An
// HTTP/2-only front (HAProxy's `bind ... proto h2`) answers no HTTP/1.1 request.
enum class ClientProtocol { Http1, H2c };

// Owned by the lab's main thread. The destructor stops a balancer still running.
class BalancerRunner {
 public:
  explicit BalancerRunner(BalancerOptions options) : options_(std::move(options)) {}
  ~BalancerRunner() { stop(); }
  BalancerRunner(const BalancerRunner&) = delete;
  BalancerRunner& operator=(const BalancerRunner&) = delete;

  // Starts the balancer for one run (the built-in one or CMD with `strategy` and `health`;
  // an external one is only checked), waits until it listens and answers a first GET / (in the
  // protocol set_protocol() gave), and
  // returns the URL to load. Fails naming what failed. `backend_timeout` (the hang scenario)
  // becomes the built-in balancer's --backend-timeout and a command's {timeout}.
  Expected<std::string> start(const std::string& strategy,
                              std::optional<std::chrono::milliseconds> health,
                              const InstancePool& pool, const Interrupt& interrupt,
                              std::optional<std::chrono::milliseconds> backend_timeout = {});
  // The built-in balancer's --retries (a command's {retries}) from the next start() on; nullopt:
  // the default, 1. An external balancer is as configured.
  void set_retries(std::optional<int> retries) { retries_ = retries; }
  // The protocol of start()'s first GET / from the next start() on (default HTTP/1.1).
  void set_protocol(ClientProtocol protocol) { protocol_ = protocol; }
  // Stops the process start() started (nothing for an external balancer).
  void stop();

  // The balancer's view of its backends (GET /lb-stats), when it gives one.
  std::map<std::string, bool> read_up_flags() const;

  // One line naming the balancer: "stampede balance (built-in)", "command: CMD", "URL".
  std::string describe() const;

 private:
  Expected<void> spawn(const std::string& strategy, std::chrono::milliseconds health,
                       std::optional<std::chrono::milliseconds> backend_timeout,
                       const InstancePool& pool, const Interrupt& interrupt);
  Expected<void> check_answers() const;
  // "the balancer at URL PROBLEM; its output: ...".
  Failure answer_failure(const std::string& problem) const;

  BalancerOptions options_;
  std::unique_ptr<Process> process_;
  net::Address address_;
  std::string url_;
  int generation_ = 0;
  std::optional<int> retries_;
  ClientProtocol protocol_ = ClientProtocol::Http1;
};

}  // namespace stampede::lab
