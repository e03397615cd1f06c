// TcpStream: net::Stream over a connected, non-blocking TCP socket that it owns. Each call is one
// system call (recv, send or sendmsg with MSG_NOSIGNAL, so a peer's reset is an EPIPE Error and
// never a SIGPIPE); error() is the errno of the last failed call.
#pragma once

#include <cstddef>

#include "net/fd.h"
#include "net/stream.h"

namespace stampede::net {

class TcpStream final : public Stream {
 public:
  explicit TcpStream(Fd fd) : fd_(std::move(fd)) {}

  int fd() const override { return fd_.get(); }
  IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) override {
    return kept(read_some(fd_.get(), buffer, capacity, n));
  }
  IoStatus write(const char* data, std::size_t length, std::size_t& n) override {
    return kept(write_some(fd_.get(), data, length, n));
  }
  IoStatus writev(const iovec* parts, int count, std::size_t& n) override;
  void shutdown_write() override;
  int error() const override { return error_; }

 private:
  // A call's status, with its errno kept for error().
  IoStatus kept(IoStatus status);

  Fd fd_;
  int error_ = 0;
};

}  // namespace stampede::net
