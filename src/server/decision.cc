#include "server/decision.h"

#include "server/worker.h"

namespace stampede::server {

Target read_target(std::string_view path, std::string_view query) {
  Target t;
  if (path == "/count") {
    t.kind = Kind::Count;
  } else if (path == "/reset") {
    t.kind = Kind::Reset;
  } else if (path == "/metrics") {
    t.kind = Kind::Metrics;
  } else if (!query.empty()) {
    if (auto error = parse_overrides(query, t.overrides)) t.bad_override = error->message;
  }
  return t;
}

Decision decide(const Target& target, Worker& worker) {
  WorkerCounters::add(worker.counters().requests, std::uint64_t{1});
  const ServerOptions& o = worker.options();
  Decision d;
  if (target.overrides.status) {
    d.status = *target.overrides.status;
  } else if (o.error_percent > 0 ? worker.spread().next() : o.error_status != 0) {
    d.status = worker.responses().error_status();
    d.canned_error = true;
  }
  d.delay_ns = target.overrides.delay_ns.value_or(o.delay.count());
  return d;
}

}  // namespace stampede::server
