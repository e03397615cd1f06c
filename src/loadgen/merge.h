// Merging the saved results of the shards of one run (--shard K/N --save) into the result that
// one generator carrying all of the load would have had (stampede merge; docs/distributed.md).
//
// Counts add (an --http2 run's RST_STREAM and GOAWAY counts by code too; the server's SETTINGS
// are the shards' when the same, and said to differ otherwise: H2Counts::merge); histograms
// merge losslessly (percentiles from the merged histogram, identical to one histogram that saw
// every value); the elapsed time and the --rps send window are the union
// of the shards' spans on the wall clock; timeline rows are placed by each shard's wall-clock
// start and merged with their sketches (exact when the shards started together, --start-at).
//
// Results are folded in one at a time, so memory does not grow with the number of shards beyond
// their encoded timelines. Single-threaded.
#pragma once

#include <cstdint>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/expected.h"
#include "loadgen/result_file.h"
#include "loadgen/runner.h"

namespace stampede::loadgen {

// One shard as the per-shard table shows it.
struct ShardSummary {
  std::string origin;  // the file (and line) it came from
  std::string host;
  Shard shard;
  std::uint64_t requests = 0;
  double rps = 0;  // its effective rate
  std::int64_t p99_ns = 0;
  std::optional<std::int64_t> lag_p99_ns;            // --rps: send lag p99
  std::optional<std::int64_t> generator_lag_p99_ns;  // --rps: lag with a connection free
  std::int64_t start_unix_ns = 0;
  double cpu_busy = 0;  // CPU time / (elapsed x cores), 0..1
};

struct MergedResult {
  RunResult result;
  std::vector<ShardSummary> shards;  // in shard order
  std::int64_t start_spread_ns = 0;  // latest start minus earliest
  // --force: what was merged anyway ("rps differs: 100 in a.json, 200 in b.json", "shard 2/4
  // missing"); empty otherwise.
  std::vector<std::string> forced;
  // One sentence per shard whose generator fell behind (generator lag p99 over 1 ms).
  std::vector<std::string> findings;
};

// Adds what `from` measured (counts, histograms, the rate's) to `into`; settings, times and
// timelines are left as they are.
void add_outcome(RunResult& into, const RunResult& from);

// The runs of one plan made one after another (--repeat N) as one result: counts add,
// histograms merge losslessly, the elapsed time and the --rps send window are the sum of the
// runs' (the gaps between runs are not part of it), settings and start are the first run's; no
// timeline (each run keeps its own). `runs` is not empty.
RunResult combine_runs(const std::vector<RunResult>& runs);

class ResultMerger {
 public:
  // force: merge results of different runs, duplicate or missing shards anyway (and say so).
  explicit ResultMerger(bool force) : force_(force) {}

  // Folds in one result; origin names it in messages. Fails (one line naming the difference)
  // when it is not a shard of the same run as the first (a key of `run` that differs, or that
  // only one of them has: --http2's), or its shard is there already.
  Expected<void> add(SavedResult saved, const std::string& origin);
  std::size_t size() const { return shards_.size(); }
  // The merged result. Fails when no result was added, or a shard is missing (without force).
  Expected<MergedResult> finish();

 private:
  struct Span {
    std::int64_t start_unix_ns;
    std::int64_t elapsed_ns;
    std::int64_t send_window_ns;
    SavedTimeline timeline;
  };
  Expected<void> check_same_run(const SavedResult& saved, const std::string& origin);
  void fold(const RunResult& r);

  bool force_;
  nlohmann::ordered_json identity_;
  std::string first_origin_;
  std::set<std::uint32_t> seen_;
  std::vector<ShardSummary> shards_;
  std::vector<Span> spans_;
  std::vector<std::string> forced_;
  RunResult total_;
};

}  // namespace stampede::loadgen
