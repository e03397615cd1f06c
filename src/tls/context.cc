#include "tls/context.h"

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include <cstddef>
#include <string>

#include "core/input_file.h"

namespace stampede::tls {
namespace {

// ALPN wire format: length-prefixed names.
constexpr unsigned char kAlpnHttp11[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
constexpr unsigned char kAlpnH2[] = {2, 'h', '2'};

// Options both sides share: partial writes (a short write keeps the rest for the next call, as
// with a socket), a peer closing without close_notify reads as end of stream, and read-ahead
// (one read() takes every record the socket holds; see Stream::read).
void common_setup(SSL_CTX* ctx) {
  SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
  SSL_CTX_set_read_ahead(ctx, 1);
}

// The server's ALPN choices in its order of preference: "h2" first when it speaks HTTP/2.
constexpr unsigned char kAlpnH2Http11[] = {2, 'h', '2', 8, 'h', 't', 't', 'p', '/', '1', '.', '1'};

// Picks the first of `ours` that the client offers; none in common: no ALPN in the answer (the
// client decides whether to go on).
int select_first(const unsigned char* ours, unsigned int ours_size, const unsigned char** out,
                 unsigned char* outlen, const unsigned char* in, unsigned int inlen) {
  unsigned char* selected = nullptr;
  const int rc = SSL_select_next_proto(&selected, outlen, ours, ours_size, in, inlen);
  if (rc != OPENSSL_NPN_NEGOTIATED) return SSL_TLSEXT_ERR_NOACK;
  *out = selected;
  return SSL_TLSEXT_ERR_OK;
}

int select_http11(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                  unsigned int inlen, void*) {
  return select_first(kAlpnHttp11, sizeof kAlpnHttp11, out, outlen, in, inlen);
}

int select_h2_then_http11(SSL*, const unsigned char** out, unsigned char* outlen,
                          const unsigned char* in, unsigned int inlen, void*) {
  return select_first(kAlpnH2Http11, sizeof kAlpnH2Http11, out, outlen, in, inlen);
}

// Certificates and keys are a few kilobytes; a larger file is refused rather than read whole.
constexpr std::size_t kMaxPemFileBytes = std::size_t{1} << 20;

Expected<std::string> read_file(const std::string& path, const char* what) {
  return read_input_file(path, kMaxPemFileBytes, std::string(what) + " file");
}

struct BioDeleter {
  void operator()(BIO* bio) const { BIO_free(bio); }
};
using PemBioPtr = std::unique_ptr<BIO, BioDeleter>;

// The leaf certificate, then the rest of the chain.
Expected<void> use_certificate_chain(SSL_CTX* ctx, const std::string& pem) {
  PemBioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  X509* leaf = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr);
  if (leaf == nullptr) return make_error("no certificate in PEM: " + last_error_text());
  const int ok = SSL_CTX_use_certificate(ctx, leaf);
  X509_free(leaf);
  if (ok != 1) return make_error("certificate refused: " + last_error_text());
  while (X509* extra = PEM_read_bio_X509(bio.get(), nullptr, nullptr, nullptr)) {
    if (SSL_CTX_add_extra_chain_cert(ctx, extra) != 1) {
      X509_free(extra);
      return make_error("chain certificate refused: " + last_error_text());
    }
  }
  ERR_clear_error();  // the end of the PEM stream is reported as an error
  return {};
}

Expected<void> use_private_key(SSL_CTX* ctx, const std::string& pem) {
  PemBioPtr bio(BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  EVP_PKEY* key = PEM_read_bio_PrivateKey(bio.get(), nullptr, nullptr, nullptr);
  if (key == nullptr) return make_error("no private key in PEM: " + last_error_text());
  X509* cert = SSL_CTX_get0_certificate(ctx);
  if (cert != nullptr && X509_check_private_key(cert, key) != 1) {
    EVP_PKEY_free(key);
    ERR_clear_error();
    return make_error("the private key does not match the certificate");
  }
  const int ok = SSL_CTX_use_PrivateKey(ctx, key);
  EVP_PKEY_free(key);
  if (ok != 1) return make_error("private key refused: " + last_error_text());
  return {};
}

Expected<void> set_versions(SSL_CTX* ctx, const std::string& secure_protocol) {
  auto range = parse_secure_protocol(secure_protocol);
  if (!range) return range.error();
  if (range->min != 0 && SSL_CTX_set_min_proto_version(ctx, range->min) != 1) {
    return make_error("protocol '" + secure_protocol + "' is not available");
  }
  if (range->max != 0 && SSL_CTX_set_max_proto_version(ctx, range->max) != 1) {
    return make_error("protocol '" + secure_protocol + "' is not available");
  }
  return {};
}

Expected<void> set_client_identity(SSL_CTX* ctx, const ClientOptions& options) {
  if (options.cert_file.empty() != options.key_file.empty()) {
    return make_error("--cert and --key go together");
  }
  if (options.cert_file.empty()) return {};
  auto credentials = read_credentials(options.cert_file, options.key_file);
  if (!credentials) return credentials.error();
  if (auto r = use_certificate_chain(ctx, credentials->cert_pem); !r) {
    return make_error("--cert '" + options.cert_file + "': " + r.error().message);
  }
  if (auto r = use_private_key(ctx, credentials->key_pem); !r) {
    return make_error("--key '" + options.key_file + "': " + r.error().message);
  }
  return {};
}

}  // namespace

Expected<VersionRange> parse_secure_protocol(std::string_view name) {
  std::string_view base = name;
  for (std::string_view suffix : {"_client_method", "_server_method", "_method"}) {
    if (base.size() > suffix.size() && base.substr(base.size() - suffix.size()) == suffix) {
      base.remove_suffix(suffix.size());
      break;
    }
  }
  if (name.empty() || base == "TLS" || base == "SSLv23") return VersionRange{};
  if (base == "TLSv1") return VersionRange{TLS1_VERSION, TLS1_VERSION};
  if (base == "TLSv1_1") return VersionRange{TLS1_1_VERSION, TLS1_1_VERSION};
  if (base == "TLSv1_2") return VersionRange{TLS1_2_VERSION, TLS1_2_VERSION};
  if (base == "TLSv1_3") return VersionRange{TLS1_3_VERSION, TLS1_3_VERSION};
  return make_error("unknown secure protocol '" + std::string(name) +
                    "' (use TLS_method, TLSv1_2_method, TLSv1_3_method...)");
}

Expected<ContextPtr> make_client_context(const ClientOptions& options) {
  ContextPtr ctx(SSL_CTX_new(TLS_client_method()));
  if (!ctx) return make_error("cannot create a TLS context: " + last_error_text());
  common_setup(ctx.get());
  if (auto r = set_versions(ctx.get(), options.secure_protocol); !r) return r.error();
  if (options.insecure) {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_NONE, nullptr);
  } else {
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
    const int ok = options.ca_file.empty()
                       ? SSL_CTX_set_default_verify_paths(ctx.get())
                       : SSL_CTX_load_verify_locations(ctx.get(), options.ca_file.c_str(), nullptr);
    if (ok != 1) return make_error("cannot load trusted certificates: " + last_error_text());
  }
  if (auto r = set_client_identity(ctx.get(), options); !r) return r.error();
  // Returns 0 on success, unlike the rest of the API.
  const int alpn = options.h2 ? SSL_CTX_set_alpn_protos(ctx.get(), kAlpnH2, sizeof kAlpnH2)
                              : SSL_CTX_set_alpn_protos(ctx.get(), kAlpnHttp11, sizeof kAlpnHttp11);
  if (alpn != 0) {
    return make_error("cannot set ALPN");
  }
  // Sessions are kept per connection by the caller (Stream::take_session), not in a cache.
  SSL_CTX_set_session_cache_mode(ctx.get(), SSL_SESS_CACHE_OFF);
  return ctx;
}

Expected<Credentials> read_credentials(const std::string& cert_file, const std::string& key_file) {
  auto cert = read_file(cert_file, "certificate");
  if (!cert) return cert.error();
  auto key = read_file(key_file, "key");
  if (!key) return key.error();
  return Credentials{std::move(cert).value(), std::move(key).value()};
}

Expected<ContextPtr> make_server_context(const Credentials& credentials, ServerAlpn alpn) {
  ContextPtr ctx(SSL_CTX_new(TLS_server_method()));
  if (!ctx) return make_error("cannot create a TLS context: " + last_error_text());
  common_setup(ctx.get());
  SSL_CTX_set_min_proto_version(ctx.get(), TLS1_2_VERSION);
  if (auto r = use_certificate_chain(ctx.get(), credentials.cert_pem); !r) return r.error();
  if (auto r = use_private_key(ctx.get(), credentials.key_pem); !r) return r.error();
  SSL_CTX_set_alpn_select_cb(
      ctx.get(), alpn == ServerAlpn::H2AndHttp11 ? select_h2_then_http11 : select_http11, nullptr);
  // TLS 1.3 sends two tickets by default; a client resumes with one, and each costs the server.
  SSL_CTX_set_num_tickets(ctx.get(), 1);
  return ctx;
}

std::string last_error_text() {
  const unsigned long code = ERR_get_error();
  ERR_clear_error();
  if (code == 0) return "unknown error";
  char text[256];
  ERR_error_string_n(code, text, sizeof text);
  return text;
}

}  // namespace stampede::tls
