#include "lab/http_client.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/clock.h"
#include "http/response_parser.h"

namespace stampede::lab {
namespace {

constexpr std::size_t kMaxBody = 1 << 20;

// Milliseconds left before `deadline_ns` (monotonic), at least 0.
int left_ms(std::int64_t deadline_ns) {
  const std::int64_t left = deadline_ns - mono_ns();
  return left <= 0 ? 0 : static_cast<int>((left + 999'999) / 1'000'000);
}

// Waits for `events` on fd until the deadline; false on timeout.
bool wait_for(int fd, short events, std::int64_t deadline_ns) {
  for (;;) {
    pollfd p{fd, events, 0};
    const int r = poll(&p, 1, left_ms(deadline_ns));
    if (r > 0) return true;
    if (r == 0 || errno != EINTR) return false;
  }
}

// A connected socket, or an error naming why not.
Expected<net::Fd> connect_within(const net::Address& address, std::int64_t deadline_ns) {
  if (!address.is_loopback()) {
    return make_error(fmt::format("{} is not a loopback address", address.to_string()));
  }
  auto fd = net::connect_tcp(address);
  if (!fd) return fd.error();
  if (!wait_for(fd->get(), POLLOUT, deadline_ns)) return make_error("connect timed out");
  if (const int err = net::connect_result(fd->get()); err != 0) {
    return make_error(err == ECONNREFUSED ? std::string("connection refused")
                                          : std::string(std::strerror(err)));
  }
  return std::move(fd).value();
}

Expected<void> send_all(int fd, std::string_view bytes, std::int64_t deadline_ns) {
  while (!bytes.empty()) {
    std::size_t n = 0;
    const net::IoStatus s = net::write_some(fd, bytes.data(), bytes.size(), n);
    if (s == net::IoStatus::Done) {
      bytes.remove_prefix(n);
    } else if (s == net::IoStatus::WouldBlock) {
      if (!wait_for(fd, POLLOUT, deadline_ns)) return make_error("send timed out");
    } else {
      return make_error(std::string("send failed: ") + std::strerror(errno));
    }
  }
  return {};
}

// Feeds bytes until the response completes. `done` is set on MessageComplete.
Expected<void> feed(http::ResponseParser& parser, const char* data, std::size_t len, bool& done) {
  while (!done) {
    const http::Step step = parser.feed(data, len);
    if (step.event == http::Event::Error) {
      return make_error(fmt::format("malformed response ({})", parser.error().message));
    }
    data += step.consumed;
    len -= step.consumed;
    if (step.event == http::Event::MessageComplete) done = true;
    if (step.event == http::Event::NeedMore) break;
  }
  return {};
}

Expected<HttpReply> read_reply(int fd, std::int64_t deadline_ns,
                               std::chrono::milliseconds timeout) {
  HttpReply reply;
  http::ResponseParser parser;
  parser.set_body_callback([&reply](std::string_view chunk) {
    if (reply.body.size() < kMaxBody)
      reply.body.append(chunk.substr(0, kMaxBody - reply.body.size()));
  });
  char buffer[16384];
  bool done = false;
  while (!done) {
    std::size_t n = 0;
    const net::IoStatus s = net::read_some(fd, buffer, sizeof buffer, n);
    if (s == net::IoStatus::Done) {
      if (auto r = feed(parser, buffer, n, done); !r) return r.error();
    } else if (s == net::IoStatus::WouldBlock) {
      if (!wait_for(fd, POLLIN, deadline_ns)) {
        return make_error(fmt::format("no response within {} ms", timeout.count()));
      }
    } else if (s == net::IoStatus::Eof) {
      const http::Step step = parser.finish();
      if (step.event != http::Event::MessageComplete) {
        return make_error("the connection was closed before a complete response");
      }
      done = true;
    } else {
      return make_error(std::string("receive failed: ") + std::strerror(errno));
    }
  }
  reply.status = parser.status();
  return reply;
}

}  // namespace

Expected<HttpReply> http_get(const net::Address& address, std::string_view target,
                             std::chrono::milliseconds timeout) {
  const std::int64_t deadline = mono_ns() + std::chrono::nanoseconds(timeout).count();
  auto fd = connect_within(address, deadline);
  if (!fd) return fd.error();
  const std::string request = fmt::format(
      "GET {} HTTP/1.1\r\nHost: {}\r\nUser-Agent: stampede-lab\r\nConnection: close\r\n\r\n",
      target, address.to_string());
  if (auto sent = send_all(fd->get(), request, deadline); !sent) return sent.error();
  return read_reply(fd->get(), deadline, timeout);
}

bool can_connect(const net::Address& address, std::chrono::milliseconds timeout) {
  return connect_within(address, mono_ns() + std::chrono::nanoseconds(timeout).count()).ok();
}

Expected<std::uint16_t> pick_free_port(std::string_view host) {
  auto address = net::resolve(host, 0);
  if (!address) return address.error();
  auto fd = net::listen_tcp(*address);
  if (!fd) return fd.error();
  auto bound = net::local_address(fd->get());
  if (!bound) return bound.error();
  return bound->port();
}

}  // namespace stampede::lab
