// ProxySession as a tunnel: after a 101 answer to an Upgrade request (websocket), bytes are
// copied both ways without parsing until either side closes or both stay idle for the client
// timeout. The backend connection is never pooled afterwards.
#include <sys/epoll.h>

#include "balancer/head_rewrite.h"
#include "balancer/proxy_session.h"
#include "balancer/session_limits.h"
#include "balancer/worker.h"
#include "net/socket.h"

namespace stampede::balancer {
namespace {

enum class Flow { Open, Closed };

// Reads `from` into `to` while it has bytes and `to` has room; Closed at EOF or on an error.
Flow pump(net::Stream& from, bool& readable, Buffer& to, bool& moved) {
  while (readable && to.size() < kMaxPendingBytes) {
    char* p = to.tail(kReadChunk);
    const std::size_t room = to.tail_room();
    std::size_t n = 0;
    auto status = from.read(p, room, n);
    if (status == net::IoStatus::WouldBlock) {
      readable = false;
      break;
    }
    if (status != net::IoStatus::Done) return Flow::Closed;
    to.commit(n);
    moved = true;
    if (n < room) readable = false;
  }
  return Flow::Open;
}

// Writes what `from` holds to `to`; Closed on an error.
Flow drain(net::Stream& to, Buffer& from, bool& moved) {
  while (!from.empty()) {
    std::size_t n = 0;
    auto status = to.write(from.data(), from.size(), n);
    if (status == net::IoStatus::WouldBlock) break;
    if (status != net::IoStatus::Done) return Flow::Closed;
    from.consume(n);
    moved = true;
  }
  return Flow::Open;
}

}  // namespace

bool ProxySession::enter_tunnel(std::size_t head_len) {
  ResponseHeadOptions options{attempt_.backend->name(), true, false, true};
  if (!append_response_head(client_out_, {upstream_in_.data(), head_len}, options)) return false;
  upstream_in_.consume(head_len);
  client_out_.append(upstream_in_.view());  // the backend's first tunnel bytes
  upstream_in_.clear();
  end_attempt(attempt_, worker_, true);
  upstream_out_.consume(attempt_.sent);
  attempt_.sent = 0;
  upstream_out_.append(client_in_.view());  // what the client sent after its request
  client_in_.clear();
  phase_ = Phase::Tunnel;
  attempt_.resp_head_done = true;
  attempt_.upstream_readable = true;  // bytes may already wait behind the head
  tunnel_step();
  return true;
}

void ProxySession::tunnel_step() {
  if (phase_ != Phase::Tunnel || !upstream_) return;
  net::Stream& client = *client_;
  net::Stream& backend = upstream_->stream();
  bool moved = true;
  bool open = true;
  // Repeat while bytes move: a side that stopped for lack of room goes on once the other drained.
  for (int round = 0; moved && open && round < 64; ++round) {
    moved = false;
    open = pump(client, client_readable_, upstream_out_, moved) == Flow::Open;
    open = drain(backend, upstream_out_, moved) == Flow::Open && open;
    open = pump(backend, attempt_.upstream_readable, client_out_, moved) == Flow::Open && open;
    open = drain(client, client_out_, moved) == Flow::Open && open;
  }
  if (!open) {
    bool ignored = false;  // one last attempt to deliver what was read before the close
    drain(backend, upstream_out_, ignored);
    drain(client, client_out_, ignored);
    close();
    return;
  }
  touch();
}

}  // namespace stampede::balancer
