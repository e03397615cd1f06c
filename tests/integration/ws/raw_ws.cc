#include "raw_ws.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "support/ws_frames.h"

namespace stampede::testing {

int Frame::close_code() const {
  if (opcode != 0x8 || payload.size() < 2) return 0;
  return (static_cast<unsigned char>(payload[0]) << 8) | static_cast<unsigned char>(payload[1]);
}

RawWs::RawWs(std::uint16_t port, std::chrono::milliseconds timeout) {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!fd) return;
  timeval tv{};
  tv.tv_sec = timeout.count() / 1000;
  tv.tv_usec = (timeout.count() % 1000) * 1000;
  ::setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return;
  fd_ = std::move(fd);
}

bool RawWs::send(std::string_view bytes) {
  while (!bytes.empty()) {
    const ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

void RawWs::send_at_once() {
  const int on = 1;
  ::setsockopt(fd_.get(), IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);
}

std::string RawWs::upgrade_request(std::string_view target, std::string_view extra) {
  return "GET " + std::string(target) +
         " HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n" +
         std::string(extra) + "\r\n";
}

std::string RawWs::upgrade(std::string_view target, std::string_view extra) {
  if (!send(upgrade_request(target, extra))) return "";
  return read_until("\r\n\r\n");
}

bool RawWs::fill(std::size_t bytes) {
  char buffer[16384];
  while (buffered_.size() < bytes) {
    const ssize_t n = ::recv(fd_.get(), buffer, sizeof buffer, 0);
    if (n <= 0) return false;
    buffered_.append(buffer, static_cast<std::size_t>(n));
  }
  return true;
}

std::string RawWs::read_until(std::string_view needle) {
  for (;;) {
    const std::size_t at = buffered_.find(needle);
    if (at != std::string::npos) {
      std::string head = buffered_.substr(0, at + needle.size());
      buffered_.erase(0, at + needle.size());
      return head;
    }
    if (!fill(buffered_.size() + 1)) return std::exchange(buffered_, {});
  }
}

std::optional<Frame> RawWs::read_frame() {
  if (!fill(2)) return std::nullopt;
  Frame f;
  f.opcode = buffered_[0] & 0x0f;
  f.masked = (buffered_[1] & 0x80) != 0;
  std::uint64_t length = buffered_[1] & 0x7f;
  std::size_t header = 2;
  if (length >= 126) {
    const std::size_t extra = length == 126 ? 2 : 8;
    if (!fill(2 + extra)) return std::nullopt;
    length = 0;
    for (std::size_t i = 0; i < extra; ++i)
      length = (length << 8) | static_cast<unsigned char>(buffered_[2 + i]);
    header += extra;
  }
  if (f.masked) header += 4;
  if (!fill(header + length)) return std::nullopt;
  f.payload = buffered_.substr(header, length);
  if (f.masked) {
    for (std::size_t i = 0; i < f.payload.size(); ++i)
      f.payload[i] = static_cast<char>(f.payload[i] ^ buffered_[header - 4 + i % 4]);
  }
  buffered_.erase(0, header + length);
  return f;
}

std::optional<Frame> RawWs::exchange(std::uint8_t opcode, std::string_view payload) {
  if (!send(ws_frame(opcode, payload, true))) return std::nullopt;
  return read_frame();
}

bool RawWs::closed_by_peer() {
  if (!buffered_.empty()) return false;
  char c;
  const ssize_t n = ::recv(fd_.get(), &c, 1, 0);
  return n == 0 || (n < 0 && errno == ECONNRESET);
}

}  // namespace stampede::testing
