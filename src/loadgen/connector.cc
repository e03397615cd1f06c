#include "loadgen/connector.h"

#include "loadgen/connection.h"
#include "tls/client_step.h"

namespace stampede::loadgen {

std::unique_ptr<net::Connector> make_connector(const ConnectionContext& context) {
  net::ConnectorOptions options;
  options.address = context.address;
  options.connect_request = context.connect_request;
  if (context.tls != nullptr) {
    options.tls = std::make_unique<tls::ClientStep>(context.tls, context.server_name);
  }
  return std::make_unique<net::TcpConnector>(std::move(options));
}

}  // namespace stampede::loadgen
