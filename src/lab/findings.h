// Reading the result the way the guide's table does: pure functions from measured numbers to
// findings, one line each with the figures behind it. A Fail finding is a check that does not
// hold (the lab exits 1); a Note explains what the numbers mean.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "lab/peer.h"
#include "lab/record.h"

namespace stampede::lab {

enum class Verdict { Note, Fail };

enum class FindingKind {
  SourcesAgree,            // the three sources agree in every run
  NoBackendHeader,         // the balancer sets no x-backend: two sources only
  HeadersDisagree,         // x-instance and x-backend disagree (fail)
  CountDisagrees,          // /count and x-instance disagree (fail)
  RunErrors,               // requests failed while every instance was up (fail)
  EvenShare,               // identical instances, even share: the right answer
  UnevenShare,             // identical instances, uneven share
  EvenShareLowThroughput,  // the slow member took its full turn and throughput fell
  SlowAbsorbed,            // the slow member took its full turn, throughput held
  RoutesAroundSlow,        // uneven share, throughput held: routing around a slow member
  InstanceAtZero,          // an instance served nothing: out of the pool (fail)
  OutageDetector,          // failures per health interval: the detector, not the fault
  ErrorShareAboveTraffic,  // more failed than the dead member was owed
  OutageUndetected,        // failures went on to the end of the run
  SessionSplit,            // a session served by two instances while all were up (fail)
  SessionsKept,            // every session stayed on one instance
  StickyArithmetic,        // sticky skew is the best split sessions allow
  StickyChance,            // sticky skew beyond the best split: hashing chance
  SweepPoolVsSingle,       // the sweep: the pool's throughput and knee against one instance's
  LimitRoutedAround,       // limit: no refusal reached a client
  LimitFailures,           // limit: refusals reached clients as failures
  LimitSummary,            // limit: which runs routed around the refusals, which failed
  HangDamage,              // hang: failures per health interval, detection and recovery
  HangLateAnswers,         // hang: the stopped instance counted requests answered too late
  H2PerRequest,            // h2: streams spread over every instance, each near 1/N
  H2FollowsConnections,    // h2: no more instances used than connections: per connection
  H2Uneven,                // h2: spread over more instances than connections, not evenly
};

std::string_view kind_name(FindingKind kind);  // "headers-disagree", ...

struct Finding {
  FindingKind kind = FindingKind::SourcesAgree;
  Verdict verdict = Verdict::Note;
  std::string scope;  // the run it is about ("slow/rr"), or the scenario ("outage")
  std::string text;   // one line: what was seen, the figures, what it means / what to do
};

// Thresholds, as fractions of the fair share 1/N (documented in docs/lab.md).
inline constexpr double kEvenTolerance = 0.2;   // every share within ±20% of fair: even
inline constexpr double kFullTurn = 0.8;        // slow member at >= 80% of fair: full turn
inline constexpr double kRoutedAround = 0.5;    // slow member at <= 50% of fair: routed around
inline constexpr double kThroughputFell = 0.5;  // slow pool below half the even pool's rate

// Every finding over a lab's runs, in the order of the runs; notes and fails mixed. `peer`: the
// balancer the runs went through; the hang and limit findings name its settings for HAProxy and
// nginx (peer.h).
std::vector<Finding> read_runs(const std::vector<RunRecord>& runs, Peer peer = Peer::Other);

// The sweep's finding: the pool's best throughput against the single instance's, and the knee
// of each (loadgen::describe_knee's rule).
Finding read_sweep(const SweepRecord& sweep);

// True when no finding is a Fail.
bool all_checks_hold(const std::vector<Finding>& findings);

// The most even placement of `sessions` over `instances`: sessions per instance, largest first
// (4 over 3: {2, 1, 1}).
std::vector<std::uint32_t> best_split(std::uint32_t sessions, std::uint32_t instances);

// The instance that served each session (its x-instance, or x-backend when the instances set
// none); a session with two or more is "split". Sessions per instance, largest first, count
// each session once, at the instance that served most of it.
struct SessionPlacement {
  std::vector<std::string> split;           // sessions served by more than one instance
  std::vector<std::uint32_t> per_instance;  // one entry per instance, largest first
  std::string placement;                    // "s1=a s2=b s3=c s4=a" ("s2=a+b" when split)
};
SessionPlacement place_sessions(const RunRecord& record);

}  // namespace stampede::lab
