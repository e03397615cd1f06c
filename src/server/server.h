// The test server (`stampede serve`) as a library: start it in-process, learn its port, stop it.
//
// ServerOptions are checked once, by prepare() (server/plan.h); Server::start takes the plan
// and binds one SO_REUSEPORT listener per worker thread and runs the workers in the
// background; stop() (or the destructor) drains them and joins the threads. Every method is
// thread-safe. The generator's integration tests and the CLI both go through this API.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "core/expected.h"
#include "net/io_backend.h"

namespace stampede::server {

// What an instance at --max-connections does with one more connection (docs/serve.md).
enum class OverLimit {
  Queue,  // accept nothing: the kernel queues it, unanswered, until a slot frees (maxconn)
  Close,  // accept it and close it at once (nginx out of worker_connections): an end of stream
  Reset,  // accept it and reset it (a full backlog with tcp_abort_on_overflow): ECONNRESET
};

// Every option of `stampede serve`, typed. See docs/serve.md for the behaviour of each.
struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 7357;                 // 0: the kernel picks one; read it with port()
  std::chrono::nanoseconds delay{0};         // wait before answering each request
  int error_status = 0;                      // -e: answer with this status (0: none)
  double error_percent = 0;                  // -P: only this % of requests get the error
  int cores = 0;                             // worker threads; 0: half the cores, at least 1
  std::optional<std::string> body;           // -b; the default is "OK" or {"id":"NAME"}
  std::string body_file;                     // -f: the body is this file's content
  std::string id;                            // --id: x-instance header and JSON default body
  std::size_t max_header_bytes = 16 * 1024;  // request line + headers -> 431
  std::size_t max_uri_bytes = 8 * 1024;      // request target -> 414
  std::uint64_t max_body_bytes = std::uint64_t{64} << 20;  // request body -> 413
  std::chrono::nanoseconds idle_timeout = std::chrono::seconds(60);
  std::chrono::nanoseconds header_timeout = std::chrono::seconds(10);
  std::chrono::nanoseconds drain_timeout = std::chrono::seconds(5);  // bound on stop()
  std::string tls_cert_file;     // --tls-cert: serve TLS with this certificate chain (PEM)...
  std::string tls_key_file;      // --tls-key: ...and this key (PEM)
  bool tls_self_signed = false;  // --tls-self-signed: TLS with a throwaway certificate
  // --max-connections: client connections open at once, all workers together (HAProxy's
  // maxconn); 0: no cap but the descriptor limit. Past it `over_limit` decides: by default no
  // connection is accepted (they wait in the listen queue) until one closes.
  std::uint32_t max_connections = 0;
  // HTTP/2 on every connection: a plain one that starts with the client preface, a TLS one
  // too (ALPN offers "h2" first); false (--no-http2): HTTP/1.1 only, ALPN "http/1.1" only, and
  // a preface is an HTTP/1.1 request like any other (refused: 505).
  bool http2 = true;
  // --max-streams: HTTP/2 SETTINGS_MAX_CONCURRENT_STREAMS per connection, 1..10000.
  std::uint32_t max_streams = 128;
  OverLimit over_limit = OverLimit::Queue;     // --over-limit: what happens past max_connections
  net::IoBackend io = net::kDefaultIoBackend;  // --io: what each worker's loop waits with
};

// Counts since start, summed over the workers.
struct ServerTotals {
  std::uint64_t requests = 0;      // requests read in full, /count and /reset excluded
  std::uint64_t errors = 0;        // of those, answered with a status >= 400
  std::uint64_t bad_requests = 0;  // malformed or over a limit: 400/408/413/414/431/505
  std::uint64_t connections = 0;   // accepted and served (refused ones excluded)
  std::uint64_t refused = 0;       // closed or reset at --max-connections (--over-limit)
  std::int64_t service_ns = 0;     // summed service time of `requests` (read to written)
  std::int64_t elapsed_ns = 0;     // since start (until stop once stopped)

  double mean_service_ms() const {
    return requests == 0 ? 0.0 : static_cast<double>(service_ns) / 1e6 / requests;
  }
};

class Worker;
struct Shared;
struct ServerPlan;

class Server {
 public:
  // Binds, starts the workers and returns once every listener is accepting. It takes the plan
  // as prepare() (server/plan.h) made it and checks nothing again. Errors: the host does not
  // resolve, the address is unavailable or in use.
  static Expected<std::unique_ptr<Server>> start(ServerPlan plan);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // The bound port (the kernel's pick when options.port was 0).
  std::uint16_t port() const { return port_; }
  // Worker threads it runs (the resolved --cores).
  int workers() const;

  // A snapshot of the counters; cheap, for a once-a-second report.
  ServerTotals totals() const;
  // What GET /count reports: requests served since start or the last reset.
  std::uint64_t served() const;

  // Stops accepting, lets in-flight requests finish (at most options.drain_timeout), closes
  // every connection and joins the workers. Idempotent; returns the final totals.
  ServerTotals stop();

 private:
  Server(std::unique_ptr<Shared> shared, std::uint16_t port);

  std::unique_ptr<Shared> shared_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::vector<std::thread> threads_;
  std::uint16_t port_;
  std::int64_t started_ns_;
  std::atomic<std::int64_t> stopped_ns_{0};
  std::mutex stop_mutex_;
  bool stopped_ = false;
};

}  // namespace stampede::server
