#include "net/tcp_stream.h"

#include <errno.h>
#include <sys/socket.h>

namespace stampede::net {

IoStatus TcpStream::kept(IoStatus status) {
  if (status == IoStatus::Error) error_ = errno;
  return status;
}

IoStatus TcpStream::writev(const iovec* parts, int count, std::size_t& n) {
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
  ::shutdown(fd_.get(), SHUT_WR);
}

}  // namespace stampede::net
