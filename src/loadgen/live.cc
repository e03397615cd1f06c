#include "loadgen/live.h"

#include "core/clock.h"
#include "loadgen/merge.h"
#include "loadgen/worker.h"

namespace stampede::loadgen {

// A copy of one worker's stats, filled on the worker's thread; `done` (under Answers::mutex)
// says it is whole. Shared with the posted task, which may run after the reader gave up.
struct LiveCopy {
  explicit LiveCopy(std::size_t counted_headers) : stats(counted_headers) {}
  WorkerStats stats;
  std::uint64_t begun = 0;
  bool done = false;
};

struct LiveFeed::Slot {
  std::shared_ptr<LiveCopy> last;  // the latest whole copy; null before the first
};

namespace {

struct Answers {
  std::mutex mutex;
  std::condition_variable cv;
  std::size_t count = 0;
};

std::uint64_t sent_of(const RunResult& r, std::uint64_t begun) {
  return r.rate ? r.rate->sent : begun;  // paced: every begun request has a lag, exactly
}

}  // namespace

LiveFeed::LiveFeed(std::chrono::milliseconds wait) : wait_(wait) {}

LiveFeed::~LiveFeed() = default;

void LiveFeed::attach(const Plan& plan, const std::vector<std::unique_ptr<Worker>>& workers,
                      std::int64_t start_ns) {
  std::lock_guard lock(mutex_);
  plan_ = &plan;
  workers_ = &workers;
  start_ns_ = start_ns;
  target_rps_ = plan.config.rps > 0 ? plan.config.rps / plan.config.shard.count : 0;
  slots_.clear();
  for (std::size_t i = 0; i < workers.size(); ++i)
    slots_.push_back(std::make_shared<Slot>());
}

void LiveFeed::finish(const RunResult& result, std::uint64_t begun) {
  std::lock_guard lock(mutex_);
  finished_.push_back(result);
  finished_sent_ += sent_of(result, begun);
  plan_ = nullptr;
  workers_ = nullptr;
  slots_.clear();
}

LiveFigures LiveFeed::combine(const RunResult& current, std::uint64_t sent, bool running) const {
  LiveFigures f;
  if (finished_.empty()) {
    f.result = current;
  } else {
    std::vector<RunResult> runs = finished_;
    if (running) runs.push_back(current);
    f.result = runs.size() == 1 ? runs.front() : combine_runs(runs);
  }
  f.sent = finished_sent_ + (running ? sent : 0);
  f.in_flight = f.sent > f.result.total_requests ? f.sent - f.result.total_requests : 0;
  f.target_rps = target_rps_;
  f.running = running;
  return f;
}

std::optional<LiveFigures> LiveFeed::snapshot() {
  std::lock_guard lock(mutex_);
  if (plan_ == nullptr) {
    if (finished_.empty()) return std::nullopt;
    return combine(finished_.back(), 0, false);
  }
  const std::size_t headers = plan_->config.count_headers.size();
  auto answers = std::make_shared<Answers>();
  std::vector<std::shared_ptr<LiveCopy>> copies;
  // Allocated here, filled there: the worker only merges (no allocation of its histograms).
  for (std::size_t i = 0; i < workers_->size(); ++i) {
    auto copy = std::make_shared<LiveCopy>(headers);
    copies.push_back(copy);
    (*workers_)[i]->visit([copy, answers](const WorkerStats& stats, std::uint64_t begun) {
      copy->stats.merge(stats);
      std::lock_guard answer_lock(answers->mutex);
      copy->begun = begun;
      copy->done = true;
      ++answers->count;
      answers->cv.notify_all();
    });
  }
  {
    std::unique_lock answer_lock(answers->mutex);
    answers->cv.wait_for(answer_lock, wait_, [&] { return answers->count == copies.size(); });
    for (std::size_t i = 0; i < copies.size(); ++i) {
      if (copies[i]->done) slots_[i]->last = copies[i];
    }
  }
  const std::int64_t now = mono_ns();
  const WorkerStats empty(headers);
  std::vector<const WorkerStats*> stats;
  std::uint64_t begun = 0;
  for (const auto& slot : slots_) {
    stats.push_back(slot->last ? &slot->last->stats : &empty);
    begun += slot->last ? slot->last->begun : 0;
  }
  const RunResult current = result_of(*plan_, stats, start_ns_, now, false);
  return combine(current, sent_of(current, begun), true);
}

}  // namespace stampede::loadgen
