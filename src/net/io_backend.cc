#include "net/io_backend.h"

#include "net/uring_backend.h"

namespace stampede::net {

std::string_view io_backend_name(IoBackend backend) {
  return backend == IoBackend::Uring ? "uring" : "epoll";
}

std::optional<IoBackend> parse_io_backend(std::string_view text) {
  if (text == "epoll") return IoBackend::Epoll;
  if (text == "uring") return IoBackend::Uring;
  return std::nullopt;
}

IoBackendChoice choose_io_backend(IoBackend requested) {
  if (requested == IoBackend::Epoll) return {IoBackend::Epoll, {}};
  auto probe = UringPoller::create();
  if (probe) {
    const std::string& why = static_cast<const UringPoller&>(**probe).receive_error();
    if (why.empty()) return {IoBackend::Uring, {}};
    return {IoBackend::Uring, "io_uring multishot receive unavailable (" + why +
                                  "); plain TCP reads through io_uring poll"};
  }
  return {IoBackend::Epoll, "io_uring unavailable (" + probe.error().message + "); using epoll"};
}

}  // namespace stampede::net
