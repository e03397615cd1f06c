// BalancerPlan: one balancer, its configuration parsed and checked once.
//
// prepare() is the one place that checks a BalancerConfig (every name, number and address, as
// validate() does), splits each address into its host and port, and builds the TLS contexts,
// each shared by every worker: the listener's server context (--tls-cert/--tls-key, ALPN h2 and
// http/1.1) and the https backends' client context (--backend-ca, --backend-insecure).
// Balancer::start(BalancerPlan) takes the plan as it is and never parses or checks the
// configuration's text again. Every entry point (the command line and its --config file, the
// tests) builds a BalancerConfig and calls prepare(); its errors are one line for the user
// (no "stampede: " prefix), worded in this one place.
//
// prepare() does no network I/O (it reads only the certificate, key and CA files, or the system
// trust store):
// Balancer::start resolves each host once and binds.
#pragma once

#include <optional>
#include <vector>

#include "balancer/config.h"
#include "core/expected.h"
#include "tls/context.h"

namespace stampede::balancer {

struct BalancerPlan {
  BalancerConfig config;  // checked: the numbers and names the engine reads, never re-parsed
  HostPort listen;        // config.listen
  std::optional<HostPort> admin;  // config.admin_listen, when given
  // config.backends[i].address, split (the scheme already taken off by the parsers).
  std::vector<HostPort> backends;
  tls::ContextPtr backend_tls;  // the https backends' client context; null when none is https
  tls::ContextPtr listen_tls;   // the listener's server context; null: plain TCP
};

// Checks `config` and builds its plan. Errors name the option or the backend.
Expected<BalancerPlan> prepare(BalancerConfig config);

}  // namespace stampede::balancer
