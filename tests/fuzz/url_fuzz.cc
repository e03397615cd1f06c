// Fuzz target: http::parse_url, over the text of a command-line URL.
// Oracle: an accepted URL is well formed (lower-case host, port 1..65535, a target starting
// with '/' without fragment, spaces, control or non-ASCII bytes; Host header = host[:port]);
// and formatting it back (scheme://host_header + target) parses to the same Url.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz_check.h"
#include "http/url.h"

namespace {

using stampede::http::Url;

void check_well_formed(const Url& url) {
  FUZZ_CHECK(!url.host.empty(), "empty host");
  for (char c : url.host)
    FUZZ_CHECK(!(c >= 'A' && c <= 'Z'), "host '%s' not lower-case", url.host.c_str());
  FUZZ_CHECK(url.port != 0, "port 0");
  FUZZ_CHECK(!url.target.empty() && url.target.front() == '/', "target '%s'", url.target.c_str());
  for (char c : url.target) {
    const auto u = static_cast<unsigned char>(c);
    FUZZ_CHECK(u > 0x20 && u < 0x7f && c != '#', "byte 0x%02x in target", u);
  }
  const bool v6 = url.host.find(':') != std::string::npos;
  std::string host_header = v6 ? "[" + url.host + "]" : url.host;
  if (url.port != stampede::http::default_port(url.scheme))
    host_header += ":" + std::to_string(url.port);
  FUZZ_CHECK(url.host_header == host_header, "Host header '%s', expected '%s'",
             url.host_header.c_str(), host_header.c_str());
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto url = stampede::http::parse_url(text);
  if (!url) {
    FUZZ_CHECK(!url.error().message.empty(), "an error without a message");
    return 0;
  }
  check_well_formed(*url);
  const std::string formatted = std::string(stampede::http::scheme_name(url->scheme)) + "://" +
                                url->host_header + url->target;
  const auto again = stampede::http::parse_url(formatted);
  FUZZ_CHECK(again.ok(), "'%s' formats to '%s', which is refused", std::string(text).c_str(),
             formatted.c_str());
  FUZZ_CHECK(again->scheme == url->scheme && again->host == url->host && again->port == url->port &&
                 again->target == url->target && again->host_header == url->host_header,
             "'%s' -> '%s' parses differently", std::string(text).c_str(), formatted.c_str());
  return 0;
}
