#include "balancer/h2_heads.h"

#include "balancer/head_rewrite.h"

namespace stampede::balancer {

void H2RequestFields::add(std::string_view name, std::string_view value) {
  if (name == ":method") {
    method_.assign(value);
  } else if (name == ":path") {
    path_.assign(value);
  } else if (name == ":authority") {
    authority_.assign(value);
  } else if (!name.empty() && name.front() != ':') {
    const auto at = static_cast<std::uint32_t>(store_.size());
    store_.append(name).append(value);
    fields_.push_back({at, static_cast<std::uint32_t>(name.size()),
                       at + static_cast<std::uint32_t>(name.size()),
                       static_cast<std::uint32_t>(value.size())});
  }
}

void H2RequestFields::clear() {
  store_.clear();
  fields_.clear();
  method_.clear();
  path_.clear();
  authority_.clear();
}

bool H2RequestFields::has(std::string_view name) const {
  for (const Field& f : fields_) {
    if (name_of(f) == name) return true;
  }
  return false;
}

std::string_view H2RequestFields::value(std::string_view name) const {
  for (const Field& f : fields_) {
    if (name_of(f) == name) return value_of(f);
  }
  return {};
}

void H2RequestFields::append_head(Buffer& out, std::string_view client_ip, std::string_view proto,
                                  bool chunked) const {
  std::vector<http::Header> headers;
  headers.reserve(fields_.size() + 3);
  if (!has("host")) headers.push_back({"Host", authority_});
  std::string cookies;
  for (const Field& f : fields_) {
    if (name_of(f) == "cookie") {
      if (!cookies.empty()) cookies.append("; ");
      cookies.append(value_of(f));
      continue;
    }
    headers.push_back({name_of(f), value_of(f)});
  }
  if (!cookies.empty()) headers.push_back({"cookie", cookies});
  if (chunked) headers.push_back({"Transfer-Encoding", "chunked"});
  append_request_head(out, RequestHeadInput{method_, path_, headers, client_ip, proto});
}

bool translate_response_head(std::string_view raw, std::string_view backend_name,
                             H2ResponseHead& out) {
  out.fields.clear();
  out.names.clear();
  // Lower-cased names are no longer than the head: views into `names` stay valid as it fills.
  out.names.reserve(raw.size());
  const FinalHead head = final_response_head(raw);
  out.status = head.status;
  if (out.status < 200) return false;  // malformed, or a 101 that HTTP/2 cannot carry
  const http::ConnectionTokens& tokens = head.tokens;
  std::string_view rest = head.fields;
  while (!rest.empty()) {
    const std::string_view line = next_head_line(rest);
    if (line.empty()) break;
    const std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return false;
    const std::string_view name = line.substr(0, colon);
    if (is_hop_by_hop(name) || tokens.contains(name) || http::iequals(name, "transfer-encoding") ||
        http::iequals(name, "x-backend")) {
      continue;
    }
    const std::size_t at = out.names.size();
    for (const char c : name)
      out.names.push_back(http::ascii_lower(c));
    out.fields.push_back(
        {{out.names.data() + at, name.size()}, http::trim_ows(line.substr(colon + 1))});
  }
  out.fields.push_back({"x-backend", backend_name});
  return true;
}

}  // namespace stampede::balancer
