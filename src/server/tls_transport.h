// TLS for the test server: a Transport over tls::Stream (handshake and records inside read and
// write), and the server's TLS context from its options.
#pragma once

#include <memory>

#include "core/result.h"
#include "net/fd.h"
#include "server/server.h"
#include "server/transport.h"
#include "tls/context.h"
#include "tls/stream.h"

namespace stampede::server {

// Owned by one connection, used on its worker's thread only. Owns the socket and the stream.
class TlsTransport final : public Transport {
 public:
  TlsTransport(net::Fd fd, std::unique_ptr<tls::Stream> stream)
      : fd_(std::move(fd)), stream_(std::move(stream)) {}
  int fd() const override { return fd_.get(); }
  net::IoStatus read(char* buffer, std::size_t capacity, std::size_t& n) override {
    return stream_->read(buffer, capacity, n);
  }
  net::IoStatus write(const char* data, std::size_t length, std::size_t& n) override {
    return stream_->write(data, length, n);
  }
  // close_notify, then FIN.
  void shutdown_write() override;

 private:
  net::Fd fd_;
  std::unique_ptr<tls::Stream> stream_;  // declared after fd_: freed before the socket closes
};

// The transport for an accepted socket: TLS under `tls` when it is set, else plain TCP. Null
// only when OpenSSL is out of memory.
std::unique_ptr<Transport> make_transport(net::Fd fd, SSL_CTX* tls);

// The server's TLS context: from tls_cert_file/tls_key_file, or a fresh self-signed
// certificate; a null context when the options ask for no TLS. Errors name the bad file.
Result<tls::ContextPtr> make_tls_context(const ServerOptions& options);

}  // namespace stampede::server
