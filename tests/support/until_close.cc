#include "support/until_close.h"

#include <sys/socket.h>
#include <sys/time.h>

#include "support/loopback.h"

namespace stampede::testing {

std::string exchange_until_close(std::uint16_t port, std::string_view request,
                                 std::chrono::milliseconds timeout) {
  net::Fd fd = connect_loopback(port);
  if (!fd) return "";
  timeval tv{static_cast<time_t>(timeout.count() / 1000),
             static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  // A send cut short by the peer's close still reads what the peer answered before it.
  send_all(fd.get(), request);
  std::string out;
  char buffer[16384];
  for (int i = 0; i < 10000; ++i) {
    const ssize_t n = recv_some(fd.get(), buffer, sizeof buffer);
    if (n <= 0) break;
    out.append(buffer, static_cast<std::size_t>(n));
  }
  return out;
}

}  // namespace stampede::testing
