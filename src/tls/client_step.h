// ClientStep: the TLS step of a net::TcpConnector (net/connector.h), for https and wss clients:
// a client tls::Stream per socket with the server's name for SNI and the certificate check, and
// the last clean socket's session offered for resumption.
//
// One per connector, used on its thread only; the context outlives it. The session to resume is
// the step's own (a client that makes one socket after another: the generator), or a slot that
// several steps to the same server share (the balancer: one connector per backend connection,
// one slot per backend and worker), which then outlives them.
#pragma once

#include <openssl/ssl.h>

#include <memory>
#include <string>

#include "net/connector.h"
#include "tls/stream.h"

namespace stampede::tls {

class ClientStep final : public net::SecureStep {
 public:
  // `ctx`: the run's client context; `server_name`: the URL's host (a name or an IP literal).
  // `shared_session`: null for the step's own slot.
  ClientStep(SSL_CTX* ctx, std::string server_name, SessionPtr* shared_session = nullptr)
      : ctx_(ctx),
        server_name_(std::move(server_name)),
        session_(shared_session != nullptr ? shared_session : &own_session_) {}
  ClientStep(const ClientStep&) = delete;
  ClientStep& operator=(const ClientStep&) = delete;

  std::unique_ptr<net::Stream> wrap(net::Fd fd) override;
  bool resumed() const override { return stream_ && stream_->resumed(); }
  void release(bool clean) override;

 private:
  SSL_CTX* ctx_;
  std::string server_name_;
  Stream* stream_ = nullptr;  // the last stream wrap() returned, until release()
  SessionPtr own_session_;
  SessionPtr* session_;  // to offer on the next socket: own_session_ or a shared slot
};

}  // namespace stampede::tls
