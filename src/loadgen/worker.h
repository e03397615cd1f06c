// Worker: one thread, one EventLoop, its connections and its WorkerStats. Nothing is shared
// with other workers on the hot path; the runner merges the stats after join.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <vector>

#include "core/expected.h"
#include "loadgen/budget.h"
#include "loadgen/connection.h"
#include "loadgen/pacer.h"
#include "loadgen/request_log.h"
#include "loadgen/send_queue.h"
#include "loadgen/worker_stats.h"
#include "net/event_loop.h"

namespace stampede::loadgen {

struct WorkerParams {
  std::uint32_t id = 0;  // 0-based: the instance index callbacks see
  std::uint32_t connections = 1;
  net::IoBackend io = net::kDefaultIoBackend;  // the backend of the worker's loop
  ConnectionContext context;                   // loop, owner and stats are filled in by the worker
  // The -n budget shared by all workers, whose ticket numbers are the request indexes; outlives
  // the worker. create() reserves one ticket per connection from it, so create every worker
  // before any runs.
  SharedBudget* budget = nullptr;
  // The run's shard: a ticket t is the shard's t-th request, whose index is global_number(t).
  Shard shard;
  std::unique_ptr<Pacer> pacer;   // closed loop when null
  bool paced = false;             // --rps: keep the lag and the uncorrected latency
  bool timeline = false;          // keep a per-second timeline
  std::int64_t drain_ns = 0;      // after the deadline, wait this long for requests in flight
  std::function<void()> on_done;  // called on the worker thread when run() ends
  // Called on the worker thread when its hook halted: should interrupt every worker of the run.
  // Null: the worker interrupts itself.
  std::function<void()> on_stop;
  // When context.hook_set: this worker's hook (used only on its thread).
  std::unique_ptr<RequestHook> hook;
  // --log: the run's file (outlives the worker), written through a WorkerLog of the worker's own.
  LogFile* log = nullptr;
};

class Worker final : public ConnectionOwner {
 public:
  static Expected<std::unique_ptr<Worker>> create(WorkerParams params);
  ~Worker();

  // Runs the connections until they are all finished, the drain time after `deadline_ns` (stop
  // sending then; 0: no deadline) is over, or interrupt(). Call once, on the worker's thread.
  // start_ns: the run's start, the same for all workers (the schedule's and the timeline's
  // origin); 0: now.
  void run(std::int64_t deadline_ns, std::int64_t start_ns = 0);
  // Any thread: stop now; requests in flight are abandoned (not reported), a hook call in
  // progress is told to fail (RequestHook::interrupt).
  void interrupt();

  // After run() returned (or from the worker's thread).
  WorkerStats& stats() { return stats_; }
  const WorkerStats& stats() const { return stats_; }
  // When the worker's measurement ended: its last recorded request, but not before the
  // deadline when it passed (or, paced, when there was one); the interrupt time when interrupted.
  std::int64_t end_ns() const { return end_ns_; }
  // Relaxed counters for the progress printer (any thread).
  const Progress& progress() const { return stats_.progress(); }
  // Requests begun so far: permits taken and not held for later (worker thread, or after run()).
  std::uint64_t begun() const { return permits_ - waiting_.size(); }
  // Any thread: runs `fn` with the worker's stats and begun() (live metrics, loadgen/live.h).
  // While the loop runs, on the worker's thread after its current dispatch; once the loop has
  // ended, at once on the caller's thread (the figures no longer change), so that a reader never
  // waits for a worker that has finished. A visit posted just before the end runs as the loop
  // ends, on the worker's thread: every visit runs exactly once.
  using Visitor = std::function<void(const WorkerStats&, std::uint64_t begun)>;
  void visit(Visitor fn);

  SendPermit next_send(std::int64_t now_ns) override;
  void hold(Connection& connection, std::int64_t at_ns) override;
  void on_finished() override;
  void stop_run() override;

 private:
  void run_visits();  // the worker's thread: the visits waiting
  Worker(WorkerParams params, std::unique_ptr<net::EventLoop> loop);
  void on_deadline();
  // Sends every held permit that is due now, then arms pace_timer_ for the earliest left.
  // Paced, it runs after each I/O dispatch too: a response's wake-up sends what is due.
  void release_due();
  // When the loop must wake for a permit due at at_ns: on the shared grid when paced (the
  // requests due within one step go out in one wake-up), exactly otherwise.
  std::int64_t wake_for(std::int64_t at_ns) const;
  // Points pace_timer_ at the wake-up for the earliest held permit. Requires !waiting_.empty().
  void arm_pace_timer();

  WorkerParams params_;
  std::unique_ptr<net::EventLoop> loop_;
  WorkerStats stats_;
  std::vector<char> read_buffer_;
  std::unique_ptr<WorkerLog> log_;  // --log; flushed when run() ends
  LocalBudget budget_;
  // Connections are destroyed before the timers and the loop (members are destroyed in reverse).
  net::Timer deadline_timer_;
  net::Timer drain_timer_;
  net::Timer pace_timer_;          // wakes the loop for the earliest held permit
  SendQueue<Connection> waiting_;  // connections holding a permit not yet due
  std::vector<std::unique_ptr<Connection>> connections_;
  std::uint32_t finished_ = 0;
  bool sending_ = true;
  bool deadline_passed_ = false;
  std::int64_t deadline_ns_ = 0;
  std::atomic<bool> interrupted_{false};
  std::int64_t end_ns_ = 0;
  std::uint64_t permits_ = 0;    // permits taken to send (begun() subtracts those held)
  std::mutex visits_mutex_;      // guards the two below, against visit()'s callers
  std::vector<Visitor> visits_;  // posted to the loop, not run yet
  bool loop_ended_ = false;      // run()'s loop returned: stats_ and begun() are final
};

}  // namespace stampede::loadgen
