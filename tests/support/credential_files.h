// A throwaway self-signed certificate and its key on disk, for tests that hand PEM files to a
// server, a balancer, the command line or a peer: cert.pem and key.pem in a TempDir of their own,
// removed with it. The certificate is its own CA file. Header-only: it needs stampede_tls, which
// only the test binaries that include it link.
#pragma once

#include <fstream>
#include <stdexcept>
#include <string>

#include "support/temp_dir.h"
#include "tls/self_signed.h"

namespace stampede::testing {

class CredentialFiles {
 public:
  // Makes the pair and writes both files; throws std::runtime_error (failing the test) when it
  // cannot.
  CredentialFiles() {
    auto credentials = tls::make_self_signed();
    if (!credentials.ok()) throw std::runtime_error(credentials.error().message);
    std::ofstream(cert()) << credentials->cert_pem;
    std::ofstream(key()) << credentials->key_pem;
  }

  std::string cert() const { return dir_.file("cert.pem"); }
  std::string key() const { return dir_.file("key.pem"); }
  // The folder that holds both, for the test's other files.
  const TempDir& dir() const { return dir_; }

 private:
  TempDir dir_;
};

}  // namespace stampede::testing
