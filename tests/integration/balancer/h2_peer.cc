#include "h2_peer.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <optional>
#include <utility>

#include "support/loopback.h"

namespace stampede::balancer::testing {
namespace {

constexpr std::chrono::seconds kWait{5};

int left_ms(std::chrono::steady_clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      deadline - std::chrono::steady_clock::now());
  return static_cast<int>(left.count());
}

}  // namespace

H2Peer::H2Peer(std::uint16_t port, std::uint32_t window)
    : H2ClientSession(window), fd_(stampede::testing::connect_loopback(port)) {
  const timeval tv{static_cast<time_t>(kWait.count()), 0};
  setsockopt(fd_.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

std::int32_t H2Peer::request(std::string_view method, std::string_view path,
                             std::vector<nghttp2_nv> extra, std::string body) {
  return H2ClientSession::request(
      method, path, "front.test", extra,
      method == "POST" ? std::optional<std::string>(std::move(body)) : std::nullopt);
}

bool H2Peer::send_raw(std::string_view bytes) {
  return stampede::testing::send_all(fd_.get(), bytes);
}

bool H2Peer::pump(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  while (!done()) {
    if (!flush()) return done();
    const int left = left_ms(deadline);
    if (left <= 0) return false;
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, left) <= 0) return false;
    char buf[16384];
    const ssize_t n = stampede::testing::recv_some(fd_.get(), buf, sizeof buf);
    if (n <= 0) {
      eof = true;
      return done();
    }
    receive({buf, static_cast<std::size_t>(n)});
  }
  return true;
}

std::string H2Peer::read_raw_to_eof() {
  std::string bytes;
  const auto deadline = std::chrono::steady_clock::now() + kWait;
  for (int left = left_ms(deadline); left > 0; left = left_ms(deadline)) {
    pollfd p{fd_.get(), POLLIN, 0};
    if (::poll(&p, 1, left) <= 0) break;
    char buf[16384];
    const ssize_t n = stampede::testing::recv_some(fd_.get(), buf, sizeof buf);
    if (n <= 0) {  // EOF, or the reset of a close with our flood still unread
      eof = true;
      break;
    }
    bytes.append(buf, static_cast<std::size_t>(n));
  }
  return bytes;
}

int fresh_get_status(std::uint16_t port) {
  H2Peer peer(port);
  const std::int32_t id = peer.request("GET", "/after");
  peer.pump([&] { return peer.answered(id); });
  return peer.answers[id].status;
}

}  // namespace stampede::balancer::testing
