// LiveFeed: the figures of the run in progress, for a reader on another thread (the
// --metrics-listen endpoint), at no cost on the workers' hot path.
//
// How: a snapshot() posts one task to each worker's loop (net::EventLoop::post, which the loop
// checks once per iteration anyway); the task merges the worker's WorkerStats into a copy the
// reader allocated, on the worker's own thread, so nothing is read while it is written. The
// reader waits for every worker up to `wait`; a worker that does not answer in time (busy in a
// script, or its loop already ended) counts with its last copy, so counters never go back. The
// copies are summed by result_of(), the same function run() reports with, and once run() has
// joined its workers, finish() hands over the final RunResult: from then on snapshot() returns
// exactly the report's figures.
//
// Several runs of one feed (--repeat): each run's figures add to the finished runs' (counters
// keep growing, as the combined report does).
//
// Threads: attach() and finish() are run()'s (its calling thread); snapshot() any other.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include "loadgen/plan.h"
#include "loadgen/runner.h"

namespace stampede::loadgen {

class Worker;

// What a snapshot shows.
struct LiveFigures {
  RunResult result;             // the finished runs and the current one, as the report would sum
  std::uint64_t sent = 0;       // requests begun
  std::uint64_t in_flight = 0;  // begun and not yet counted in result (sent - total_requests)
  double target_rps = 0;        // --rps (the shard's part); 0 in a closed loop
  bool running = false;         // a run is in progress (false: the figures are final)
};

class LiveFeed {
 public:
  explicit LiveFeed(std::chrono::milliseconds wait = std::chrono::milliseconds(250));
  ~LiveFeed();
  LiveFeed(const LiveFeed&) = delete;
  LiveFeed& operator=(const LiveFeed&) = delete;

  // Any thread: the figures now; nullopt before the first run started.
  std::optional<LiveFigures> snapshot();

  // run(): its workers are running from start_ns (they outlive the matching finish()).
  void attach(const Plan& plan, const std::vector<std::unique_ptr<Worker>>& workers,
              std::int64_t start_ns);
  // run(): the run's final result and its requests begun; detaches from the workers.
  void finish(const RunResult& result, std::uint64_t begun);

 private:
  struct Slot;  // one worker's last copy
  LiveFigures combine(const RunResult& current, std::uint64_t sent, bool running) const;

  std::chrono::milliseconds wait_;
  std::mutex mutex_;  // held by snapshot() for its whole duration, and by attach/finish
  std::condition_variable answered_;
  const Plan* plan_ = nullptr;  // while attached
  const std::vector<std::unique_ptr<Worker>>* workers_ = nullptr;
  std::int64_t start_ns_ = 0;
  std::vector<std::shared_ptr<Slot>> slots_;
  std::vector<RunResult> finished_;
  std::uint64_t finished_sent_ = 0;
  double target_rps_ = 0;
};

}  // namespace stampede::loadgen
