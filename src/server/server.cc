#include "server/server.h"

#include <sys/socket.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "core/clock.h"
#include "net/socket.h"
#include "server/plan.h"
#include "server/shared.h"
#include "server/worker.h"

namespace stampede::server {
namespace {

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

Expected<std::unique_ptr<Server>> Server::start(ServerPlan plan) {
  auto address = net::resolve(plan.options.host, plan.options.port);
  if (!address) return address.error();
  const int count = plan.workers;
  auto listeners = open_listeners(*address, count);
  if (!listeners) return listeners.error();
  auto bound = net::local_address(listeners->front().get());
  if (!bound) return bound.error();

  auto shared = std::make_unique<Shared>(std::move(plan.options), std::move(plan.content), count);
  shared->tls = std::move(plan.tls);
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
    t.refused += c.refused.load(std::memory_order_acquire);
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
