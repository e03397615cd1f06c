#include "loadgen/request.h"

#include <charconv>

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

void append_number(std::string& out, std::uint64_t n) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof digits, n);
  out.append(digits, r.ptr);
}

std::size_t digit_count(std::uint64_t n) {
  std::size_t d = 1;
  while (n >= 10) {
    n /= 10;
    ++d;
  }
  return d;
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

bool is_token(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    const bool alnum = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    if (!alnum && std::string_view("!#$%&'*+-.^_`|~").find(c) == std::string_view::npos) {
      return false;
    }
  }
  return true;
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

void RequestTemplate::add_literal(std::size_t from, std::size_t to) {
  if (to > from) pieces_.push_back({PieceKind::Literal, from, to - from});
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
  std::size_t done = 0;
  std::size_t occurrences = 0;
  // Occurrences in [from, to), in order; `in_body` ones count towards Content-Length.
  auto scan = [&](std::size_t from, std::size_t to, bool in_body) {
    for (std::size_t at = bytes.find(index_param, from);
         at != std::string_view::npos && at + index_param.size() <= to;
         at = bytes.find(index_param, at + index_param.size())) {
      t.add_literal(done, at);
      t.pieces_.push_back({PieceKind::Index});
      done = at + index_param.size();
      ++occurrences;
      if (in_body) ++t.body_index_count_;
    }
  };
  scan(target_begin, target_end, false);
  if (length_at != std::string_view::npos) {
    t.add_literal(done, length_at);
    t.pieces_.push_back({PieceKind::ContentLength});
    done = length_end;
  }
  scan(body_begin, bytes.size(), true);
  if (occurrences == 0) {
    t.pieces_.clear();  // the parameter occurs nowhere: the request is fixed
    return t;
  }
  t.add_literal(done, bytes.size());
  t.body_fixed_bytes_ = spec.body.size() - t.body_index_count_ * index_param.size();
  return t;
}

void RequestTemplate::render(std::uint64_t index, std::string& out) const {
  out.clear();
  for (const Piece& p : pieces_) {
    switch (p.kind) {
      case PieceKind::Literal:
        out.append(formatted_, p.offset, p.length);
        break;
      case PieceKind::Index:
        append_number(out, index);
        break;
      case PieceKind::ContentLength:
        append_number(out, body_fixed_bytes_ + body_index_count_ * digit_count(index));
        break;
    }
  }
}

}  // namespace stampede::loadgen
