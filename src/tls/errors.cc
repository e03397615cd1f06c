#include "tls/errors.h"

namespace stampede::tls {

std::optional<std::string_view> error_name(int code) {
  switch (code) {
    case kCertVerifyFailed:
      return "CERT_VERIFY_FAILED";
    case kHandshakeFailed:
      return "TLS_HANDSHAKE_FAILED";
    case kProtocolVersion:
      return "TLS_PROTOCOL_VERSION";
    case kProtocolError:
      return "TLS_PROTOCOL_ERROR";
    case kProxyConnectFailed:
      return "PROXY_CONNECT_FAILED";
    default:
      return std::nullopt;
  }
}

}  // namespace stampede::tls
