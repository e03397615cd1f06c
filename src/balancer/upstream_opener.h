// UpstreamOpener: how a worker gets a byte stream to a backend. The one production path is
// open_backend_stream() (a non-blocking TCP connect; TLS over it for an https backend, whose
// handshake the stream runs once connected), which the worker's SocketOpener and the
// health checker both call, so a change of transport or connector is made in one place. Unit
// tests give a worker their own opener, handing out in-memory streams (tests/support/
// test_stream.h), so the proxy session and its upstream connection run without sockets.
//
// Called on the worker's thread, once per new backend connection (never per pooled request).
#pragma once

#include <memory>

#include "core/expected.h"
#include "net/stream.h"

namespace stampede::balancer {

class BackendState;

struct OpenedStream {
  std::unique_ptr<net::Stream> stream;
  // The TCP connect is still under way: EPOLLOUT (or an error) says when it ends, and
  // net::connect_result() on the stream's descriptor says how. False for a stream that is
  // connected already (an in-memory one).
  bool connecting = true;
};

class UpstreamOpener {
 public:
  virtual ~UpstreamOpener() = default;
  // A stream to `backend`, or an Error for a connect that failed at once (nothing was sent).
  // `local` then says whether the cause was this process's own resources (descriptors, memory,
  // local ports), which says nothing about the backend; otherwise the backend is to blame.
  virtual Expected<OpenedStream> open(const BackendState& backend, bool& local) = 0;
};

// Starts a non-blocking connect to `backend` (contract as UpstreamOpener::open): a TcpStream,
// or for an https backend a tls::Stream with SNI and the certificate check set to its host.
Expected<OpenedStream> open_backend_stream(const BackendState& backend, bool& local);

class SocketOpener final : public UpstreamOpener {
 public:
  Expected<OpenedStream> open(const BackendState& backend, bool& local) override {
    return open_backend_stream(backend, local);
  }
};

}  // namespace stampede::balancer
