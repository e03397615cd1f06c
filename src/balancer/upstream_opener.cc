#include "balancer/upstream_opener.h"

#include <errno.h>

#include "balancer/backend.h"
#include "net/socket.h"
#include "net/tcp_stream.h"

namespace stampede::balancer {

Result<OpenedStream> open_backend_stream(const BackendState& backend, bool& local) {
  auto fd = net::connect_tcp(backend.address());
  if (!fd) {
    local = net::is_local_resource_error(errno);
    return fd.error();
  }
  return OpenedStream{std::make_unique<net::TcpStream>(std::move(*fd)), true};
}

}  // namespace stampede::balancer
