// Internals of the findings (findings.cc, findings_scenarios.cc): the readers of the slow,
// sticky and outage scenarios and the formatting of figures. Not a public interface.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "lab/findings.h"
#include "lab/record.h"
#include "lab/sources.h"

namespace stampede::lab::detail {

Finding note(FindingKind kind, std::string scope, std::string text);
Finding fail(FindingKind kind, std::string scope, std::string text);

std::string pct(double share);  // 0.3333 -> "33.3%"
std::string rate(double rps);   // "7534 req/s"
// "a 33.3%, b 33.3%, c 33.4%" from `source`.
std::string share_list(const RunRecord& run, Source source);
// "1 request apart across 37678" / "a 12559 to c 12620: 61 apart across 37678".
std::string spread(const RunRecord& run, Source source);
// "502 x12, ECONNREFUSED x3".
std::string code_list(const std::map<std::string, std::uint64_t>& codes);
// "direct p50: a 0.1 ms, b 0.1 ms, c 50.2 ms", or empty when not measured.
std::string direct_latency(const RunRecord& run);
// Every instance has the same delay.
bool identical(const RunRecord& run);

// The instance with the largest delay when it is larger than every other, else size().
std::size_t slow_index(const RunRecord& run);

void read_slow(const RunRecord& run, const std::vector<RunRecord>& runs, std::vector<Finding>& out);
void read_sticky(const RunRecord& run, std::vector<Finding>& out);
void read_outages(const std::vector<RunRecord>& runs, std::vector<Finding>& out);
// findings_hang.cc
void read_hangs(const std::vector<RunRecord>& runs, Peer peer, std::vector<Finding>& out);
// The hung instance's /count above its x-instance: requests it took while stopped and answered
// after the balancer had given up on them (a 504, or re-sent elsewhere). Empty when none.
std::string late_answers(const RunRecord& run);

// "a; b; c".
std::string join_parts(const std::vector<std::string>& parts);

}  // namespace stampede::lab::detail
