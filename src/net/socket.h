// Socket helpers: addresses, listening, connecting and non-blocking I/O with a small vocabulary.
#pragma once

#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "core/expected.h"
#include "net/fd.h"

namespace stampede::net {

// The outcome of one non-blocking read or write (wrk's OK/ERROR/RETRY, plus end of stream).
enum class IoStatus { Done, WouldBlock, Eof, Error };

// An IPv4 or IPv6 socket address.
struct Address {
  sockaddr_storage storage{};
  socklen_t length = 0;

  const sockaddr* sa() const { return reinterpret_cast<const sockaddr*>(&storage); }
  int family() const { return storage.ss_family; }
  std::uint16_t port() const;
  void set_port(std::uint16_t port);
  bool is_loopback() const;
  // "127.0.0.1:80" or "[::1]:80".
  std::string to_string() const;
};

// Resolves `host` (a name or an IPv4/IPv6 literal, brackets allowed) and `port` with
// getaddrinfo; returns the first address. Blocking: call at start-up, never on a loop.
Expected<Address> resolve(std::string_view host, std::uint16_t port);

// Parses "host:port" ("[::1]:80" for IPv6) and resolves it.
Expected<Address> parse_host_port(std::string_view text);

struct ListenOptions {
  bool reuse_port = false;  // SO_REUSEPORT: several workers listen on one port
  int backlog = 4096;
};

// A non-blocking listening TCP socket bound to `address` (port 0 picks a free port).
Expected<Fd> listen_tcp(const Address& address, const ListenOptions& options = {});

// The local address a socket is bound to (e.g. to learn the port the kernel picked).
Expected<Address> local_address(int fd);

// Starts a non-blocking connect. On success the socket is connecting or connected; completion
// is signalled by EPOLLOUT and read with connect_result(). TCP_NODELAY is set. On an Error,
// errno is kept (from socket() or connect()).
Expected<Fd> connect_tcp(const Address& address);

// Whether `err` (from socket(), connect() or accept()) is this process or host running out of
// its own resources (descriptors, buffers, memory, local ports) rather than anything the peer
// did: EMFILE, ENFILE, ENOBUFS, ENOMEM, EADDRNOTAVAIL, EAGAIN.
bool is_local_resource_error(int err);

// After EPOLLOUT on a connecting socket: 0 when connected, else the errno (ECONNREFUSED, ...).
int connect_result(int fd);

// Accepts one connection, non-blocking and close-on-exec, with TCP_NODELAY set. Returns an
// invalid Fd with `status` WouldBlock when none is pending, Error (errno kept) on failure.
Fd accept_tcp(int listen_fd, IoStatus& status);

// One read()/write() call. `n` receives the byte count on Done; errno is kept on Error.
IoStatus read_some(int fd, char* buffer, std::size_t capacity, std::size_t& n);
IoStatus write_some(int fd, const char* data, std::size_t length, std::size_t& n);

// A short, stable name for an errno value as error codes are reported ("ECONNREFUSED").
std::string errno_name(int err);

}  // namespace stampede::net
