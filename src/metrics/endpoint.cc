#include "metrics/endpoint.h"

#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

#include <fmt/format.h>

#include "http/request_parser.h"
#include "metrics/exposition.h"

namespace stampede::metrics {
namespace {

using Clock = std::chrono::steady_clock;

// One accepted connection: its request head as it arrives, then its response as it leaves.
struct Client {
  net::Fd fd;
  Clock::time_point deadline;
  http::RequestParser parser;
  std::string response;  // empty until the request is read
  std::size_t written = 0;
  // The response is written and our side shut: what the client still sends is read and dropped
  // until it closes, so that a close with unread bytes (a refused huge head) sends no RST that
  // could destroy the response before the client reads it.
  bool draining = false;
};

std::string reply(int status, std::string_view reason, std::string_view extra_headers,
                  std::string_view content_type, const std::string& body, bool head) {
  std::string out = fmt::format(
      "HTTP/1.1 {} {}\r\nContent-Type: {}\r\nContent-Length: {}\r\n{}Connection: close\r\n\r\n",
      status, reason, content_type, body.size(), extra_headers);
  if (!head) out += body;
  return out;
}

std::string_view reason_of(int status) {
  switch (status) {
    case 400:
      return "Bad Request";
    case 413:
      return "Content Too Large";
    case 414:
      return "URI Too Long";
    case 431:
      return "Request Header Fields Too Large";
    case 505:
      return "HTTP Version Not Supported";
    default:
      return "Bad Request";
  }
}

}  // namespace

Expected<net::Address> parse_listen_address(std::string_view option, std::string_view text) {
  auto address = net::parse_host_port(text);
  if (!address) return make_error(fmt::format("{}: {}", option, address.error().message));
  return address;
}

Expected<std::unique_ptr<MetricsEndpoint>> MetricsEndpoint::start(const EndpointOptions& options,
                                                                  Render render,
                                                                  std::string_view option) {
  auto listener = net::listen_tcp(options.address, net::ListenOptions{false, 64});
  if (!listener) return make_error(fmt::format("{}: {}", option, listener.error().message));
  auto bound = net::local_address(listener->get());
  if (!bound) return make_error(fmt::format("{}: {}", option, bound.error().message));
  net::Fd wake(::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC));
  if (!wake) return make_error(fmt::format("{}: eventfd: {}", option, std::strerror(errno)));
  return std::unique_ptr<MetricsEndpoint>(new MetricsEndpoint(
      options, std::move(render), std::move(listener).value(), *bound, std::move(wake)));
}

MetricsEndpoint::MetricsEndpoint(const EndpointOptions& options, Render render, net::Fd listener,
                                 net::Address bound, net::Fd wake)
    : options_(options),
      render_(std::move(render)),
      listener_(std::move(listener)),
      bound_(bound),
      wake_(std::move(wake)) {
  // The thread takes no signals (Ctrl-C is the command line's signal watcher's): its mask is
  // inherited from here, whatever the caller's.
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_SETMASK, &all, &old);
  thread_ = std::thread([this] { serve(); });
  pthread_sigmask(SIG_SETMASK, &old, nullptr);
}

MetricsEndpoint::~MetricsEndpoint() {
  const std::uint64_t one = 1;
  [[maybe_unused]] const ssize_t n = ::write(wake_.get(), &one, sizeof one);
  thread_.join();
}

void MetricsEndpoint::serve() {
  http::ParserLimits limits;
  limits.max_header_bytes = options_.max_request_bytes;
  limits.max_uri_bytes = std::min<std::size_t>(options_.max_request_bytes, 2048);
  limits.max_body_bytes = 0;
  std::vector<std::unique_ptr<Client>> clients;
  std::vector<pollfd> fds;
  char buffer[4096];

  // The request head is complete (or broken): the response to send.
  auto respond = [&](Client& c, const http::Step& step) {
    if (step.event == http::Event::Error) {
      const int status = c.parser.error().status;
      c.response = reply(status, reason_of(status), "", "text/plain",
                         std::string(c.parser.error().message) + "\n", false);
      return;
    }
    const std::string_view method = c.parser.method();
    const bool head = method == "HEAD";
    if (c.parser.path() != "/metrics") {
      c.response =
          reply(404, "Not Found", "", "text/plain", "only /metrics is served here\n", head);
    } else if (method != "GET" && !head) {
      c.response = reply(405, "Method Not Allowed", "Allow: GET, HEAD\r\n", "text/plain",
                         "/metrics answers GET and HEAD\n", false);
    } else {
      c.response = reply(200, "OK", "", kContentType, render_(), head);
      scrapes_.fetch_add(1, std::memory_order_release);
    }
  };

  for (;;) {
    fds.clear();
    fds.push_back({wake_.get(), POLLIN, 0});
    fds.push_back({listener_.get(), POLLIN, 0});
    Clock::time_point earliest = Clock::time_point::max();
    for (const auto& c : clients) {
      const bool reading = c->response.empty() || c->draining;
      fds.push_back({c->fd.get(), static_cast<short>(reading ? POLLIN : POLLOUT), 0});
      earliest = std::min(earliest, c->deadline);
    }
    int timeout_ms = -1;
    if (earliest != Clock::time_point::max()) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(earliest - Clock::now()).count();
      timeout_ms = static_cast<int>(std::clamp<long long>(left, 0, 60'000));
    }
    if (::poll(fds.data(), fds.size(), timeout_ms) < 0 && errno != EINTR) return;
    if (fds[0].revents != 0) return;
    const Clock::time_point now = Clock::now();
    for (std::size_t i = 0; i < clients.size(); ++i) {
      Client& c = *clients[i];
      const short revents = fds[i + 2].revents;
      bool done = now >= c.deadline;
      if (!done && revents != 0 && (c.response.empty() || c.draining)) {
        std::size_t n = 0;
        const net::IoStatus status = net::read_some(c.fd.get(), buffer, sizeof buffer, n);
        if (status == net::IoStatus::Done && !c.draining) {
          const http::Step step = c.parser.feed(buffer, n);
          if (step.event != http::Event::NeedMore) respond(c, step);
        } else if (status != net::IoStatus::Done && status != net::IoStatus::WouldBlock) {
          done = true;  // closed: before its request was whole, or after its response
        }
      } else if (!done && !c.response.empty() && (revents & (POLLOUT | POLLERR | POLLHUP)) != 0) {
        std::size_t n = 0;
        const net::IoStatus status = net::write_some(c.fd.get(), c.response.data() + c.written,
                                                     c.response.size() - c.written, n);
        if (status == net::IoStatus::Done) c.written += n;
        if (status != net::IoStatus::Done && status != net::IoStatus::WouldBlock) done = true;
        if (!done && c.written == c.response.size()) {
          ::shutdown(c.fd.get(), SHUT_WR);
          c.draining = true;
        }
      }
      if (done) clients[i].reset();
    }
    std::erase(clients, nullptr);
    if (fds[1].revents != 0) {
      for (;;) {
        net::IoStatus status = net::IoStatus::Done;
        net::Fd fd = net::accept_tcp(listener_.get(), status);
        if (!fd) break;
        if (clients.size() >= options_.max_clients) continue;  // closed at once
        auto c = std::make_unique<Client>();
        c->fd = std::move(fd);
        c->deadline = now + options_.request_timeout;
        c->parser = http::RequestParser(limits);
        clients.push_back(std::move(c));
      }
    }
  }
}

}  // namespace stampede::metrics
