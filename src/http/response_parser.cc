#include "http/response_parser.h"

#include <cstring>

#include "http/header.h"

namespace stampede::http {
namespace {

constexpr char kNoText[1] = {};
// A server cannot make the parser hold more than this much captured header text.
constexpr std::size_t kMaxCapturedBytes = 65536;

constexpr ParseError kCapturedTooLarge{502, "CAPTURED_HEADER_TOO_LARGE",
                                       "captured response header values exceed 64 KiB"};
constexpr ParseError kResponseHeadTooLarge{502, "HEADER_TOO_LARGE", "response head exceeds 64 KiB"};
constexpr ParseError kResponseAfterClose{502, "DATA_AFTER_CLOSE",
                                         "data after a response that ended the connection"};
constexpr ParseError kUpgraded{502, "UPGRADED",
                               "bytes after 101 Switching Protocols belong to another protocol"};
constexpr ParseError kResponseTruncated{502, "HPE_INVALID_EOF_STATE",
                                        "connection closed before the response was complete"};
constexpr ParseError kBadReason{502, "INVALID_REASON", "control byte in the reason phrase"};
constexpr ParseError kChunkedTwice{502, "CHUNKED_TWICE",
                                   "Transfer-Encoding names chunked more than once"};

// llhttp's header_state once a field name is complete: the name was Transfer-Encoding
// (HEADER_STATE_TRANSFER_ENCODING in llhttp 8.1's generated llhttp.c; it has no public name).
constexpr std::uint8_t kLlhttpTransferEncoding = 3;

bool is_ows(char c) {
  return c == ' ' || c == '\t';
}

// After a failed comparison of `len` (> 0) bytes with the repeat: whether they differ from it,
// rather than being fewer, alike so far (the repeat arriving in pieces, or a shorter response),
// which is not a miss. Out of line: the repeat's own path stays small.
[[gnu::noinline]] bool differs(const char* data, std::size_t len, std::string_view repeat) {
  return len >= repeat.size() || std::memcmp(data, repeat.data(), len) != 0;
}

}  // namespace

// llhttp callbacks (see LlhttpCallbacks).
struct ResponseParser::Callbacks : LlhttpCallbacks<ResponseParser> {
  static int on_headers_complete(llhttp_t* p) {
    ResponseParser& s = self(p);
    // RFC 9112 6.1: chunked is never applied twice; llhttp 8.1 would de-chunk such a body once.
    const bool chunked_twice = s.codings_.chunked > 1;
    s.codings_ = {};
    if (chunked_twice) {
      s.driver_.set_callback_error(kChunkedTwice);
      return -1;
    }
    s.status_ = p->status_code;
    s.http_minor_ = p->http_minor;
    s.in_head_ = false;
    if (s.status_ / 100 == 1 && s.status_ != 101) {
      // 100 Continue, 103 Early Hints...: wait for the final response. A 1xx ends with its head
      // (RFC 9110 15.2) whatever its headers say; llhttp 8.1 would read a Content-Length body.
      s.interim_ = true;
      p->flags |= F_SKIPBODY;
      return 0;
    }
    s.after_interim_ = false;
    // Responses to HEAD, and 204 and 304, have no body whatever their headers say (RFC 9112
    // 6.3); llhttp leaves that to its caller. Setting F_SKIPBODY is what returning 1 would do.
    if (s.no_body_next_ || s.status_ == 204 || s.status_ == 304) p->flags |= F_SKIPBODY;
    s.chunked_ = (p->flags & F_CHUNKED) != 0;
    s.chunked_body_ = s.chunked_ && (p->flags & F_SKIPBODY) == 0;
    s.has_content_length_ = (p->flags & F_CONTENT_LENGTH) != 0;
    s.content_length_ = p->content_length;
    s.keep_alive_ = llhttp_should_keep_alive(p) != 0 && s.status_ != 101;
    return s.driver_.pause_at(Event::HeadComplete);
  }

  static int on_message_complete(llhttp_t* p) {
    ResponseParser& s = self(p);
    s.codings_ = {};  // Transfer-Encoding trailers are not the next head's
    if (s.interim_) {
      s.interim_ = false;
      s.after_interim_ = true;
      return 0;
    }
    s.keep_alive_ = llhttp_should_keep_alive(p) != 0 && s.status_ != 101;
    s.no_body_next_ = false;
    return s.driver_.pause_at(Event::MessageComplete);
  }

  // The reason phrase (RFC 9112 4: HTAB, SP, VCHAR, obs-text); llhttp 8.1 takes any byte but CR
  // and LF, and a client or proxy must not take a NUL or another control byte for text.
  static int on_status(llhttp_t* p, const char* at, std::size_t len) {
    for (const char* end = at + len; at < end; ++at) {
      const auto c = static_cast<unsigned char>(*at);
      if ((c < 0x20 && c != '\t') || c == 0x7f) {
        self(p).driver_.set_callback_error(kBadReason);
        return -1;
      }
    }
    return 0;
  }

  static int on_body(llhttp_t* p, const char* at, std::size_t len) {
    ResponseParser& s = self(p);
    if (!s.interim_) s.body_callback_(std::string_view(at, len));
    return 0;
  }

  static int on_header_field(llhttp_t* p, const char* at, std::size_t len) {
    ResponseParser& s = self(p);
    if (!s.in_head_) return 0;
    if (!s.in_field_) {
      s.field_.clear();
      s.in_field_ = true;
    }
    // A name longer than every capture name cannot match: stop copying it.
    if (s.field_.size() <= s.max_name_) s.field_.append(at, std::min(len, s.max_name_ + 1));
    return 0;
  }

  // Without captures: a Transfer-Encoding value is read for its codings (on_coding_value until
  // the value ends); every other field costs this call and one comparison.
  static int on_field_complete_codings(llhttp_t* p) {
    if (p->header_state == kLlhttpTransferEncoding) self(p).read_codings(true);
    return 0;
  }

  // With captures: the same, and the field's capture found.
  static int on_header_field_complete(llhttp_t* p) {
    ResponseParser& s = self(p);
    if (p->header_state == kLlhttpTransferEncoding) s.read_codings(true);
    if (!s.in_head_) return 0;
    s.in_field_ = false;
    s.current_capture_ = s.capture_index(s.field_);
    if (s.current_capture_ < 0) return 0;
    const auto i = static_cast<std::size_t>(s.current_capture_);
    if (s.capture_present_[i]) s.capture_values_[i].append(", ");
    s.capture_present_[i] = true;
    s.value_start_ = s.capture_values_[i].size();
    return 0;
  }

  static int on_coding_value(llhttp_t* p, const char* at, std::size_t len) {
    ResponseParser& s = self(p);
    s.codings_.feed(std::string_view(at, len));
    return s.capture_names_.empty() ? 0 : on_header_value(p, at, len);
  }

  static int on_coding_value_complete(llhttp_t* p) {
    ResponseParser& s = self(p);
    s.codings_.end_coding();
    s.read_codings(false);
    return s.capture_names_.empty() ? 0 : on_header_value_complete(p);
  }

  static int on_header_value(llhttp_t* p, const char* at, std::size_t len) {
    ResponseParser& s = self(p);
    if (!s.in_head_ || s.current_capture_ < 0) return 0;
    s.captured_bytes_ += len;
    if (s.captured_bytes_ > kMaxCapturedBytes) {
      s.driver_.set_callback_error(kCapturedTooLarge);
      return -1;
    }
    s.capture_values_[static_cast<std::size_t>(s.current_capture_)].append(at, len);
    return 0;
  }

  static int on_header_value_complete(llhttp_t* p) {
    ResponseParser& s = self(p);
    if (!s.in_head_ || s.current_capture_ < 0) return 0;
    std::string& v = s.capture_values_[static_cast<std::size_t>(s.current_capture_)];
    while (v.size() > s.value_start_ && is_ows(v.back()))
      v.pop_back();
    s.current_capture_ = -1;
    return 0;
  }
};

ResponseParser::ResponseParser(std::vector<std::string> capture_headers)
    : driver_(HTTP_RESPONSE, 502, 502), capture_names_(std::move(capture_headers)) {
  capture_values_.resize(capture_names_.size());
  capture_present_.resize(capture_names_.size());
  for (const std::string& name : capture_names_)
    max_name_ = std::max(max_name_, name.size());
  llhttp_settings_t& settings = driver_.settings();
  settings.on_headers_complete = &Callbacks::on_headers_complete;
  settings.on_message_complete = &Callbacks::on_message_complete;
  Callbacks::install(settings);
  settings.on_header_field_complete = &Callbacks::on_field_complete_codings;
  settings.on_status = &Callbacks::on_status;
  if (!capture_names_.empty()) {
    settings.on_message_begin = &Callbacks::on_message_begin;
    settings.on_header_field = &Callbacks::on_header_field;
    settings.on_header_field_complete = &Callbacks::on_header_field_complete;
  }
  read_codings(false);
  driver_.reset(this);
}

void ResponseParser::read_codings(bool on) {
  // llhttp looks its callbacks up when it calls them: switching them between a field's name and
  // its value sends that value to the coding counter.
  llhttp_settings_t& settings = driver_.settings();
  const bool capture = !capture_names_.empty();
  settings.on_header_value = on        ? &Callbacks::on_coding_value
                             : capture ? &Callbacks::on_header_value
                                       : nullptr;
  settings.on_header_value_complete = on        ? &Callbacks::on_coding_value_complete
                                      : capture ? &Callbacks::on_header_value_complete
                                                : nullptr;
}

void ChunkedCodings::feed(std::string_view value) {
  static constexpr std::string_view kChunked = "chunked";
  for (const char c : value) {
    if (c == ',') {
      end_coding();
    } else if (c == ' ' || c == '\t') {
      ended = length > 0;  // OWS around a coding; within one it makes another coding
    } else {
      const char lower = c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c;
      if (ended || length >= kChunked.size() || lower != kChunked[length]) other = true;
      if (length < kChunked.size()) ++length;
    }
  }
}

void ChunkedCodings::end_coding() {
  if (!other && length == 7 && chunked < 255) ++chunked;
  length = 0;
  other = ended = false;
}

void ResponseParser::reset() {
  driver_.reset(this);
  // The repeat is kept: a new connection starts in the state a keep-alive message leaves (see
  // repeat_step()), so its bytes would get the verdict they got. A balancer resets at every
  // attempt, on connections of a pool that answer alike.
  recording_ok_ = repeating_ = false;
  checker_.reset();
  head_bytes_ = 0;
  closed_ = no_body_next_ = interim_ = after_interim_ = head_done_ = false;
  keep_alive_ = chunked_ = chunked_body_ = has_content_length_ = false;
  status_ = http_minor_ = 0;
  content_length_ = 0;
  codings_ = {};
  read_codings(false);
  start_message();
}

void ResponseParser::set_body_callback(BodyCallback callback) {
  body_callback_ = std::move(callback);
  repeat_head_ = 0;  // the body's bytes are to be seen
  recording_ok_ = false;
  driver_.settings().on_body = body_callback_ ? &Callbacks::on_body : nullptr;
}

void ResponseParser::start_message() {
  for (std::size_t i = 0; i < capture_values_.size(); ++i) {
    capture_values_[i].clear();
    capture_present_[i] = false;
  }
  captured_bytes_ = 0;
  current_capture_ = -1;
  in_field_ = false;
  in_head_ = true;
}

int ResponseParser::capture_index(std::string_view name) const {
  for (std::size_t i = 0; i < capture_names_.size(); ++i) {
    if (iequals(capture_names_[i], name)) return static_cast<int>(i);
  }
  return -1;
}

void ResponseParser::end_message() {
  head_done_ = false;  // the next response's head starts right after
  head_bytes_ = 0;
  checker_.reset();
  if (!keep_alive_) closed_ = true;
}

Step ResponseParser::feed(const char* data, std::size_t len) {
  if (driver_.failed()) return {Event::Error, 0};
  if (closed_) {
    if (len == 0) return {Event::NeedMore, 0};
    return driver_.fail(status_ == 101 ? kUpgraded : kResponseAfterClose, 0);
  }
  if (repeat_head_ != 0) {
    if (const std::optional<Step> step = repeat_step(data, len)) return *step;
  }
  const bool body = head_done_;
  const Step step =
      driver_.step(driver_.execute(this, data, len), data, len, [this] { end_message(); });
  if (step.event == Event::Error) return step;
  if (recording_ok_ || (!body && head_bytes_ == 0)) record(data, step, body);
  if (!body) return check_head(data, step);
  return chunked_body_ ? driver_.check_chunks(chunks_, data, step) : step;
}

// At a message's start the parser's state is always the same (llhttp at rest after a keep-alive
// message, checker reset, no HEAD or 1xx pending), and the repeat was parsed from that state
// into that state, so identical bytes get the identical events and leave the same state.
[[gnu::always_inline]] inline std::optional<Step> ResponseParser::repeat_step(const char* data,
                                                                              std::size_t len) {
  if (repeating_) {  // the caller feeds from the repeat's body on
    repeating_ = false;
    head_done_ = false;
    return Step{Event::MessageComplete, repeat_.size() - repeat_head_};
  }
  const bool at_start = !head_done_ && head_bytes_ == 0 && !no_body_next_ && !after_interim_ &&
                        !driver_.pause_pending();
  if (!at_start) return std::nullopt;
  if (len < repeat_.size() || std::memcmp(data, repeat_.data(), repeat_.size()) != 0) {
    if (len != 0 && misses_ < 255 && differs(data, len, repeat_)) ++misses_;
    return std::nullopt;
  }
  misses_ = 0;
  ++repeated_;
  repeating_ = true;
  head_done_ = true;
  status_ = repeat_fields_.status;
  http_minor_ = repeat_fields_.http_minor;
  content_length_ = repeat_fields_.content_length;
  keep_alive_ = has_content_length_ = true;
  chunked_ = chunked_body_ = false;
  return Step{Event::HeadComplete, repeat_head_};
}

void ResponseParser::record(const char* data, Step step, bool body) {
  if (!body) {  // a message's start: its whole head in this feed, or nothing to keep
    recording_ok_ = step.event == Event::HeadComplete && step.consumed <= kMaxRepeatBytes &&
                    !interim_ && !after_interim_ && !no_body_next_ && status_ != 101 &&
                    keep_alive_ && has_content_length_ && !chunked_ && capture_names_.empty() &&
                    !body_callback_ && !backed_off();
    if (recording_ok_) {
      recording_.assign(data, step.consumed);
      recording_head_ = step.consumed;
    }
    return;
  }
  if (recording_.size() + step.consumed > kMaxRepeatBytes) {
    recording_ok_ = false;
    return;
  }
  recording_.append(data, step.consumed);
  if (step.event != Event::MessageComplete) return;
  recording_ok_ = false;
  if (!keep_alive_) return;
  repeat_.swap(recording_);
  repeat_head_ = recording_head_;
  repeat_fields_ = {status_, http_minor_, content_length_};
}

// Whether a response that could be recorded is passed over: after kMissesToBackOff failed
// comparisons in a row, all but one in kRecordOneIn are.
bool ResponseParser::backed_off() {
  if (misses_ < kMissesToBackOff || ++unrecorded_ == kRecordOneIn) {
    unrecorded_ = 0;
    return false;
  }
  return true;
}

// Accounts for and checks the head bytes at `data` that llhttp just accepted (a feed that
// starts in the head stops at its end: 1xx heads before it have no body).
Step ResponseParser::check_head(const char* data, Step step) {
  head_bytes_ += step.consumed;
  if (head_bytes_ > kMaxHeadBytes) return driver_.fail(kResponseHeadTooLarge, step.consumed);
  if (const std::optional<ParseError> error = checker_.scan(data, step.consumed)) {
    return driver_.fail(*error, step.consumed);
  }
  if (step.event == Event::HeadComplete) {
    head_done_ = true;
    if (chunked_body_) chunks_.reset({kMaxHeadBytes, kMaxHeadBytes - head_bytes_, 502, 502});
  }
  return step;
}

Step ResponseParser::finish() {
  if (driver_.failed()) return {Event::Error, 0};
  if (closed_) return {Event::NeedMore, 0};
  if (repeating_) {  // a repeat's head came, its body was not fed: cut short, as llhttp finds
    repeating_ = false;
    return driver_.fail(kResponseTruncated, 0);
  }
  if (driver_.paused()) {
    // The caller stopped at an event without feeding the rest: let llhttp reach a resting state.
    const Step step = feed(kNoText, 0);
    if (step.event != Event::NeedMore) return step;
  }
  // A 1xx leaves llhttp at rest, but the final response it announced never came.
  if (after_interim_) return driver_.fail(kResponseTruncated, 0);
  const llhttp_errno_t err = driver_.finish(this);
  if (err == HPE_PAUSED) {  // on_message_complete ran: a close-delimited body ended
    closed_ = true;
    keep_alive_ = false;
    return {Event::MessageComplete, 0};
  }
  return driver_.finish_step(err, kResponseTruncated);
}

std::optional<std::uint64_t> ResponseParser::content_length() const {
  if (!has_content_length_) return std::nullopt;
  return content_length_;
}

std::optional<std::string_view> ResponseParser::captured(std::size_t index) const {
  if (index >= capture_values_.size() || !capture_present_[index]) return std::nullopt;
  return std::string_view(capture_values_[index]);
}

std::optional<std::string_view> ResponseParser::header(std::string_view name) const {
  const int i = capture_index(name);
  if (i < 0) return std::nullopt;
  return captured(static_cast<std::size_t>(i));
}

}  // namespace stampede::http
