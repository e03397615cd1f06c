#include "loadgen/report/text.h"

#include <cmath>
#include <string>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "loadgen/shard.h"

namespace stampede::loadgen {
namespace {

// Milliseconds with microsecond resolution.
std::string fixed_ms(double ns) {
  return fmt::format("{:.3f}", ns / 1e6);
}

void write_settings(const RunResult& r, std::ostream& out) {
  fmt::print(out, "\nTarget URL:          {}\n", r.url);
  if (r.max_requests > 0) {
    fmt::print(out, "Max requests:        {}\n", r.max_requests);
  } else if (r.max_seconds > 0) {
    fmt::print(out, "Max time (s):        {}\n", r.max_seconds);
  }
  if (r.rate) {
    fmt::print(out, "Target rps:          {}", r.rate->target_rps);
    if (r.rate->ramp_seconds > 0) fmt::print(out, " (ramp {} s)", r.rate->ramp_seconds);
    out << '\n';
  }
  fmt::print(out, "Concurrent clients:  {}\n", r.clients);
  fmt::print(out, "Running on cores:    {}\n", r.cores);
  fmt::print(out, "Agent:               {}\n", r.keep_alive ? "keepalive" : "none");
  // --shard: which part this was and when it started (what stampede merge lines up).
  if (!r.shard.whole()) {
    fmt::print(out, "Shard:               {} of {}, started {}\n", r.shard.index, r.shard.count,
               format_start_time(r.start_unix_ns));
  }
  out << '\n';
}

void write_percentiles(const stats::Histogram& latency, std::ostream& out) {
  for (const char* p : {"50", "90", "95", "99", "99.9"}) {
    const double value = static_cast<double>(latency.percentile(std::stod(p)));
    fmt::print(out, "{:>4}%      {} ms\n", p, fixed_ms(value));
  }
  fmt::print(out, " 100%      {} ms (longest request)\n",
             fixed_ms(static_cast<double>(latency.max())));
}

void write_latency(const RunResult& r, std::ostream& out) {
  fmt::print(out, "Completed requests:  {}\n", r.total_requests);
  fmt::print(out, "Total errors:        {}\n", r.total_errors);
  fmt::print(out, "Total time:          {:.3f} s\n", r.elapsed_seconds());
  fmt::print(out, "Mean latency:        {} ms\n", fixed_ms(r.latency.mean()));
  fmt::print(out, "Effective rps:       {}\n", std::llround(r.effective_rps()));
  if (r.tls_handshakes > 0) {
    fmt::print(out, "TLS sessions resumed: {} of {} handshakes\n", r.tls_resumed, r.tls_handshakes);
  }
  out << '\n';
  if (r.rate) {
    fmt::print(out, "Corrected latency (from each request's intended send time):\n");
  }
  fmt::print(out, "Percentage of requests served within a certain time\n");
  write_percentiles(r.latency, out);
  if (!r.rate) return;
  fmt::print(out, "\nUncorrected latency (from each request's connect or first byte written):\n");
  write_percentiles(r.rate->uncorrected, out);
}

// ab's Connection Times: one line per phase that was measured, in ms (count in connections for
// connect and TLS, in responses for the first byte).
void write_phases(const RunResult& r, std::ostream& out) {
  if (r.connect.count() == 0 && r.first_byte.count() == 0) return;
  fmt::print(out, "\n{:<20}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}\n", "Request phases (ms)", "count", "min",
             "mean", "p50", "p99", "max");
  const auto line = [&out](const char* name, const stats::Histogram& h) {
    if (h.count() == 0) return;
    fmt::print(out, "  {:<18}{:>9}{:>9}{:>9}{:>9}{:>9}{:>9}\n", name, h.count(),
               fixed_ms(static_cast<double>(h.min())), fixed_ms(h.mean()),
               fixed_ms(static_cast<double>(h.percentile(50))),
               fixed_ms(static_cast<double>(h.percentile(99))),
               fixed_ms(static_cast<double>(h.max())));
  };
  line("connect", r.connect);
  line("TLS handshake", r.tls_handshake);
  line("first byte", r.first_byte);
}

// --rps: the rate achieved against the target, the send lag, and a plain sentence when the
// target was not held.
void write_rate(const RunResult& r, std::ostream& out) {
  if (!r.rate) return;
  const RateResult& rate = *r.rate;
  fmt::print(out, "\nTarget rate:         {} rps\n", rate.target_rps);
  fmt::print(out, "Achieved rate:       {:.1f} rps ({} of {} scheduled requests sent)\n",
             rate.achieved_rps(), rate.sent, rate.scheduled);
  fmt::print(out, "Send lag:            p50 {} ms, p99 {} ms, max {} ms\n",
             fixed_ms(static_cast<double>(rate.lag.percentile(50))),
             fixed_ms(static_cast<double>(rate.lag.percentile(99))),
             fixed_ms(static_cast<double>(rate.lag.max())));
  if (rate.generator_lag.count() > 0) {
    fmt::print(out,
               "  generator's own:   p50 {} ms, p99 {} ms, max {} ms (requests that had a "
               "free connection at their time)\n",
               fixed_ms(static_cast<double>(rate.generator_lag.percentile(50))),
               fixed_ms(static_cast<double>(rate.generator_lag.percentile(99))),
               fixed_ms(static_cast<double>(rate.generator_lag.max())));
  }
  fmt::print(out,
             "Late requests:       {} (sent more than 1 ms behind the schedule; {} of them "
             "waited for a free connection)\n",
             rate.late, rate.late_waiting);
  if (r.target_held()) {
    if (rate.late > 0) fmt::print(out, "\n{}\n", r.late_cause());
    return;
  }
  fmt::print(out,
             "\nThe target rate was not held: {:.1f} rps achieved for {} rps asked; {} of {} "
             "requests were sent more than 1 ms late (p99 {} ms, max {} ms behind the "
             "schedule). {}\n",
             rate.achieved_rps(), rate.target_rps, rate.late, rate.sent,
             fixed_ms(static_cast<double>(rate.lag.percentile(99))),
             fixed_ms(static_cast<double>(rate.lag.max())), r.late_cause());
}

// loadtest's layout: the code right-aligned in 4 columns (at least one space before it).
void write_errors(const RunResult& r, std::ostream& out) {
  if (r.total_errors == 0) return;
  out << '\n';
  for (const auto& [code, n] : r.error_codes) {
    const std::size_t pad = code.size() < 4 ? 4 - code.size() : 1;
    fmt::print(out, " {}{}:   {} errors\n", std::string(pad, ' '), code, n);
  }
  if (r.local_errors.empty()) return;
  out << "\nLocal errors (this machine's limits, not the server's):\n";
  for (const auto& [code, n] : r.local_errors)
    fmt::print(out, "  {}:   {} errors\n", code, n);
}

void write_header_counts(const RunResult& r, std::ostream& out) {
  for (const auto& [name, counts] : r.header_counts) {
    fmt::print(out, "\nResponses by {}:\n", name);
    for (const auto& [value, n] : counts)
      fmt::print(out, "  {}:   {}\n", value, n);
  }
}

}  // namespace

void write_text_report(const RunResult& result, std::ostream& out) {
  write_settings(result, out);
  write_latency(result, out);
  write_phases(result, out);
  write_rate(result, out);
  write_errors(result, out);
  if (result.websocket) write_ws_text(result.ws, result.connections_opened, out);
  if (result.http2) write_h2_text(result.h2, result.streams, out);
  write_header_counts(result, out);
  out.flush();
}

}  // namespace stampede::loadgen
