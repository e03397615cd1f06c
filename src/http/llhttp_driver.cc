#include "http/llhttp_driver.h"

namespace stampede::http {

namespace {

constexpr std::string_view kVersionName = "HTTP_VERSION_NOT_SUPPORTED";
constexpr std::string_view kVersionMessage = "only HTTP/1.0 and 1.1";
constexpr std::string_view kChunksUnfinishedName = "CHUNKED_FRAMING";
constexpr std::string_view kChunksUnfinishedMessage =
    "llhttp ended a chunked body before its last CRLF";

}  // namespace

LlhttpDriver::LlhttpDriver(llhttp_type_t type, int error_status, int version_status)
    : type_(type),
      error_status_(error_status),
      version_error_{version_status, kVersionName, kVersionMessage} {
  llhttp_settings_init(&settings_);
}

void LlhttpDriver::reset(void* owner) {
  llhttp_init(&parser_, type_, &settings_);
  parser_.data = owner;
  error_ = ParseError{};
  callback_error_.reset();
  pause_ = Event::NeedMore;
  failed_ = false;
}

Step LlhttpDriver::fail_llhttp(llhttp_errno_t err, std::size_t consumed) {
  if (callback_error_) return fail(*callback_error_, consumed);
  const char* reason = llhttp_get_error_reason(&parser_);
  return fail({error_status_, llhttp_errno_name(err), reason != nullptr ? reason : ""}, consumed);
}

const char* LlhttpDriver::open_span() const {
  if (callback_error_ || parser_._span_pos0 == nullptr) return nullptr;
  return static_cast<const char*>(parser_._span_pos0);
}

std::optional<ParseError> LlhttpDriver::flush_open_span(void* owner, const char* end) {
  const char* start = open_span();
  if (start == nullptr) return std::nullopt;
  // llhttp's own end-of-buffer step (llhttp__internal_execute), stopped at the refused byte.
  using SpanCallback = int (*)(llhttp_t*, const char*, const char*);
  const auto callback = reinterpret_cast<SpanCallback>(parser_._span_cb0);
  parser_._span_pos0 = nullptr;
  parser_.data = owner;
  parser_.settings = &settings_;
  if (callback(&parser_, start, end) != 0) return callback_error_;
  return std::nullopt;
}

Step LlhttpDriver::check_chunks(ChunkedChecker& chunks, const char* data, Step step) {
  if (const std::optional<ParseError> error = chunks.scan(data, step.consumed)) {
    return fail(*error, step.consumed);
  }
  if (step.event == Event::MessageComplete && !chunks.done()) {
    return fail({error_status_, kChunksUnfinishedName, kChunksUnfinishedMessage}, step.consumed);
  }
  return step;
}

llhttp_errno_t LlhttpDriver::finish(void* owner) {
  parser_.data = owner;
  parser_.settings = &settings_;
  const llhttp_errno_t err = llhttp_finish(&parser_);
  pause_ = Event::NeedMore;
  return err;
}

Step LlhttpDriver::finish_step(llhttp_errno_t err, const ParseError& truncated) {
  if (err == HPE_OK) return {Event::NeedMore, 0};
  if (err == HPE_INVALID_EOF_STATE) return fail(truncated, 0);
  return fail_llhttp(err, 0);
}

}  // namespace stampede::http
