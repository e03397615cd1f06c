#include "raw_client.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>

#include <cerrno>

namespace stampede::server::testing {
namespace {

const std::vector<std::string> kCaptured = {"x-instance", "content-type", "connection"};

std::optional<std::string> copy(std::optional<std::string_view> v) {
  if (!v) return std::nullopt;
  return std::string(*v);
}

}  // namespace

RawClient::RawClient(std::uint16_t port, std::chrono::milliseconds timeout) : parser_(kCaptured) {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  timeval tv{static_cast<time_t>(timeout.count() / 1000),
             static_cast<suseconds_t>(timeout.count() % 1000 * 1000)};
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd.get(), SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  int one = 1;
  setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) {
    fd_ = std::move(fd);
  }
}

bool RawClient::send(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::send(fd_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

bool RawClient::receive() {
  char buf[16384];
  for (;;) {
    ssize_t n = ::recv(fd_.get(), buf, sizeof buf, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) eof_ = true;
    if (n <= 0) return false;
    buffered_.append(buf, static_cast<std::size_t>(n));
    return true;
  }
}

std::optional<Reply> RawClient::read_reply(bool head_request) {
  Reply reply;
  parser_.set_body_callback([&reply](std::string_view chunk) { reply.body.append(chunk); });
  if (head_request) parser_.expect_no_body();
  // Bounded: each round either consumes buffered bytes or waits at most the receive timeout.
  bool finished = false;
  for (int rounds = 0; rounds < 100000; ++rounds) {
    finished = finished || (eof_ && buffered_.empty());
    const http::Step step = finished ? parser_.finish() : parser_.feed(buffered_);
    buffered_.erase(0, step.consumed);
    switch (step.event) {
      case http::Event::HeadComplete:
        reply.status = parser_.status();
        reply.instance = copy(parser_.captured(0));
        reply.content_type = copy(parser_.captured(1));
        reply.connection = copy(parser_.captured(2));
        continue;
      case http::Event::MessageComplete:
        reply.keep_alive = parser_.keep_alive();
        parser_.set_body_callback({});
        return reply;
      case http::Event::Error:
        parser_.set_body_callback({});
        return std::nullopt;
      case http::Event::NeedMore:
        if (finished) break;              // EOF, and finish() found no response
        if (receive() || eof_) continue;  // at EOF, finish() comes next
        break;                            // timeout or error
    }
    break;
  }
  parser_.set_body_callback({});
  return std::nullopt;
}

std::optional<Reply> RawClient::exchange(std::string_view request) {
  if (!send(request)) return std::nullopt;
  return read_reply(request.starts_with("HEAD "));
}

std::string RawClient::read_until_close() {
  for (int rounds = 0; rounds < 100000 && receive(); ++rounds) {
  }
  return std::exchange(buffered_, std::string());
}

std::string answer_until_close(std::uint16_t port, std::string_view request) {
  RawClient client(port);
  return client.send(request) ? client.read_until_close() : std::string();
}

std::string RawClient::read_until(std::string_view needle) {
  for (int rounds = 0; rounds < 100000; ++rounds) {
    if (buffered_.find(needle) != std::string::npos) break;
    if (!receive()) break;
  }
  return buffered_;
}

bool RawClient::readable(std::chrono::milliseconds wait) {
  if (!buffered_.empty()) return true;
  pollfd p{fd_.get(), POLLIN, 0};
  return ::poll(&p, 1, static_cast<int>(wait.count())) > 0;
}

bool RawClient::closed_by_peer() {
  if (!buffered_.empty()) return false;
  char c;
  for (;;) {
    ssize_t n = ::recv(fd_.get(), &c, 1, 0);
    if (n < 0 && errno == EINTR) continue;
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
    return false;
  }
}

std::string get(std::string_view target, std::string_view extra_headers) {
  std::string r = "GET ";
  r.append(target).append(" HTTP/1.1\r\nHost: 127.0.0.1\r\n").append(extra_headers).append("\r\n");
  return r;
}

}  // namespace stampede::server::testing
