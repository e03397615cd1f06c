#include "balancer/upstream_opener.h"

#include <errno.h>

#include "balancer/backend.h"
#include "net/socket.h"
#include "net/tcp_stream.h"
#include "tls/stream.h"

namespace stampede::balancer {

Expected<OpenedStream> open_backend_stream(const BackendState& backend, bool& local) {
  auto fd = net::connect_tcp(backend.address());
  if (!fd) {
    local = net::is_local_resource_error(errno);
    return fd.error();
  }
  if (backend.tls_context() == nullptr) {
    return OpenedStream{std::make_unique<net::TcpStream>(std::move(*fd)), true};
  }
  auto stream =
      tls::Stream::create(backend.tls_context(), std::move(*fd), tls::Stream::Role::Client);
  if (!stream) {
    local = true;  // OpenSSL out of memory
    return make_error("backend " + backend.name() + ": out of memory for TLS");
  }
  stream->set_server_name(backend.tls_host());
  return OpenedStream{std::move(stream), true};
}

}  // namespace stampede::balancer
