#include "net/socket.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <unistd.h>

#include <cstring>

#include "core/units.h"

namespace stampede::net {
namespace {

std::string sys_error(const char* what) {
  return std::string(what) + ": " + std::strerror(errno);
}

void set_nodelay(int fd) {
  int one = 1;
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

}  // namespace

std::uint16_t Address::port() const {
  if (family() == AF_INET) return ntohs(reinterpret_cast<const sockaddr_in*>(&storage)->sin_port);
  if (family() == AF_INET6) {
    return ntohs(reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_port);
  }
  return 0;
}

void Address::set_port(std::uint16_t port) {
  if (family() == AF_INET) reinterpret_cast<sockaddr_in*>(&storage)->sin_port = htons(port);
  if (family() == AF_INET6) reinterpret_cast<sockaddr_in6*>(&storage)->sin6_port = htons(port);
}

bool Address::is_loopback() const {
  if (family() == AF_INET) {
    auto addr = ntohl(reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr.s_addr);
    return (addr >> 24) == 127;
  }
  if (family() == AF_INET6) {
    return IN6_IS_ADDR_LOOPBACK(&reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr);
  }
  return false;
}

std::string Address::to_string() const {
  char host[INET6_ADDRSTRLEN] = "?";
  if (family() == AF_INET) {
    inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(&storage)->sin_addr, host,
              sizeof host);
    return std::string(host) + ":" + std::to_string(port());
  }
  inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(&storage)->sin6_addr, host,
            sizeof host);
  std::string out = "[";  // built in steps: GCC 12 at -O3 warns on "[" + a + b (a false alarm)
  out += host;
  out += "]:";
  out += std::to_string(port());
  return out;
}

Expected<Address> resolve(std::string_view host_in, std::uint16_t port) {
  std::string host(host_in);
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  if (host.empty()) return make_error("empty host name");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* list = nullptr;
  std::string service = std::to_string(port);
  int rc = getaddrinfo(host.c_str(), service.c_str(), &hints, &list);
  if (rc != 0) return make_error("cannot resolve '" + host + "': " + gai_strerror(rc));
  Address out;
  std::memcpy(&out.storage, list->ai_addr, list->ai_addrlen);
  out.length = list->ai_addrlen;
  freeaddrinfo(list);
  return out;
}

Expected<Address> parse_host_port(std::string_view text) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon + 1 == text.size()) {
    return make_error("expected host:port, got '" + std::string(text) + "'");
  }
  std::string_view host = text.substr(0, colon);
  if (host.find(':') != std::string_view::npos && !(host.front() == '[' && host.back() == ']')) {
    return make_error("IPv6 addresses need brackets: '[::1]:80', got '" + std::string(text) + "'");
  }
  auto port = parse_count(text.substr(colon + 1));
  if (!port || *port > 65535) {
    return make_error("bad port in '" + std::string(text) + "'");
  }
  return resolve(host, static_cast<std::uint16_t>(*port));
}

Expected<Fd> listen_tcp(const Address& address, const ListenOptions& options) {
  Fd fd(socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) return make_error(sys_error("socket"));
  int one = 1;
  setsockopt(fd.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (options.reuse_port) setsockopt(fd.get(), SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
  if (bind(fd.get(), address.sa(), address.length) != 0) {
    return make_error("cannot listen on " + address.to_string() + ": " + std::strerror(errno));
  }
  if (listen(fd.get(), options.backlog) != 0) return make_error(sys_error("listen"));
  return fd;
}

Expected<Address> local_address(int fd) {
  Address out;
  out.length = sizeof out.storage;
  if (getsockname(fd, reinterpret_cast<sockaddr*>(&out.storage), &out.length) != 0) {
    return make_error(sys_error("getsockname"));
  }
  return out;
}

Expected<Fd> connect_tcp(const Address& address) {
  Fd fd(socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) {
    const int err = errno;
    Failure error = make_error(sys_error("socket"));
    errno = err;
    return error;
  }
  set_nodelay(fd.get());
  if (connect(fd.get(), address.sa(), address.length) != 0 && errno != EINPROGRESS) {
    const int err = errno;
    Failure error = make_error(errno_name(err));
    fd.reset();
    errno = err;
    return error;
  }
  return fd;
}

bool is_local_resource_error(int err) {
  // EAGAIN from a TCP connect(): no free local port (net.ipv4.ip_local_port_range exhausted).
  return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM ||
         err == EADDRNOTAVAIL || err == EAGAIN;
}

int connect_result(int fd) {
  int err = 0;
  socklen_t len = sizeof err;
  if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0) return errno;
  return err;
}

Fd accept_tcp(int listen_fd, IoStatus& status) {
  int fd = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
  if (fd < 0) {
    status = (errno == EAGAIN || errno == EWOULDBLOCK) ? IoStatus::WouldBlock : IoStatus::Error;
    return Fd();
  }
  set_nodelay(fd);
  status = IoStatus::Done;
  return Fd(fd);
}

IoStatus read_some(int fd, char* buffer, std::size_t capacity, std::size_t& n) {
  for (;;) {
    ssize_t r = ::read(fd, buffer, capacity);
    if (r > 0) {
      n = static_cast<std::size_t>(r);
      return IoStatus::Done;
    }
    if (r == 0) return IoStatus::Eof;
    if (errno == EINTR) continue;
    return (errno == EAGAIN || errno == EWOULDBLOCK) ? IoStatus::WouldBlock : IoStatus::Error;
  }
}

IoStatus write_some(int fd, const char* data, std::size_t length, std::size_t& n) {
  for (;;) {
    ssize_t r = ::send(fd, data, length, MSG_NOSIGNAL);
    if (r >= 0) {
      n = static_cast<std::size_t>(r);
      return IoStatus::Done;
    }
    if (errno == EINTR) continue;
    return (errno == EAGAIN || errno == EWOULDBLOCK) ? IoStatus::WouldBlock : IoStatus::Error;
  }
}

std::string errno_name(int err) {
  const char* name = strerrorname_np(err);
  if (name) return name;
  std::string out = "E";  // built in steps, as above
  out += std::to_string(err);
  return out;
}

}  // namespace stampede::net
