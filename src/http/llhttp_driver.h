// LlhttpDriver: the part of RequestParser and ResponseParser that drives llhttp (internal to
// src/http): running llhttp_execute and llhttp_finish over an owner's bytes, pausing at the end
// of a head or a message and resuming after it, the callbacks both parsers install alike, and
// turning llhttp's codes into Steps and ParseErrors.
#pragma once

#include <llhttp.h>

#include <cstddef>
#include <optional>

#include "http/chunked_checker.h"
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
  // errors and of chunk framing llhttp ends early (400 for requests, 502 for responses).
  // `version_status`: the status of an HTTP version other than 1.0 and 1.1 (505, 502).
  LlhttpDriver(llhttp_type_t type, int error_status, int version_status);

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
  // For a callback at the end of a head (HeadComplete) or of a message (MessageComplete): stops
  // llhttp right after the current byte, where step() reports `event`. Return its result.
  int pause_at(Event event) {
    pause_ = event;
    return HPE_PAUSED;
  }
  // A callback paused llhttp and step() has not reported it yet.
  bool pause_pending() const { return pause_ != Event::NeedMore; }
  // An HTTP version other than 1.0 and 1.1 (the owner's status for it).
  const ParseError& version_error() const { return version_error_; }

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
  // consumed, the event a callback paused llhttp at (see pause_at(); at a MessageComplete,
  // `on_message_end()` runs first), or an Error.
  template <class OnMessageEnd>
  Step step(llhttp_errno_t err, const char* data, std::size_t len, OnMessageEnd&& on_message_end) {
    if (err == HPE_OK) return {Event::NeedMore, len};
    const auto pos = static_cast<std::size_t>(llhttp_get_error_pos(&parser_) - data);
    if (err != HPE_PAUSED) return fail_llhttp(err, pos);
    const Event event = pause_;
    pause_ = Event::NeedMore;
    if (event == Event::MessageComplete) on_message_end();
    return {event, pos};
  }
  // Checks the chunk framing of the body bytes at `data` that step() just reported (see
  // ChunkedChecker); a chunked body that llhttp ended before its last CRLF is an Error too.
  Step check_chunks(ChunkedChecker& chunks, const char* data, Step step);

  // After llhttp refused a byte by its own error (not a callback's): where the span open at the
  // refusal (a target, header name or value) starts, in the bytes given to execute(); nullptr
  // when none is open. llhttp calls a span's callback when the span ends or the bytes run out,
  // so an open span's bytes have not been seen by the owner's callbacks yet.
  const char* open_span() const;
  // Runs the open span's callback over its bytes up to `end` (at most the refused byte), as
  // llhttp would have had the read ended there, and returns the error that callback failed
  // with, if any: what those bytes are refused for whatever the split (a limit they cross).
  std::optional<ParseError> flush_open_span(void* owner, const char* end);

  // Tells llhttp the stream ended (llhttp_finish); its code as is. HPE_PAUSED: a callback paused
  // at the end of a message (close-delimited), which the caller reports itself.
  llhttp_errno_t finish(void* owner);
  // The Step for finish()'s result: NeedMore when llhttp was at rest, `truncated` when a message
  // was cut short, else llhttp's error.
  Step finish_step(llhttp_errno_t err, const ParseError& truncated);

 private:
  llhttp_t parser_;
  llhttp_settings_t settings_;
  llhttp_type_t type_;
  int error_status_;
  ParseError version_error_;
  ParseError error_;
  std::optional<ParseError> callback_error_;  // set by a callback that failed the parse
  Event pause_ = Event::NeedMore;             // what a callback paused at, until step() tells
  bool failed_ = false;
};

// The llhttp callbacks both parsers install alike; each parser's Callbacks derives from this
// (and the parser befriends it). `p->data` is the Owner: re-pointed on every entry, so moves
// are safe. A callback returning -1 fails the parse with the error given to
// LlhttpDriver::set_callback_error().
template <class Owner>
struct LlhttpCallbacks {
  static Owner& self(llhttp_t* p) { return *static_cast<Owner*>(p->data); }

  // Installs on_version_complete, which every owner has.
  static void install(llhttp_settings_t& settings) {
    settings.on_version_complete = &on_version_complete;
  }

  // A message begins: the owner clears what it kept of the one before.
  static int on_message_begin(llhttp_t* p) {
    self(p).start_message();
    return 0;
  }

  // A version llhttp knows (0.9, 1.0, 1.1, 2.0): anything but 1.0 and 1.1 is refused.
  static int on_version_complete(llhttp_t* p) {
    if (p->http_major == 1 && p->http_minor <= 1) return 0;
    LlhttpDriver& driver = self(p).driver_;
    driver.set_callback_error(driver.version_error());
    return -1;
  }
};

}  // namespace stampede::http
