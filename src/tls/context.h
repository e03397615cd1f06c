// TLS contexts (OpenSSL SSL_CTX): one per run or server, built at start-up, then shared
// read-only by the worker threads (OpenSSL makes SSL_CTX use from several threads safe).
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/expected.h"

namespace stampede::tls {

// Minimum and maximum protocol versions (TLS1_2_VERSION...; 0: OpenSSL's default bound).
struct VersionRange {
  int min = 0;
  int max = 0;
};

// loadtest's (Node's) -s/--secure-protocol names: "TLS_method" and "SSLv23_method" (any
// version), "TLSv1_method", "TLSv1_1_method", "TLSv1_2_method", "TLSv1_3_method" (that version
// only); each also with "_client_method" or "_server_method" in place of "_method". An empty
// name is the default (any version). Errors name the value.
Expected<VersionRange> parse_secure_protocol(std::string_view name);

struct ContextDeleter {
  void operator()(SSL_CTX* ctx) const { SSL_CTX_free(ctx); }
};
using ContextPtr = std::unique_ptr<SSL_CTX, ContextDeleter>;

struct ClientOptions {
  bool insecure = false;        // accept any certificate (self-signed, expired, other host)
  std::string cert_file;        // client certificate (PEM), with key_file
  std::string key_file;         // its private key (PEM)
  std::string ca_file;          // trust these (PEM) instead of the system store; for tests
  std::string secure_protocol;  // see parse_secure_protocol
  bool h2 = false;              // offer ALPN "h2" only (--http2), instead of "http/1.1"
};

// A client context: verification against the system store (or ca_file) unless insecure (the
// host name is checked per connection, see Stream), ALPN "http/1.1" ("h2" with options.h2), a
// client session cache so reconnects can resume. Errors: unreadable or mismatched cert/key, bad
// protocol name.
Expected<ContextPtr> make_client_context(const ClientOptions& options);

// A certificate chain and its key, PEM text.
struct Credentials {
  std::string cert_pem;
  std::string key_pem;
};

// Reads a certificate chain file and a key file (PEM). Errors name the file.
Expected<Credentials> read_credentials(const std::string& cert_file, const std::string& key_file);

// The protocols a server context selects by ALPN, in its order of preference.
enum class ServerAlpn { Http11, H2AndHttp11 };

// A server context for `credentials`: TLS 1.2 and 1.3, ALPN "http/1.1" when the client offers
// it (with H2AndHttp11, "h2" first when the client offers it: `stampede serve`, which detects
// the HTTP/2 preface on every connection), session tickets for resumption. Errors: unparsable
// PEM, key not matching the certificate.
Expected<ContextPtr> make_server_context(const Credentials& credentials,
                                         ServerAlpn alpn = ServerAlpn::Http11);

// The first OpenSSL error of this thread as text, and the queue cleared.
std::string last_error_text();

}  // namespace stampede::tls
