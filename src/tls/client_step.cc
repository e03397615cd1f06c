#include "tls/client_step.h"

namespace stampede::tls {

std::unique_ptr<net::Stream> ClientStep::wrap(net::Fd fd) {
  std::unique_ptr<Stream> stream = Stream::create(ctx_, std::move(fd), Stream::Role::Client);
  stream_ = stream.get();
  if (!stream) return nullptr;
  stream->set_server_name(server_name_);
  stream->set_session(session_->get());
  return stream;
}

// OpenSSL keeps only the sessions of connections shut down in good order: a clean socket is
// marked so (without sending anything) before its session is taken.
void ClientStep::release(bool clean) {
  if (stream_ == nullptr) return;
  if (clean && stream_->established()) {
    stream_->close_quietly();
    *session_ = stream_->take_session();
  } else {
    session_->reset();
  }
  stream_ = nullptr;
}

}  // namespace stampede::tls
