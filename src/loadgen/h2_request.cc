#include "loadgen/h2_request.h"

#include <algorithm>
#include <array>

#include "loadgen/request.h"

namespace stampede::loadgen {
namespace {

// Connection-specific fields HTTP/2 forbids (RFC 9113 8.2.2); host becomes :authority.
constexpr std::array<std::string_view, 6> kDropped = {
    "connection", "keep-alive", "proxy-connection", "transfer-encoding", "upgrade", "host"};

std::string lower_case(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c + ('a' - 'A') : c);
  });
  return out;
}

nghttp2_nv field(std::string_view name, std::string_view value) {
  // nghttp2 takes non-const pointers but does not write through them.
  return nghttp2_nv{reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
                    reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
                    value.size(), NGHTTP2_NV_FLAG_NONE};
}

}  // namespace

H2Request H2Request::build(const http::RequestSpec& spec, std::string_view scheme,
                           std::string_view index_param) {
  H2Request r;
  r.fields_.emplace_back(":method", spec.method);
  r.fields_.emplace_back(":scheme", std::string(scheme));
  std::string authority = spec.host;
  for (const auto& [name, value] : spec.headers) {
    if (lower_case(name) == "host" && authority.empty()) authority = value;
  }
  r.fields_.emplace_back(":authority", authority);
  for (const auto& [name, value] : spec.headers) {
    std::string lower = lower_case(name);
    if (std::find(kDropped.begin(), kDropped.end(), lower) != kDropped.end()) continue;
    r.fields_.emplace_back(std::move(lower), value);
  }
  r.has_body_ =
      !spec.body.empty() || spec.method == "POST" || spec.method == "PUT" || spec.method == "PATCH";
  if (!spec.content_type.empty()) r.fields_.emplace_back("content-type", spec.content_type);
  r.path_ = IndexedText(spec.target, index_param);
  r.body_ = IndexedText(spec.body, index_param);
  return r;
}

void H2Request::render(std::uint64_t index, H2Rendered& out) const {
  path_.render(index, out.path);
  body_.render(index, out.body);
  out.fields.clear();
  out.fields.push_back(field(fields_[0].first, fields_[0].second));  // :method
  out.fields.push_back(field(fields_[1].first, fields_[1].second));  // :scheme
  out.fields.push_back(field(fields_[2].first, fields_[2].second));  // :authority
  out.fields.push_back(field(":path", out.path));
  for (std::size_t i = 3; i < fields_.size(); ++i) {
    out.fields.push_back(field(fields_[i].first, fields_[i].second));
  }
  if (has_body_) {
    out.length.clear();
    append_decimal(out.length, out.body.size());
    out.fields.push_back(field("content-length", out.length));
  }
}

}  // namespace stampede::loadgen
