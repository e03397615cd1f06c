// stampede compare's engine: the figures of each run on two sides (a baseline and a current set
// of runs), the change in each figure, and a verdict per figure that separates a real change
// from run-to-run noise (docs/compare.md). The command line (cli/compare.h) reads the files
// (loadgen/report/compare_input.h) and prints the table (loadgen/report/compare.h).
//
// The noise comes from the runs themselves: with several runs per side, a figure changed when
// the two-sided Mann–Whitney test on the per-run figures (loadgen/compare_stats.h) gives a
// p-value below kAlpha and the medians differ by at least the smallest change that counts. One
// run per side tells nothing about noise: the verdict says so instead of guessing. Pure
// functions; single-threaded.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expected.h"
#include "loadgen/runner.h"

namespace stampede::loadgen {

// The significance level of every verdict.
inline constexpr double kAlpha = 0.05;
// Runs per side that compare accepts (and --repeat's bound).
inline constexpr std::size_t kMaxRuns = 100;

// Frames received by HTTP/2 error code name ("NO_ERROR", "CANCEL", ...; h2/error_codes.h).
using CodeCounts = std::map<std::string, std::uint64_t>;

// What an --http2 run adds: its streams per connection, as asked (--streams) and as used (the
// server's SETTINGS_MAX_CONCURRENT_STREAMS may be lower), and the RST_STREAM and GOAWAY frames
// the server sent.
struct H2Figures {
  std::uint32_t streams = 1;
  std::uint32_t streams_used = 1;
  CodeCounts rst_stream, goaway;
};

// The figures of one run that compare looks at.
struct RunFigures {
  std::uint64_t requests = 0;
  double rps = 0;         // completed requests per second (effective rate)
  double error_rate = 0;  // errors / requests, 0..1
  double p50_ms = 0, p90_ms = 0, p99_ms = 0, max_ms = 0;
  std::optional<H2Figures> h2;  // an --http2 run's; none over HTTP/1.1
};

RunFigures figures_of(const RunResult& result);

// What makes runs comparable (URL, -c, -n, -t, --rps, keep-alive, the protocol with its
// streams per connection, ...): a flat object.
using RunIdentity = nlohmann::ordered_json;

// One side: its runs as read, in file order. Its runs are of one test (identity), so all of them
// are HTTP/2 runs (h2 set) or none is.
struct Side {
  std::string name;  // the file it came from
  std::vector<RunFigures> runs;
  RunIdentity identity;  // of its first run
};

enum class Metric { Rps, ErrorRate, P50, P90, P99, Max, RstStream, Goaway };
// The rows of every comparison, in order.
inline constexpr std::array<Metric, 6> kMetrics{Metric::Rps, Metric::P50, Metric::P90,
                                                Metric::P99, Metric::Max, Metric::ErrorRate};
// The rows added after them when both sides are HTTP/2: RST_STREAM and GOAWAY frames per run
// (all codes together).
inline constexpr std::array<Metric, 2> kH2Metrics{Metric::RstStream, Metric::Goaway};

// "rps", "errors", "p50", "p90", "p99", "max", "rst_stream", "goaway": the names --fail-on takes.
std::string_view metric_name(Metric metric);

enum class Verdict {
  Changed,     // significant and at least the smallest change that counts
  NoChange,    // no significant change
  OneRunEach,  // one run on each side: nothing is known of the noise
  TooFewRuns,  // these run counts can never reach significance at kAlpha
};

struct Row {
  Metric metric;
  double baseline = 0;  // median of the side's runs (error rate in %, latency in ms)
  double current = 0;
  // Relative change in % for throughput and latency; for the error rate, percentage points.
  // Empty when the baseline is 0 and the current is not (a relative change is undefined).
  std::optional<double> change;
  std::optional<double> p_value;  // when the run counts allow a test
  Verdict verdict = Verdict::NoChange;
  // The change is a regression: lower throughput; more latency, errors, resets or GOAWAYs.
  bool worse = false;
};

// One side's HTTP/2 figures over all its runs (the informational block under the table).
struct H2Totals {
  std::uint32_t streams = 1;  // --streams
  std::uint32_t streams_used_min = 1, streams_used_max = 1;
  CodeCounts rst_stream, goaway;  // summed over the runs
};

struct CompareParams {
  // A change smaller than this (in %, or percentage points for the error rate) is never called
  // significant, however consistent: drift of a loaded machine between two sets of runs.
  double min_change = 2;
};

struct Comparison {
  std::size_t baseline_runs = 0, current_runs = 0;
  // In kMetrics order, then kH2Metrics when both sides are HTTP/2.
  std::vector<Row> rows;
  // Each side's HTTP/2 totals; none for an HTTP/1.1 side.
  std::optional<H2Totals> baseline_h2, current_h2;
  // One line per identity field that differs: "url differs: "http://a" in A, "http://b" in B".
  std::vector<std::string> differences;
};

Comparison compare(const Side& baseline, const Side& current, const CompareParams& params = {});

// --fail-on: a limit on one metric's significant change, signed (+10: fail when it grows by more
// than 10%; -5: when it falls by more than 5%). The error rate's is in percentage points.
struct FailLimit {
  Metric metric;
  double percent;
};

// "p99:+10%,rps:-5%" into limits; one line naming the bad part otherwise (an unknown metric, a
// missing sign or %, a number that is not one, a metric twice).
Expected<std::vector<FailLimit>> parse_fail_on(std::string_view text);

// One line per limit a Changed row crosses ("p50 +4900.0% (limit +10%)"); empty when none is.
std::vector<std::string> crossed_limits(const Comparison& comparison,
                                        const std::vector<FailLimit>& limits);

}  // namespace stampede::loadgen
