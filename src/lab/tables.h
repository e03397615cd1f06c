// The lab's result as tables, one or more per scenario: the text report aligns them, the HTML
// report (src/report) draws them. Built once, here, so both show the same figures.
#pragma once

#include <vector>

#include "lab/lab.h"
#include "report/report_data.h"

namespace stampede::lab {

// For each scenario that ran: its per-instance table (instance, delay, /count, x-instance,
// x-backend, share, throughput, p50/p99, direct latency), then the scenario's own table when it
// has one (slow: side by side with even; sticky: sessions; outage: failures per interval); last,
// the sweep's table (the pool and the single instance side by side per connection count).
std::vector<report::Table> scenario_tables(const LabResult& result);

// The title of a scenario's section: "slow — c delayed 50 ms, everything else unchanged".
std::string scenario_title(const LabResult& result, ScenarioKind kind);

}  // namespace stampede::lab
