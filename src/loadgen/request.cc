#include "loadgen/request.h"

#include "http/header.h"

#ifndef STAMPEDE_VERSION
#define STAMPEDE_VERSION "0.0.0"
#endif

namespace stampede::loadgen {
namespace {

bool has_header(const Config& config, std::string_view name) {
  for (const auto& [n, v] : config.headers) {
    if (http::iequals(n, name)) return true;
  }
  return false;
}

}  // namespace

std::string version() {
  return STAMPEDE_VERSION;
}

std::string user_agent() {
  return "stampede/" + version();
}

std::string upper_case(std::string_view text) {
  std::string out(text);
  for (char& c : out) {
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - ('a' - 'A'));
  }
  return out;
}

bool is_field_value(std::string_view text) {
  return text.find_first_of(std::string_view("\r\n\0", 3)) == std::string_view::npos;
}

http::RequestSpec make_request_spec(const Config& config, const http::Url& url) {
  http::RequestSpec spec;
  spec.method = config.method;
  spec.target = url.target;
  spec.keep_alive = config.keep_alive;
  if (!has_header(config, "host")) spec.headers.emplace_back("host", url.host_header);
  if (!has_header(config, "accept")) spec.headers.emplace_back("accept", "*/*");
  if (!has_header(config, "user-agent")) spec.headers.emplace_back("user-agent", user_agent());
  for (const auto& h : config.headers)
    spec.headers.push_back(h);
  if (!config.cookies.empty()) {
    std::string cookie;
    for (const auto& c : config.cookies) {
      if (!cookie.empty()) cookie += "; ";
      cookie += c;
    }
    spec.headers.emplace_back("cookie", std::move(cookie));
  }
  if (config.body) {
    spec.body = *config.body;
    spec.content_type = config.content_type.empty() ? "text/plain" : config.content_type;
  }
  return spec;
}

RequestTemplate RequestTemplate::build(const http::RequestSpec& spec,
                                       std::string_view index_param) {
  RequestTemplate t;
  t.formatted_ = http::format_request(spec);
  const std::string_view bytes = t.formatted_;
  if (index_param.empty()) return t;
  const std::size_t target_begin = spec.method.size() + 1;
  const std::size_t target_end = target_begin + spec.target.size();
  const std::size_t body_begin = bytes.size() - spec.body.size();
  constexpr std::string_view kLength = "\r\nContent-Length: ";
  std::size_t length_at = bytes.substr(0, body_begin).find(kLength);
  std::size_t length_end = std::string_view::npos;
  if (length_at != std::string_view::npos) {
    length_at += kLength.size();
    length_end = bytes.find("\r\n", length_at);
  }
  auto range = [&](std::size_t from, std::size_t to) { return bytes.substr(from, to - from); };
  t.head_.add_literal(range(0, target_begin));
  t.head_.add_indexed(range(target_begin, target_end), index_param);
  t.has_length_ = length_at != std::string_view::npos;
  if (t.has_length_) {
    t.head_.add_literal(range(target_end, length_at));
    t.rest_.add_literal(range(length_end, body_begin));
    t.rest_.add_indexed(range(body_begin, bytes.size()), index_param);
  } else {
    t.head_.add_literal(range(target_end, body_begin));
    t.head_.add_indexed(range(body_begin, bytes.size()), index_param);
  }
  t.indexed_ = t.head_.indexed() || t.rest_.indexed();
  if (!t.indexed_) {
    // The parameter occurs nowhere: the request is fixed.
    t.head_ = t.rest_ = IndexedText();
    t.has_length_ = false;
    return t;
  }
  t.body_fixed_bytes_ = spec.body.size() - t.rest_.slots() * index_param.size();
  return t;
}

void RequestTemplate::render(std::uint64_t index, std::string& out) const {
  out.clear();
  head_.append(index, out);
  if (!has_length_) return;
  append_decimal(out, body_fixed_bytes_ + rest_.slots() * decimal_digits(index));
  rest_.append(index, out);
}

}  // namespace stampede::loadgen
