#include "http/request_parser.h"

#include <algorithm>
#include <array>

#include "http/tokens.h"

namespace stampede::http {
namespace {

constexpr char kEmpty[1] = {};

constexpr ParseError kUriTooLong{414, "URI_TOO_LONG", "request target exceeds the limit"};
constexpr ParseError kHeadTooLarge{431, "HEADER_TOO_LARGE", "request head exceeds the limit"};
constexpr ParseError kBodyTooLarge{413, "BODY_TOO_LARGE", "request body exceeds the limit"};
constexpr std::string_view kUnknownVersionReason = "Invalid HTTP version";
constexpr ParseError kNoHost{400, "MISSING_HOST", "HTTP/1.1 request without Host"};
constexpr ParseError kTwoHosts{400, "DUPLICATE_HOST", "more than one Host field"};
constexpr ParseError kBadName{400, "INVALID_HEADER_NAME", "header name is not a token"};
constexpr ParseError kAfterClose{400, "DATA_AFTER_CLOSE",
                                 "data after a request that closes the connection"};
constexpr ParseError kTruncated{400, "HPE_INVALID_EOF_STATE",
                                "connection closed in the middle of a request"};
constexpr ParseError kBadTarget{400, "INVALID_TARGET",
                                "request target with a tab, control or non-ASCII byte"};
constexpr ParseError kBadHost{400, "INVALID_HOST", "Host is not uri-host [\":\" port]"};
constexpr ParseError kBadCoding{400, "INVALID_TRANSFER_ENCODING",
                                "Transfer-Encoding other than one field saying chunked"};
constexpr ParseError kHeadEndCr{400, "BARE_CR", "head ended by a CR not followed by LF"};

// RFC 9112 3.2 / RFC 3986: a request target is visible ASCII. llhttp 8.1 lets a tab and bytes
// over 0x7f through, which a next hop may split or decode differently.
constexpr std::array<bool, 256> make_target_table() {
  std::array<bool, 256> t{};
  for (int c = 0x21; c < 0x7f; ++c)
    t[c] = true;
  return t;
}
constexpr std::array<bool, 256> kTargetChars = make_target_table();

// Exactly one Transfer-Encoding field, whose value is "chunked" (any case).
bool only_chunked(std::span<const Header> headers) {
  int fields = 0;
  for (const Header& h : headers) {
    if (!iequals(h.name, "transfer-encoding")) continue;
    if (++fields > 1 || !iequals(h.value, "chunked")) return false;
  }
  return fields == 1;
}

}  // namespace

// llhttp callbacks (see LlhttpCallbacks). A version other than 1.0 and 1.1 is a 505 (execute()
// maps llhttp's refusal of a "HTTP/d.d" it does not know to 505 as well).
struct RequestParser::Callbacks : LlhttpCallbacks<RequestParser> {
  static int on_url(llhttp_t* p, const char* at, std::size_t len) {
    RequestParser& s = self(p);
    // Bytes up to the limit are checked first, so that the status does not depend on where
    // TCP cut the target: a bad byte within the limit is a 400, a target over it a 414.
    const std::size_t within = std::min(len, s.limits_.max_uri_bytes - s.target_len_);
    for (std::size_t i = 0; i < within; ++i) {
      if (!kTargetChars[static_cast<unsigned char>(at[i])]) {
        s.driver_.set_callback_error(kBadTarget);
        return -1;
      }
    }
    if (within < len) {
      s.driver_.set_callback_error(kUriTooLong);
      return -1;
    }
    s.buf_.append(at, len);
    s.target_len_ += len;
    return 0;
  }

  // Appends head text to buf_ and its length to `part` (the length of the field name or value
  // it belongs to); fails the parse instead when that would pass the head limit.
  static int store(RequestParser& s, const char* at, std::size_t len, std::size_t& part) {
    if (s.buf_.size() + len > s.limits_.max_header_bytes) {
      s.driver_.set_callback_error(kHeadTooLarge);
      return -1;
    }
    s.buf_.append(at, len);
    part += len;
    return 0;
  }

  static int on_header_field(llhttp_t* p, const char* at, std::size_t len) {
    RequestParser& s = self(p);
    if (!s.in_head_) return 0;  // a trailer: part of the body, not kept
    if (!s.in_field_) {
      s.fields_.push_back({s.buf_.size(), 0, 0, 0});
      s.in_field_ = true;
    }
    return store(s, at, len, s.fields_.back().name_len);
  }

  static int on_header_field_complete(llhttp_t* p) {
    RequestParser& s = self(p);
    if (!s.in_head_) return 0;
    s.in_field_ = false;
    Field& f = s.fields_.back();
    // llhttp's non-strict build lets spaces into header names.
    if (!is_token(std::string_view(s.buf_).substr(f.name_offset, f.name_len))) {
      s.driver_.set_callback_error(kBadName);
      return -1;
    }
    f.value_offset = s.buf_.size();
    if (f.name_len == 4 && iequals(std::string_view(s.buf_).substr(f.name_offset, 4), "host")) {
      ++s.host_fields_;
      s.host_field_ = s.fields_.size() - 1;
    }
    return 0;
  }

  static int on_header_value(llhttp_t* p, const char* at, std::size_t len) {
    RequestParser& s = self(p);
    if (!s.in_head_) return 0;
    return store(s, at, len, s.fields_.back().value_len);
  }

  static int on_header_value_complete(llhttp_t* p) {
    RequestParser& s = self(p);
    if (!s.in_head_) return 0;
    Field& f = s.fields_.back();
    while (f.value_len > 0) {
      const char c = s.buf_[f.value_offset + f.value_len - 1];
      if (c != ' ' && c != '\t') break;
      --f.value_len;
    }
    return 0;
  }

  static int on_headers_complete(llhttp_t* p) { return self(p).finish_head(p); }

  static int on_chunk_header(llhttp_t* p) {
    RequestParser& s = self(p);
    s.body_bytes_ += p->content_length;  // a chunk size is < 2^64 and checked each time
    if (s.body_bytes_ > s.limits_.max_body_bytes) {
      s.driver_.set_callback_error(kBodyTooLarge);
      return -1;
    }
    return 0;
  }

  static int on_message_complete(llhttp_t* p) {
    RequestParser& s = self(p);
    s.keep_alive_ = llhttp_should_keep_alive(p) != 0;
    return s.driver_.pause_at(Event::MessageComplete);
  }
};

RequestParser::RequestParser(ParserLimits limits)
    : limits_(limits), driver_(HTTP_REQUEST, 400, 505) {
  llhttp_settings_t& settings = driver_.settings();
  Callbacks::install(settings);
  settings.on_message_begin = &Callbacks::on_message_begin;
  settings.on_url = &Callbacks::on_url;
  settings.on_header_field = &Callbacks::on_header_field;
  settings.on_header_field_complete = &Callbacks::on_header_field_complete;
  settings.on_header_value = &Callbacks::on_header_value;
  settings.on_header_value_complete = &Callbacks::on_header_value_complete;
  settings.on_headers_complete = &Callbacks::on_headers_complete;
  settings.on_chunk_header = &Callbacks::on_chunk_header;
  settings.on_message_complete = &Callbacks::on_message_complete;
  driver_.reset(this);
}

void RequestParser::reset() {
  driver_.reset(this);
  checker_.reset();
  closed_ = false;
  in_head_ = true;
  head_bytes_ = 0;
  start_message();
}

void RequestParser::start_message() {
  buf_.clear();
  fields_.clear();
  headers_.clear();
  method_ = {};
  target_len_ = 0;
  body_bytes_ = 0;
  content_length_ = 0;
  host_fields_ = 0;
  in_field_ = false;
  keep_alive_ = expect_continue_ = upgrade_ = chunked_ = has_content_length_ = false;
  http_minor_ = 0;
}

int RequestParser::finish_head(llhttp_t* p) {
  in_head_ = false;
  if (p->http_major != 1) {
    driver_.set_callback_error(driver_.version_error());
    return -1;
  }
  // RFC 9112 3.2: a request with two Hosts, or an HTTP/1.1 one with none, is a 400.
  if (host_fields_ > 1 || (host_fields_ == 0 && p->http_minor == 1)) {
    driver_.set_callback_error(host_fields_ > 1 ? kTwoHosts : kNoHost);
    return -1;
  }
  if (host_fields_ == 1) {
    const Field& field = fields_[host_field_];
    const std::string_view host =
        std::string_view(buf_).substr(field.value_offset, field.value_len);
    // A keep-alive client sends the same Host every time: compare instead of checking again.
    if (host != valid_host_) {
      if (!is_host_field_value(host)) {
        driver_.set_callback_error(kBadHost);
        return -1;
      }
      valid_host_.assign(host);
    }
  }
  has_content_length_ = (p->flags & F_CONTENT_LENGTH) != 0;
  content_length_ = p->content_length;
  if (has_content_length_ && content_length_ > limits_.max_body_bytes) {
    driver_.set_callback_error(kBodyTooLarge);
    return -1;
  }
  chunked_ = (p->flags & F_CHUNKED) != 0;
  http_minor_ = p->http_minor;
  keep_alive_ = llhttp_should_keep_alive(p) != 0;
  upgrade_ = p->upgrade != 0;
  method_ = llhttp_method_name(static_cast<llhttp_method_t>(p->method));
  const std::string_view buf(buf_);
  headers_.clear();
  for (const Field& f : fields_) {
    headers_.push_back(
        {buf.substr(f.name_offset, f.name_len), buf.substr(f.value_offset, f.value_len)});
  }
  // RFC 9112 6.1 lets a server refuse codings it does not apply; a proxy that passed on
  // "identity, chunked", a second Transfer-Encoding field or an empty element would leave the
  // framing to whichever field or element the next hop reads. HAProxy, nginx and h11 refuse them.
  if (chunked_ && !only_chunked(headers_)) {
    driver_.set_callback_error(kBadCoding);
    return -1;
  }
  const std::optional<std::string_view> expect = header("expect");
  expect_continue_ = expect && iequals(*expect, "100-continue");
  return driver_.pause_at(Event::HeadComplete);
}

void RequestParser::end_message() {
  in_head_ = true;  // the next request's head starts right after
  head_bytes_ = 0;
  checker_.reset();
  if (!keep_alive_ && !upgrade_) closed_ = true;
}

Step RequestParser::execute(const char* data, std::size_t len) {
  llhttp_errno_t err = driver_.execute(this, data, len);
  // Still feeding after an upgrade request: the upgrade was declined, HTTP goes on.
  if (err == HPE_PAUSED_UPGRADE) err = driver_.continue_after_upgrade(data, len);
  const Step step = driver_.step(err, data, len, [this] { end_message(); });
  // llhttp refuses a well-formed "HTTP/d.d" it does not know (1.2, 3.0) with this reason, at
  // the minor digit; the ones it knows reach on_version_complete. Malformed versions have
  // other reasons and stay 400s.
  if (err == HPE_INVALID_VERSION && error().message == kUnknownVersionReason) {
    return driver_.fail(driver_.version_error(), step.consumed);
  }
  return step;
}

// Accounts for and checks the `head_bytes` head bytes at `data` that llhttp just accepted.
Step RequestParser::check_head(const char* data, std::size_t head_bytes, Step step) {
  head_bytes_ += head_bytes;
  if (head_bytes_ > limits_.max_header_bytes) return driver_.fail(kHeadTooLarge, head_bytes);
  if (const std::optional<ParseError> error = checker_.scan(data, head_bytes)) {
    return driver_.fail(*error, head_bytes);
  }
  // llhttp 8.1 ends a head at a CR followed by any byte; the checker sees no LF for that line.
  if (step.event == Event::HeadComplete && head_bytes > 0 && data[head_bytes - 1] != '\n') {
    return driver_.fail(kHeadEndCr, head_bytes);
  }
  if (step.event == Event::HeadComplete && chunked_) {
    const std::size_t limit = limits_.max_header_bytes;
    chunks_.reset({limit, limit - head_bytes_, 400, 431});
  }
  return step;
}

// After llhttp refused the byte at data + consumed in a head: what the `consumed` head bytes
// before it are refused for, if anything, as when they arrive in earlier reads, so that the
// status does not depend on where TCP cut the stream (the earlier byte decides). In stream
// order, as feed() checks a read: the checker over the bytes before the span open at the
// refusal (a target, header name or value), the span's callback (URI and head limits), the head
// limit, the checker over the span's bytes (line ends, which close a span, are what it checks).
std::optional<ParseError> RequestParser::check_before_error(const char* data,
                                                            std::size_t consumed) {
  const std::size_t room = limits_.max_header_bytes - head_bytes_;
  const char* span = driver_.open_span();
  const std::size_t before = span != nullptr ? static_cast<std::size_t>(span - data) : consumed;
  if (std::optional<ParseError> error = checker_.scan(data, std::min(before, room))) return error;
  if (before > room) return kHeadTooLarge;
  if (std::optional<ParseError> error =
          driver_.flush_open_span(this, data + std::min(consumed, room + 1))) {
    return error;
  }
  if (consumed > room) return kHeadTooLarge;
  return checker_.scan(data + before, consumed - before);
}

Step RequestParser::feed(const char* data, std::size_t len) {
  if (driver_.failed()) return {Event::Error, 0};
  if (closed_) return len == 0 ? Step{Event::NeedMore, 0} : driver_.fail(kAfterClose, 0);
  const bool head = in_head_;
  const bool chunked = chunked_;
  const Step step = execute(data, len);
  if (step.event == Event::Error) {
    if (head) {
      if (const std::optional<ParseError> error = check_before_error(data, step.consumed)) {
        return driver_.fail(*error, step.consumed);
      }
    }
    return step;
  }
  if (!head) return chunked ? driver_.check_chunks(chunks_, data, step) : step;
  // Starting in the head, llhttp stops at its end (HeadComplete) or consumes everything.
  return check_head(data, step.consumed, step);
}

Step RequestParser::finish() {
  if (driver_.failed()) return {Event::Error, 0};
  if (closed_) return {Event::NeedMore, 0};
  if (driver_.paused()) {
    // The caller stopped at an event without feeding the rest: let llhttp reach a resting state.
    const Step step = feed(kEmpty, 0);
    if (step.event != Event::NeedMore) return step;
  }
  return driver_.finish_step(driver_.finish(this), kTruncated);
}

std::string_view RequestParser::path() const {
  const std::string_view t = target();
  return t.substr(0, t.find('?'));
}

std::string_view RequestParser::query() const {
  const std::string_view t = target();
  const std::size_t q = t.find('?');
  return q == std::string_view::npos ? std::string_view() : t.substr(q + 1);
}

std::optional<std::uint64_t> RequestParser::content_length() const {
  if (!has_content_length_) return std::nullopt;
  return content_length_;
}

std::optional<std::string_view> RequestParser::header(std::string_view name) const {
  const Header* h = find_header(headers_, name);
  if (h == nullptr) return std::nullopt;
  return h->value;
}

}  // namespace stampede::http
