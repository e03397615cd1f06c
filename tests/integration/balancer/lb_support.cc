#include "lb_support.h"
#include "support/loopback.h"
#include "support/temp_dir.h"
#include "support/test_io.h"

#include <gtest/gtest.h>
#include <cstdint>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "http/request_parser.h"
#include "http/response_parser.h"

namespace stampede::balancer::testing {
namespace {

using stampede::testing::connect_loopback;
using stampede::testing::send_all;

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}

void set_timeout(int fd, std::chrono::milliseconds timeout) {
  timeval tv{static_cast<time_t>(timeout.count() / 1000),
             static_cast<suseconds_t>((timeout.count() % 1000) * 1000)};
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

// Header lines of the final response in a raw head (interim 1xx heads are skipped).
void parse_head(std::string_view head, Response& out) {
  std::size_t last = head.rfind("HTTP/1.");
  std::string_view rest = head.substr(last == std::string_view::npos ? 0 : last);
  std::size_t eol = rest.find("\r\n");
  rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 2);
  while (!rest.empty()) {
    eol = rest.find("\r\n");
    std::string_view line = rest.substr(0, eol);
    rest.remove_prefix(eol == std::string_view::npos ? rest.size() : eol + 2);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name = lower(std::string(line.substr(0, colon)));
    std::string_view value = line.substr(colon + 1);
    while (!value.empty() && value.front() == ' ')
      value.remove_prefix(1);
    auto& slot = out.headers[name];
    slot = slot.empty() ? std::string(value) : slot + ", " + std::string(value);
  }
}

}  // namespace

Client::Client(std::uint16_t port, std::chrono::milliseconds timeout)
    : fd_(connect_loopback(port)) {
  if (fd_) set_timeout(fd_.get(), timeout);
}

bool Client::send(std::string_view bytes) {
  return fd_ && send_all(fd_.get(), bytes);
}

std::optional<Response> Client::read_response(bool head_request) {
  if (!fd_) return std::nullopt;
  http::ResponseParser parser;
  Response out;
  parser.set_body_callback([&out](std::string_view chunk) { out.body.append(chunk); });
  if (head_request) parser.expect_no_body();
  std::string buf = std::move(pending_);
  pending_.clear();
  std::size_t fed = 0, head_len = 0;
  bool again = false;
  for (;;) {
    while (fed < buf.size() || again) {
      again = false;
      http::Step step = parser.feed(buf.data() + fed, buf.size() - fed);
      fed += step.consumed;
      if (step.event == http::Event::Error) return std::nullopt;
      if (step.event == http::Event::NeedMore) break;
      if (step.event == http::Event::HeadComplete) {
        head_len = fed;
        again = true;
        continue;
      }
      out.status = parser.status();
      out.raw = buf.substr(0, fed);
      parse_head(std::string_view(buf).substr(0, head_len), out);
      pending_ = buf.substr(fed);
      return out;
    }
    char chunk[65536];
    ssize_t n = stampede::testing::recv_some(fd_.get(), chunk, sizeof chunk);
    if (n > 0) {
      buf.append(chunk, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0 && parser.finish().event == http::Event::MessageComplete) {
      out.status = parser.status();
      out.raw = buf;
      parse_head(std::string_view(buf).substr(0, head_len), out);
      fd_.reset();
      return out;
    }
    fd_.reset();
    return std::nullopt;
  }
}

std::optional<Response> Client::get(const std::string& target, const std::string& extra) {
  if (!send("GET " + target + " HTTP/1.1\r\nHost: lb\r\n" + extra + "\r\n")) return std::nullopt;
  return read_response();
}

std::optional<Response> Client::exchange(std::string_view bytes, bool head_request) {
  if (!send(bytes)) return std::nullopt;
  return read_response(head_request);
}

std::optional<std::string> Client::read_until(std::string_view marker) {
  while (fd_) {
    std::size_t at = pending_.find(marker);
    if (at != std::string::npos) {
      std::string out = pending_.substr(0, at + marker.size());
      pending_.erase(0, at + marker.size());
      return out;
    }
    char chunk[65536];
    ssize_t n = stampede::testing::recv_some(fd_.get(), chunk, sizeof chunk);
    if (n <= 0) return std::nullopt;
    pending_.append(chunk, static_cast<std::size_t>(n));
  }
  return std::nullopt;
}

bool Client::closed_by_peer() {
  if (!fd_) return true;
  char chunk[4096];
  for (;;) {
    ssize_t n = stampede::testing::recv_some(fd_.get(), chunk, sizeof chunk);
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

std::optional<Response> http_get(std::uint16_t port, const std::string& target,
                                 const std::string& extra) {
  Client c(port);
  return c.get(target, extra);
}

EchoBackend::EchoBackend(Options options) : options_(std::move(options)) {}

EchoBackend::~EchoBackend() {
  stop();
}

bool EchoBackend::start(std::uint16_t port) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port ? port : port_);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || listen(fd, 128) != 0) {
    ::close(fd);
    return false;
  }
  socklen_t len = sizeof addr;
  getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
  port_ = ntohs(addr.sin_port);
  listener_.reset(fd);
  running_ = true;
  acceptor_ = std::thread([this] { accept_loop(); });
  return true;
}

void EchoBackend::stop() {
  if (!running_.exchange(false)) return;
  shutdown(listener_.get(), SHUT_RDWR);
  acceptor_.join();
  listener_.reset();
  std::vector<std::thread> handlers;
  {
    std::lock_guard lock(mutex_);
    for (int fd : open_fds_)
      shutdown(fd, SHUT_RDWR);
    handlers.swap(handlers_);
  }
  for (auto& t : handlers)
    t.join();
}

std::vector<std::string> EchoBackend::requests() const {
  std::lock_guard lock(mutex_);
  return requests_;
}

std::size_t EchoBackend::request_count() const {
  std::lock_guard lock(mutex_);
  return requests_.size();
}

void EchoBackend::accept_loop() {
  while (running_) {
    int fd = accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR) continue;
      return;
    }
    ++connections_;
    std::lock_guard lock(mutex_);
    open_fds_.push_back(fd);
    handlers_.emplace_back([this, fd] { serve(fd); });
  }
}

void EchoBackend::serve(int fd) {
  // No body limit of its own: a backend that refused a large declared body would close while
  // the balancer still streams it, and a test would see its 502 or the client's abort by timing.
  http::ParserLimits limits;
  limits.max_body_bytes = UINT64_MAX;
  http::RequestParser parser(limits);
  std::string buf;
  std::size_t start = 0, fed = 0, head_end = 0;
  char chunk[65536];
  bool open = true;
  while (open) {
    ssize_t n = stampede::testing::recv_some(fd, chunk, sizeof chunk);
    if (n <= 0) break;
    buf.append(chunk, static_cast<std::size_t>(n));
    bool again = false;
    while (open && (fed < buf.size() || again)) {
      again = false;
      http::Step step = parser.feed(buf.data() + fed, buf.size() - fed);
      fed += step.consumed;
      if (step.event == http::Event::Error) open = false;
      if (step.event == http::Event::NeedMore || step.event == http::Event::Error) break;
      if (step.event == http::Event::HeadComplete) {
        head_end = fed;
        again = true;
        continue;
      }
      std::string raw = buf.substr(start, fed - start);
      std::string body = buf.substr(head_end, fed - head_end);
      {
        std::lock_guard lock(mutex_);
        requests_.push_back(raw);
      }
      std::string head =
          "HTTP/1.1 200 OK\r\nx-instance: " + options_.name + "\r\n" + options_.extra_headers;
      std::string out;
      if (options_.chunked) {
        out = head + "Transfer-Encoding: chunked\r\n\r\n";
        for (std::size_t i = 0; i < body.size(); i += 1000) {
          std::string part = body.substr(i, 1000);
          char size[32];
          std::snprintf(size, sizeof size, "%zx\r\n", part.size());
          out += size + part + "\r\n";
        }
        out += "0\r\n\r\n";
      } else {
        out = head + "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
      }
      if (!send_all(fd, out)) open = false;
      start = fed;
      again = true;
    }
  }
  std::lock_guard lock(mutex_);
  open_fds_.erase(std::remove(open_fds_.begin(), open_fds_.end(), fd), open_fds_.end());
  ::close(fd);
}

ServeProcess::ServeProcess(const std::string& id, const std::vector<std::string>& extra) {
  const stampede::testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  std::string ready = dir + "/ready";
  std::vector<std::string> argv = {STAMPEDE_BINARY, "serve", "--id", id,   "--port", "0",
                                   "--ready-file",  ready,   "-q",   "-c", "1"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  process_ = std::make_unique<stampede::testing::ChildProcess>(argv);
  port_ = static_cast<std::uint16_t>(stampede::testing::wait_for_port_file(ready, 10000ms));
}

std::optional<std::uint64_t> ServeProcess::served() {
  auto r = http_get(port_, "/count");
  if (!r || r->status != 200) return std::nullopt;
  auto pos = r->body.find("\"served\":");
  if (pos == std::string::npos) return std::nullopt;
  return std::stoull(r->body.substr(pos + 9));
}

LoadResult run_load(std::uint16_t port, const LoadOptions& options) {
  const auto deadline = std::chrono::steady_clock::now() + options.duration;
  std::atomic<std::uint64_t> issued{0};
  std::mutex mutex;
  LoadResult total;
  auto worker = [&](int index) {
    LoadResult mine;
    std::string extra = options.headers ? options.headers(index) : "";
    auto client = std::make_unique<Client>(port, 5000ms);
    while (std::chrono::steady_clock::now() < deadline) {
      if (options.max_requests && issued.fetch_add(1) >= options.max_requests) break;
      if (!client->connected()) client = std::make_unique<Client>(port, 5000ms);
      auto r = client->get(options.target, extra);
      ++mine.requests;
      if (!r) {
        ++mine.failed;
        ++mine.by_status["transport"];
        client = std::make_unique<Client>(port, 5000ms);
        continue;
      }
      ++mine.by_status[std::to_string(r->status)];
      if (r->status < 200 || r->status >= 300) {
        ++mine.failed;
        continue;
      }
      ++mine.ok;
      if (r->header("connection") == "close") client = std::make_unique<Client>(port, 5000ms);
      std::string backend = r->header("x-backend");
      ++mine.by_backend[backend];
      ++mine.by_session[index][backend];
      if (backend != r->header("x-instance")) ++mine.mismatched;
    }
    std::lock_guard lock(mutex);
    total.requests += mine.requests;
    total.ok += mine.ok;
    total.failed += mine.failed;
    total.mismatched += mine.mismatched;
    for (auto& [k, v] : mine.by_backend)
      total.by_backend[k] += v;
    for (auto& [k, v] : mine.by_status)
      total.by_status[k] += v;
    for (auto& [k, v] : mine.by_session)
      total.by_session[k] = v;
  };
  std::vector<std::thread> threads;
  for (int i = 0; i < options.connections; ++i)
    threads.emplace_back(worker, i);
  if (options.event) {
    std::this_thread::sleep_for(options.event_at);  // the scenario's schedule, not a sync
    options.event();
  }
  for (auto& t : threads)
    t.join();
  return total;
}

BackendSpec spec(const std::string& name, std::uint16_t port) {
  return BackendSpec{name, "127.0.0.1:" + std::to_string(port), 1};
}

BalancerConfig base_config(std::vector<BackendSpec> backends, Strategy strategy) {
  BalancerConfig c;
  c.listen = "127.0.0.1:0";
  c.backends = std::move(backends);
  c.strategy = strategy;
  return c;
}

std::unique_ptr<Balancer> start_balancer(const BalancerConfig& config) {
  auto plan = prepare(stampede::testing::with_test_io(config));
  if (!plan) {
    ADD_FAILURE() << plan.error().message;
    return nullptr;
  }
  auto lb = Balancer::start(std::move(*plan));
  if (!lb) ADD_FAILURE() << lb.error().message;
  return lb ? std::move(*lb) : nullptr;
}

EchoBehindBalancer::EchoBehindBalancer(EchoBackend::Options options,
                                       const std::function<void(BalancerConfig&)>& adjust)
    : echo(options) {
  if (!echo.start()) {
    ADD_FAILURE() << "echo backend " << options.name << " did not start";
    return;
  }
  BalancerConfig config = base_config({spec(options.name, echo.port())});
  if (adjust) adjust(config);
  lb = start_balancer(config);
}

nlohmann::json backend_stats(const Balancer& lb, const std::string& name) {
  auto stats = nlohmann::json::parse(lb.stats_json());
  for (auto& b : stats["backends"]) {
    if (b["name"] == name) return b;
  }
  return {};
}

}  // namespace stampede::balancer::testing
