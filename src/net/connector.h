// Connector: how a client gets a net::Stream to a server. The one way every outgoing connection
// is made: a non-blocking connect to a resolved address, then, optionally, a CONNECT tunnel
// through a proxy, then, optionally, a TLS handshake (SNI, certificate check, the last session
// offered for resumption); what comes out is the Stream the client reads and writes.
//
//   open() -> [EPOLLOUT] connect_result() -> handshake() ... Done -> stream() carries bytes
//   -> close(clean) -> open() ...
//
// One Connector per client, kept across its sockets (it keeps the TLS session to resume). The
// TLS step is a SecureStep that the tls module implements (tls/client_step.h): net does not
// depend on tls, which is built on net. Connector is an interface so that a unit test can hand a
// client a stream that did not come from a socket (tests/support/test_stream.h); TcpConnector is
// the real one. Time is reported as mono_ns() readings (connected_ns()); what a client counts
// is its own business (the generator's WorkerStats, for instance).
//
// Thread: the owning worker's, only. The EventLoop and IoHandler given to open() outlive the
// socket; close() (or destroying the Connector) closes it, which also removes it from epoll.
#pragma once

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "net/event_loop.h"
#include "net/socket.h"
#include "net/stream.h"
#include "net/tcp_stream.h"

namespace stampede::net {

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

// The proxy refused the CONNECT tunnel (or answered something else than 2xx): the error() of a
// failed handshake(), in the errno space, above every errno Linux uses; it is among the TLS
// failure codes (tls/errors.h), whose names the reports use.
inline constexpr int kProxyConnectFailed = 244;

// The TLS step of a TcpConnector, one per connector (it keeps the session to resume between the
// connector's sockets). Implemented by tls::ClientStep.
class SecureStep {
 public:
  virtual ~SecureStep() = default;
  // A client TLS stream over `fd` (connecting or connected), owning it, with the server's name
  // and the session to resume set; the handshake runs in its handshake(). Null when out of
  // memory (the socket is closed then).
  virtual std::unique_ptr<Stream> wrap(Fd fd) = 0;
  // The handshake of the last stream wrap() returned resumed a session.
  virtual bool resumed() const = 0;
  // That stream is about to be destroyed. `clean`: it did its work (delivered its responses),
  // so its session is kept for the next wrap(); else the session is forgotten.
  virtual void release(bool clean) = 0;
};

class Connector {
 public:
  virtual ~Connector() = default;

  // Opens a socket (TCP_NODELAY), starts a non-blocking connect and registers the socket once
  // with `loop` for `handler` (IN|OUT|RDHUP, edge-triggered) for its whole life. start_ns: the
  // caller's mono_ns() just before the call. Returns 0, with `connected` true when the connect
  // completed at once; else the errno of the failed call (ENOMEM when the TLS stream could not
  // be made); a socket left behind is closed by close().
  virtual int open(EventLoop& loop, IoHandler& handler, std::int64_t start_ns, bool& connected) = 0;
  // After the socket of a connect in progress became writable: 0 when connected, else the
  // connect's errno. Call once per connect.
  virtual int connect_result() = 0;
  // When the current socket's TCP connection was established (mono_ns()).
  virtual std::int64_t connected_ns() const = 0;
  // Whether handshake() has work to do after the connect (a tunnel or TLS); fixed for the
  // connector's life. False: handshake() is Done at once and need not be called.
  virtual bool has_handshake() const = 0;
  // After the connect: advances the CONNECT exchange and the TLS handshake. Done once the
  // stream carries application bytes, WouldBlock (retry on either readiness), or Error
  // (error() says why: an errno, or a tls/errors.h code).
  virtual IoStatus handshake() = 0;
  virtual int error() const = 0;
  // The current socket's TLS handshake resumed the previous socket's session.
  virtual bool resumed() const = 0;
  // The current socket's stream, from open() to close(); null when there is none.
  virtual Stream* stream() = 0;
  // Closes the socket. `clean`: see SecureStep::release.
  virtual void close(bool clean) = 0;
};

// What a TcpConnector connects to.
struct ConnectorOptions {
  Address address;                  // the server's, or the proxy's when connect_request is set
  std::string connect_request;      // "CONNECT host:port HTTP/1.1..." sent first; empty: direct
  std::unique_ptr<SecureStep> tls;  // null: no TLS
};

// The real Connector: TCP (net::TcpStream), or TLS over it (the SecureStep's stream); the
// CONNECT exchange runs on the socket before any TLS byte. The plain stream lives inside the
// connector: a new socket allocates nothing.
class TcpConnector final : public Connector {
 public:
  explicit TcpConnector(ConnectorOptions options);
  ~TcpConnector() override;

  int open(EventLoop& loop, IoHandler& handler, std::int64_t start_ns, bool& connected) override;
  int connect_result() override;
  std::int64_t connected_ns() const override { return connected_ns_; }
  bool has_handshake() const override {
    return options_.tls != nullptr || !options_.connect_request.empty();
  }
  IoStatus handshake() override;
  int error() const override { return error_; }
  bool resumed() const override { return secure_ && options_.tls->resumed(); }
  Stream* stream() override { return stream_; }
  void close(bool clean) override;

 private:
  enum class Phase : std::uint8_t { Connect, ConnectReply, Tls, Ready };

  void on_connected();
  IoStatus send_connect();
  IoStatus read_connect_reply();
  IoStatus fail(int err);

  ConnectorOptions options_;
  EventLoop* loop_ = nullptr;       // the socket's loop, told before the socket closes
  std::optional<TcpStream> tcp_;    // the plain stream (also under a tunnel without TLS)
  std::unique_ptr<Stream> secure_;  // the TLS stream
  Stream* stream_ = nullptr;        // whichever of the two the socket has
  std::int64_t connected_ns_ = 0;
  Phase phase_ = Phase::Ready;
  std::size_t connect_sent_ = 0;
  std::string reply_;  // the proxy's reply head so far
  int error_ = 0;
};

}  // namespace stampede::net
