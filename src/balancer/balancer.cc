#include "balancer/balancer.h"

#include "balancer/health.h"
#include "balancer/worker.h"
#include "core/clock.h"
#include "net/socket.h"

namespace stampede::balancer {

Expected<std::unique_ptr<Balancer>> Balancer::start(const BalancerConfig& config) {
  if (auto r = validate(config); !r) return r.error();
  std::unique_ptr<Balancer> lb(new Balancer(config));
  if (auto r = lb->init(); !r) return r.error();
  return lb;
}

Balancer::Balancer(BalancerConfig config) : config_(std::move(config)) {}

Balancer::~Balancer() {
  stop();
}

Expected<void> Balancer::open_listeners(std::vector<net::Fd>& listeners, net::Fd& admin) {
  auto address = net::parse_host_port(config_.listen);
  if (!address) return make_error("--listen: " + address.error().message);
  net::ListenOptions options;
  options.reuse_port = config_.cores > 1;
  for (int i = 0; i < config_.cores; ++i) {
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
  if (config_.admin_listen.empty()) return {};
  auto admin_address = net::parse_host_port(config_.admin_listen);
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

// The host of "host:port" or "[v6]:port", for SNI and the certificate check.
std::string address_host(const std::string& address) {
  std::string host = address.substr(0, address.rfind(':'));
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
  }
  return host;
}

}  // namespace

Expected<void> Balancer::init() {
  for (std::size_t i = 0; i < config_.backends.size(); ++i) {
    const BackendSpec& spec = config_.backends[i];
    auto address = net::parse_host_port(spec.address);
    if (!address) return make_error("backend " + spec.name + ": " + address.error().message);
    states_.push_back(std::make_unique<BackendState>(i, spec, *address));
    if (spec.tls) {
      if (!backend_tls_) {
        tls::ClientOptions options;
        options.insecure = config_.backend_insecure;
        options.ca_file = config_.backend_ca;
        auto context = tls::make_client_context(options);
        if (!context) {
          const std::string what =
              config_.backend_ca.empty() ? "https backends" : "--backend-ca " + config_.backend_ca;
          return make_error(what + ": " + context.error().message);
        }
        backend_tls_ = std::move(*context);
      }
      states_.back()->set_tls(backend_tls_.get(), address_host(spec.address));
    }
    fleet_.states.push_back(states_.back().get());
  }
  std::vector<net::Fd> listeners;
  net::Fd admin;
  if (auto r = open_listeners(listeners, admin); !r) return r;
  fleet_.config = &config_;
  const std::uint64_t seed = static_cast<std::uint64_t>(mono_ns());
  for (int i = 0; i < config_.cores; ++i) {
    WorkerParams params;
    params.index = static_cast<std::size_t>(i);
    params.config = &config_;
    params.states = fleet_.states;
    params.fleet = &fleet_;
    params.listen_fd = std::move(listeners[i]);
    if (i == 0) params.admin_fd = std::move(admin);
    params.seed = seed + 0x9e3779b97f4a7c15ULL * static_cast<std::uint64_t>(i + 1);
    if (config_.max_connections > 0) params.open_connections = &open_connections_;
    auto worker = Worker::create(std::move(params));
    if (!worker) return worker.error();
    workers_.push_back(std::move(*worker));
    fleet_.workers.push_back(workers_.back().get());
  }
  if (config_.health_interval.count() > 0) {
    health_ = std::make_unique<HealthChecker>(workers_[0]->loop(), config_, fleet_.states);
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
