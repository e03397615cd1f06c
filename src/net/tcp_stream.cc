#include "net/tcp_stream.h"

#include <errno.h>
#include <sys/socket.h>

#include "net/uring_channel.h"

namespace stampede::net {

TcpStream::~TcpStream() {
  if (channel_ != nullptr) loop_->close_channel(channel_);
}

void TcpStream::attach(EventLoop& loop) {
  if (channel_ != nullptr) return;
  loop_ = &loop;
  channel_ = loop.open_channel(fd_.get());
}

IoStatus TcpStream::channel_read(char* buffer, std::size_t capacity, std::size_t& n) {
  const IoStatus status = channel_->read(buffer, capacity, n);
  if (status == IoStatus::Error) error_ = channel_->error();
  return status;
}

IoStatus TcpStream::channel_write(const char* data, std::size_t length, std::size_t& n) {
  const IoStatus status = channel_->write(data, length, n);
  if (status == IoStatus::Error) error_ = channel_->error();
  return status;
}

IoStatus TcpStream::kept(IoStatus status) {
  if (status == IoStatus::Error) error_ = errno;
  return status;
}

IoStatus TcpStream::writev(const iovec* parts, int count, std::size_t& n) {
  if (channel_ != nullptr) {
    const IoStatus status = channel_->writev(parts, count, n);
    if (status == IoStatus::Error) error_ = channel_->error();
    return status;
  }
  msghdr message{};
  message.msg_iov = const_cast<iovec*>(parts);
  message.msg_iovlen = static_cast<std::size_t>(count);
  for (;;) {
    const ssize_t r = ::sendmsg(fd_.get(), &message, MSG_NOSIGNAL);
    if (r >= 0) {
      n = static_cast<std::size_t>(r);
      return IoStatus::Done;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return IoStatus::WouldBlock;
    error_ = errno;
    return IoStatus::Error;
  }
}

void TcpStream::shutdown_write() {
  if (channel_ != nullptr) {
    channel_->shutdown_write();
    return;
  }
  ::shutdown(fd_.get(), SHUT_WR);
}

}  // namespace stampede::net
