#include "http/writer.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "core/error_line.h"
#include "http/tokens.h"

namespace stampede::http {
namespace {

// RFC 9110 5.5: a field value holds no control character but HTAB (llhttp refuses the others).
bool has_control(std::string_view value) {
  for (char c : value) {
    const auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\t') || u == 0x7f) return true;
  }
  return false;
}

// A byte of an absolute URL's authority: RFC 3986's unreserved, sub-delims, ':', '@', '[', ']'
// and '%' (exactly the set llhttp takes there).
bool is_authority_char(char c) {
  const bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
  return alnum || std::string_view("-._~!$&'()*+,;=:@[]%").find(c) != std::string_view::npos;
}

// RFC 9112 3.2: origin-form "/p?q", absolute-form "scheme://authority[/p][?q]", asterisk-form
// "*"; a CONNECT's authority-form "host:port" (authority characters only). Parsers refuse anything
// else. The absolute form is held to what llhttp (our servers' parser) takes, which is
// narrower than RFC 3986: a scheme of letters only, a non-empty authority with at most one '@'
// and no '#' (found by the request_builder fuzz target: "e2p://h", "http://h#").
bool is_request_target_form(const RequestSpec& spec) {
  const std::string_view t = spec.target;
  if (t.front() == '/' || t == "*") return true;
  if (spec.method == "CONNECT") {
    // Authority-form "host:port": authority characters only ("K1>." and "\\/" found by the
    // request_builder fuzz target).
    return std::count(t.begin(), t.end(), '@') <= 1 &&
           std::all_of(t.begin(), t.end(), [](char c) { return is_authority_char(c); });
  }
  const std::size_t colon = t.find("://");
  if (colon == 0 || colon == std::string_view::npos) return false;
  for (std::size_t i = 0; i < colon; ++i) {
    const char c = t[i];
    if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return false;
  }
  const std::size_t start = colon + 3;
  std::size_t end = start;
  int ats = 0;
  for (; end < t.size() && t[end] != '/' && t[end] != '?'; ++end) {
    if (!is_authority_char(t[end])) return false;
    ats += t[end] == '@' ? 1 : 0;
  }
  return end > start && ats <= 1;
}

bool has_any(const RequestSpec& spec, std::string_view name) {
  for (const auto& [n, v] : spec.headers) {
    if (iequals(n, name)) return true;
  }
  return false;
}

void append_header(std::string& out, std::string_view name, std::string_view value) {
  out.append(name);
  out.append(": ");
  out.append(value);
  out.append("\r\n");
}

void append_uint(std::string& out, std::uint64_t n) {
  char digits[24];
  const auto r = std::to_chars(digits, digits + sizeof(digits), n);
  out.append(digits, r.ptr);
}

constexpr std::pair<int, std::string_view> kReasonList[] = {
    {100, "Continue"},
    {101, "Switching Protocols"},
    {102, "Processing"},
    {103, "Early Hints"},
    {200, "OK"},
    {201, "Created"},
    {202, "Accepted"},
    {203, "Non-Authoritative Information"},
    {204, "No Content"},
    {205, "Reset Content"},
    {206, "Partial Content"},
    {207, "Multi-Status"},
    {208, "Already Reported"},
    {226, "IM Used"},
    {300, "Multiple Choices"},
    {301, "Moved Permanently"},
    {302, "Found"},
    {303, "See Other"},
    {304, "Not Modified"},
    {305, "Use Proxy"},
    {307, "Temporary Redirect"},
    {308, "Permanent Redirect"},
    {400, "Bad Request"},
    {401, "Unauthorized"},
    {402, "Payment Required"},
    {403, "Forbidden"},
    {404, "Not Found"},
    {405, "Method Not Allowed"},
    {406, "Not Acceptable"},
    {407, "Proxy Authentication Required"},
    {408, "Request Timeout"},
    {409, "Conflict"},
    {410, "Gone"},
    {411, "Length Required"},
    {412, "Precondition Failed"},
    {413, "Content Too Large"},
    {414, "URI Too Long"},
    {415, "Unsupported Media Type"},
    {416, "Range Not Satisfiable"},
    {417, "Expectation Failed"},
    {418, "I'm a teapot"},
    {421, "Misdirected Request"},
    {422, "Unprocessable Content"},
    {423, "Locked"},
    {424, "Failed Dependency"},
    {425, "Too Early"},
    {426, "Upgrade Required"},
    {428, "Precondition Required"},
    {429, "Too Many Requests"},
    {431, "Request Header Fields Too Large"},
    {451, "Unavailable For Legal Reasons"},
    {500, "Internal Server Error"},
    {501, "Not Implemented"},
    {502, "Bad Gateway"},
    {503, "Service Unavailable"},
    {504, "Gateway Timeout"},
    {505, "HTTP Version Not Supported"},
    {506, "Variant Also Negotiates"},
    {507, "Insufficient Storage"},
    {508, "Loop Detected"},
    {510, "Not Extended"},
    {511, "Network Authentication Required"},
};

// Reason phrases indexed by status - 100, built at compile time: one load per response.
constexpr std::array<std::string_view, 500> make_reason_table() {
  std::array<std::string_view, 500> t{};
  for (const auto& [code, reason] : kReasonList)
    t[static_cast<std::size_t>(code - 100)] = reason;
  return t;
}
constexpr std::array<std::string_view, 500> kReasons = make_reason_table();

}  // namespace

Expected<void> validate_request(const RequestSpec& spec) {
  if (!is_token(spec.method)) {
    return make_error(fmt::format("invalid method '{}'", printable(spec.method)));
  }
  if (spec.target.empty()) return make_error("empty request target");
  // Visible ASCII only, as RequestParser requires (RFC 9112 3.2): a tab or a byte over 0x7e is
  // refused there, so it is refused here rather than sent.
  for (char c : spec.target) {
    const auto u = static_cast<unsigned char>(c);
    if (u < 0x21 || u > 0x7e) {
      return make_error(
          fmt::format("request target '{}' contains a space, control character or non-ASCII "
                      "byte (percent-encode it)",
                      printable(spec.target)));
    }
  }
  if (!is_request_target_form(spec)) {
    return make_error(
        fmt::format("request target '{}' is neither a path (/p), an absolute URL "
                    "(http://host/p) nor *",
                    printable(spec.target)));
  }
  bool has_host = false;
  for (const auto& [name, value] : spec.headers) {
    if (!is_token(name)) {
      return make_error(fmt::format("invalid header name '{}'", printable(name)));
    }
    if (value.find_first_of(std::string_view("\r\n\0", 3)) != std::string::npos) {
      return make_error(fmt::format("header '{}' has CR, LF or NUL in its value", printable(name)));
    }
    if (has_control(value)) {
      return make_error(
          fmt::format("header '{}' has a control character in its value", printable(name)));
    }
    if (is_framing_header(name)) {
      return make_error(fmt::format(
          "header '{}' cannot be set: the body is framed by the Content-Length computed from it",
          name));
    }
    if (iequals(name, "host")) {
      if (has_host) return make_error("more than one Host header");
      if (!is_host_field_value(value)) {
        return make_error(fmt::format("Host '{}' is not host[:port]", printable(value)));
      }
      has_host = true;
    }
  }
  for (std::string_view v : {std::string_view(spec.host), std::string_view(spec.content_type)}) {
    if (v.find_first_of(std::string_view("\r\n\0", 3)) != std::string_view::npos) {
      return make_error("Host or Content-Type has CR, LF or NUL in its value");
    }
    if (has_control(v)) return make_error("Host or Content-Type has a control character");
  }
  if (!is_host_field_value(spec.host)) {
    return make_error(fmt::format("Host '{}' is not host[:port]", printable(spec.host)));
  }
  // RFC 9112 3.2: every HTTP/1.1 request carries a Host (empty when the target has no
  // authority); a server answers one without it with 400, as RequestParser does.
  if (!has_host && spec.host.empty()) {
    return make_error("no Host header (HTTP/1.1 requires one: RFC 9112 3.2)");
  }
  // RFC 9110 9.3.6: a CONNECT request has no content; parsers read what follows its head as the
  // tunnel's bytes, or as the next request.
  if (spec.method == "CONNECT" && !spec.body.empty()) {
    return make_error("a CONNECT request cannot have a body");
  }
  return {};
}

bool is_framing_header(std::string_view name) {
  return iequals(name, "content-length") || iequals(name, "transfer-encoding");
}

std::string format_request(const RequestSpec& spec) {
  std::string out;
  out.reserve(64 + spec.target.size() + spec.host.size() + spec.body.size());
  out.append(spec.method).append(" ").append(spec.target).append(" HTTP/1.1\r\n");
  if (!spec.host.empty() && !has_any(spec, "host")) append_header(out, "Host", spec.host);
  for (const auto& [name, value] : spec.headers)
    append_header(out, name, value);
  if (!spec.content_type.empty() && !has_any(spec, "content-type")) {
    append_header(out, "Content-Type", spec.content_type);
  }
  const bool body_method = spec.method == "POST" || spec.method == "PUT" || spec.method == "PATCH";
  if ((!spec.body.empty() || body_method) && !has_any(spec, "content-length") &&
      !has_any(spec, "transfer-encoding")) {
    out.append("Content-Length: ");
    append_uint(out, spec.body.size());
    out.append("\r\n");
  }
  if (!has_any(spec, "connection")) {
    append_header(out, "Connection", spec.keep_alive ? "keep-alive" : "close");
  }
  out.append("\r\n");
  out.append(spec.body);
  return out;
}

std::string_view reason_phrase(int status) {
  if (status < 100 || status >= 600) return {};
  return kReasons[static_cast<std::size_t>(status - 100)];
}

void append_response_head(std::string& out, int status, std::span<const Header> extra,
                          std::uint64_t content_length, Persistence persistence) {
  // Sized once and filled with memcpy: this runs for every response the server sends.
  const std::string_view reason = reason_phrase(status);
  const bool bodiless = status / 100 == 1 || status == 204;
  char digits[24];
  std::size_t digits_len = 0;
  if (content_length != kNoContentLength && !bodiless) {
    digits_len = static_cast<std::size_t>(
        std::to_chars(digits, digits + sizeof(digits), content_length).ptr - digits);
  }
  constexpr std::string_view kLength = "Content-Length: ";
  std::string_view connection = "\r\n";
  if (persistence == Persistence::Close) connection = "Connection: close\r\n\r\n";
  if (persistence == Persistence::KeepAlive) connection = "Connection: keep-alive\r\n\r\n";
  std::size_t size = 13 + reason.size() + 2 + connection.size();
  for (const Header& h : extra)
    size += h.name.size() + h.value.size() + 4;
  if (digits_len > 0) size += kLength.size() + digits_len + 2;

  const std::size_t old_size = out.size();
  out.resize(old_size + size);
  char* w = out.data() + old_size;
  const auto put = [&w](std::string_view s) {
    if (s.empty()) return;  // an empty view may have a null data(): not for memcpy
    std::memcpy(w, s.data(), s.size());
    w += s.size();
  };
  put("HTTP/1.1 ");
  *w++ = static_cast<char>('0' + status / 100 % 10);
  *w++ = static_cast<char>('0' + status / 10 % 10);
  *w++ = static_cast<char>('0' + status % 10);
  *w++ = ' ';
  put(reason);
  put("\r\n");
  for (const Header& h : extra) {
    put(h.name);
    put(": ");
    put(h.value);
    put("\r\n");
  }
  if (digits_len > 0) {
    put(kLength);
    put(std::string_view(digits, digits_len));
    put("\r\n");
  }
  put(connection);
}

}  // namespace stampede::http
