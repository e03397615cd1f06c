// Fuzz target: the check on requests built from outside input. A Lua script's request() result
// applied to the command line's request (script::apply_script_request, then
// script::finish_script_request, as the script hooks do), or a RequestSpec given as is to
// http::validate_request (the library generator's and the command line's path); then
// http::format_request.
// Input: byte 0 flags (bit 0: a raw spec, else a script's result; bit 1: keep-alive; bits 2-4:
// the script's result sets the method, path, body), then fields separated by 0xff: method,
// target (path), body, host, content type (the last two only for a raw spec), then header
// name, value, name, value...
// Oracle: a refusal has a message (script refusals name request()); an accepted spec formats to
// bytes our strict RequestParser reads as exactly one request, every byte consumed: the same
// method, target and body, the spec's headers in order with their values (without surrounding
// SP/HTAB, which a field value does not include), besides only the generated Host,
// Content-Type, Content-Length and Connection. Nothing can be smuggled: no CR, LF or NUL gets
// into a method, target, name or value. The one refusal allowed is a method that is a token but
// not one llhttp knows (our parser's limit, not the builder's; docs/fuzzing.md).
#include <llhttp.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fuzz_check.h"
#include "http/header.h"
#include "http/request_parser.h"
#include "http/writer.h"
#include "script/script_hooks.h"

namespace {

namespace http = stampede::http;
namespace script = stampede::script;

constexpr char kSeparator = '\xff';

std::vector<std::string> split_fields(std::string_view text) {
  std::vector<std::string> fields;
  while (true) {
    const std::size_t end = text.find(kSeparator);
    fields.emplace_back(text.substr(0, end));
    if (end == std::string_view::npos) return fields;
    text.remove_prefix(end + 1);
  }
}

// The command line's request as the script hooks get it (host among the headers).
http::RequestSpec command_line_request(bool keep_alive) {
  http::RequestSpec base;
  base.headers = {{"host", "127.0.0.1:8080"}, {"accept", "*/*"}, {"user-agent", "stampede/0"}};
  base.keep_alive = keep_alive;
  return base;
}

bool is_known_method(std::string_view method) {
#define STAMPEDE_METHOD_NAME(NUM, NAME, STRING) #STRING,
  static constexpr const char* kMethods[] = {HTTP_METHOD_MAP(STAMPEDE_METHOD_NAME)};
#undef STAMPEDE_METHOD_NAME
  for (const char* name : kMethods) {
    if (method == name) return true;
  }
  return false;
}

bool spec_has(const http::RequestSpec& spec, std::string_view name) {
  for (const auto& h : spec.headers) {
    if (http::iequals(h.first, name)) return true;
  }
  return false;
}

// A header format_request adds of its own: one the spec's headers do not name.
bool is_generated(const http::RequestSpec& spec, std::string_view name) {
  for (std::string_view g : {"host", "content-type", "content-length", "connection"}) {
    if (http::iequals(name, g)) return !spec_has(spec, g);
  }
  return false;
}

// The accepted spec, formatted, read back.
void check_round_trip(const http::RequestSpec& spec) {
  const std::string bytes = http::format_request(spec);
  http::ParserLimits limits;
  limits.max_header_bytes = limits.max_uri_bytes = limits.max_body_bytes = 1 << 20;
  http::RequestParser parser(limits);
  const http::Step head = parser.feed(bytes);
  if (head.event == http::Event::Error && parser.error().name == "HPE_INVALID_METHOD") {
    FUZZ_CHECK(!is_known_method(spec.method), "known method '%s' refused", spec.method.c_str());
    return;
  }
  FUZZ_CHECK(head.event == http::Event::HeadComplete, "no head: event %d, %s (%s)",
             static_cast<int>(head.event), parser.error().name.data(), bytes.c_str());
  FUZZ_CHECK(parser.method() == spec.method, "method '%s' read as '%.*s'", spec.method.c_str(),
             static_cast<int>(parser.method().size()), parser.method().data());
  FUZZ_CHECK(parser.target() == spec.target, "target '%s' read differently", spec.target.c_str());
  FUZZ_CHECK(!parser.chunked(), "chunked");
  std::size_t next = 0;  // the spec's next header
  for (const http::Header& h : parser.headers()) {
    if (next < spec.headers.size() && h.name == spec.headers[next].first) {
      FUZZ_CHECK(h.value == http::trim_ows(spec.headers[next].second), "header '%s': value '%.*s'",
                 spec.headers[next].first.c_str(), static_cast<int>(h.value.size()),
                 h.value.data());
      ++next;
      continue;
    }
    FUZZ_CHECK(is_generated(spec, h.name), "unexpected header '%.*s'",
               static_cast<int>(h.name.size()), h.name.data());
    if (http::iequals(h.name, "content-length")) {
      FUZZ_CHECK(h.value == std::to_string(spec.body.size()), "Content-Length %.*s",
                 static_cast<int>(h.value.size()), h.value.data());
    }
  }
  FUZZ_CHECK(next == spec.headers.size(), "%zu of %zu headers read", next, spec.headers.size());
  const std::size_t body_at = head.consumed;
  const std::uint64_t length = parser.content_length().value_or(0);
  FUZZ_CHECK(length == spec.body.size(), "body of %zu read as %llu", spec.body.size(),
             static_cast<unsigned long long>(length));
  const http::Step end = parser.feed(std::string_view(bytes).substr(body_at));
  FUZZ_CHECK(end.event == http::Event::MessageComplete, "no message end: event %d, %s",
             static_cast<int>(end.event), parser.error().name.data());
  FUZZ_CHECK(body_at + end.consumed == bytes.size(), "%zu bytes after the request",
             bytes.size() - body_at - end.consumed);
  FUZZ_CHECK(std::string_view(bytes).substr(body_at) == spec.body, "body differs");
  FUZZ_CHECK(parser.finish().event == http::Event::NeedMore, "finish");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1 || size > 4096) return 0;
  const std::uint8_t flags = data[0];
  std::vector<std::string> fields =
      split_fields(std::string_view(reinterpret_cast<const char*>(data) + 1, size - 1));
  fields.resize(std::max<std::size_t>(fields.size(), 5));
  const bool raw = (flags & 1) != 0;
  const bool keep_alive = (flags & 2) != 0;
  std::vector<std::pair<std::string, std::string>> headers;
  for (std::size_t i = 5; i + 1 < fields.size(); i += 2)
    headers.emplace_back(std::move(fields[i]), std::move(fields[i + 1]));

  http::RequestSpec spec;
  if (raw) {
    spec.method = std::move(fields[0]);
    spec.target = std::move(fields[1]);
    spec.body = std::move(fields[2]);
    // An HTTP/1.1 request needs a Host, which the front ends always give (their URL's); a spec
    // without one is refused by any strict server, not misread.
    spec.host = fields[3].empty() ? "h" : std::move(fields[3]);
    spec.content_type = std::move(fields[4]);
    spec.headers = std::move(headers);
    spec.keep_alive = keep_alive;
    const stampede::Expected<void> valid = http::validate_request(spec);
    if (!valid) {
      FUZZ_CHECK(!valid.error().message.empty(), "refusal without a message");
      return 0;
    }
  } else {
    script::ScriptRequest request;
    if ((flags & 4) != 0) request.method = std::move(fields[0]);
    if ((flags & 8) != 0) request.path = std::move(fields[1]);
    if ((flags & 16) != 0) request.body = std::move(fields[2]);
    request.headers = std::move(headers);
    spec = command_line_request(keep_alive);
    script::apply_script_request(std::move(request), spec);
    const stampede::Expected<void> valid = script::finish_script_request(spec);
    if (!valid) {
      FUZZ_CHECK(valid.error().message.rfind("request(): ", 0) == 0, "refusal '%s'",
                 valid.error().message.c_str());
      return 0;
    }
  }
  check_round_trip(spec);
  return 0;
}
