#include "support/loopback.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <stdexcept>
#include <string>

namespace stampede::testing {

LoopbackListener listen_loopback(int backlog, int flags) {
  return listen_ipv4("127.0.0.1", backlog, flags);
}

LoopbackListener listen_ipv4(const char* address, int backlog, int flags) {
  LoopbackListener l;
  l.fd.reset(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC | flags, 0));
  if (!l.fd) throw std::runtime_error("socket failed");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  if (::inet_pton(AF_INET, address, &addr.sin_addr) != 1) {
    throw std::runtime_error(std::string("not an IPv4 address: ") + address);
  }
  socklen_t len = sizeof addr;
  if (::bind(l.fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
      ::listen(l.fd.get(), backlog) != 0 ||
      ::getsockname(l.fd.get(), reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    throw std::runtime_error(std::string("cannot listen on ") + address);
  }
  l.port = ntohs(addr.sin_port);
  return l;
}

std::uint16_t unused_loopback_port() {
  return listen_loopback(1).port;  // the listener closes here, and its port is free again
}

net::Fd accept_within(int listener, std::chrono::milliseconds timeout) {
  if (!wait_readable(listener, timeout)) return net::Fd();
  return net::Fd(::accept4(listener, nullptr, nullptr, SOCK_CLOEXEC));
}

net::Fd connect_loopback(std::uint16_t port) {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return fd;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return net::Fd();
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  return fd;
}

bool send_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

ssize_t recv_some(int fd, char* buffer, std::size_t capacity) {
  for (;;) {
    const ssize_t n = ::recv(fd, buffer, capacity, 0);
    if (n >= 0 || errno != EINTR) return n;
  }
}

bool wait_readable(int fd, std::chrono::milliseconds timeout) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(timeout.count())) > 0;
}

}  // namespace stampede::testing
