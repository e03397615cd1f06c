#include "loadgen/merge.h"

#include <algorithm>
#include <limits>

#include <fmt/format.h>

#include "loadgen/rate_stats.h"
#include "loadgen/shard.h"

namespace stampede::loadgen {
namespace {

template <class Map>
void add_counts(Map& into, const Map& from) {
  for (const auto& [k, v] : from)
    into[k] += v;
}

void fold_rate(std::optional<RateResult>& into, const RateResult& from) {
  if (!into) {
    into = from;
    return;
  }
  into->scheduled += from.scheduled;
  into->sent += from.sent;
  into->late += from.late;
  into->late_waiting += from.late_waiting;
  into->uncorrected.merge(from.uncorrected);
  into->lag.merge(from.lag);
  into->generator_lag.merge(from.generator_lag);
}

ShardSummary summary_of(const SavedResult& s, const std::string& origin) {
  const RunResult& r = s.result;
  ShardSummary out;
  out.origin = origin;
  out.host = s.host;
  out.shard = r.shard;
  out.requests = r.total_requests;
  out.rps = r.effective_rps();
  out.p99_ns = r.latency.percentile(99);
  if (r.rate) {
    out.lag_p99_ns = r.rate->lag.percentile(99);
    out.generator_lag_p99_ns = r.rate->generator_lag.percentile(99);
  }
  out.start_unix_ns = r.start_unix_ns;
  const double capacity = r.elapsed_seconds() * std::max<std::uint32_t>(r.cores, 1);
  out.cpu_busy = capacity > 0 ? std::min(s.cpu_seconds / capacity, 1.0) : 0;
  return out;
}

}  // namespace

void add_outcome(RunResult& t, const RunResult& r) {
  t.total_requests += r.total_requests;
  t.total_errors += r.total_errors;
  t.latency.merge(r.latency);
  t.connect.merge(r.connect);
  t.tls_handshake.merge(r.tls_handshake);
  t.first_byte.merge(r.first_byte);
  add_counts(t.error_codes, r.error_codes);
  add_counts(t.local_errors, r.local_errors);
  add_counts(t.status_counts, r.status_counts);
  for (const auto& [name, values] : r.header_counts)
    add_counts(t.header_counts[name], values);
  t.bytes_read += r.bytes_read;
  t.bytes_written += r.bytes_written;
  t.connections_opened += r.connections_opened;
  t.tls_handshakes += r.tls_handshakes;
  t.tls_resumed += r.tls_resumed;
  t.interrupted = t.interrupted || r.interrupted;
  if (r.rate) fold_rate(t.rate, *r.rate);
  t.ws.merge(r.ws);
  t.h2.merge(r.h2);
}

RunResult combine_runs(const std::vector<RunResult>& runs) {
  RunResult t;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const RunResult& r = runs[i];
    if (i == 0) {
      t = r;
      t.timeline.clear();
      t.timeline_sketch.reset();
      continue;
    }
    add_outcome(t, r);
    t.elapsed_ns += r.elapsed_ns;
    if (t.rate && r.rate) t.rate->send_window_ns += r.rate->send_window_ns;
  }
  return t;
}

Expected<void> ResultMerger::check_same_run(const SavedResult& saved, const std::string& origin) {
  if (shards_.empty()) {
    identity_ = saved.run;
    first_origin_ = origin;
    return {};
  }
  for (const auto& [key, value] : identity_.items()) {
    const auto other = saved.run.find(key);
    if (other != saved.run.end() && *other == value) continue;
    const std::string theirs = other == saved.run.end() ? "none" : other->dump();
    const std::string line = fmt::format("{} differs: {} in {}, {} in {}", key, value.dump(),
                                         first_origin_, theirs, origin);
    if (!force_) {
      return make_error(line + " (not shards of one run; --force merges them anyway)");
    }
    forced_.push_back(line);
  }
  // A key only the later result has (--http2's): its run is not the first's either.
  for (const auto& [key, value] : saved.run.items()) {
    if (identity_.contains(key)) continue;
    const std::string line =
        fmt::format("{} differs: none in {}, {} in {}", key, first_origin_, value.dump(), origin);
    if (!force_) {
      return make_error(line + " (not shards of one run; --force merges them anyway)");
    }
    forced_.push_back(line);
  }
  const Shard shard = saved.result.shard;
  if (!seen_.insert(shard.index).second) {
    const std::string line =
        fmt::format("shard {}/{} twice (again in {})", shard.index, shard.count, origin);
    if (!force_) return make_error(line + " (--force merges them anyway)");
    forced_.push_back(line);
  }
  return {};
}

Expected<void> ResultMerger::add(SavedResult saved, const std::string& origin) {
  if (shards_.empty()) seen_.insert(saved.result.shard.index);
  if (auto same = check_same_run(saved, origin); !same) return same;
  const RunResult& r = saved.result;
  shards_.push_back(summary_of(saved, origin));
  spans_.push_back({r.start_unix_ns, r.elapsed_ns, r.rate ? r.rate->send_window_ns : 0,
                    std::move(saved.timeline)});
  fold(r);
  return {};
}

void ResultMerger::fold(const RunResult& r) {
  RunResult& t = total_;
  if (shards_.size() == 1) {
    t = r;
    t.shard = Shard{};
    t.timeline.clear();
    t.timeline_sketch.reset();
    return;
  }
  t.cores += r.cores;
  t.max_requests += r.max_requests;
  t.clients += r.clients;
  add_outcome(t, r);
}

Expected<MergedResult> ResultMerger::finish() {
  if (shards_.empty()) return make_error("no results to merge");
  MergedResult out;
  const std::uint32_t count = identity_.value("shards", 1U);
  std::vector<std::string> missing;
  for (std::uint32_t k = 1; k <= count; ++k) {
    if (!seen_.contains(k)) missing.push_back(std::to_string(k));
  }
  if (!missing.empty()) {
    const std::string line = fmt::format("shard{} {} of {} missing", missing.size() > 1 ? "s" : "",
                                         fmt::join(missing, ", "), count);
    if (!force_) return make_error(line + " (--force merges the others anyway)");
    forced_.push_back(line);
  }
  std::int64_t first = std::numeric_limits<std::int64_t>::max(), last_start = 0;
  std::int64_t end = 0, send_end = 0;
  for (const Span& s : spans_) {
    first = std::min(first, s.start_unix_ns);
    last_start = std::max(last_start, s.start_unix_ns);
    end = std::max(end, s.start_unix_ns + s.elapsed_ns);
    send_end = std::max(send_end, s.start_unix_ns + s.send_window_ns);
  }
  RunResult& r = out.result;
  r = std::move(total_);
  r.start_unix_ns = first;
  r.elapsed_ns = end - first;
  if (r.rate) {
    r.rate->send_window_ns = send_end - first;
    r.rate->target_rps = identity_.value("rps", r.rate->target_rps);
  }
  bool timeline = false;
  stats::Timeline merged(0);
  for (const Span& s : spans_) {
    if (s.timeline.rows.is_null()) continue;
    timeline = true;
    if (auto ok = add_saved_timeline(s.timeline, s.start_unix_ns - first, merged); !ok) {
      return ok.error();
    }
  }
  if (timeline) {
    r.timeline = merged.rows(r.elapsed_ns);
    r.timeline_sketch = std::make_shared<const stats::Timeline>(std::move(merged));
  }
  out.start_spread_ns = last_start - first;
  out.shards = std::move(shards_);
  std::sort(out.shards.begin(), out.shards.end(), [](const ShardSummary& a, const ShardSummary& b) {
    return a.shard.index < b.shard.index;
  });
  for (const ShardSummary& s : out.shards) {
    if (!s.generator_lag_p99_ns || *s.generator_lag_p99_ns <= RateStats::kLateNs) continue;
    out.findings.push_back(fmt::format(
        "shard {} on host {}: generator lag p99 {:.1f} ms — that machine was the limit, not the "
        "server",
        s.shard.index, s.host, static_cast<double>(*s.generator_lag_p99_ns) / 1e6));
  }
  out.forced = std::move(forced_);
  return out;
}

}  // namespace stampede::loadgen
