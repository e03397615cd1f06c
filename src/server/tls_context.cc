#include "server/tls_context.h"

#include "tls/self_signed.h"

namespace stampede::server {

Expected<tls::ContextPtr> make_tls_context(const ServerOptions& options) {
  if (options.tls_self_signed) {
    auto credentials = tls::make_self_signed();
    if (!credentials) return credentials.error();
    return tls::make_server_context(*credentials);
  }
  if (options.tls_cert_file.empty()) return tls::ContextPtr();
  auto credentials = tls::read_credentials(options.tls_cert_file, options.tls_key_file);
  if (!credentials) return make_error("--tls-cert/--tls-key: " + credentials.error().message);
  auto ctx = tls::make_server_context(*credentials);
  if (!ctx) {
    return make_error("--tls-cert '" + options.tls_cert_file + "', --tls-key '" +
                      options.tls_key_file + "': " + ctx.error().message);
  }
  return ctx;
}

}  // namespace stampede::server
