#include "balancer/attempt_rules.h"

#include <errno.h>

#include "net/socket.h"

namespace stampede::balancer {

Failure connect_failure(int err) {
  const bool local = net::is_local_resource_error(err);
  return {local ? Cause::Local : Cause::Connect, !local};
}

Failure write_failure(const AttemptProgress& progress, int err) {
  const bool reset = err == ECONNRESET || err == EPIPE;
  return {progress.wrote ? Cause::NoResponse : Cause::NotSent, reset && !progress.reused};
}

Failure read_failure(const AttemptProgress& progress, bool eof, int err) {
  const Cause cause = progress.resp_started ? Cause::BadResponse : Cause::NoResponse;
  if (eof) return {cause, false};
  return {cause, err == ECONNRESET && !progress.reused};
}

Verdict judge_failure(Cause cause, bool reused, const RetryState& retry) {
  if (cause == Cause::Local) return {Next::Reply, false, 503, "local resources exhausted", false};
  const bool nothing_reached = cause == Cause::Connect || cause == Cause::NotSent;
  const bool stale =
      reused && (cause == Cause::NotSent || (cause == Cause::NoResponse && retry.resendable));
  if (retry.intact && stale) return {Next::ResendFresh, false, 0, {}, false};
  const bool resend = cause == Cause::NoResponse && retry.idempotent && retry.retries_left > 0;
  if (retry.intact && (nothing_reached || resend)) {
    return {Next::Retry, !nothing_reached, 0, {}, false};
  }
  if (cause == Cause::Timeout) return {Next::Reply, false, 504, "backend timeout", true};
  if (cause == Cause::BadResponse) return {Next::Reply, false, 502, "bad backend response", true};
  return {Next::Reply, false, 502, "backend unreachable", true};
}

Verdict judge_no_backend(bool tried_any) {
  if (!tried_any) return {Next::Reply, false, 503, "no backend", false};
  return {Next::Reply, false, 502, "backend unreachable", true};
}

}  // namespace stampede::balancer
