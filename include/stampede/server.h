// The test server (`stampede serve`) in-process, for tests: start it on a free port, load-test
// it, close it.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "stampede/error.h"

namespace stampede {
inline namespace api {

// The options of `stampede serve` (docs/serve.md).
struct ServerOptions {
  std::string host = "127.0.0.1";
  std::uint16_t port = 0;              // 0: a free port, read with ServerHandle::port()
  std::chrono::milliseconds delay{0};  // -d: wait before answering each request
  int error_status = 0;                // -e: answer with this status (0: none)
  double error_percent = 0;            // -P: only this % of requests get the error
  int cores = 1;                       // worker threads; 0: half the cores
  std::optional<std::string> body;     // -b; the default is "OK" or {"id":"NAME"}
  std::string id;                      // --id: x-instance header and default JSON body
};

// A running server. Movable; the destructor closes it.
class ServerHandle {
 public:
  ServerHandle(ServerHandle&&) noexcept;
  ServerHandle& operator=(ServerHandle&&) noexcept;
  ~ServerHandle();

  std::uint16_t port() const;
  // Stops accepting, lets requests in flight finish (a few seconds at most) and joins the
  // server's threads. Idempotent.
  void close();

  struct Impl;
  explicit ServerHandle(std::unique_ptr<Impl> impl);

 private:
  std::unique_ptr<Impl> impl_;
};

// Binds and returns once the server accepts. Throws stampede::Error for bad options or an
// address in use.
ServerHandle start_server(const ServerOptions& options);

}  // namespace api
}  // namespace stampede
