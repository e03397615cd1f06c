// The rules of one attempt at a backend, the same for an HTTP/1.1 client (ProxySession) and an
// HTTP/2 stream (H2Stream): how an I/O failure is classified, and what follows a failed
// attempt: resend on a fresh connection, retry on another backend, or answer the client.
// Pure functions of the failure and the request's state: no I/O, no clock, no worker; the
// callers apply the verdict (attempt.h holds the steps they share).
//
// The rules (docs/balance.md): an attempt that failed before any byte of the request reached
// the backend (connect refused or timed out, or the first write failed) goes to another live
// backend whatever the method; a GET or HEAD that was sent but got no response byte is re-sent
// up to --retries times. A failure on a reused pooled connection before any response byte is
// re-sent once on a fresh connection (the same backend allowed) when nothing was written or the
// method is idempotent; that does not use up --retries. Nothing is retried once the request is
// no longer whole in the balancer's buffer (a long body already forwarded) or a response byte
// arrived. Otherwise the client gets 504 (timeout), 502 (bad response, or unreachable) or 503
// (the balancer's own resources ran out: the backend is not blamed).
#pragma once

#include <cstdint>
#include <string_view>

namespace stampede::balancer {

// Why an attempt failed. Local: the balancer's own descriptors, memory or ports ran out.
enum class Cause : std::uint8_t { Connect, NotSent, NoResponse, Timeout, BadResponse, Local };

// A failure as seen at the I/O edge: its cause, and whether it marks the backend down
// (passive health) at once.
struct Failure {
  Cause cause;
  bool mark_down;
};

// What the attempt had done when it failed.
struct AttemptProgress {
  bool reused = false;        // on a pooled connection that carried requests before
  bool wrote = false;         // a byte of the request was accepted by the kernel
  bool resp_started = false;  // a byte of the response arrived
};

// A connect or TLS handshake that failed with `err`: the backend's failure, unless our own
// resources ran out.
Failure connect_failure(int err);
// A write of the request that failed with `err`: a reset on a fresh connection marks down.
Failure write_failure(const AttemptProgress& progress, int err);
// Before the response head: the backend closed (`eof`) or the read failed with `err`. A close
// is not marked down (a refused reconnect will say); a reset on a fresh connection is.
Failure read_failure(const AttemptProgress& progress, bool eof, int err);

// What a request allows across its attempts: set when its head arrives (one assignment),
// spent by failed attempts.
struct RetryState {
  bool idempotent = false;  // GET or HEAD: re-sent after an unanswered attempt (--retries)
  bool resendable = false;  // RFC 9110 9.2.2 idempotent: re-sent after a stale connection
  bool intact = true;       // the balancer still holds every byte of the request
  bool fresh_only = false;  // a pooled connection was stale: the next attempt opens one
  int retries_left = 0;
};

enum class Next : std::uint8_t {
  ResendFresh,  // a stale pooled connection: again on a fresh one, any live backend
  Retry,        // another backend (spends_retry: one of --retries used)
  Reply,        // answer the client with status and error
};

struct Verdict {
  Next next = Next::Reply;
  bool spends_retry = false;
  int status = 0;
  std::string_view error;
  bool names_backend = false;  // the reply says which backend failed
};

// `reused`: the failed attempt was on a pooled connection.
Verdict judge_failure(Cause cause, bool reused, const RetryState& retry);

// The policy found no live backend: 503 before any attempt, 502 naming the last one tried.
Verdict judge_no_backend(bool tried_any);

}  // namespace stampede::balancer
