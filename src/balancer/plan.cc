#include "balancer/plan.h"

#include <algorithm>

#include "tls/listener_context.h"

namespace stampede::balancer {
namespace {

// The https backends' context: their certificates checked against --backend-ca or the system
// trust store, or not at all with --backend-insecure.
Expected<tls::ContextPtr> make_backend_tls(const BalancerConfig& c) {
  tls::ClientOptions options;
  options.insecure = c.backend_insecure;
  options.ca_file = c.backend_ca;
  auto context = tls::make_client_context(options);
  if (!context) {
    const std::string what =
        c.backend_ca.empty() ? "https backends" : "--backend-ca " + c.backend_ca;
    return make_error(what + ": " + context.error().message);
  }
  return std::move(*context);
}

}  // namespace

Expected<BalancerPlan> prepare(BalancerConfig config) {
  if (auto r = validate(config); !r) return r.error();
  BalancerPlan plan;
  // validate() parsed each address already: these cannot fail.
  plan.listen = *parse_address("--listen", config.listen, true);
  if (!config.admin_listen.empty()) {
    plan.admin = *parse_address("--admin-listen", config.admin_listen, true);
  }
  for (const BackendSpec& b : config.backends) {
    plan.backends.push_back(*parse_address("backend " + b.name, b.address, false));
  }
  if (std::any_of(config.backends.begin(), config.backends.end(),
                  [](const BackendSpec& b) { return b.tls; })) {
    auto context = make_backend_tls(config);
    if (!context) return context.error();
    plan.backend_tls = std::move(*context);
  }
  if (!config.tls_cert.empty()) {
    auto context =
        tls::load_server_context(config.tls_cert, config.tls_key, tls::ServerAlpn::H2AndHttp11);
    if (!context) return context.error();
    plan.listen_tls = std::move(*context);
  }
  plan.config = std::move(config);
  return plan;
}

}  // namespace stampede::balancer
