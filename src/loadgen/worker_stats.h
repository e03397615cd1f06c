// WorkerStats: what one worker measured. Written only by its worker thread (no locks, no atomic
// read-modify-writes); merged by the runner after the workers join. The Progress counters are
// the one exception: relaxed atomics the worker stores and the progress printer reads.
#pragma once

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "loadgen/h2_stats.h"
#include "loadgen/rate_stats.h"
#include "loadgen/ws_stats.h"
#include "stats/histogram.h"

namespace stampede::loadgen {

// Published after every request for the progress line (single writer: plain stores).
struct alignas(64) Progress {
  std::atomic<std::uint64_t> requests{0};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> latency_sum_ns{0};
};

// How many responses carried each value of one header.
using ValueCounts = std::map<std::string, std::uint64_t, std::less<>>;

class WorkerStats {
 public:
  static constexpr int kMaxStatus = 1000;
  static constexpr int kMaxErrno = 256;  // larger errno values are counted as kMaxErrno - 1

  explicit WorkerStats(std::size_t counted_headers = 0);

  // One complete response: `status` is the final status (errors are status < 200 or >= 400).
  // Latency is end_ns - start_ns (monotonic).
  void record_response(int status, std::int64_t start_ns, std::int64_t end_ns);
  // One request that failed without a response: `err` is an errno value (ECONNREFUSED...).
  void record_failure(int err, std::int64_t start_ns, std::int64_t end_ns);
  // A request a hook counted as failed under `code` (a content inspector's verdict, a script
  // error): an error, counted under `code` in place of its status (0: no response).
  void record_custom_error(std::string_view code, int status, std::int64_t start_ns,
                           std::int64_t end_ns);
  // The value of the `index`-th counted header in a response. No allocation once seen.
  void count_header_value(std::size_t index, std::string_view value);

  void add_bytes(std::uint64_t read, std::uint64_t written) {
    bytes_read_ += read;
    bytes_written_ += written;
  }
  // A connection was established, connect_ns after its connect started (TCP only: to the
  // target, or to the --proxy).
  void add_connection(std::int64_t connect_ns) {
    ++connections_;
    connect_.record(connect_ns);
  }
  // A TLS handshake completed, handshake_ns after the TCP connection was established (a --proxy
  // tunnel's CONNECT exchange included); `resumed`: it resumed an earlier session.
  void add_tls_handshake(bool resumed, std::int64_t handshake_ns) {
    ++tls_handshakes_;
    if (resumed) ++tls_resumed_;
    tls_handshake_.record(handshake_ns);
  }
  // A response began to arrive first_byte_ns after the request's first byte was written.
  void record_first_byte(std::int64_t first_byte_ns) { first_byte_.record(first_byte_ns); }
  // WebSocket runs: one message answered (latency end - start), or one that failed.
  void record_message(std::int64_t start_ns, std::int64_t end_ns) {
    ++ws_.messages;
    publish(start_ns, end_ns);
  }
  void record_ws_failure(WsFailure kind, int code, std::int64_t start_ns, std::int64_t end_ns) {
    ws_.add(kind, code);
    ++errors_;
    publish(start_ns, end_ns);
  }
  const WsCounts& ws() const { return ws_; }
  // --http2 runs: the frames and SETTINGS the server sent (H2Client counts them).
  H2Counts& h2() { return h2_; }
  const H2Counts& h2() const { return h2_; }

  // Adds `other` (another worker's, after it joined).
  void merge(const WorkerStats& other);

  static bool is_error_status(int status) { return status < 200 || status >= 400; }
  // A failure of this machine, not of the server: out of descriptors (EMFILE, ENFILE), of
  // buffers or memory (ENOBUFS, ENOMEM), of local ports (EADDRNOTAVAIL).
  static bool is_local_failure(int err) {
    return err == EMFILE || err == ENFILE || err == ENOBUFS || err == ENOMEM ||
           err == EADDRNOTAVAIL;
  }

  const stats::Histogram& latency() const { return latency_; }
  // The phases (ns): connect per connection, TLS handshake per handshake, first byte per response.
  const stats::Histogram& connect() const { return connect_; }
  const stats::Histogram& tls_handshake() const { return tls_handshake_; }
  const stats::Histogram& first_byte() const { return first_byte_; }
  std::uint64_t requests() const { return requests_; }
  std::uint64_t errors() const { return errors_; }
  std::uint64_t status_count(int status) const;
  std::uint64_t failure_count(int err) const;
  const std::array<std::uint64_t, kMaxStatus>& statuses() const { return statuses_; }
  const std::array<std::uint64_t, kMaxErrno>& failures() const { return failures_; }
  const std::vector<ValueCounts>& header_counts() const { return header_counts_; }
  const ValueCounts& custom_errors() const { return custom_errors_; }
  // Failure responses (by status) counted under a custom code instead.
  const std::map<int, std::uint64_t>& relabelled() const { return relabelled_; }
  std::uint64_t bytes_read() const { return bytes_read_; }
  std::uint64_t bytes_written() const { return bytes_written_; }
  std::uint64_t connections() const { return connections_; }
  std::uint64_t tls_handshakes() const { return tls_handshakes_; }
  std::uint64_t tls_resumed() const { return tls_resumed_; }
  // When the last request was recorded (monotonic ns); 0 before any.
  std::int64_t last_record_ns() const { return last_record_ns_; }
  Progress& progress() { return progress_; }
  const Progress& progress() const { return progress_; }

  // --rps and timeline measurements (rate_stats.h): null until enable_rate(), and then only
  // when something is kept, so a plain closed-loop run tests one null pointer per request.
  void enable_rate(bool paced, bool timeline);
  RateStats* rate() { return rate_.get(); }
  const RateStats* rate() const { return rate_.get(); }

 private:
  void publish(std::int64_t start_ns, std::int64_t end_ns);

  stats::Histogram latency_;
  stats::Histogram connect_;
  stats::Histogram tls_handshake_;
  stats::Histogram first_byte_;
  std::uint64_t requests_ = 0;
  std::uint64_t errors_ = 0;
  std::array<std::uint64_t, kMaxStatus> statuses_{};
  std::array<std::uint64_t, kMaxErrno> failures_{};
  std::vector<ValueCounts> header_counts_;
  ValueCounts custom_errors_;
  std::map<int, std::uint64_t> relabelled_;
  std::uint64_t bytes_read_ = 0;
  std::uint64_t bytes_written_ = 0;
  std::uint64_t connections_ = 0;
  std::uint64_t tls_handshakes_ = 0;
  std::uint64_t tls_resumed_ = 0;
  std::uint64_t latency_sum_ns_ = 0;
  std::int64_t last_record_ns_ = 0;
  Progress progress_;
  std::unique_ptr<RateStats> rate_;
  WsCounts ws_;
  H2Counts h2_;
};

}  // namespace stampede::loadgen
