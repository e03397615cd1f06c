// start_server(): the test server in-process, behind ServerHandle.
#include "api/bridge.h"

namespace stampede::api {

struct ServerHandle::Impl {
  std::unique_ptr<server::Server> server;
};

ServerHandle start_server(const ServerOptions& options) {
  server::ServerOptions o;
  o.host = options.host;
  o.port = options.port;
  o.delay = options.delay;
  o.error_status = options.error_status;
  o.error_percent = options.error_percent;
  o.cores = options.cores;
  o.body = options.body;
  o.id = options.id;
  auto plan = server::prepare(std::move(o));
  if (!plan) throw Error(plan.error().message);
  auto started = server::Server::start(std::move(plan).value());
  if (!started) throw Error(started.error().message);
  return ServerHandle(std::make_unique<ServerHandle::Impl>(std::move(started).value()));
}

ServerHandle::ServerHandle(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
ServerHandle::ServerHandle(ServerHandle&&) noexcept = default;
ServerHandle& ServerHandle::operator=(ServerHandle&&) noexcept = default;
ServerHandle::~ServerHandle() = default;  // Server's destructor stops it

std::uint16_t ServerHandle::port() const {
  return impl_ ? impl_->server->port() : 0;
}

void ServerHandle::close() {
  if (impl_) impl_->server->stop();
}

}  // namespace stampede::api
