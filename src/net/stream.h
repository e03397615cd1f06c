// Stream: the one byte-stream seam under every connection of the generator, the test server and
// the balancer: plain TCP (net::TcpStream), TLS (tls::Stream), either one through a CONNECT
// tunnel, and an in-memory stand-in that fails on command for unit tests
// (tests/support/test_stream.h). Connections hold a Stream and never a raw descriptor.
//
// Contract, for every implementation:
// - Non-blocking, for an edge-triggered loop. read(): Done with n > 0 bytes, and a Done shorter
//   than `capacity` means the source is drained (wait for the next readiness edge; no extra
//   read to see EAGAIN); WouldBlock: nothing now; Eof: the peer ended the stream; Error.
//   write() and writev(): Done with n bytes taken (fewer than offered when the socket filled
//   up: call again from the first byte not taken), WouldBlock, or Error.
// - handshake(): advances what must happen before application bytes (a TLS handshake, a CONNECT
//   exchange): Done once they can flow (at once for plain TCP), WouldBlock, or Error. read()
//   and write() also drive it, so a caller that does not time it need not call it.
// - After a WouldBlock, wants_write() says whether the stream waits for the socket to take
//   bytes (TLS WANT_WRITE inside a read) rather than to bring some: retry on writability then.
// - error(): after an Error, the errno (ECONNRESET, EPIPE...) or a tls/errors.h code. Errors
//   are final: every later call fails too.
// - shutdown_write(): ends the sending direction (close_notify then FIN for TLS), one attempt,
//   best effort; reading may go on.
// - fd(): the descriptor to register with the EventLoop, once, for IN|OUT|RDHUP edge-triggered.
//   The stream owns it: destroying the stream closes it (after its TLS state is freed).
// - Used by one thread at a time (the owning worker's).
#pragma once

#include <sys/uio.h>

#include <cstddef>

#include "net/socket.h"

namespace stampede::net {

class Stream {
 public:
  virtual ~Stream() = default;

  virtual int fd() const = 0;
  virtual IoStatus handshake() { return IoStatus::Done; }
  virtual IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) = 0;
  virtual IoStatus write(const char* data, std::size_t length, std::size_t& n) = 0;
  // Gathers `count` parts into one write where the transport allows (one sendmsg for TCP).
  virtual IoStatus writev(const iovec* parts, int count, std::size_t& n) = 0;
  virtual void shutdown_write() = 0;
  virtual bool wants_write() const { return false; }
  virtual int error() const = 0;
};

}  // namespace stampede::net
