// Failure codes of TLS connections, in the errno space the generator counts failures in: values
// above every errno Linux uses, each with a stable name for the reports.
#pragma once

#include <optional>
#include <string_view>

#include "net/connector.h"

namespace stampede::tls {

// The server's certificate did not verify (unknown issuer, expired, wrong host name...).
inline constexpr int kCertVerifyFailed = 240;
// The handshake failed for another reason (alert, not TLS at all, no shared cipher...).
inline constexpr int kHandshakeFailed = 241;
// No protocol version both sides accept (-s/--secure-protocol, the server's minimum).
inline constexpr int kProtocolVersion = 242;
// A TLS error after the handshake (bad record, decryption failure...).
inline constexpr int kProtocolError = 243;
// The proxy refused the CONNECT tunnel (or answered something else than 2xx): net::Connector's.
inline constexpr int kProxyConnectFailed = net::kProxyConnectFailed;

// "CERT_VERIFY_FAILED", "TLS_HANDSHAKE_FAILED", "TLS_PROTOCOL_VERSION", "TLS_PROTOCOL_ERROR",
// "PROXY_CONNECT_FAILED"; nullopt for any other value.
std::optional<std::string_view> error_name(int code);

}  // namespace stampede::tls
