// SecureChannel: what an https:// connection adds on its socket. Through a proxy, the CONNECT
// exchange first; then the TLS handshake (SNI and certificate check for the URL's host, the
// last session offered for resumption); then records in both directions (tls::Stream).
// Without context.tls (a ws:// WebSocket through a proxy) it is the CONNECT tunnel alone: no
// handshake, and plain reads and writes on the socket once the tunnel is open.
//
// Needs context.tls (the run's client context) or context.connect_request. Owned by one Connection,
// which keeps it across its sockets (so it keeps the session to resume); used on the worker's
// thread only. The socket belongs to the Connection.
#pragma once

#include <errno.h>

#include <cstddef>
#include <memory>
#include <string>

#include "net/socket.h"
#include "tls/stream.h"

namespace stampede::loadgen {

struct ConnectionContext;

class SecureChannel {
 public:
  explicit SecureChannel(const ConnectionContext& context) : context_(context) {}

  // A new socket (connecting or connected). False when OpenSSL is out of memory.
  bool open(int fd);
  // Advances the CONNECT exchange and the handshake: Done once requests can go, WouldBlock
  // (wait for either readiness), or Error (error() says why).
  net::IoStatus handshake();
  bool ready() const { return phase_ == Phase::Ready; }
  // The handshake of the current socket resumed the previous socket's session.
  bool resumed() const { return stream_ && stream_->resumed(); }

  net::IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) {
    if (!stream_) return plain(net::read_some(fd_, buffer, capacity, n));
    return stream_->read(buffer, capacity, n);
  }
  net::IoStatus write(const char* data, std::size_t length, std::size_t& n) {
    if (!stream_) return plain(net::write_some(fd_, data, length, n));
    return stream_->write(data, length, n);
  }
  // The last WouldBlock of read() or write() waits for writability (see tls::Stream).
  bool wants_write() const { return stream_ && stream_->wants_write(); }
  // The errno or tls/errors.h code of the last Error.
  int error() const { return error_; }

  // The socket is about to close. `clean`: it delivered its responses, so its session is kept
  // for the next socket's handshake (resumption); else the session is forgotten.
  void close(bool clean);

 private:
  enum class Phase : std::uint8_t { Connect, ConnectReply, Handshake, Ready };

  net::IoStatus send_connect();
  net::IoStatus read_connect_reply();
  net::IoStatus fail(int err);
  // A plain socket call's status, its errno kept for error().
  net::IoStatus plain(net::IoStatus s) {
    if (s == net::IoStatus::Error) error_ = errno;
    return s;
  }

  const ConnectionContext& context_;
  std::unique_ptr<tls::Stream> stream_;
  tls::SessionPtr session_;  // to offer on the next socket
  int fd_ = -1;
  Phase phase_ = Phase::Handshake;
  std::size_t connect_sent_ = 0;
  std::string reply_;  // the proxy's reply head so far
  int error_ = 0;
};

}  // namespace stampede::loadgen
