// The h2 scenario (issue 17, "the HTTP/2 pitfall, shown"): a few long-lived HTTP/2 connections
// (h2c with prior knowledge, several streams each) through the balancer. A request-level
// balancer spreads their streams over every instance; a connection-level (TCP) one sends each
// connection, and so all of its requests, to one instance: shares follow connections.
//
// The scenario is not told which kind of balancer it has: it opens fewer connections than there
// are instances and reads the shares. Every instance near 1/N: requests are balanced one by one.
// No more instances used than connections (some at 0 while up): shares follow connections.
//
// Kept apart from the other scenarios: its plan, its load settings and its finding (pure
// functions). The lab (lab.cc) runs the load with h2_load_config().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "core/expected.h"
#include "lab/config.h"
#include "lab/findings.h"
#include "lab/record.h"
#include "lab/scenario.h"
#include "loadgen/config.h"

namespace stampede::lab {

// Streams in flight per connection by default (h2load's -m 10; --h2-streams).
inline constexpr std::uint32_t kH2Streams = 10;

// The default connections of the h2 run over `instances` instances (--h2-connections): 2, or 1
// for a pool of 2 — fewer than the instances, so that a connection-level balancer leaves one
// idle. (The lab's -c is the even and slow runs' and stays theirs: 12 connections would hide
// the pitfall.)
std::uint32_t h2_connections(std::size_t instances);

// The h2 run's connections and streams: --h2-connections and --h2-streams, or the defaults.
H2Load h2_load_of(const LabConfig& config);

// The h2 settings' checks (run by validate(), config.h): given without the h2 scenario; streams
// outside 1..loadgen::kMaxStreams; connections outside 1..instances - 1 (as many connections as
// instances could each land on its own instance through a connection-level balancer, whose
// shares would then look like per-request balancing: the scenario could not show its pitfall).
Expected<void> validate_h2(const LabConfig& config);

// One h2 run, with the first load strategy, health checks off (as configured for an external
// balancer).
void plan_h2_runs(const PlanInput& input, std::vector<RunPlan>& runs);

// The generator's config of the h2 run: make_load_config's (-t, --rps, the counted headers) with
// --http2 and h2_load_of()'s connections and streams each.
loadgen::Config h2_load_config(const LabConfig& lab, const std::string& url);

// The h2 run's finding: requests balanced one by one (every share within kEvenTolerance of
// 1/N), shares following connections (no more instances used than connections, fewer than N),
// or neither (uneven over more instances than connections). Notes: it describes the balancer.
void read_h2(const RunRecord& run, std::vector<Finding>& out);

}  // namespace stampede::lab
