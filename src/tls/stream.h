// Stream: TLS over a connected, non-blocking socket: a net::Stream (net/stream.h has the contract
// every stream keeps).
//
// read() and write() run the handshake first when it is not done; OpenSSL's WANT_READ and
// WANT_WRITE both become WouldBlock, so a caller on an edge-triggered loop retries on either
// readiness while the handshake runs. read() fills the buffer until it is full or the socket is
// drained, so, as with a plain socket, a Done shorter than the buffer means "wait for the next
// edge". Used by the test server's TLS transport and the generator's connector (and
// usable by any other connection type: handshake/read/write/shutdown over an fd).
//
// Ownership and threads: the Stream owns its SSL object, and the descriptor when created with an
// net::Fd (the borrowing create(int) is for the server's TlsTransport, whose socket outlives its
// stream, until it is on net::Stream; the generator's connector gives its sockets away). One
// thread at a time.
#pragma once

#include <openssl/ssl.h>

#include <cstddef>
#include <memory>
#include <string_view>

#include "net/fd.h"
#include "net/socket.h"
#include "net/stream.h"

namespace stampede::tls {

struct SessionDeleter {
  void operator()(SSL_SESSION* session) const { SSL_SESSION_free(session); }
};
using SessionPtr = std::unique_ptr<SSL_SESSION, SessionDeleter>;

class Stream final : public net::Stream {
 public:
  enum class Role { Client, Server };

  // A stream for `fd` under `ctx` (which must outlive it), owning the socket. Null only when
  // OpenSSL is out of memory (the socket is closed then).
  static std::unique_ptr<Stream> create(SSL_CTX* ctx, net::Fd fd, Role role);
  // The same over a socket the caller keeps (and closes after the stream is gone).
  static std::unique_ptr<Stream> create(SSL_CTX* ctx, int fd, Role role);
  ~Stream() override;
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;

  // Client, before the handshake: the server's name for SNI (not for IP literals) and for the
  // certificate check (a name or an IP address); `session` (may be null) to resume.
  void set_server_name(const std::string& host);
  void set_session(SSL_SESSION* session);

  // Advances the handshake: Done once established, WouldBlock, or Error (see error()).
  net::IoStatus handshake() override;
  // Done (n > 0), WouldBlock, Eof (close_notify or the peer's FIN), or Error.
  net::IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) override;
  // Done with n bytes taken (all of them unless the socket filled up), WouldBlock, or Error.
  // After a short write, call again with the data from the first byte not taken.
  net::IoStatus write(const char* data, std::size_t length, std::size_t& n) override;
  // The parts one record each, in order, until one is not taken whole.
  net::IoStatus writev(const iovec* parts, int count, std::size_t& n) override;
  // Sends close_notify (one attempt, best effort).
  void shutdown();
  // close_notify, then FIN.
  void shutdown_write() override;
  int fd() const override { return socket_.fd; }
  // Marks the stream as closed in good order without sending anything, so its session stays
  // resumable (OpenSSL drops sessions of connections that were not shut down).
  void close_quietly();

  // After Error: a tls/errors.h code for a TLS failure, else the errno (ECONNRESET...).
  int error() const override { return error_; }
  bool established() const { return established_; }
  // The last WouldBlock waited for the socket to take bytes (WANT_WRITE), not to bring some: a
  // read that stopped so goes on when the socket is writable.
  bool wants_write() const override { return SSL_want_write(ssl_) != 0; }
  // The handshake resumed an earlier session.
  bool resumed() const;
  // The protocol ALPN selected ("http/1.1"), empty when none.
  std::string_view alpn() const;
  // The session to resume on the next connection to the same server; null when not resumable.
  SessionPtr take_session() const;

  // The socket side, shared with the custom BIO (an implementation detail).
  struct Socket {
    int fd = -1;
    bool drained = false;  // the last read() returned less than asked (or EAGAIN)
    bool eof = false;      // read() returned 0
    int sys_errno = 0;     // the last read()/send() failure other than EAGAIN
  };

 private:
  Stream(SSL* ssl, int fd);
  net::IoStatus fail(int ret);
  // read() and write(): the handshake until it is done, then kOp (SSL_read_ex, SSL_write_ex)
  // until `size` bytes moved, SSL stops, or (with kStopWhenDrained) the socket's bytes are all
  // read; n is what moved. A failure after some bytes is reported by the next call.
  template <auto kOp, bool kStopWhenDrained, class Byte>
  net::IoStatus transfer(Byte* data, std::size_t size, std::size_t& n);

  SSL* ssl_;
  Socket socket_;
  net::Fd owned_;  // the socket, when the stream owns it (closed after SSL_free)
  int error_ = 0;
  bool established_ = false;
  bool failed_ = false;  // an error came after some bytes: reported by the next call
};

}  // namespace stampede::tls
