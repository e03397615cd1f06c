#include "server/server.h"

#include <sys/socket.h>

#include <cerrno>
#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "core/clock.h"
#include "http/tokens.h"
#include "net/socket.h"
#include "server/shared.h"
#include "server/tls_context.h"
#include "server/worker.h"

namespace stampede::server {
namespace {

// The id goes into the x-instance header of every response.
Expected<void> check_id(const std::string& id) {
  if (id.size() > 64) return make_error("--id: at most 64 characters");
  if (auto r = http::check_header_value(id); !r) return make_error("--id: " + r.error().message);
  if (id.find_first_of(" \t") != std::string::npos) return make_error("--id: no spaces");
  return {};
}

// A listening host: a name, an IPv4 literal or an IPv6 literal (brackets optional).
Expected<void> check_listen_host(const std::string& host) {
  if (host.empty()) return make_error("--host: empty");
  const bool v6 = host.find(':') != std::string::npos && host.front() != '[';
  if (auto r = http::check_host(v6 ? "[" + host + "]" : host); !r) {
    return make_error("--host: " + r.error().message);
  }
  return {};
}

Expected<void> check_limits(const ServerOptions& o) {
  if (o.max_header_bytes < 64 || o.max_header_bytes > (std::size_t{16} << 20)) {
    return make_error("--max-header-bytes: from 64 bytes to 16m");
  }
  if (o.max_uri_bytes < 1 || o.max_uri_bytes > (std::size_t{16} << 20)) {
    return make_error("--max-uri-bytes: from 1 byte to 16m");
  }
  constexpr std::chrono::nanoseconds kMaxTimeout = std::chrono::hours(24);
  if (o.idle_timeout.count() <= 0 || o.idle_timeout > kMaxTimeout) {
    return make_error("--idle-timeout: above 0 and at most 24h");
  }
  if (o.header_timeout.count() <= 0 || o.header_timeout > kMaxTimeout) {
    return make_error("--header-timeout: above 0 and at most 24h");
  }
  if (o.drain_timeout.count() < 0 || o.drain_timeout > kMaxTimeout) {
    return make_error("--drain-timeout: 0 to 24h");
  }
  // The same bound as ?delay= (docs/serve.md).
  if (o.delay.count() < 0 || o.delay > std::chrono::minutes(10)) {
    return make_error("--delay: 0 to 10m");
  }
  if (o.max_connections > 1'000'000) return make_error("--max-connections: 1 to 1000000");
  return {};
}

std::string_view content_type_for(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) { return path.ends_with(suffix); };
  if (ends_with(".json")) return "application/json";
  if (ends_with(".html") || ends_with(".htm")) return "text/html";
  if (ends_with(".txt")) return "text/plain";
  return "application/octet-stream";
}

Expected<Content> resolve_content(const ServerOptions& o) {
  if (!o.body_file.empty()) {
    std::ifstream in(o.body_file, std::ios::binary);
    std::ostringstream data;
    if (in) data << in.rdbuf();
    if (!in || in.bad()) {
      return make_error(fmt::format("--file: cannot read '{}'", o.body_file));
    }
    return Content{data.str(), std::string(content_type_for(o.body_file))};
  }
  if (o.body) return Content{*o.body, "text/plain"};
  if (!o.id.empty()) return Content{nlohmann::json{{"id", o.id}}.dump(), "application/json"};
  return Content{"OK", "text/plain"};
}

// With several workers each binds with SO_REUSEPORT, which would silently share the port with
// another server that did the same, and with port 0 the kernel may pick such a shared port.
// A plain bind first makes "address in use" an error and picks a port nobody has.
Expected<std::uint16_t> probe_port(const net::Address& address) {
  net::Fd probe(::socket(address.family(), SOCK_STREAM | SOCK_CLOEXEC, 0));
  if (!probe) return make_error(fmt::format("socket: {}", std::strerror(errno)));
  int one = 1;
  setsockopt(probe.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  if (::bind(probe.get(), address.sa(), address.length) != 0) {
    return make_error(
        fmt::format("cannot listen on {}: {}", address.to_string(), std::strerror(errno)));
  }
  auto bound = net::local_address(probe.get());
  if (!bound) return bound.error();
  return bound->port();
}

// One listener per worker on the same port (the kernel's pick for port 0).
Expected<std::vector<net::Fd>> open_listeners(net::Address address, int count) {
  const bool shared_port = count > 1;
  if (shared_port) {
    auto port = probe_port(address);
    if (!port) return port.error();
    address.set_port(*port);
  }
  std::vector<net::Fd> listeners;
  for (int i = 0; i < count; ++i) {
    auto fd = net::listen_tcp(address, {.reuse_port = shared_port});
    if (!fd) return fd.error();
    listeners.push_back(std::move(fd.value()));
  }
  return listeners;
}

}  // namespace

Expected<void> validate(const ServerOptions& o) {
  if (auto r = check_listen_host(o.host); !r) return r;
  if (o.error_status != 0 && (o.error_status < 200 || o.error_status > 599)) {
    return make_error(fmt::format("--error: {} is not a status from 200 to 599", o.error_status));
  }
  if (!std::isfinite(o.error_percent) || o.error_percent < 0 || o.error_percent > 100) {
    return make_error("--percent: from 0 to 100");
  }
  if (o.cores < 0 || o.cores > 1024) return make_error("--cores: from 1 to 1024");
  if (o.body && !o.body_file.empty()) return make_error("--body and --file exclude each other");
  if (auto r = check_id(o.id); !r) return r;
  if (o.tls_cert_file.empty() != o.tls_key_file.empty()) {
    return make_error("--tls-cert and --tls-key go together");
  }
  if (o.tls_self_signed && !o.tls_cert_file.empty()) {
    return make_error("--tls-self-signed and --tls-cert exclude each other");
  }
  return check_limits(o);
}

int resolve_cores(int cores) {
  if (cores > 0) return cores;
  const unsigned all = std::thread::hardware_concurrency();
  return std::max(1, static_cast<int>((all + 1) / 2));
}

Expected<std::unique_ptr<Server>> Server::start(const ServerOptions& options) {
  if (auto valid = validate(options); !valid) return valid.error();
  auto content = resolve_content(options);
  if (!content) return content.error();
  auto address = net::resolve(options.host, options.port);
  if (!address) return address.error();
  const int count = resolve_cores(options.cores);
  auto listeners = open_listeners(*address, count);
  if (!listeners) return listeners.error();
  auto bound = net::local_address(listeners->front().get());
  if (!bound) return bound.error();

  auto tls = make_tls_context(options);
  if (!tls) return tls.error();
  auto shared = std::make_unique<Shared>(options, std::move(content.value()), count);
  shared->tls = std::move(tls).value();
  std::unique_ptr<Server> server(new Server(std::move(shared), bound->port()));
  for (int i = 0; i < count; ++i) {
    auto worker = Worker::create(*server->shared_, i, std::move((*listeners)[i]));
    if (!worker) return worker.error();
    server->workers_.push_back(std::move(worker.value()));
  }
  for (auto& worker : server->workers_) {
    server->threads_.emplace_back([w = worker.get()] { w->run(); });
  }
  return server;
}

Server::Server(std::unique_ptr<Shared> shared, std::uint16_t port)
    : shared_(std::move(shared)), port_(port), started_ns_(mono_ns()) {}

Server::~Server() {
  stop();
}

ServerTotals Server::totals() const {
  ServerTotals t;
  for (int i = 0; i < shared_->workers; ++i) {
    const WorkerCounters& c = shared_->counters[i];
    t.requests += c.requests.load(std::memory_order_acquire);
    t.errors += c.errors.load(std::memory_order_acquire);
    t.bad_requests += c.bad_requests.load(std::memory_order_acquire);
    t.connections += c.connections.load(std::memory_order_acquire);
    t.service_ns += c.service_ns.load(std::memory_order_acquire);
  }
  const std::int64_t stopped = stopped_ns_.load(std::memory_order_acquire);
  t.elapsed_ns = (stopped != 0 ? stopped : mono_ns()) - started_ns_;
  return t;
}

int Server::workers() const {
  return shared_->workers;
}

std::uint64_t Server::served() const {
  return shared_->served();
}

ServerTotals Server::stop() {
  std::lock_guard lock(stop_mutex_);
  if (!stopped_) {
    stopped_ = true;
    for (auto& worker : workers_)
      worker->drain();
    for (auto& thread : threads_)
      thread.join();
    threads_.clear();
    workers_.clear();
    stopped_ns_.store(mono_ns(), std::memory_order_release);
  }
  return totals();
}

}  // namespace stampede::server
