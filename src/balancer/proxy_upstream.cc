// ProxySession, backend side: picking, connecting, sending, relaying the response, retrying.
#include <sys/epoll.h>

#include "balancer/head_rewrite.h"
#include "balancer/proxy_session.h"
#include "balancer/session_limits.h"
#include "balancer/worker.h"
#include "net/socket.h"

namespace stampede::balancer {

void ProxySession::dispatch() {
  Backend* backend = pick_backend(session_key_);
  if (!backend) return;
  req_.dispatched = true;
  start_attempt(backend);
}

void ProxySession::reset_attempt() {
  if (relay_.dechunk) response_.set_body_callback({});
  attempt_ = Attempt{};
  relay_ = RelayState{};
}

void ProxySession::on_upstream_events(std::uint32_t events) {
  if (!upstream_ || phase_ == Phase::Closed) return;
  if (phase_ == Phase::Tunnel) {
    // EPOLLOUT also resumes a read that waited for the stream to send (TLS WANT_WRITE).
    if ((events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR)) ||
        ((events & EPOLLOUT) && upstream_->stream().wants_write())) {
      attempt_.upstream_readable = true;
    }
    tunnel_step();
    return;
  }
  forward_upstream_events(events);
}

void ProxySession::flush_upstream() {
  if (!write_upstream()) return;
  const bool throttled = client_readable_ || !client_in_.empty();
  if (!req_.done && throttled && upstream_out_.size() - attempt_.sent < kMaxPendingBytes / 2) {
    drive_client();
  }
}

void ProxySession::read_upstream() {
  UpstreamConn* conn = upstream_.get();
  while (attempt_.upstream_readable && upstream_ && upstream_.get() == conn &&
         phase_ == Phase::Forward) {
    if (attempt_.resp_head_done && client_out_.size() >= kMaxPendingBytes) break;  // client is slow
    const ReadStep step = read_step(*conn);
    if (step == ReadStep::Ended) return;
    if (step == ReadStep::Drained) break;
  }
  flush_client();
}

bool ProxySession::on_response_head(std::size_t head_len) {
  const int status = response_.status();
  if (status == 101) {
    if (req_.upgrade && req_.done && enter_tunnel(head_len)) return false;
    attempt_failed({Cause::BadResponse, false});  // a switch nobody asked for
    return false;
  }
  const bool bodiless = req_.is_head || status == 204 || status == 304;
  const bool close_delimited = !bodiless && !response_.chunked() && !response_.content_length();
  // An HTTP/1.0 client cannot take chunked framing: its body is relayed de-chunked and ends
  // with the connection (the backend connection stays pooled).
  relay_.dechunk = req_.http10 && !bodiless && response_.chunked();
  const bool keep =
      req_.keep_alive && req_.done && !close_delimited && !relay_.dechunk && !close_after_flush_;
  ResponseHeadOptions options{attempt_.backend->name(), keep, req_.http10, false, relay_.dechunk};
  relay_.response_at = client_written_ + client_out_.size();
  if (!append_response_head(client_out_, {upstream_in_.data(), head_len}, options)) {
    relay_.dechunk = false;
    attempt_failed({Cause::BadResponse, false});
    return false;
  }
  if (relay_.dechunk) {
    response_.set_body_callback([this](std::string_view bytes) { client_out_.append(bytes); });
  }
  if (!keep) close_after_flush_ = true;
  response_head_taken(head_len);
  return true;
}

void ProxySession::response_complete(bool reusable) {
  end_attempt(attempt_, worker_, true);
  // Pool the connection only when nothing is left on it: every request byte sent, no byte
  // beyond the response received or still unread in the socket, no FIN from the backend.
  release_upstream(may_pool(attempt_, reusable, req_.done && attempt_.sent == upstream_out_.size(),
                            !upstream_in_.empty()));
  if (!req_.done) close_after_flush_ = true;
  finish_exchange();
}

// The response failed after its head was queued for the client. While none of it reached
// the client it is withdrawn and replaced by the balancer's own 502 (504 for a timeout);
// after that, closing the client connection is all that is left.
void ProxySession::response_failed(Cause failure) {
  if (client_written_ <= relay_.response_at) {
    client_out_.truncate(static_cast<std::size_t>(relay_.response_at - client_written_));
    attempt_.resp_head_done = false;
    attempt_failed({failure, false});
    return;
  }
  count_failure(attempt_, worker_, {failure, false});
  close();
}

void ProxySession::release_upstream(bool reusable) {
  release_connection(attempt_, upstream_, worker_, reusable);
}

}  // namespace stampede::balancer
