// The limit scenario (issue 20): one instance at its connection limit that refuses what it cannot
// take (`stampede serve --max-connections N --over-limit reset`: accepted, then reset) rather
// than queueing it, so that a balancer sees refusals, not slowness. What each strategy does with
// them: a run per load strategy with the built-in balancer's --retries 1 and 0.
//
// Kept apart from the other scenarios: its plan, its checks, its findings (pure functions), and
// the reading of the counts after a run. The lab (lab.cc) restarts the instance with the cap
// (InstancePool::set_limit) and runs the load.
#pragma once

#include <string>
#include <vector>

#include "core/expected.h"
#include "lab/config.h"
#include "lab/findings.h"
#include "lab/instances.h"
#include "lab/interrupt.h"
#include "lab/record.h"
#include "lab/scenario.h"

namespace stampede::lab {

// The built-in balancer's --retries in the limit runs, in order: its default, then none.
inline constexpr int kLimitRetries[] = {1, 0};

// The limit runs: each load strategy with each of kLimitRetries when the balancer's retries can be
// set (the built-in one, a command with {retries}); else once per strategy as configured. Health
// checks off (as configured for an external balancer).
std::vector<RunPlan> plan_limit_runs(const PlanInput& input);

// The capped instance must be one of the pool; the cap 1 to 1000.
Expected<void> validate_limit(const LabConfig& config);

// InstancePool::read_counts once every live instance answers /count: a capped instance refuses
// it while the connections of a balancer just stopped are still closing. Gives up after 2 s
// (the instance's count is then nullopt, as for one that does not answer). Main thread.
std::vector<std::optional<std::uint64_t>> read_counts_settled(InstancePool& pool,
                                                              const Interrupt& interrupt);

// Per limit run: whether refusals reached the clients, with the capped instance's share; then
// one line over the limit runs naming the runs that routed around the refusals and those that
// failed. Notes only: failures are what this scenario is there to show.
// `peer`: HAProxy's and nginx's settings that decided it are named (peer.h).
void read_limits(const std::vector<RunRecord>& runs, std::vector<Finding>& out,
                 Peer peer = Peer::Other);

}  // namespace stampede::lab
