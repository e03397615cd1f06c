// Per-second counters and latency percentiles over a run, in bounded memory, mergeable.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/expected.h"

namespace stampede::stats {

// How a request ended. Http4xx / Http5xx got a response; Transport did not (connect, read or
// write failure, timeout).
enum class ErrorClass : std::uint8_t { None, Http4xx, Http5xx, Transport };

// One row of the timeline: the events whose time fell in [t_start_s, t_start_s + width_s) after
// the run's start. errors_* are subsets of completed.
struct TimelineRow {
  double t_start_s;
  double width_s;
  std::uint64_t sent;
  std::uint64_t completed;
  std::uint64_t errors_4xx;
  std::uint64_t errors_5xx;
  std::uint64_t errors_transport;
  std::int64_t p50_ns;  // 0 when no response completed in the row
  std::int64_t p99_ns;
};

// Rows start 1 s wide. Each row keeps its own latency sketch: log-linear buckets with 64
// sub-buckets per octave (under 1.6% relative error above 1 us, 16 ns steps below, clamped at
// 1 hour) in 32-bit saturating counts, about 8.3 KiB, allocated when the row sees its first
// response. At most kMaxRows rows exist: when an event falls past the last one, rows are merged
// pairwise (the row width doubles), so a run of any length stays under
// kMaxRows * ~8.4 KiB (~29 MiB); a run of up to 1 hour keeps 1 s rows.
//
// Latency is recorded for completions that got a response (None, Http4xx, Http5xx); Transport
// errors are counted but carry no latency. Events before start_ns fall in the first row.
//
// Not thread-safe: one Timeline per worker, all with the same start_ns, merged after join.
class Timeline {
 public:
  static constexpr std::size_t kMaxRows = 3600;
  static constexpr std::int64_t kInitialRowWidthNs = 1'000'000'000;

  // A row's whole state: the counts and the latency sketch (row_counts_len() counts by bucket
  // index, or empty before its first response).
  struct Row {
    std::uint64_t sent = 0;
    std::uint64_t completed = 0;
    std::uint64_t errors_4xx = 0;
    std::uint64_t errors_5xx = 0;
    std::uint64_t errors_transport = 0;
    std::uint64_t latency_count = 0;
    std::int64_t latency_min = 0;
    std::int64_t latency_max = 0;
    std::vector<std::uint32_t> latency;  // empty until the first response

    void record_latency(std::int64_t ns);
    void add(const Row& other);
    std::int64_t latency_percentile(double p) const;
  };
  static std::size_t row_counts_len();

  explicit Timeline(std::int64_t start_ns);

  // May allocate when now_ns opens a new row (once per row, not per event).
  void on_sent(std::int64_t now_ns);
  void on_completed(std::int64_t now_ns, std::int64_t latency_ns, ErrorClass cls);

  // Adds other's events. Fails (and changes nothing) when the start times differ. When the row
  // widths differ, the finer timeline's rows are folded into the coarser width.
  Expected<void> merge(const Timeline& other);

  // Adds the rows of another timeline (width_ns wide, a power of two times
  // kInitialRowWidthNs) that started offset_ns (>= 0) after this one: its row j goes into the
  // row holding offset_ns + j * width_ns. Rows from one start merge exactly; from another, each
  // lands in the row where it began. Fails (and changes nothing) on a width that is not such a
  // power, a negative offset, or a sketch of the wrong length.
  Expected<void> add_rows(std::int64_t offset_ns, std::int64_t width_ns,
                          const std::vector<Row>& rows);
  // The rows with their sketches, for saving (loadgen/result_file.h).
  const std::vector<Row>& sketch_rows() const { return rows_; }

  // One row per width from the start up to the last row that saw an event (empty if none did).
  std::vector<TimelineRow> rows() const;

  std::int64_t start_ns() const { return start_ns_; }
  std::int64_t row_width_ns() const { return width_ns_; }
  // Bytes held by the rows and their latency sketches.
  std::size_t memory_bytes() const;

 private:
  // The row holding time offset_ns after the start, created (and rows coarsened) as needed.
  Row& row_at_offset(std::int64_t offset_ns);
  Row& row_at(std::int64_t now_ns);
  // Merges rows pairwise and doubles the row width.
  void coarsen();

  std::int64_t start_ns_;
  std::int64_t width_ns_ = kInitialRowWidthNs;
  std::vector<Row> rows_;
};

}  // namespace stampede::stats
