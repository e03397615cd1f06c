// Transport: how a connection moves its bytes. Plain TCP here; TLS (tls_transport.h) behind the
// same calls (its handshake and records stay inside read/write, which may then report
// WouldBlock while the other direction is needed: the connection retries on both EPOLLIN and
// EPOLLOUT).
#pragma once

#include <sys/socket.h>

#include <cstddef>
#include <memory>

#include "net/fd.h"
#include "net/socket.h"

namespace stampede::server {

// Owned by one connection, used on its worker's thread only.
class Transport {
 public:
  virtual ~Transport() = default;
  virtual int fd() const = 0;
  virtual net::IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) = 0;
  virtual net::IoStatus write(const char* data, std::size_t length, std::size_t& n) = 0;
  // Sends the end of the stream (FIN; close_notify for TLS); reading may go on.
  virtual void shutdown_write() = 0;
};

class TcpTransport final : public Transport {
 public:
  explicit TcpTransport(net::Fd fd) : fd_(std::move(fd)) {}
  int fd() const override { return fd_.get(); }
  net::IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) override {
    return net::read_some(fd_.get(), buffer, capacity, n);
  }
  net::IoStatus write(const char* data, std::size_t length, std::size_t& n) override {
    return net::write_some(fd_.get(), data, length, n);
  }
  void shutdown_write() override { ::shutdown(fd_.get(), SHUT_WR); }

 private:
  net::Fd fd_;
};

inline std::unique_ptr<Transport> make_tcp_transport(net::Fd fd) {
  return std::make_unique<TcpTransport>(std::move(fd));
}

}  // namespace stampede::server
