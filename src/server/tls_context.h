// The test server's TLS context, built once at start-up from its options (--tls-cert/--tls-key or
// --tls-self-signed). Each accepted socket then becomes a tls::Stream under it (worker.cc).
#pragma once

#include "core/expected.h"
#include "server/server.h"
#include "tls/context.h"

namespace stampede::server {

// The server's TLS context: from tls_cert_file/tls_key_file, or a fresh self-signed
// certificate; a null context when the options ask for no TLS. Errors name the bad file.
Expected<tls::ContextPtr> make_tls_context(const ServerOptions& options);

}  // namespace stampede::server
