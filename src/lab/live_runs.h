// LiveRuns: the generator runs of one lab, for `stampede lab --metrics-listen` (docs/metrics.md):
// one loadgen::LiveFeed per run, all rendered as one Prometheus exposition whose every sample
// carries its run's labels. A feed lives as long as the LiveRuns, so a run that ended keeps
// serving its final figures (the report's) until the lab ends.
//
// Threads: feed() from any thread (the sticky scenario's sessions run at once); render() from
// the endpoint's. Runs that share labels share a feed and must not overlap (their figures add
// up, as --repeat's do): the lab makes such runs one after another (the direct probes).
#pragma once

#include <deque>
#include <mutex>
#include <string>

#include "loadgen/live.h"
#include "stats/prometheus_buckets.h"

namespace stampede::lab {

struct RunLabels {
  std::string scenario;  // the scenario's name ("even", "sticky"), or "probe", "sweep"
  std::string run;       // the report's row label ("even/rr/retries=1"), or what the run was
  std::string session;   // the sticky scenario's session ("s1"); empty: no such label

  bool operator==(const RunLabels&) const = default;
};

class LiveRuns {
 public:
  // The feed of the run labelled `labels` (made on first use); valid while this lives.
  loadgen::LiveFeed& feed(const RunLabels& labels);
  // Every run's figures so far, Prometheus text format 0.0.4.
  std::string render();

 private:
  struct Entry {
    RunLabels labels;
    loadgen::LiveFeed feed;
  };
  std::mutex mutex_;           // guards entries_'s list, not the feeds (thread-safe themselves)
  std::deque<Entry> entries_;  // a deque: the feeds never move
  stats::PrometheusBuckets buckets_;
};

}  // namespace stampede::lab
