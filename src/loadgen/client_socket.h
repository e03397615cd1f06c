// ClientSocket: the generator's socket to the target, shared by the HTTP Connection and the
// WsClient: the non-blocking connect, the optional SecureChannel over the socket (https, wss,
// a tunnel through --proxy) and the reads and writes through it; and the reconnect timing both
// clients follow (backoff after failures, grace for the server's close).
//
// Thread: the worker's, only. Owned by its client, which keeps it across its sockets (so the
// channel keeps the TLS session to resume); the context outlives it.
#pragma once

#include <errno.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>

#include "loadgen/secure_channel.h"
#include "net/event_loop.h"
#include "net/fd.h"
#include "net/socket.h"

namespace stampede::loadgen {

struct ConnectionContext;

// Backoff after failures on a socket that never got an answer (refused, reset...): kBackoffBase
// doubling up to kBackoffMax, so a dead target does not spin a core.
inline constexpr std::int64_t kBackoffBaseNs = 10'000'000;
inline constexpr std::int64_t kBackoffMaxNs = 250'000'000;
// How long a client waits for the server to close after a response that ends the connection
// (or for the server's close frame), at most: the server closes first, so the TIME_WAIT is on
// its side.
inline constexpr std::int64_t kCloseGraceNs = 1'000'000'000;

// The wait before reconnecting after `failures` (>= 1) consecutive failures.
constexpr std::int64_t backoff_ns(std::uint32_t failures) {
  return std::min(kBackoffBaseNs << std::min<std::uint32_t>(failures - 1, 20), kBackoffMaxNs);
}
// The wait for the server's close: kCloseGraceNs, or the request timeout if shorter (0: none).
constexpr std::int64_t close_grace_ns(std::int64_t timeout_ns) {
  return timeout_ns > 0 ? std::min(timeout_ns, kCloseGraceNs) : kCloseGraceNs;
}

class ClientSocket {
 public:
  // `secure`: the socket's bytes go through a SecureChannel (its context.tls and
  // context.connect_request say what it does).
  ClientSocket(const ConnectionContext& context, bool secure);
  ClientSocket(const ClientSocket&) = delete;
  ClientSocket& operator=(const ClientSocket&) = delete;

  // Opens a socket to context.address (TCP_NODELAY), starts a non-blocking connect and
  // registers the socket once with the loop for `handler` (IN|OUT|RDHUP, edge-triggered) for
  // its whole life. start_ns: the client's mono_ns() just before the call, where the connect
  // time counts from. Returns 0, with `connected` true when the connect completed at once; else
  // the errno (ENOMEM when the channel could not be set up), the socket then being left for
  // close(). A connection is counted in the worker's stats, with its connect time, once it is
  // established (here, or by connect_result()), so a refused one is an error and not a
  // connection.
  int open(net::IoHandler& handler, std::int64_t start_ns, bool& connected);
  // After the socket of a connect in progress became writable: 0 (the connection is counted),
  // or the connect's error. Call once per connect.
  int connect_result();
  // When the current socket's TCP connection was established (mono_ns()); where its TLS
  // handshake time counts from.
  std::int64_t connected_ns() const { return connected_ns_; }
  // Closes the socket, which also removes it from epoll. `clean`: the channel keeps the
  // socket's TLS session for the next socket (see SecureChannel::close).
  void close(bool clean);
  bool is_open() const { return static_cast<bool>(fd_); }
  // The channel over the socket; null for a plain one.
  SecureChannel* channel() const { return channel_.get(); }

  // The socket's I/O: plain, or through the channel (one predictable branch per call).
  net::IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) {
    if (channel_) return channel_->read(buffer, capacity, n);
    return net::read_some(fd_.get(), buffer, capacity, n);
  }
  net::IoStatus write(const char* data, std::size_t length, std::size_t& n) {
    if (channel_) return channel_->write(data, length, n);
    return net::write_some(fd_.get(), data, length, n);
  }
  // After an Error: errno, or the channel's code.
  int error() const { return channel_ ? channel_->error() : errno; }

 private:
  // The connect is established: counts the connection and its connect time.
  void established();

  const ConnectionContext& context_;
  net::Fd fd_;
  std::int64_t start_ns_ = 0;      // the current socket's connect started
  std::int64_t connected_ns_ = 0;  // ...and was established
  std::unique_ptr<SecureChannel> channel_;
};

}  // namespace stampede::loadgen
