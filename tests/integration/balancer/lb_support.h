// Helpers for the balancer's integration tests: a blocking HTTP client that sees every byte,
// a recording echo backend, backends as child processes, and a bounded closed-loop load.
// Everything binds port 0 on 127.0.0.1 and is bounded in time.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "balancer/balancer.h"
#include "net/fd.h"
#include "support/process.h"
#include "support/wait.h"

namespace stampede::balancer::testing {

using namespace std::chrono_literals;
using stampede::testing::eventually;

struct Response {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lower-cased; repeated ones joined ", "
  std::string body;
  std::string raw;  // every byte of the response as received

  std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? "" : it->second;
  }
};

// One blocking connection to 127.0.0.1:port, with a receive timeout.
class Client {
 public:
  explicit Client(std::uint16_t port, std::chrono::milliseconds timeout = 5000ms);
  bool connected() const { return fd_.valid(); }
  int fd() const { return fd_.get(); }  // for socket options and shutdown(); the Client owns it
  bool send(std::string_view bytes);
  // Reads one response (HEAD: `head_request` true). nullopt on timeout, error or EOF first.
  std::optional<Response> read_response(bool head_request = false);
  // Sends a GET (extra headers as "Name: value\r\n" lines) and reads the response.
  std::optional<Response> get(const std::string& target, const std::string& extra = "");
  // Sends `bytes` and reads one response (as read_response); nullopt when the send fails too.
  std::optional<Response> exchange(std::string_view bytes, bool head_request = false);
  // Reads until `marker` arrives; returns the bytes up to and including it (dropped from the
  // connection's pending input), nullopt on timeout or EOF.
  std::optional<std::string> read_until(std::string_view marker);
  bool wait_for(std::string_view marker) { return read_until(marker).has_value(); }
  // True when the peer closed the connection (EOF) within the timeout, reading past any data.
  bool closed_by_peer();

 private:
  net::Fd fd_;
  std::string pending_;  // bytes read past the last response
};

// A single request on a fresh connection.
std::optional<Response> http_get(std::uint16_t port, const std::string& target,
                                 const std::string& extra = "");

// An in-process backend that records every request it receives (raw bytes) and answers with
// the request body echoed back, x-instance: NAME, and whatever `extra_headers` says. It can
// stop (closing every connection) and start again on the same port. Thread per connection.
class EchoBackend {
 public:
  struct Options {
    std::string name = "echo";
    std::string extra_headers{};  // raw lines added to every response head
    bool chunked = false;         // answer with Transfer-Encoding: chunked
  };
  explicit EchoBackend(Options options);
  explicit EchoBackend(std::string name, std::string extra_headers = "", bool chunked = false)
      : EchoBackend(Options{std::move(name), std::move(extra_headers), chunked}) {}
  ~EchoBackend();
  bool start(std::uint16_t port = 0);  // port 0: a free one; then the same one again
  void stop();
  std::uint16_t port() const { return port_; }
  std::vector<std::string> requests() const;  // raw request bytes, in arrival order
  std::size_t request_count() const;
  std::size_t connection_count() const { return connections_.load(); }

 private:
  void accept_loop();
  void serve(int fd);

  Options options_;
  std::uint16_t port_ = 0;
  net::Fd listener_;
  std::thread acceptor_;
  std::atomic<bool> running_{false};
  std::atomic<std::size_t> connections_{0};
  mutable std::mutex mutex_;
  std::vector<std::string> requests_;
  std::vector<int> open_fds_;
  std::vector<std::thread> handlers_;
};

// `stampede serve --id NAME --port 0` as a child process (SIGKILL-able mid-run).
class ServeProcess {
 public:
  explicit ServeProcess(const std::string& id, const std::vector<std::string>& extra = {});
  std::uint16_t port() const { return port_; }
  stampede::testing::ChildProcess& process() { return *process_; }
  // GET /count on the instance: requests it served (nullopt when it does not answer).
  std::optional<std::uint64_t> served();

 private:
  std::unique_ptr<stampede::testing::ChildProcess> process_;
  std::uint16_t port_ = 0;
};

struct LoadOptions {
  int connections = 12;
  std::chrono::milliseconds duration = 2000ms;
  std::uint64_t max_requests = 0;  // 0: until duration
  std::string target = "/";
  // Extra header lines for connection i (e.g. a sticky session); empty for none.
  std::function<std::string(int)> headers;
  // Called once, from the load's own thread, after this long (e.g. to kill a backend).
  std::chrono::milliseconds event_at{0};
  std::function<void()> event;
};

struct LoadResult {
  std::uint64_t requests = 0;  // responses of any status, plus transport failures
  std::uint64_t ok = 0;        // 2xx
  std::uint64_t failed = 0;    // non-2xx responses and transport failures
  std::map<std::string, std::uint64_t> by_backend;                 // x-backend of 2xx responses
  std::map<std::string, std::uint64_t> by_status;                  // "200", "502", "transport"
  std::map<int, std::map<std::string, std::uint64_t>> by_session;  // connection -> backend
  std::uint64_t mismatched = 0;  // 2xx where x-backend != x-instance
};

// Options with the common fields set (designated initializers would leave the rest unnamed).
inline LoadOptions load(int connections, std::chrono::milliseconds duration,
                        std::uint64_t max_requests = 0) {
  LoadOptions o;
  o.connections = connections;
  o.duration = duration;
  o.max_requests = max_requests;
  return o;
}

// Closed-loop GET load, one keep-alive connection per thread, reconnecting after failures.
LoadResult run_load(std::uint16_t port, const LoadOptions& options);

BackendSpec spec(const std::string& name, std::uint16_t port);
BalancerConfig base_config(std::vector<BackendSpec> backends,
                           Strategy strategy = Strategy::RoundRobin);
std::unique_ptr<Balancer> start_balancer(const BalancerConfig& config);
// An EchoBackend (named "e" unless `options` say otherwise) behind a balancer of base_config over
// it alone, changed by `adjust`: the setup of the tests that speak to one backend through the
// balancer. Both stop when it goes out of scope.
struct EchoBehindBalancer {
  explicit EchoBehindBalancer(EchoBackend::Options options = {.name = "e"},
                              const std::function<void(BalancerConfig&)>& adjust = {});
  // Both started; a test failure is recorded when either did not.
  bool ok() const { return lb != nullptr; }
  std::uint16_t port() const { return lb->port(); }

  EchoBackend echo;
  std::unique_ptr<Balancer> lb;
};

// Backend `name`'s entry of /lb-stats (null when there is none).
nlohmann::json backend_stats(const Balancer& lb, const std::string& name);

}  // namespace stampede::balancer::testing
