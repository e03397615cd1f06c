// Checks for text that a command-line option or configuration puts into an HTTP message the
// program sends (a request line, a header name or value, a Host), so that no option can carry
// a CR, LF or other byte that would end a line early and inject a second header or request.
// Each returns nothing on success, or an Error whose message says what is wrong without quoting
// the offending text (it may hold control bytes): the caller prefixes the option's name, e.g.
// "--health-path: " + message. Pure functions; any thread.
#pragma once

#include <string_view>

#include "core/expected.h"
#include "http/header.h"

namespace stampede::http {

// is_token (RFC 9110 5.6.2, one or more tchar) is in http/header.h, shared with the parsers.

// An origin-form request target: starts with '/', then only visible ASCII (0x21..0x7e): no
// space, control byte (CR, LF, NUL, DEL...) or non-ASCII byte (percent-encode those).
Expected<void> check_request_target(std::string_view text);

// A header field name: a token (RFC 9110 5.1).
Expected<void> check_header_name(std::string_view text);

// A header field value: visible ASCII, with single spaces or tabs between visible characters
// (no leading or trailing white space, no control byte, no non-ASCII byte). May be empty.
Expected<void> check_header_value(std::string_view text);

// RFC 9110 7.2: a Host field value, uri-host [":" port]: an IP literal in brackets or a reg-name
// (RFC 3986; an IPv4 address is one), then an optional port of digits; empty is allowed (RFC
// 9112 3.2). No userinfo, path, space, list or non-ASCII byte. The one rule for the Host that
// RequestParser accepts (400 otherwise) and validate_request lets a request be sent with.
bool is_host_field_value(std::string_view text);

// A host as it goes into a Host header or a URL: a DNS name or IPv4 literal (letters, digits,
// '-', '.', '_'), or an IPv6 literal in brackets ("[::1]"), at most 255 bytes, not empty.
Expected<void> check_host(std::string_view text);

}  // namespace stampede::http
