// run(): one load-generator run, callable from the cli, tests and other modules (the lab).
// Starts the workers, applies -n exactly and -t, prints progress, stops early on request, and
// merges what the workers measured.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <ostream>
#include <span>
#include <string>
#include <vector>

#include "core/expected.h"
#include "loadgen/config.h"
#include "loadgen/plan.h"

#include "loadgen/h2_stats.h"
#include "loadgen/shard.h"
#include "loadgen/ws_stats.h"
#include "stats/histogram.h"
#include "stats/timeline.h"

namespace stampede::loadgen {

// What an open-loop (--rps) run measured beyond RunResult's own fields.
struct RateResult {
  double target_rps = 0;  // --rps
  double ramp_seconds = 0;
  // Requests the schedule had due before sending stopped (the -t deadline, the interrupt, or
  // -n's last request): what a run that held the rate reports.
  std::uint64_t scheduled = 0;
  std::uint64_t sent = 0;           // requests begun (every one has a lag)
  std::int64_t send_window_ns = 0;  // how long the run was sending: -t, the interrupt, or -n's run
  // ns, from each request's actual begin: the start of its connect when it opened its
  // connection, else its first byte written (what the client felt, without the lag).
  stats::Histogram uncorrected;
  stats::Histogram lag;    // ns, how far behind its intended time each request began
  std::uint64_t late = 0;  // requests that began more than 1 ms behind the schedule
  // Of those, the ones that waited for a free connection: every connection of their worker (its
  // share of -c) was still waiting for a response at their time (the server was slow for the
  // pool); the others were late because the generator was (its loop woke late, or its CPU was
  // the limit).
  std::uint64_t late_waiting = 0;
  // ns, the lag of the requests that had a connection free at their time: the generator's own.
  stats::Histogram generator_lag;

  // The rate the pacer sent at: sent / send window (what --rps asks for; effective_rps() is
  // loadtest's completed / elapsed).
  double achieved_rps() const;
};

// What a run measured, with the settings it ran with (what the reports print).
struct RunResult {
  // Settings.
  std::string url;
  std::uint32_t cores = 0;  // worker threads used
  std::uint64_t max_requests = 0;
  double max_seconds = 0;  // the time limit in effect (10 when neither -n nor -t was given)
  std::uint32_t concurrency = 0;
  bool keep_alive = false;
  std::uint32_t clients = 0;  // connections (clients) the run had
  // --shard: which part of the run this was (max_requests, clients and rate->target_rps are the
  // shard's part; a merged result has the whole run's).
  Shard shard;
  std::int64_t start_unix_ns = 0;  // when the run started, wall clock (ns since the Unix epoch)

  // Outcome. Every request is counted once: a response (any status) or a transport failure.
  std::uint64_t total_requests = 0;
  std::uint64_t total_errors = 0;  // non-2xx/3xx responses plus transport failures
  std::int64_t elapsed_ns = 0;     // start to the last response (or the stop)
  // ns, every request: from the start of its connect (TCP, proxy CONNECT, TLS handshake all
  // inside) when it opened its connection, from its first byte written on a reused one; with
  // --rps from its intended send time (corrected for coordinated omission).
  stats::Histogram latency;
  // The phases, ns: TCP connect per connection opened; TLS handshake per handshake (from the TCP
  // connection, a proxy's CONNECT exchange included); time to first byte per response (first
  // byte written to the loop's wake-up that read the response's first bytes).
  stats::Histogram connect;
  stats::Histogram tls_handshake;
  stats::Histogram first_byte;
  std::map<std::string, std::uint64_t> error_codes;  // "500", "ECONNREFUSED", "ETIMEDOUT"...
  // The generator's own failures ("EMFILE", "EADDRNOTAVAIL": WorkerStats::is_local_failure), not
  // the server's: in total_errors, never in error_codes.
  std::map<std::string, std::uint64_t> local_errors;
  std::map<int, std::uint64_t> status_counts;  // every response by status
  // Config::count_headers: header name -> value -> responses that had it.
  std::map<std::string, std::map<std::string, std::uint64_t>> header_counts;
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_written = 0;
  std::uint64_t connections_opened = 0;
  std::uint64_t tls_handshakes = 0;  // https: handshakes completed...
  std::uint64_t tls_resumed = 0;     // ...of which resumed an earlier session
  bool interrupted = false;          // stopped early by a StopSignal
  std::optional<RateResult> rate;    // with --rps only
  // --log: one line on why the per-request log is incomplete (a write failed); empty when every
  // line was written, or without --log.
  std::string log_error;
  // Config::timeline (or --rps): rows from the start to the end (stats::Timeline::rows), latency
  // as in `latency`.
  std::vector<stats::TimelineRow> timeline;
  // The same timeline with its rows' latency sketches (what a saved result keeps, so that merged
  // rows have exact percentiles); null without a timeline.
  std::shared_ptr<const stats::Timeline> timeline_sketch;
  bool websocket = false;  // a ws:// run: requests are messages; see `ws`
  WsCounts ws;
  bool http2 = false;         // an --http2 run: see `streams` and `h2`
  std::uint32_t streams = 1;  // --streams as configured (h2.server_settings may lower it)
  H2Counts h2;

  double elapsed_seconds() const { return static_cast<double>(elapsed_ns) / 1e9; }
  double effective_rps() const;
  // With --rps: 99.5% of the scheduled requests at least were sent and the send lag p99 stayed
  // within 1 ms. True without --rps.
  bool target_held() const;
  // --rps with late requests: one plain sentence on why they were late (the server kept every
  // connection busy, or the generator fell behind); empty otherwise.
  std::string late_cause() const;
};

// A thread-safe request to stop a run early (Ctrl-C). Not async-signal-safe: call it from a
// normal thread (the cli waits for signals with sigwait on a thread of its own).
class StopSignal {
 public:
  void request_stop();
  bool stop_requested() const;
  // For run(): `wake` is called once a stop is requested (at once if it already was); an empty
  // function unregisters it.
  void on_stop(std::function<void()> wake);

 private:
  mutable std::mutex mutex_;
  bool requested_ = false;
  std::function<void()> wake_;
};

class LiveFeed;
class WorkerStats;

struct RunHooks {
  std::ostream* progress = nullptr;  // progress lines (loadtest's); none when null
  std::chrono::nanoseconds progress_interval = std::chrono::seconds(5);
  StopSignal* stop = nullptr;  // stop early; the result covers what ran
  LiveFeed* live = nullptr;    // the run's figures while it goes (loadgen/live.h); none when null
};

// The result of a run from its workers' stats (each a worker's own after join, or a copy taken
// on its thread mid-run), measured from start_ns to end_ns: what run() reports and what the
// live metrics show.
RunResult result_of(const Plan& plan, std::span<const WorkerStats* const> stats,
                    std::int64_t start_ns, std::int64_t end_ns, bool interrupted);

// Runs `plan` as prepare() made it, without checking it again; resolves its target first unless
// resolve() did. Errors are set-up failures (name resolution, event loop creation, a hook that
// cannot start); a run that started always returns a RunResult, whatever the errors.
Expected<RunResult> run(const Plan& plan, const RunHooks& hooks = {});

// prepare(config), then run(plan): a bad config is an error too.
Expected<RunResult> run(const Config& config, const RunHooks& hooks = {});

}  // namespace stampede::loadgen
