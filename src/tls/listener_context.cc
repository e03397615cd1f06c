#include "tls/listener_context.h"

namespace stampede::tls {

Expected<ContextPtr> load_server_context(const std::string& cert_file, const std::string& key_file,
                                         ServerAlpn alpn) {
  auto credentials = read_credentials(cert_file, key_file);
  if (!credentials) return make_error("--tls-cert/--tls-key: " + credentials.error().message);
  auto ctx = make_server_context(*credentials, alpn);
  if (!ctx) {
    return make_error("--tls-cert '" + cert_file + "', --tls-key '" + key_file +
                      "': " + ctx.error().message);
  }
  return ctx;
}

}  // namespace stampede::tls
