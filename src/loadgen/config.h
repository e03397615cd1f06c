// Config: every option of a load-generator run, typed but not yet checked: what an entry point
// fills (the command line and .loadtestrc through options.h, the C++ API, the lab, tests).
// prepare() (plan.h) parses and checks it once into the Plan a run takes. What only the command
// line acts on (its reports, thresholds and scripts) is not here: options.h, CliSettings.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "loadgen/shard.h"
#include "net/io_backend.h"

namespace stampede::loadgen {

struct HookSet;  // loadgen/hooks.h

// --pipeline's limit: beyond it a connection's requests outgrow any server's socket buffers.
inline constexpr std::uint32_t kMaxPipeline = 256;
// --streams' limit (h2load's -m has none; a thousand streams per connection is past any server's
// SETTINGS_MAX_CONCURRENT_STREAMS default).
inline constexpr std::uint32_t kMaxStreams = 1000;

// How long a run lasts when neither max_requests nor max_duration is set (loadtest 8's default).
inline constexpr std::chrono::seconds kDefaultDuration{10};

struct Config {
  std::string url;  // http[s]://host[:port]/path?query

  // -n: exactly this many requests are sent and reported; 0 = no limit.
  std::uint64_t max_requests = 0;
  // -t: stop sending after this long, then wait at most `drain_timeout()` for requests in
  // flight; 0 = no limit. When both limits are 0 the run lasts kDefaultDuration.
  std::chrono::nanoseconds max_duration{0};

  std::uint32_t concurrency = 10;  // -c: connections, spread over the workers
  std::uint32_t cores = 1;         // --cores: worker threads (capped at concurrency)
  bool keep_alive = false;         // -k: reuse connections; else one connection per request
  // --pipeline: requests in flight per connection, written together (1 to kMaxPipeline; 1: wait
  // for each response). More than 1 needs keep_alive, and no WebSocket, script or hooks.
  std::uint32_t pipeline = 1;
  // --http2: HTTP/2 with prior knowledge (h2c) for http:// URLs; keep-alive is implied. Not with
  // --pipeline, --proxy or WebSocket URLs; https:// offers ALPN h2 only. Hooks apply
  // (loadgen/h2_generated.h: a generated request becomes HTTP/2 fields).
  bool http2 = false;
  // --streams: requests in flight per HTTP/2 connection (1 to kMaxStreams; h2load's -m); more
  // than 1 needs http2. The server's SETTINGS_MAX_CONCURRENT_STREAMS caps it when lower.
  std::uint32_t streams = 1;

  std::string method = "GET";  // upper case
  // -H, .loadtestrc headers: names lower-cased, one entry per name (the last value wins), in
  // the order first given. The host, accept and user-agent defaults are added unless named here.
  std::vector<std::pair<std::string, std::string>> headers;
  std::vector<std::string> cookies;  // -C name=value, sent as one "cookie" header
  std::optional<std::string> body;   // -P, -A, --data, or the contents of -p/-u/-a
  std::string content_type;          // -T; "text/plain" when there is a body and it is empty

  std::chrono::nanoseconds timeout{0};  // -d/--timeout: per request; 0 = none
  // --index: replaced in the URL path and body (ws://: in each message; refused in the URL) by
  // each request's unique index.
  std::string index_param;

  // Response header names (any case) whose values are counted: RunResult::header_counts.
  std::vector<std::string> count_headers;

  // https:// and proxies.
  bool insecure = false;        // --insecure: accept any server certificate
  std::string cert_file;        // --cert: client certificate (PEM), with key_file
  std::string key_file;         // --key: its private key (PEM)
  std::string secure_protocol;  // -s: loadtest's names (TLSv1_2_method...); empty: any version
  std::string proxy;            // --proxy http://host:port; empty: connect directly

  // --rps: open loop, requests per second across all workers (fractional is fine); 0: closed
  // loop. Latency then counts from each request's intended time (see pacer.h).
  double rps = 0;
  std::chrono::nanoseconds ramp{0};  // --ramp: the rate grows linearly from 0 to rps over this
  bool timeline = false;  // keep a per-second timeline (RunResult::timeline); on with --rps
  // --log: write one line per request to this file (.csv, .ndjson, .jsonl; "-": NDJSON on
  // stdout), opened by prepare(); empty: none (request_log.h). Not with --pipeline, --http2 or
  // WebSocket URLs.
  std::string log_file;

  // Per-request callbacks or a script (loadgen/hooks.h); null: the static path, no hook cost.
  // Hooks made from the run's request are set on the plan instead (attach_hooks, plan.h).
  std::shared_ptr<const HookSet> hooks;

  // --io: what each worker's loop waits with; the cli settles it with choose_io_backend()
  // first (a library caller asking for Uring where it is unavailable gets a failed run).
  net::IoBackend io = net::kDefaultIoBackend;

  // --shard K/N: run only this shard's part of the run the other fields describe (they keep the
  // whole run's values: -n, -c and --rps are split by the runner, see shard.h).
  Shard shard;
  // --start-at: wait until this wall-clock time (ns since the Unix epoch) before starting;
  // 0: start at once.
  std::int64_t start_at_unix_ns = 0;

  // The limit on how long a -t run waits for requests in flight after it stops sending.
  std::chrono::nanoseconds drain_timeout() const {
    return timeout.count() > 0 ? timeout : std::chrono::nanoseconds(std::chrono::seconds(1));
  }
  // The time limit in effect: max_duration, or kDefaultDuration when no limit is set.
  std::chrono::nanoseconds effective_duration() const {
    if (max_duration.count() > 0 || max_requests > 0) return max_duration;
    return kDefaultDuration;
  }
};

// Half the cores of this machine, at least 1 (loadtest's default for --cores).
std::uint32_t default_cores();

}  // namespace stampede::loadgen
