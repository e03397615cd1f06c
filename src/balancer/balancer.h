// Balancer: the in-process API of `stampede balance`, used by the CLI, the tests and the lab.
//
//   auto plan = prepare(config);         // balancer/plan.h: the checks, once
//   auto lb = Balancer::start(std::move(plan).value());  // listening when it returns
//   lb.value()->port();                  // the bound port (config.listen may say port 0)
//   lb.value()->stop();                  // or destroy it
//
// start() takes the plan as prepare() made it and checks nothing again: it resolves every
// address (once), binds the listeners (SO_REUSEPORT, one per worker, when
// --cores > 1) and runs one thread per worker. Errors (unresolvable address, port in use) come
// back as an Error; nothing is left running then.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "balancer/admin.h"
#include "balancer/backend.h"
#include "balancer/config.h"
#include "balancer/plan.h"
#include "core/expected.h"
#include "tls/context.h"

namespace stampede::balancer {

class HealthChecker;
class Worker;

class Balancer {
 public:
  static Expected<std::unique_ptr<Balancer>> start(BalancerPlan plan);
  ~Balancer();
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  std::uint16_t port() const { return port_; }
  // The --admin-listen port, or 0 when the admin endpoints are on the main port.
  std::uint16_t admin_port() const { return admin_port_; }
  const BalancerConfig& config() const { return plan_.config; }

  // The /lb-stats document, as served. Any thread.
  std::string stats_json() const;
  // Whether backend `name` takes traffic now (health and passive ejection). Any thread.
  bool backend_live(const std::string& name) const;

  // Stops every worker and joins the threads. Idempotent.
  void stop();

 private:
  explicit Balancer(BalancerPlan plan);
  Expected<void> init();
  Expected<void> open_listeners(std::vector<net::Fd>& listeners, net::Fd& admin);

  // Its TLS contexts outlive the workers (declared first); its config is what they read.
  BalancerPlan plan_;
  std::vector<std::unique_ptr<BackendState>> states_;
  std::vector<std::unique_ptr<Worker>> workers_;
  std::unique_ptr<HealthChecker> health_;
  std::vector<std::thread> threads_;
  Fleet fleet_;
  std::atomic<int> open_connections_{0};  // client connections, counted with --max-connections
  std::uint16_t port_ = 0;
  std::uint16_t admin_port_ = 0;
  bool stopped_ = false;
};

}  // namespace stampede::balancer
