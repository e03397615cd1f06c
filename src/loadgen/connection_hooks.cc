// The Connection's RequestHook calls (loadgen/hooks.h), apart from the static path.
#include "core/clock.h"
#include "loadgen/connection.h"

namespace stampede::loadgen {

void record_unsent(const ConnectionContext& context, const SendPermit& permit,
                   std::string_view error) {
  const std::int64_t now = mono_ns();
  // Not sent, but begun: it has its send lag like any other.
  if (RateStats* rate = context.stats->rate()) {
    rate->on_sent(permit.at_ns, now, permit.waited_for_connection);
  }
  context.stats->record_custom_error(error, 0, now, now);
  if (context.log) {
    LogLine line;  // on no connection: nothing was sent
    line.index = permit.index;
    line.intended_ns = context.paced ? permit.at_ns : 0;
    line.start_ns = line.end_ns = now;
    line.code = error;
    context.log->append(line);
  }
  if (context.hook->halted()) context.owner->stop_run();
}

// A generated request replaces the template's; one the hook could not make is not sent: it
// counts as an error and the connection backs off, so a hook failing every time does not spin.
bool Connection::generate(const SendPermit& permit) {
  if (!context_.hook_set->generates) {
    head_ = false;
    if (context_.request->indexed()) {
      context_.request->render(permit.index, rendered_);
      request_ = rendered_;
    } else {
      request_ = context_.request->fixed();
    }
    return true;
  }
  const Generated generated = context_.hook->generate(permit.index, rendered_);
  if (!generated.ok) {
    record_unsent(context_, permit, generated.error);
    backoff();
    return false;
  }
  head_ = generated.head;
  request_ = rendered_;
  return true;
}

std::string_view Connection::notify_hook(int status, int err, std::int64_t latency_ns,
                                         std::int64_t uncorrected_ns) {
  RequestOutcome outcome;
  outcome.index = index_;
  outcome.worker = context_.worker;
  outcome.status = status;
  outcome.err = err;
  outcome.latency_ns = latency_ns;
  outcome.uncorrected_ns = uncorrected_ns;
  outcome.send_lag_ns = context_.paced ? begin_ns_ - intended_ns_ : 0;  // as mark_begin() gave it
  outcome.body = body_;
  outcome.response = status != 0 ? &parsed_headers_ : nullptr;
  const std::string_view verdict = context_.hook->on_outcome(outcome);
  body_.clear();
  if (context_.hook->halted()) context_.owner->stop_run();
  return verdict;
}

}  // namespace stampede::loadgen
