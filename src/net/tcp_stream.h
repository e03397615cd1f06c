// TcpStream: net::Stream over a connected, non-blocking TCP socket that it owns. Each call is one
// system call (recv, send or sendmsg with MSG_NOSIGNAL, so a peer's reset is an EPIPE Error and
// never a SIGPIPE); error() is the errno of the last failed call.
//
// attach(loop) on an io_uring loop gives it a UringChannel (uring_channel.h): reads come from
// the loop's multishot receive instead of recv, and writes go out as the loop's IORING_OP_SEND
// requests instead of send (Done once the channel has the bytes; WouldBlock beyond its cap until
// EPOLLOUT; shutdown_write() after the last of them). On epoll attach() does nothing, and read()
// and write() stay one inline system call behind one branch that never changes.
#pragma once

#include <cstddef>

#include "net/event_loop.h"
#include "net/fd.h"
#include "net/stream.h"

namespace stampede::net {

class TcpStream final : public Stream {
 public:
  explicit TcpStream(Fd fd) : fd_(std::move(fd)) {}
  // Attached to `loop` (see attach()).
  TcpStream(Fd fd, EventLoop& loop) : fd_(std::move(fd)) { attach(loop); }
  ~TcpStream() override;
  TcpStream(const TcpStream&) = delete;
  TcpStream& operator=(const TcpStream&) = delete;

  // Reads through `loop`'s receive channel where it has one. Once, on a connected socket (a
  // receive would take a failed connect's error from the socket before connect_result() can);
  // `loop` outlives the stream.
  void attach(EventLoop& loop);
  // Whether reads come from a channel, and the channel (tests look at what it holds).
  bool attached() const { return channel_ != nullptr; }
  const UringChannel* channel() const { return channel_; }

  int fd() const override { return fd_.get(); }
  IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) override {
    if (channel_ != nullptr) return channel_read(buffer, capacity, n);
    return kept(read_some(fd_.get(), buffer, capacity, n));
  }
  IoStatus write(const char* data, std::size_t length, std::size_t& n) override {
    if (channel_ != nullptr) return channel_write(data, length, n);
    return kept(write_some(fd_.get(), data, length, n));
  }
  IoStatus writev(const iovec* parts, int count, std::size_t& n) override;
  void shutdown_write() override;
  int error() const override { return error_; }

 private:
  // A call's status, with its errno kept for error().
  IoStatus kept(IoStatus status);
  IoStatus channel_read(char* buffer, std::size_t capacity, std::size_t& n);
  IoStatus channel_write(const char* data, std::size_t length, std::size_t& n);

  Fd fd_;
  int error_ = 0;
  EventLoop* loop_ = nullptr;
  UringChannel* channel_ = nullptr;
};

}  // namespace stampede::net
