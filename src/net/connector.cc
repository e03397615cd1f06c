#include "net/connector.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include <sys/socket.h>

#include "core/clock.h"

namespace stampede::net {
namespace {

constexpr std::uint32_t kSocketEvents = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET;
// A CONNECT reply head longer than this is refused (a proxy answers in a few hundred bytes).
constexpr std::size_t kMaxReplyBytes = 8 * 1024;

// "HTTP/1.x 2xx ...": the tunnel is open.
bool tunnel_accepted(const std::string& head) {
  return head.size() >= 12 && head.compare(0, 7, "HTTP/1.") == 0 && head[8] == ' ' &&
         head[9] == '2';
}

}  // namespace

TcpConnector::TcpConnector(ConnectorOptions options) : options_(std::move(options)) {}

TcpConnector::~TcpConnector() {
  close(false);
}

// connect_tcp() is not used because the errno of a failed connect is the error code reported.
int TcpConnector::open(EventLoop& loop, IoHandler& handler, std::int64_t start_ns,
                       bool& connected) {
  close(false);
  loop_ = &loop;
  connected_ns_ = start_ns;
  error_ = 0;
  connect_sent_ = 0;
  reply_.clear();
  phase_ = !options_.connect_request.empty() ? Phase::Connect
           : options_.tls                    ? Phase::Tls
                                             : Phase::Ready;
  const Address& address = options_.address;
  Fd fd(::socket(address.family(), SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0));
  if (!fd) return errno;
  int one = 1;
  ::setsockopt(fd.get(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const int rc = ::connect(fd.get(), address.sa(), address.length);
  if (rc != 0 && errno != EINPROGRESS) return errno;  // (the Fd closes after errno is read)
  if (options_.tls) {
    secure_ = options_.tls->wrap(std::move(fd));
    if (!secure_) return ENOMEM;
    stream_ = secure_.get();
  } else {
    stream_ = &tcp_.emplace(std::move(fd));
  }
  if (!loop.add(stream_->fd(), kSocketEvents, &handler)) return errno;
  connected = rc == 0;
  if (connected) on_connected();
  return 0;
}

int TcpConnector::connect_result() {
  const int err = net::connect_result(stream_->fd());
  if (err == 0) on_connected();
  return err;
}

// A plain stream reads through the loop's receive channel from now on (on io_uring); TLS and
// tunnels read by readiness.
void TcpConnector::on_connected() {
  connected_ns_ = mono_ns();
  if (phase_ == Phase::Ready && tcp_) tcp_->attach(*loop_);
}

IoStatus TcpConnector::handshake() {
  if (phase_ == Phase::Connect) {
    if (const IoStatus s = send_connect(); s != IoStatus::Done) return s;
  }
  if (phase_ == Phase::ConnectReply) {
    if (const IoStatus s = read_connect_reply(); s != IoStatus::Done) return s;
  }
  if (phase_ == Phase::Tls) {
    const IoStatus s = secure_->handshake();
    if (s == IoStatus::Error) return fail(secure_->error());
    if (s != IoStatus::Done) return s;
    phase_ = Phase::Ready;
  }
  return IoStatus::Done;
}

// The CONNECT exchange runs on the descriptor itself, before the TLS stream's first byte.
IoStatus TcpConnector::send_connect() {
  const std::string& request = options_.connect_request;
  while (connect_sent_ < request.size()) {
    std::size_t n = 0;
    const IoStatus s = write_some(stream_->fd(), request.data() + connect_sent_,
                                  request.size() - connect_sent_, n);
    if (s == IoStatus::Error) return fail(errno);
    if (s != IoStatus::Done) return s;
    connect_sent_ += n;
  }
  phase_ = Phase::ConnectReply;
  return IoStatus::Done;
}

// Reads the proxy's reply to CONNECT. The server speaks only after our ClientHello (or our
// first request, for a plain tunnel), so nothing beyond the reply head can arrive yet: reading
// whatever is there is safe.
IoStatus TcpConnector::read_connect_reply() {
  char buffer[1024];
  for (;;) {
    std::size_t n = 0;
    const IoStatus s = read_some(stream_->fd(), buffer, sizeof buffer, n);
    if (s == IoStatus::Error) return fail(errno);
    if (s == IoStatus::Eof) return fail(ECONNRESET);
    if (s == IoStatus::WouldBlock) return s;
    reply_.append(buffer, n);
    const std::size_t end = reply_.find("\r\n\r\n");
    if (end != std::string::npos) {
      if (!tunnel_accepted(reply_) || end + 4 != reply_.size()) {
        return fail(kProxyConnectFailed);
      }
      phase_ = options_.tls ? Phase::Tls : Phase::Ready;
      return IoStatus::Done;
    }
    if (reply_.size() > kMaxReplyBytes) return fail(kProxyConnectFailed);
  }
}

IoStatus TcpConnector::fail(int err) {
  error_ = err;
  return IoStatus::Error;
}

void TcpConnector::close(bool clean) {
  // io_uring's poll would hold the socket open past its close (poller.h); free with epoll.
  if (stream_ && loop_) loop_->forget(stream_->fd());
  if (secure_) {
    options_.tls->release(clean);
    secure_.reset();
  }
  tcp_.reset();
  stream_ = nullptr;
}

}  // namespace stampede::net
