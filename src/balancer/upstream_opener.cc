#include "balancer/upstream_opener.h"

#include "balancer/backend.h"
#include "tls/client_step.h"

namespace stampede::balancer {

std::unique_ptr<net::Connector> make_backend_connector(const BackendState& backend,
                                                       tls::SessionPtr& session) {
  net::ConnectorOptions options;
  options.address = backend.address();
  if (backend.tls_context() != nullptr) {
    options.tls =
        std::make_unique<tls::ClientStep>(backend.tls_context(), backend.tls_host(), &session);
  }
  return std::make_unique<net::TcpConnector>(std::move(options));
}

std::unique_ptr<net::Connector> SocketOpener::connector(const BackendState& backend) {
  if (sessions_.size() <= backend.index()) sessions_.resize(backend.index() + 1);
  return make_backend_connector(backend, sessions_[backend.index()]);
}

}  // namespace stampede::balancer
