// LlhttpDriver: the part of RequestParser and ResponseParser that drives llhttp (internal to
// src/http): running llhttp_execute and llhttp_finish over an owner's bytes, resuming after a
// pause, and turning llhttp's codes into Steps and ParseErrors.
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <optional>

#include "http/parse_types.h"

namespace stampede::http {

// Holds the llhttp state of one parser and its error state. The owner (the parser whose
// callbacks are installed in settings()) passes itself to reset(), execute() and finish(): the
// callbacks find it as `p->data`, re-pointed on every entry, so the owner may be moved between
// calls. Callbacks pause llhttp (return HPE_PAUSED) at the events the owner reports, or fail the
// parse by calling set_callback_error() and returning -1. Errors are final until reset().
// One thread; movable, not copyable (as its owner).
class LlhttpDriver {
 public:
  // `type`: HTTP_REQUEST or HTTP_RESPONSE. `error_status`: the ParseError status of llhttp's own
  // errors (400 for requests, 502 for responses).
  LlhttpDriver(llhttp_type_t type, int error_status);

  // The owner installs its callbacks here, before the first reset() (and may change them
  // later: execute() re-points llhttp at them).
  llhttp_settings_t& settings() { return settings_; }
  // A new connection: llhttp starts afresh and the error state is cleared.
  void reset(void* owner);

  bool failed() const { return failed_; }
  const ParseError& error() const { return error_; }
  // llhttp stopped at an event and has not been resumed yet.
  bool paused() const { return parser_.error == HPE_PAUSED; }
  // For a callback that fails the parse (it then returns -1): the error fail_llhttp() reports.
  void set_callback_error(const ParseError& error) { callback_error_ = error; }

  // Records the final error: an Error step with `consumed` bytes.
  Step fail(const ParseError& error, std::size_t consumed) {
    failed_ = true;
    error_ = error;
    return {Event::Error, consumed};
  }
  // The same for an llhttp error code: the callback's error if one failed the parse, else
  // llhttp's name and reason with the error status.
  Step fail_llhttp(llhttp_errno_t err, std::size_t consumed);

  // Runs llhttp over `len` bytes at `data`, resuming it first if it was paused.
  llhttp_errno_t execute(void* owner, const char* data, std::size_t len) {
    parser_.data = owner;
    parser_.settings = &settings_;
    if (parser_.error == HPE_PAUSED) llhttp_resume(&parser_);
    return llhttp_execute(&parser_, data, len);
  }
  // After HPE_PAUSED_UPGRADE: carries on with HTTP from where llhttp stopped, up to data + len
  // (`data` and `len` as given to execute()).
  llhttp_errno_t continue_after_upgrade(const char* data, std::size_t len) {
    const char* pos = llhttp_get_error_pos(&parser_);
    llhttp_resume_after_upgrade(&parser_);
    return llhttp_execute(&parser_, pos, len - static_cast<std::size_t>(pos - data));
  }
  // The Step for execute()'s result over `len` bytes at `data`: NeedMore with every byte
  // consumed, `on_paused(consumed)` where a callback paused llhttp, or an Error.
  template <class OnPaused>
  Step step(llhttp_errno_t err, const char* data, std::size_t len, OnPaused&& on_paused) {
    if (err == HPE_OK) return {Event::NeedMore, len};
    const auto pos = static_cast<std::size_t>(llhttp_get_error_pos(&parser_) - data);
    if (err == HPE_PAUSED) return on_paused(pos);
    return fail_llhttp(err, pos);
  }

  // After llhttp refused a byte by its own error (not a callback's): where the span open at the
  // refusal (a target, header name or value) starts, in the bytes given to execute(); nullptr
  // when none is open. llhttp calls a span's callback when the span ends or the bytes run out,
  // so an open span's bytes have not been seen by the owner's callbacks yet.
  const char* open_span() const;
  // Runs the open span's callback over its bytes up to `end` (at most the refused byte), as
  // llhttp would have had the read ended there, and returns the error that callback failed
  // with, if any: what those bytes are refused for whatever the split (a limit they cross).
  std::optional<ParseError> flush_open_span(void* owner, const char* end);

  // Tells llhttp the stream ended (llhttp_finish); its code as is.
  llhttp_errno_t finish(void* owner);
  // The Step for finish()'s result: NeedMore when llhttp was at rest, `truncated` when a message
  // was cut short, else llhttp's error.
  Step finish_step(llhttp_errno_t err, const ParseError& truncated);

 private:
  llhttp_t parser_;
  llhttp_settings_t settings_;
  llhttp_type_t type_;
  int error_status_;
  ParseError error_;
  std::optional<ParseError> callback_error_;  // set by a callback that failed the parse
  bool failed_ = false;
};

}  // namespace stampede::http
