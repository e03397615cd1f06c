// The generator's figures as Prometheus text format 0.0.4 (--metrics-listen; docs/metrics.md
// lists every family). Rendered from a LiveFigures, so the run in progress and the final
// result go through the same lines: once the run ended, every counter equals the report's
// figure of the same name.
#pragma once

#include <string>

#include "loadgen/live.h"
#include "metrics/exposition.h"
#include "stats/prometheus_buckets.h"

namespace stampede::loadgen {

// `buckets`: the latency histogram's layout, built once per endpoint (stats/prometheus_buckets.h
// says why those bounds).
std::string render_prometheus(const LiveFigures& figures, const stats::PrometheusBuckets& buckets);
// The same families into `out`, whose common labels mark each sample (the lab's runs, several
// rendered into one exposition).
void render_prometheus(metrics::Exposition& out, const LiveFigures& figures,
                       const stats::PrometheusBuckets& buckets);

}  // namespace stampede::loadgen
