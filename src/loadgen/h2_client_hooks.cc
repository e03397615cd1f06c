// The H2Client's RequestHook calls (loadgen/hooks.h), made only when a run has hooks.
#include "core/clock.h"
#include "http/header.h"
#include "loadgen/h2_client.h"
#include "loadgen/h2_slot.h"

namespace stampede::loadgen {

void H2CapturedHeaders::reset(const std::vector<std::string>* names) {
  names_ = names;
  const std::size_t count = names ? names->size() : 0;
  values_.resize(count);
  for (std::string& value : values_)
    value.clear();
  present_.assign(count, false);
}

void H2CapturedHeaders::add(std::string_view name, std::string_view value) {
  if (!names_) return;
  for (std::size_t i = 0; i < names_->size(); ++i) {
    if (!http::iequals((*names_)[i], name)) continue;
    if (present_[i]) values_[i] += ", ";
    values_[i] += value;
    present_[i] = true;
  }
}

std::optional<std::string_view> H2CapturedHeaders::header(std::string_view name) const {
  if (!names_) return std::nullopt;
  for (std::size_t i = 0; i < names_->size(); ++i) {
    if (present_[i] && http::iequals((*names_)[i], name)) return values_[i];
  }
  return std::nullopt;
}

bool H2Client::generate(const SendPermit& permit, H2Fields& out) {
  const Generated made = context_.hook->generate(permit.index, generated_bytes_);
  const std::string_view error =
      made.ok ? generated_->translate(generated_bytes_, out) : std::string_view(made.error);
  if (error.empty()) {
    generate_failures_ = 0;
    return true;
  }
  record_unsent(context_, permit, error);
  // As a Connection backs off: a hook failing every time must not spin through the permits.
  generate_paused_ = true;
  ++generate_failures_;
  context_.loop->schedule(generate_timer_,
                          context_.loop->now_ns() + net::backoff_ns(generate_failures_));
  return false;
}

std::string_view H2Client::notify_hook(Slot& slot, int status, int err, std::string_view failure,
                                       std::int64_t latency_ns, std::int64_t uncorrected_ns) {
  RequestOutcome outcome;
  outcome.index = slot.index;
  outcome.worker = context_.worker;
  outcome.status = status;
  outcome.err = err;
  outcome.failure = failure;
  outcome.latency_ns = latency_ns;
  outcome.uncorrected_ns = uncorrected_ns;
  // As its latency has it: a stream that never began (its socket failed first) has no lag.
  outcome.send_lag_ns = context_.paced && slot.begin_ns != 0 ? slot.begin_ns - slot.intended_ns : 0;
  outcome.body = slot.buffers.response;
  outcome.response = status != 0 ? &slot.buffers.headers : nullptr;
  const std::string_view verdict = context_.hook->on_outcome(outcome);
  slot.buffers.response.clear();
  if (context_.hook->halted()) context_.owner->stop_run();
  return verdict;
}

void H2Client::on_data(std::int32_t stream_id, std::string_view chunk) {
  if (Slot* slot = slot_of(stream_id)) slot->buffers.response.append(chunk);
}

}  // namespace stampede::loadgen
