#include "loadgen/worker.h"

#include <sys/prctl.h>

#include <algorithm>

#include "core/clock.h"

namespace stampede::loadgen {
namespace {

// One read buffer per worker: a connection uses it only within its own on_events call.
constexpr std::size_t kReadBufferBytes = 64 * 1024;

}  // namespace

Expected<std::unique_ptr<Worker>> Worker::create(WorkerParams params) {
  auto loop = net::EventLoop::create(params.io);
  if (!loop) return loop.error();
  return std::unique_ptr<Worker>(new Worker(std::move(params), std::move(loop).value()));
}

Worker::Worker(WorkerParams params, std::unique_ptr<net::EventLoop> loop)
    : params_(std::move(params)),
      loop_(std::move(loop)),
      stats_(params_.context.count_headers.size()),
      read_buffer_(kReadBufferBytes),
      budget_(*params_.budget, params_.budget->reserve(params_.connections)),
      deadline_timer_([this] { on_deadline(); }),
      drain_timer_([this] { loop_->stop(); }),
      pace_timer_([this] { release_due(); }),
      waiting_(params_.connections) {
  if (!params_.pacer) params_.pacer = std::make_unique<ClosedLoopPacer>();
  stats_.enable_rate(params_.paced, params_.timeline);
  ConnectionContext& context = params_.context;
  context.loop = loop_.get();
  context.owner = this;
  context.stats = &stats_;
  context.read_buffer = std::span<char>(read_buffer_);
  context.hook = params_.hook.get();
  context.worker = params_.id;
  if (params_.log) {
    log_ = std::make_unique<WorkerLog>(*params_.log, params_.id);
    context.log = log_.get();
  }
  connections_.reserve(params_.connections);
  for (std::uint32_t i = 0; i < params_.connections; ++i) {
    connections_.push_back(std::make_unique<Connection>(params_.context));
  }
}

Worker::~Worker() {
  connections_.clear();  // before the loop their sockets and timers belong to
}

void Worker::run(std::int64_t deadline_ns, std::int64_t start_ns) {
  deadline_ns_ = deadline_ns;
  loop_->update_time();
  const std::int64_t start = start_ns != 0 ? start_ns : loop_->now_ns();
  params_.pacer->begin(start);
  // Paced: the loop's timers are the schedule; the default 50 us slack would be lag.
  if (params_.paced) {
    ::prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
    loop_->set_after_io([this] { release_due(); });
  }
  if (RateStats* rate = stats_.rate()) rate->start(start);
  if (log_) log_->start(start);
  if (deadline_ns_ > 0) loop_->schedule(deadline_timer_, deadline_ns_);
  if (params_.hook) params_.hook->on_start(deadline_ns_);
  for (auto& c : connections_)
    c->start();
  if (finished_ < connections_.size()) loop_->run();
  {
    std::lock_guard lock(visits_mutex_);
    loop_ended_ = true;  // from now on visit() reads the figures on its caller's thread
  }
  run_visits();  // posted before the end: the loop will not run them
  const std::int64_t last = stats_.last_record_ns();
  if (interrupted_.load(std::memory_order_acquire)) {
    end_ns_ = mono_ns();
  } else if (deadline_passed_ || (params_.paced && deadline_ns_ > 0)) {
    // A paced run ends when its last request due before the deadline is answered, which may be
    // before the deadline: it still covers the whole schedule.
    end_ns_ = std::max(last, deadline_ns_);
  } else {
    end_ns_ = last > 0 ? last : mono_ns();
  }
  if (log_) log_->flush();
  if (params_.on_done) params_.on_done();
}

void Worker::interrupt() {
  interrupted_.store(true, std::memory_order_release);
  if (params_.hook) params_.hook->interrupt();
  loop_->stop();
}

void Worker::visit(Visitor fn) {
  {
    std::lock_guard lock(visits_mutex_);
    if (!loop_ended_) {
      visits_.push_back(std::move(fn));
      loop_->post([this] { run_visits(); });
      return;
    }
  }
  fn(stats_, begun());  // final: written before loop_ended_ was set, under the same mutex
}

void Worker::run_visits() {
  std::vector<Visitor> batch;
  {
    std::lock_guard lock(visits_mutex_);
    batch.swap(visits_);
  }
  for (Visitor& fn : batch)
    fn(stats_, begun());
}

void Worker::stop_run() {
  // Through the runner when there is one, so that the run is reported as interrupted.
  if (params_.on_stop) {
    params_.on_stop();
  } else {
    interrupt();
  }
}

SendPermit Worker::next_send(std::int64_t now_ns) {
  if (!sending_) return SendPermit{};
  const std::uint64_t ticket = budget_.take();
  if (ticket == 0) return SendPermit{};
  SendPermit permit;
  permit.send = true;
  permit.at_ns = params_.pacer->next_send_time(now_ns);
  // The schedule is monotonic: a request due at or after the deadline is never sent, nor any
  // after it (without this one due exactly at the deadline could race its timer).
  if (params_.paced && deadline_ns_ > 0 && permit.at_ns >= deadline_ns_) return SendPermit{};
  // Unique across workers and shards; with -n N, the shards' union is 1..N (loadtest starts at 1).
  permit.index = params_.shard.global_number(ticket);
  ++permits_;
  return permit;
}

void Worker::hold(Connection& connection, std::int64_t at_ns) {
  waiting_.push(at_ns, &connection);
  arm_pace_timer();
}

void Worker::release_due() {
  if (waiting_.empty()) return;
  // A fresh reading: the loop's time is from before the I/O it just dispatched.
  const std::int64_t now = mono_ns();
  while (Connection* c = waiting_.pop_due(now))
    c->send_pending();  // may hold again (a failed send's next permit): pushed behind
  if (waiting_.empty()) {
    loop_->cancel(pace_timer_);
    return;
  }
  arm_pace_timer();
}

void Worker::arm_pace_timer() {
  const std::int64_t wake = wake_for(waiting_.front_at());
  if (!pace_timer_.armed() || pace_timer_.deadline_ns() != wake) loop_->schedule(pace_timer_, wake);
}

std::int64_t Worker::wake_for(std::int64_t at_ns) const {
  return params_.paced ? wake_time(at_ns) : at_ns;
}

void Worker::on_finished() {
  if (++finished_ == connections_.size()) loop_->stop();
}

void Worker::on_deadline() {
  sending_ = false;
  deadline_passed_ = true;
  for (auto& c : connections_)
    c->stop_sending();
  permits_ -= waiting_.size();  // held permits are never sent
  waiting_.clear();             // the connections that held permits have finished
  loop_->cancel(pace_timer_);
  if (finished_ < connections_.size()) {
    loop_->schedule(drain_timer_, loop_->now_ns() + params_.drain_ns);
  }
}

}  // namespace stampede::loadgen
