// TestProxy: a small HTTP proxy for the --proxy tests. CONNECT host:port opens a tunnel; any
// other request (absolute-form target) is sent to the host it names with an origin-form request
// line, and the rest of the connection is relayed as it is. It records every first request
// line it saw. Blocking sockets, one thread per client; loopback only.
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace stampede::testing {

class TestProxy {
 public:
  // Listens on 127.0.0.1 (a free port). `refuse_connect`: answer CONNECT with 403.
  explicit TestProxy(bool refuse_connect = false);
  ~TestProxy();  // stops: closes every socket, joins every thread
  TestProxy(const TestProxy&) = delete;
  TestProxy& operator=(const TestProxy&) = delete;

  std::uint16_t port() const { return port_; }
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // The first request line of each client connection, in arrival order.
  std::vector<std::string> request_lines() const;
  // Success when `count` client connections came, each opening with `line`; otherwise a failure
  // that shows the lines that came.
  ::testing::AssertionResult saw(std::size_t count, const std::string& line) const;

 private:
  void accept_loop();
  void serve(int client);
  void track(int fd);

  bool refuse_connect_;
  int listener_ = -1;
  int stop_pipe_[2] = {-1, -1};
  std::uint16_t port_ = 0;
  mutable std::mutex mutex_;
  std::vector<std::string> lines_;
  std::vector<int> sockets_;  // every socket a client thread uses, shut down on stop
  std::vector<std::thread> threads_;
  std::thread acceptor_;
};

}  // namespace stampede::testing
