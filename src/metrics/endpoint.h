// MetricsEndpoint: a tiny HTTP/1.1 server for GET /metrics, on a thread of its own, so that a
// scrape never runs on (or waits for) a worker of the generator. Used by `--metrics-listen`
// (the generator and the lab); serve and the balancer answer /metrics on their own workers.
//
// Contracts:
// - start() binds before it returns (a bind failure is its error, worded once here) and then
//   serves until the endpoint is destroyed; the destructor stops and joins the thread.
// - `render` is called on the endpoint's thread, once per GET /metrics; it must be thread-safe
//   with respect to whatever it reads.
// - Every connection answers one request and is closed (Connection: close). GET and HEAD of
//   /metrics get 200; another path 404; another method 405 (Allow: GET, HEAD); a malformed head
//   400, a head over max_request_bytes 431, one whose bytes do not arrive within
//   request_timeout is closed (a slowloris holds one of max_clients slots for that long only).
//   Connections past max_clients are closed at once.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <thread>

#include "core/expected.h"
#include "net/fd.h"
#include "net/socket.h"

namespace stampede::metrics {

struct EndpointOptions {
  net::Address address;  // port 0: the kernel picks one (see MetricsEndpoint::address)
  std::chrono::milliseconds request_timeout{5000};  // accept to the response's last byte
  std::size_t max_request_bytes = 8192;
  std::size_t max_clients = 32;
};

class MetricsEndpoint {
 public:
  using Render = std::function<std::string()>;

  // "option: " prefixes the bind failure ("--metrics-listen: cannot listen on ...").
  static Expected<std::unique_ptr<MetricsEndpoint>> start(const EndpointOptions& options,
                                                          Render render, std::string_view option);
  ~MetricsEndpoint();
  MetricsEndpoint(const MetricsEndpoint&) = delete;
  MetricsEndpoint& operator=(const MetricsEndpoint&) = delete;

  // The bound address (the chosen port when 0 was asked for).
  const net::Address& address() const { return bound_; }
  // GET /metrics answered with 200 so far (any thread).
  std::uint64_t scrapes() const { return scrapes_.load(std::memory_order_acquire); }

 private:
  MetricsEndpoint(const EndpointOptions& options, Render render, net::Fd listener,
                  net::Address bound, net::Fd wake);
  void serve();

  EndpointOptions options_;
  Render render_;
  net::Fd listener_;
  net::Address bound_;
  net::Fd wake_;  // an eventfd: the destructor writes it to stop serve()
  std::atomic<std::uint64_t> scrapes_{0};
  std::thread thread_;
};

// "host:port" (port 0 allowed) into an address, resolved now; `option` names the flag in the
// error ("--metrics-listen: expected host:port, got 'x'").
Expected<net::Address> parse_listen_address(std::string_view option, std::string_view text);

}  // namespace stampede::metrics
