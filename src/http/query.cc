#include "http/query.h"

#include "http/parse_types.h"

namespace stampede::http {

TargetParts split_target(std::string_view target) {
  const std::size_t q = target.find('?');
  if (q == std::string_view::npos) return {target, {}};
  return {target.substr(0, q), target.substr(q + 1)};
}

void append_percent_decoded(std::string& out, std::string_view text, bool plus_is_space) {
  out.reserve(out.size() + text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '+' && plus_is_space) {
      out.push_back(' ');
      continue;
    }
    if (c == '%' && i + 2 < text.size()) {
      const int hi = hex_value(text[i + 1]);
      const int lo = hex_value(text[i + 2]);
      if (hi >= 0 && lo >= 0) {
        out.push_back(static_cast<char>(hi * 16 + lo));
        i += 2;
        continue;
      }
    }
    out.push_back(c);
  }
}

std::string percent_decode(std::string_view text, bool plus_is_space) {
  std::string out;
  append_percent_decoded(out, text, plus_is_space);
  return out;
}

std::vector<std::pair<std::string_view, std::string>> parse_query(std::string_view query) {
  std::vector<std::pair<std::string_view, std::string>> params;
  for_each_query_param(query, [&](std::string_view key, std::string_view value) {
    params.emplace_back(key, percent_decode(value));
  });
  return params;
}

}  // namespace stampede::http
