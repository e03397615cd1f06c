#include "balancer/admin.h"

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "balancer/worker.h"
#include "core/units.h"

namespace stampede::balancer {
namespace {

// Replies the balancer produced itself, by status, summed over workers.
std::vector<std::pair<int, std::uint64_t>> local_reply_counts(const Fleet& fleet) {
  std::vector<std::pair<int, std::uint64_t>> out;
  for (std::size_t i = 0; i < std::size(LocalReplies::kStatuses); ++i) {
    std::uint64_t sum = 0;
    for (const Worker* w : fleet.workers) {
      sum += w->local_replies().counts[i].load(std::memory_order_relaxed);
    }
    out.emplace_back(LocalReplies::kStatuses[i], sum);
  }
  return out;
}

nlohmann::ordered_json latency_json(const stats::Histogram& h) {
  return {{"count", h.count()},
          {"mean", h.mean() / 1e6},
          {"p50", ns_to_ms(h.percentile(50))},
          {"p90", ns_to_ms(h.percentile(90))},
          {"p99", ns_to_ms(h.percentile(99))},
          {"p999", ns_to_ms(h.percentile(99.9))},
          {"max", ns_to_ms(h.max())}};
}

// The balancer's own resource failures, summed over workers: {accept, connect}.
std::pair<std::uint64_t, std::uint64_t> local_error_counts(const Fleet& fleet) {
  std::pair<std::uint64_t, std::uint64_t> out{0, 0};
  for (const Worker* w : fleet.workers) {
    out.first += w->local_errors().accept.load(std::memory_order_relaxed);
    out.second += w->local_errors().connect.load(std::memory_order_relaxed);
  }
  return out;
}

// TLS handshakes on the listener, summed over workers, by how they ended.
struct HandshakeCounts {
  std::uint64_t done = 0, error = 0, closed = 0, timeout = 0;
};
HandshakeCounts handshake_counts(const Fleet& fleet) {
  HandshakeCounts out;
  for (const Worker* w : fleet.workers) {
    const ClientTlsCounts& c = w->client_tls();
    out.done += c.done.load(std::memory_order_relaxed);
    out.error += c.error.load(std::memory_order_relaxed);
    out.closed += c.closed.load(std::memory_order_relaxed);
    out.timeout += c.timeout.load(std::memory_order_relaxed);
  }
  return out;
}

}  // namespace

std::vector<BackendReport> collect_reports(const Fleet& fleet, std::int64_t now_ns) {
  std::vector<BackendReport> reports(fleet.states.size());
  for (std::size_t i = 0; i < fleet.states.size(); ++i) {
    reports[i].state = fleet.states[i];
    reports[i].live = fleet.states[i]->live(now_ns);
  }
  for (const Worker* w : fleet.workers) {
    for (const Backend* b : w->backends()) {
      b->add_totals(reports[b->index()].totals);
      b->merge_latency(reports[b->index()].latency);
    }
  }
  return reports;
}

std::string render_stats_json(const Fleet& fleet, std::int64_t now_ns) {
  const BalancerConfig& c = *fleet.config;
  nlohmann::ordered_json out;
  out["strategy"] = strategy_name(c.strategy);
  out["workers"] = fleet.workers.size();
  out["health"] = {{"interval_ms", c.health_interval.count()},
                   {"path", c.health_path},
                   {"timeout_ms", c.effective_health_timeout().count()},
                   {"rise", c.rise},
                   {"fall", c.fall}};
  out["eject_time_ms"] = c.eject_time.count();
  out["retries"] = c.retries;
  nlohmann::ordered_json replies = nlohmann::ordered_json::object();
  for (auto [status, count] : local_reply_counts(fleet))
    replies[std::to_string(status)] = count;
  out["replies"] = replies;
  const auto [accept_errors, connect_errors] = local_error_counts(fleet);
  out["local_errors"] = {{"accept", accept_errors}, {"connect", connect_errors}};
  const HandshakeCounts tls = handshake_counts(fleet);
  out["client_tls"] = {
      {"handshakes", tls.done},
      {"failed", {{"error", tls.error}, {"closed", tls.closed}, {"timeout", tls.timeout}}}};
  nlohmann::ordered_json backends = nlohmann::ordered_json::array();
  for (const BackendReport& r : collect_reports(fleet, now_ns)) {
    backends.push_back({{"name", r.state->name()},
                        {"address", r.state->address_text()},
                        {"weight", r.state->weight()},
                        {"up", r.live},
                        {"sent", r.totals.sent},
                        {"responses", r.totals.responses},
                        {"in_flight", r.totals.in_flight},
                        {"failures", r.totals.failures},
                        {"bad_responses", r.totals.bad_responses},
                        {"retries", r.totals.retries},
                        {"client_aborts", r.totals.client_aborts},
                        {"down_transitions", r.state->down_transitions()},
                        {"latency_ms", latency_json(r.latency)}});
  }
  out["backends"] = std::move(backends);
  return out.dump() + "\n";
}

std::string render_metrics(const Fleet& fleet, std::int64_t now_ns) {
  auto reports = collect_reports(fleet, now_ns);
  std::string out;
  auto family = [&](std::string_view name, std::string_view type, std::string_view help,
                    auto value) {
    out +=
        fmt::format("# HELP stampede_lb_{} {}\n# TYPE stampede_lb_{} {}\n", name, help, name, type);
    for (const BackendReport& r : reports) {
      out += fmt::format("stampede_lb_{}{{backend=\"{}\",address=\"{}\"}} {}\n", name,
                         r.state->name(), r.state->address_text(), value(r));
    }
  };
  family("backend_up", "gauge", "1 when the backend takes traffic.",
         [](const BackendReport& r) { return r.live ? 1 : 0; });
  family("requests_sent_total", "counter", "Attempts sent to the backend, retries included.",
         [](const BackendReport& r) { return r.totals.sent; });
  family("responses_total", "counter", "Complete responses relayed from the backend.",
         [](const BackendReport& r) { return r.totals.responses; });
  family("in_flight", "gauge", "Requests on the backend now.",
         [](const BackendReport& r) { return r.totals.in_flight; });
  family("failures_total", "counter", "Attempts that ended without a complete response.",
         [](const BackendReport& r) { return r.totals.failures; });
  family("bad_responses_total", "counter",
         "Failed attempts whose response was malformed or cut short (502).",
         [](const BackendReport& r) { return r.totals.bad_responses; });
  family("retries_total", "counter", "Failed attempts re-sent.",
         [](const BackendReport& r) { return r.totals.retries; });
  family("client_aborts_total", "counter",
         "Attempts abandoned because the client closed, stalled or sent a bad body.",
         [](const BackendReport& r) { return r.totals.client_aborts; });
  family("down_transitions_total", "counter", "Times the backend left the rotation.",
         [](const BackendReport& r) { return r.state->down_transitions(); });
  out +=
      "# HELP stampede_lb_latency_seconds Backend response time (dispatch to last byte).\n"
      "# TYPE stampede_lb_latency_seconds summary\n";
  for (const BackendReport& r : reports) {
    for (double q : {0.5, 0.9, 0.99, 0.999}) {
      out += fmt::format("stampede_lb_latency_seconds{{backend=\"{}\",quantile=\"{}\"}} {}\n",
                         r.state->name(), q, r.latency.percentile(q * 100) / 1e9);
    }
    out += fmt::format("stampede_lb_latency_seconds_sum{{backend=\"{}\"}} {}\n", r.state->name(),
                       r.latency.mean() * static_cast<double>(r.latency.count()) / 1e9);
    out += fmt::format("stampede_lb_latency_seconds_count{{backend=\"{}\"}} {}\n", r.state->name(),
                       r.latency.count());
  }
  out +=
      "# HELP stampede_lb_replies_total Responses the balancer produced itself.\n"
      "# TYPE stampede_lb_replies_total counter\n";
  for (auto [status, count] : local_reply_counts(fleet)) {
    out += fmt::format("stampede_lb_replies_total{{status=\"{}\"}} {}\n", status, count);
  }
  const auto [accept_errors, connect_errors] = local_error_counts(fleet);
  out +=
      "# HELP stampede_lb_local_errors_total The balancer's own resources ran out (descriptors, "
      "memory, local ports); never counted against a backend.\n"
      "# TYPE stampede_lb_local_errors_total counter\n";
  out += fmt::format("stampede_lb_local_errors_total{{op=\"accept\"}} {}\n", accept_errors);
  out += fmt::format("stampede_lb_local_errors_total{{op=\"connect\"}} {}\n", connect_errors);
  const HandshakeCounts tls = handshake_counts(fleet);
  out +=
      "# HELP stampede_lb_client_tls_handshakes_total TLS handshakes on the listener, by how they "
      "ended; a failure is the client's, never a backend's.\n"
      "# TYPE stampede_lb_client_tls_handshakes_total counter\n";
  for (const auto& [result, count] : {std::pair<const char*, std::uint64_t>{"ok", tls.done},
                                      {"error", tls.error},
                                      {"closed", tls.closed},
                                      {"timeout", tls.timeout}}) {
    out +=
        fmt::format("stampede_lb_client_tls_handshakes_total{{result=\"{}\"}} {}\n", result, count);
  }
  return out;
}

}  // namespace stampede::balancer
