// GET /metrics of `stampede serve`: Prometheus text format 0.0.4 (metrics/exposition.h's naming
// rules; docs/metrics.md lists the families), the workers' counters summed. Any worker's thread
// renders it; the counters are read with acquire loads, as /count reads them.
#pragma once

#include <string>

namespace stampede::server {

struct Shared;

std::string render_metrics(const Shared& shared);

}  // namespace stampede::server
