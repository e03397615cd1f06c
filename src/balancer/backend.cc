#include "balancer/backend.h"

#include <algorithm>

#include "balancer/upstream.h"

namespace stampede::balancer {

BackendState::BackendState(std::size_t index, BackendSpec spec, net::Address address)
    : index_(index), spec_(std::move(spec)), address_(address) {}

void BackendState::set_up(bool up) {
  bool was = up_.exchange(up, std::memory_order_relaxed);
  if (was && !up) down_transitions_.fetch_add(1, std::memory_order_relaxed);
}

void BackendState::eject_until(std::int64_t until_ns) {
  std::int64_t prev = ejected_until_ns_.load(std::memory_order_relaxed);
  if (until_ns <= prev) return;
  ejected_until_ns_.store(until_ns, std::memory_order_relaxed);
  down_transitions_.fetch_add(1, std::memory_order_relaxed);
}

Backend::Backend(BackendState& state) : state_(state) {}

Backend::~Backend() = default;

void Backend::on_start() {
  ++in_flight_;
  counters_.in_flight.store(in_flight_, std::memory_order_relaxed);
  bump(counters_.sent);
}

void Backend::on_finish(bool ok, std::int64_t latency_ns) {
  --in_flight_;
  counters_.in_flight.store(in_flight_, std::memory_order_relaxed);
  if (!ok) {
    bump(counters_.failures);
    return;
  }
  bump(counters_.responses);
  std::lock_guard lock(latency_mutex_);
  latency_.record(latency_ns);
}

void Backend::on_cancel() {
  --in_flight_;
  counters_.in_flight.store(in_flight_, std::memory_order_relaxed);
  bump(counters_.client_aborts);
}

void Backend::on_local_failure() {
  on_cancel();
  counters_.sent.store(counters_.sent.load(std::memory_order_relaxed) - 1,
                       std::memory_order_relaxed);
}

void Backend::add_totals(BackendTotals& into) const {
  into.sent += counters_.sent.load(std::memory_order_relaxed);
  into.responses += counters_.responses.load(std::memory_order_relaxed);
  into.failures += counters_.failures.load(std::memory_order_relaxed);
  into.bad_responses += counters_.bad_responses.load(std::memory_order_relaxed);
  into.retries += counters_.retries.load(std::memory_order_relaxed);
  into.client_aborts += counters_.client_aborts.load(std::memory_order_relaxed);
  into.in_flight += counters_.in_flight.load(std::memory_order_relaxed);
}

void Backend::merge_latency(stats::Histogram& into) const {
  std::lock_guard lock(latency_mutex_);
  into.merge(latency_);
}

std::unique_ptr<UpstreamConn> Backend::take_idle() {
  if (idle_.empty()) return nullptr;
  auto conn = std::move(idle_.back());
  idle_.pop_back();
  return conn;
}

std::unique_ptr<UpstreamConn> Backend::put_idle(std::unique_ptr<UpstreamConn> conn,
                                                std::size_t max_idle) {
  if (idle_.size() >= max_idle) return conn;
  conn->set_owner(nullptr);
  idle_.push_back(std::move(conn));
  return nullptr;
}

std::unique_ptr<UpstreamConn> Backend::forget_idle(UpstreamConn* conn) {
  auto it =
      std::find_if(idle_.begin(), idle_.end(), [conn](const auto& c) { return c.get() == conn; });
  if (it == idle_.end()) return nullptr;
  auto out = std::move(*it);
  idle_.erase(it);
  return out;
}

void Backend::expire_idle(std::int64_t cutoff_ns) {
  // The pool is ordered by last use, oldest first.
  auto keep = std::find_if(idle_.begin(), idle_.end(),
                           [cutoff_ns](const auto& c) { return c->idle_since_ns() >= cutoff_ns; });
  idle_.erase(idle_.begin(), keep);
}

}  // namespace stampede::balancer
