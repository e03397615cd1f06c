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
// the run's start. errors_* are subsets of completed. The rates over time are counts divided by
// covered_s, the part of the row inside the run: width_s for every row but the last, which ends
// with the run (Timeline::rows).
struct TimelineRow {
  double t_start_s;
  double width_s;
  std::uint64_t sent;
  std::uint64_t completed;
  std::uint64_t errors_4xx;
  std::uint64_t errors_5xx;
  std::uint64_t errors_transport;
  std::int64_t p50_ns;  // 0 when no request ended in the row
  std::int64_t p99_ns;
  double covered_s = 0;      // seconds of the row inside the run, 0 < covered_s <= width_s
  bool has_latency = false;  // a request ended in the row: p50_ns and p99_ns are figures

  // count per second of the time the row covers (0 for a row that covers no time).
  double per_second(std::uint64_t count) const {
    return covered_s > 0 ? static_cast<double>(count) / covered_s : 0;
  }
};

// Rows start 100 ms wide (kFineRowWidthNs) and stay so while every event falls within the first
// 10 s (kFineRows rows): a run that short gets a sub-second timeline. The first event past that
// folds them ten to one into 1 s rows, and past kMaxRows rows they merge pairwise (2 s, 4 s, ...):
// every width is 100 ms or 2^k s, each a whole multiple of the finer ones, so timelines of
// different widths merge exactly (the finer is folded into the coarser). Each row keeps its own
// latency sketch: log-linear buckets with 64 sub-buckets per octave (under 1.6% relative error
// above 1 us, 16 ns steps below, clamped at 1 hour) in 32-bit saturating counts, about 8.3 KiB,
// allocated when the row sees its first completion. A run of any length stays under
// kMaxRows * ~8.4 KiB (~1.1 MiB), so a soak's memory stays flat: a run of up to 128 s keeps 1 s
// rows, an hour has 113 rows of 32 s. (Until December 2026 the bound was 3 600 rows: 1 s rows
// for an hour, but 8.4 KiB more resident memory every second of a soak.)
//
// Latency is recorded for every completion, failures included (a transport failure's latency is
// the time to the failure), the same population as the run's summary percentiles. Events before
// start_ns fall in the first row.
//
// Not thread-safe: one Timeline per worker, all with the same start_ns, merged after join.
class Timeline {
 public:
  static constexpr std::size_t kMaxRows = 128;
  static constexpr std::int64_t kFineRowWidthNs = 100'000'000;
  static constexpr std::size_t kFineRows = 100;
  static constexpr std::int64_t kSecondNs = 1'000'000'000;

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

  // Adds the rows of another timeline (width_ns wide: kFineRowWidthNs or a power of two times
  // 1 s) that started offset_ns (>= 0) after this one: its row j goes into the row holding
  // offset_ns + j * width_ns. Rows from one start merge exactly; from another, each lands in the
  // row where it began. Fails (and changes nothing) on another width, a negative offset, or a
  // sketch of the wrong length.
  Expected<void> add_rows(std::int64_t offset_ns, std::int64_t width_ns,
                          const std::vector<Row>& rows);
  // The rows with their sketches, for saving (loadgen/result_file.h).
  const std::vector<Row>& sketch_rows() const { return rows_; }

  // One row per width from the start up to the last row that saw an event (empty if none did).
  // The run ends end_offset_ns after the start, or at the last event when that is later (events
  // after an interrupt); the last row covers from its start to that end. A last row that would
  // cover less than half a width is reported together with the row before it (one row two
  // widths wide), so that a few milliseconds of tail do not make a rate of their own.
  // Without end_offset_ns the run ends at the last event.
  std::vector<TimelineRow> rows(std::int64_t end_offset_ns = 0) const;

  std::int64_t start_ns() const { return start_ns_; }
  std::int64_t row_width_ns() const { return width_ns_; }
  // Bytes held by the rows and their latency sketches.
  std::size_t memory_bytes() const;

 private:
  // The row holding time offset_ns after the start, created (and rows coarsened) as needed.
  Row& row_at_offset(std::int64_t offset_ns);
  Row& row_at(std::int64_t now_ns);
  // Folds the rows into the next width: ten to one from 100 ms to 1 s, then pairwise.
  void coarsen();
  // Rows the current width may hold before the next event past them coarsens it.
  std::size_t row_limit() const;

  std::int64_t start_ns_;
  std::int64_t width_ns_ = kFineRowWidthNs;
  std::vector<Row> rows_;
  std::int64_t last_offset_ns_ = 0;  // the latest event's offset from the start (0: none yet)
};

}  // namespace stampede::stats
