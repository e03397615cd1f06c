#include "loadgen/client_socket.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "core/clock.h"
#include "loadgen/connection.h"

namespace stampede::loadgen {
namespace {

constexpr std::uint32_t kSocketEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;

}  // namespace

ClientSocket::ClientSocket(const ConnectionContext& context, bool secure) : context_(context) {
  if (secure) channel_ = std::make_unique<SecureChannel>(context);
}

// net::connect_tcp is not used because the errno of a failed connect is the error code reported.
int ClientSocket::open(net::IoHandler& handler, std::int64_t start_ns, bool& connected) {
  start_ns_ = start_ns;
  const net::Address& address = context_.address;
  fd_.reset(::socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd_) return errno;
  if (channel_ && !channel_->open(fd_.get())) return ENOMEM;
  int one = 1;
  ::setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const int rc = ::connect(fd_.get(), address.sa(), address.length);
  if (rc != 0 && errno != EINPROGRESS) return errno;
  if (!context_.loop->add(fd_.get(), kSocketEvents, &handler)) return errno;
  connected = rc == 0;
  if (connected) established();
  return 0;
}

void ClientSocket::close(bool clean) {
  if (!fd_) return;
  if (channel_) channel_->close(clean);
  // Removed before the close: an io_uring poll would keep the socket open (and unclosed for the
  // server) until the loop heard of its number again.
  context_.loop->remove(fd_.get());
  fd_.reset();
}

int ClientSocket::connect_result() {
  const int err = net::connect_result(fd_.get());
  if (err == 0) established();
  return err;
}

void ClientSocket::established() {
  connected_ns_ = mono_ns();
  context_.stats->add_connection(connected_ns_ - start_ns_);
}

}  // namespace stampede::loadgen
