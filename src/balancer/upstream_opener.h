// UpstreamOpener: how a worker gets a connection to a backend, as a net::Connector (net/
// connector.h), one per backend connection: the connection opens it once, runs its connect and
// handshake, reads and writes its stream() and closes it. The one production path is
// make_backend_connector() (a net::TcpConnector to the backend's address; for an https backend
// with the TLS step, tls::ClientStep, for its host), which the worker's SocketOpener and the
// health checker both call, so the balancer connects as every other client does. Unit tests
// give a worker their own opener, whose connectors hand out in-memory streams (tests/support/
// test_stream.h), so the proxy session and its upstream connection run without sockets.
//
// TLS sessions: the connections to one backend share one session slot per worker (the
// SocketOpener's), so a new connection resumes the session of the last one that closed cleanly.
//
// Called on the worker's thread, once per new backend connection (never per pooled request).
#pragma once

#include <memory>
#include <vector>

#include "net/connector.h"
#include "tls/stream.h"

namespace stampede::balancer {

class BackendState;

class UpstreamOpener {
 public:
  virtual ~UpstreamOpener() = default;
  // A connector for one new connection to `backend`, not yet opened. Its open() returns the
  // errno of a connect that failed at once (nothing was sent): net::is_local_resource_error()
  // tells this process's own resources (descriptors, memory, local ports), which say nothing
  // about the backend, from the backend's fault.
  virtual std::unique_ptr<net::Connector> connector(const BackendState& backend) = 0;
};

// A TcpConnector to `backend`; for an https backend with the TLS step (SNI and the certificate
// check for its host) offering the session in `session` (which outlives the connector) and
// keeping there the session of a clean close.
std::unique_ptr<net::Connector> make_backend_connector(const BackendState& backend,
                                                       tls::SessionPtr& session);

// The worker's opener: one TLS session slot per backend.
class SocketOpener final : public UpstreamOpener {
 public:
  std::unique_ptr<net::Connector> connector(const BackendState& backend) override;

 private:
  std::vector<tls::SessionPtr> sessions_;  // by backend index
};

}  // namespace stampede::balancer
