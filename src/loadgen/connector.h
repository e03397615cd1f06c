// The generator's connector to its target: a net::TcpConnector to the route's address, with the
// CONNECT tunnel through --proxy and, for https and wss, the TLS step (tls::ClientStep) for the
// URL's host under the run's client context. One per client (HTTP Connection or WsClient).
#pragma once

#include <memory>

#include "net/connector.h"

namespace stampede::loadgen {

struct ConnectionContext;

std::unique_ptr<net::Connector> make_connector(const ConnectionContext& context);

}  // namespace stampede::loadgen
