#include "balancer/balancer.h"

#include "balancer/health.h"
#include "balancer/worker.h"
#include "core/clock.h"
#include "net/socket.h"

namespace stampede::balancer {

Expected<std::unique_ptr<Balancer>> Balancer::start(BalancerPlan plan) {
  std::unique_ptr<Balancer> lb(new Balancer(std::move(plan)));
  if (auto r = lb->init(); !r) return r.error();
  return lb;
}

Balancer::Balancer(BalancerPlan plan) : plan_(std::move(plan)) {}

Balancer::~Balancer() {
  stop();
}

Expected<void> Balancer::open_listeners(std::vector<net::Fd>& listeners, net::Fd& admin) {
  const BalancerConfig& config = plan_.config;
  auto address = net::resolve(plan_.listen.host, plan_.listen.port);
  if (!address) return make_error("--listen: " + address.error().message);
  net::ListenOptions options;
  options.reuse_port = config.cores > 1;
  for (int i = 0; i < config.cores; ++i) {
    auto fd = net::listen_tcp(*address, options);
    if (!fd) return fd.error();
    if (i == 0) {
      auto bound = net::local_address(fd->get());
      if (!bound) return bound.error();
      port_ = bound->port();
      address->set_port(port_);  // the others join the port the kernel picked
    }
    listeners.push_back(std::move(*fd));
  }
  if (!plan_.admin) return {};
  auto admin_address = net::resolve(plan_.admin->host, plan_.admin->port);
  if (!admin_address) return make_error("--admin-listen: " + admin_address.error().message);
  auto fd = net::listen_tcp(*admin_address);
  if (!fd) return fd.error();
  auto bound = net::local_address(fd->get());
  if (!bound) return bound.error();
  admin_port_ = bound->port();
  admin = std::move(*fd);
  return {};
}

namespace {

// The host to name in SNI and to find in the certificate: without an IPv6 literal's brackets.
std::string certificate_host(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    return host.substr(1, host.size() - 2);
  }
  return host;
}

}  // namespace

Expected<void> Balancer::init() {
  const BalancerConfig& config = plan_.config;
  for (std::size_t i = 0; i < config.backends.size(); ++i) {
    const BackendSpec& spec = config.backends[i];
    const HostPort& at = plan_.backends[i];
    auto address = net::resolve(at.host, at.port);
    if (!address) return make_error("backend " + spec.name + ": " + address.error().message);
    states_.push_back(std::make_unique<BackendState>(i, spec, *address));
    if (spec.tls) states_.back()->set_tls(plan_.backend_tls.get(), certificate_host(at.host));
    fleet_.states.push_back(states_.back().get());
  }
  std::vector<net::Fd> listeners;
  net::Fd admin;
  if (auto r = open_listeners(listeners, admin); !r) return r;
  fleet_.config = &config;
  const std::uint64_t seed = static_cast<std::uint64_t>(mono_ns());
  for (int i = 0; i < config.cores; ++i) {
    WorkerParams params;
    params.index = static_cast<std::size_t>(i);
    params.config = &config;
    params.states = fleet_.states;
    params.fleet = &fleet_;
    params.listen_fd = std::move(listeners[i]);
    if (i == 0) params.admin_fd = std::move(admin);
    params.listen_tls = plan_.listen_tls.get();
    params.seed = seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(i + 1);
    if (config.max_connections > 0) params.open_connections = &open_connections_;
    auto worker = Worker::create(std::move(params));
    if (!worker) return worker.error();
    workers_.push_back(std::move(*worker));
    fleet_.workers.push_back(workers_.back().get());
  }
  if (config.health_interval.count() > 0) {
    health_ = std::make_unique<HealthChecker>(workers_[0]->loop(), config, fleet_.states);
    health_->start();
  }
  // From here on each worker (and the checker, on worker 0) belongs to its thread.
  for (auto& w : workers_)
    threads_.emplace_back([worker = w.get()] { worker->run(); });
  return {};
}

std::string Balancer::stats_json() const {
  return render_stats_json(fleet_, mono_ns());
}

bool Balancer::backend_live(const std::string& name) const {
  for (const auto& s : states_) {
    if (s->name() == name) return s->live(mono_ns());
  }
  return false;
}

void Balancer::stop() {
  if (stopped_) return;
  stopped_ = true;
  for (auto& w : workers_)
    w->stop();
  for (auto& t : threads_)
    t.join();
  threads_.clear();
  health_.reset();
  workers_.clear();
}

}  // namespace stampede::balancer
