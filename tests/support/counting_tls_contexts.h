// Counts the TLS contexts (SSL_CTX) the test binary that includes this header makes: the "one
// TLS context per run" tests of the generator, the server and the balancer. Include it from
// exactly one file per test binary: the definition below is the binary's SSL_CTX_new, which
// comes first in the symbol search (so the tls library's calls land here) and then calls
// OpenSSL's own.
#pragma once

#include <dlfcn.h>
#include <openssl/ssl.h>

#include <atomic>

namespace stampede::test {
// SSL_CTX_new calls so far, all threads.
inline std::atomic<int> tls_contexts_made{0};
}  // namespace stampede::test

extern "C" SSL_CTX* SSL_CTX_new(const SSL_METHOD* method) {
  using Fn = SSL_CTX* (*)(const SSL_METHOD*);
  static const Fn real = reinterpret_cast<Fn>(dlsym(RTLD_NEXT, "SSL_CTX_new"));
  stampede::test::tls_contexts_made.fetch_add(1);
  return real(method);
}
