#include "lab/live_runs.h"

#include <optional>
#include <vector>

#include "loadgen/report/prometheus.h"
#include "metrics/exposition.h"

namespace stampede::lab {

loadgen::LiveFeed& LiveRuns::feed(const RunLabels& labels) {
  std::lock_guard lock(mutex_);
  for (Entry& e : entries_)
    if (e.labels == labels) return e.feed;
  Entry& e = entries_.emplace_back();
  e.labels = labels;
  return e.feed;
}

std::string LiveRuns::render() {
  std::vector<Entry*> entries;
  {
    std::lock_guard lock(mutex_);  // not held while the feeds are read: a feed waits for workers
    for (Entry& e : entries_)
      entries.push_back(&e);
  }
  metrics::Exposition out;
  for (Entry* e : entries) {
    const std::optional<loadgen::LiveFigures> figures = e->feed.snapshot();
    if (!figures) continue;  // not started yet
    std::vector<std::pair<std::string, std::string>> labels{{"scenario", e->labels.scenario},
                                                            {"run", e->labels.run}};
    if (!e->labels.session.empty()) labels.emplace_back("session", e->labels.session);
    out.set_common_labels(std::move(labels));
    loadgen::render_prometheus(out, *figures, buckets_);
  }
  return out.take();
}

}  // namespace stampede::lab
