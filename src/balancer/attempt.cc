#include "balancer/attempt.h"

#include "balancer/backend.h"
#include "balancer/worker.h"

namespace stampede::balancer {

void cancel_attempt(Attempt& attempt) {
  if (!attempt.active) return;
  attempt.active = false;
  attempt.backend->on_cancel();
}

void count_failure(Attempt& attempt, Worker& worker, Failure failure) {
  Backend* backend = attempt.backend;
  if (failure.cause == Cause::Local) {
    // Our own descriptors, memory or ports ran out: nothing about the backend, whose counts
    // and health stay as they were; another backend would fail the same way.
    if (attempt.active) backend->on_local_failure();
    attempt.active = false;
    worker.count_local_error(LocalError::Connect);
    return;
  }
  end_attempt(attempt, worker, false);
  if (failure.mark_down) worker.passive_failure(*backend);
  if (failure.cause == Cause::BadResponse) backend->on_bad_response();
}

Verdict settle_failure(Attempt& attempt, Worker& worker, Failure failure, RetryState& retry,
                       std::vector<Backend*>& tried) {
  count_failure(attempt, worker, failure);
  const Verdict verdict = judge_failure(failure.cause, attempt.reused, retry);
  if (verdict.next == Next::Reply) return verdict;
  if (verdict.next == Next::ResendFresh) {
    tried.pop_back();  // the same backend may take it again
    retry.fresh_only = true;
  }
  if (verdict.spends_retry) --retry.retries_left;
  attempt.backend->on_retry();
  return verdict;
}

}  // namespace stampede::balancer
