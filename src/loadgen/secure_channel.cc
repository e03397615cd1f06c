#include "loadgen/secure_channel.h"

#include <errno.h>

#include "loadgen/connection.h"
#include "tls/errors.h"

namespace stampede::loadgen {
namespace {

// A CONNECT reply head longer than this is refused (a proxy answers in a few hundred bytes).
constexpr std::size_t kMaxReplyBytes = 8 * 1024;

// "HTTP/1.x 2xx ...": the tunnel is open.
bool tunnel_accepted(const std::string& head) {
  return head.size() >= 12 && head.compare(0, 7, "HTTP/1.") == 0 && head[8] == ' ' &&
         head[9] == '2';
}

}  // namespace

bool SecureChannel::open(int fd) {
  fd_ = fd;
  stream_.reset();
  error_ = 0;
  connect_sent_ = 0;
  reply_.clear();
  phase_ = context_.connect_request.empty() ? Phase::Handshake : Phase::Connect;
  if (context_.tls == nullptr) return true;  // the tunnel alone
  stream_ = tls::Stream::create(context_.tls, fd, tls::Stream::Role::Client);
  if (!stream_) return false;
  stream_->set_server_name(context_.server_name);
  stream_->set_session(session_.get());
  return true;
}

net::IoStatus SecureChannel::handshake() {
  if (phase_ == Phase::Connect) {
    if (const net::IoStatus s = send_connect(); s != net::IoStatus::Done) return s;
  }
  if (phase_ == Phase::ConnectReply) {
    if (const net::IoStatus s = read_connect_reply(); s != net::IoStatus::Done) return s;
  }
  if (phase_ == Phase::Handshake && !stream_) phase_ = Phase::Ready;
  if (phase_ == Phase::Handshake) {
    const net::IoStatus s = stream_->handshake();
    if (s == net::IoStatus::Error) return fail(stream_->error());
    if (s != net::IoStatus::Done) return s;
    phase_ = Phase::Ready;
  }
  return net::IoStatus::Done;
}

net::IoStatus SecureChannel::send_connect() {
  const std::string& request = context_.connect_request;
  while (connect_sent_ < request.size()) {
    std::size_t n = 0;
    const net::IoStatus s =
        net::write_some(fd_, request.data() + connect_sent_, request.size() - connect_sent_, n);
    if (s == net::IoStatus::Error) return fail(errno);
    if (s != net::IoStatus::Done) return s;
    connect_sent_ += n;
  }
  phase_ = Phase::ConnectReply;
  return net::IoStatus::Done;
}

// Reads the proxy's reply to CONNECT. The server speaks only after our ClientHello (or our
// upgrade request, for a plain tunnel), so nothing beyond the reply head can arrive yet:
// reading whatever is there is safe.
net::IoStatus SecureChannel::read_connect_reply() {
  char buffer[1024];
  for (;;) {
    std::size_t n = 0;
    const net::IoStatus s = net::read_some(fd_, buffer, sizeof buffer, n);
    if (s == net::IoStatus::Error) return fail(errno);
    if (s == net::IoStatus::Eof) return fail(ECONNRESET);
    if (s == net::IoStatus::WouldBlock) return s;
    reply_.append(buffer, n);
    const std::size_t end = reply_.find("\r\n\r\n");
    if (end != std::string::npos) {
      if (!tunnel_accepted(reply_) || end + 4 != reply_.size()) {
        return fail(tls::kProxyConnectFailed);
      }
      phase_ = Phase::Handshake;
      return net::IoStatus::Done;
    }
    if (reply_.size() > kMaxReplyBytes) return fail(tls::kProxyConnectFailed);
  }
}

net::IoStatus SecureChannel::fail(int err) {
  error_ = err;
  return net::IoStatus::Error;
}

void SecureChannel::close(bool clean) {
  if (stream_) {
    if (clean && stream_->established()) {
      stream_->close_quietly();
      session_ = stream_->take_session();
    } else {
      session_.reset();
    }
  }
  stream_.reset();
  fd_ = -1;
}

}  // namespace stampede::loadgen
