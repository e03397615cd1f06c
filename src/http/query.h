// Request-target helpers: path/query split, percent-decoding, query-string parameters.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace stampede::http {

struct TargetParts {
  std::string_view path;   // before '?'
  std::string_view query;  // after '?', without it; empty when there is none
};
TargetParts split_target(std::string_view target);

// Appends `text` to `out` with %XX escapes decoded and, when `plus_is_space` (query strings,
// application/x-www-form-urlencoded), '+' turned into a space. A malformed escape ("%zz",
// a trailing "%4") is kept literally, as most servers do.
void append_percent_decoded(std::string& out, std::string_view text, bool plus_is_space = true);
std::string percent_decode(std::string_view text, bool plus_is_space = true);

// Calls fn(key, raw_value) for each '&'-separated parameter of `query` (a leading '?' is
// skipped), in order, without allocating. Empty parameters ("a=1&&b") are skipped; a parameter
// without '=' has an empty value. Both views point into `query` and are not decoded.
template <class Fn>
void for_each_query_param(std::string_view query, Fn&& fn) {
  if (!query.empty() && query.front() == '?') query.remove_prefix(1);
  while (!query.empty()) {
    const std::size_t amp = query.find('&');
    const std::string_view param = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view() : query.substr(amp + 1);
    if (param.empty()) continue;
    const std::size_t eq = param.find('=');
    if (eq == std::string_view::npos) {
      fn(param, std::string_view());
    } else {
      fn(param.substr(0, eq), param.substr(eq + 1));
    }
  }
}

// The parameters of `query` as (key, value) pairs in order: keys as sent (views into `query`),
// values percent-decoded ('+' is a space).
std::vector<std::pair<std::string_view, std::string>> parse_query(std::string_view query);

}  // namespace stampede::http
