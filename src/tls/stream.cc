#include "tls/stream.h"

#include <arpa/inet.h>
#include <errno.h>
#include <openssl/err.h>
#include <openssl/x509v3.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>

#include "tls/errors.h"

namespace stampede::tls {
namespace {

// A socket BIO that also tells whether the last read drained the socket (see Stream::read).
int bio_read(BIO* bio, char* buffer, std::size_t length, std::size_t* done) {
  auto* s = static_cast<Stream::Socket*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  for (;;) {
    const ssize_t r = ::read(s->fd, buffer, length);
    if (r > 0) {
      s->drained = static_cast<std::size_t>(r) < length;
      *done = static_cast<std::size_t>(r);
      return 1;
    }
    if (r == 0) {
      s->drained = s->eof = true;
      return 0;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      s->drained = true;
      BIO_set_retry_read(bio);
    } else {
      s->sys_errno = errno;
    }
    return 0;
  }
}

int bio_write(BIO* bio, const char* data, std::size_t length, std::size_t* done) {
  auto* s = static_cast<Stream::Socket*>(BIO_get_data(bio));
  BIO_clear_retry_flags(bio);
  for (;;) {
    const ssize_t r = ::send(s->fd, data, length, MSG_NOSIGNAL);
    if (r >= 0) {
      *done = static_cast<std::size_t>(r);
      return 1;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) {
      BIO_set_retry_write(bio);
    } else {
      s->sys_errno = errno;
    }
    return 0;
  }
}

long bio_ctrl(BIO* bio, int cmd, long, void*) {
  switch (cmd) {
    case BIO_CTRL_FLUSH:
      return 1;
    case BIO_CTRL_EOF:
      return static_cast<Stream::Socket*>(BIO_get_data(bio))->eof ? 1 : 0;
    default:
      return 0;
  }
}

int bio_create(BIO* bio) {
  BIO_set_init(bio, 1);
  return 1;
}

// Made once, shared by every stream (immutable after creation; thread-safe static init).
const BIO_METHOD* socket_method() {
  static BIO_METHOD* method = [] {
    BIO_METHOD* m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "stampede socket");
    BIO_meth_set_read_ex(m, bio_read);
    BIO_meth_set_write_ex(m, bio_write);
    BIO_meth_set_ctrl(m, bio_ctrl);
    BIO_meth_set_create(m, bio_create);
    return m;
  }();
  return method;
}

bool is_version_reason(int reason) {
  return reason == SSL_R_UNSUPPORTED_PROTOCOL || reason == SSL_R_TLSV1_ALERT_PROTOCOL_VERSION ||
         reason == SSL_R_NO_PROTOCOLS_AVAILABLE || reason == SSL_R_VERSION_TOO_LOW ||
         reason == SSL_R_VERSION_TOO_HIGH || reason == SSL_R_UNSUPPORTED_SSL_VERSION;
}

bool is_ip_literal(const std::string& host) {
  unsigned char buffer[sizeof(in6_addr)];
  return inet_pton(AF_INET, host.c_str(), buffer) == 1 ||
         inet_pton(AF_INET6, host.c_str(), buffer) == 1;
}

}  // namespace

std::unique_ptr<Stream> Stream::create(SSL_CTX* ctx, net::Fd fd, Role role) {
  std::unique_ptr<Stream> stream = create(ctx, fd.get(), role);
  if (stream) stream->owned_ = std::move(fd);
  return stream;
}

std::unique_ptr<Stream> Stream::create(SSL_CTX* ctx, int fd, Role role) {
  SSL* ssl = SSL_new(ctx);
  if (ssl == nullptr) return nullptr;
  BIO* bio = BIO_new(socket_method());
  if (bio == nullptr) {
    SSL_free(ssl);
    return nullptr;
  }
  std::unique_ptr<Stream> stream(new Stream(ssl, fd));
  BIO_set_data(bio, &stream->socket_);
  SSL_set_bio(ssl, bio, bio);  // one reference, owned by the SSL
  if (role == Role::Client) {
    SSL_set_connect_state(ssl);
  } else {
    SSL_set_accept_state(ssl);
  }
  return stream;
}

Stream::Stream(SSL* ssl, int fd) : ssl_(ssl) {
  socket_.fd = fd;
}

Stream::~Stream() {
  SSL_free(ssl_);
}

void Stream::set_server_name(const std::string& host) {
  if (is_ip_literal(host)) {
    X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl_), host.c_str());
    return;
  }
  SSL_set_tlsext_host_name(ssl_, host.c_str());
  SSL_set1_host(ssl_, host.c_str());
}

void Stream::set_session(SSL_SESSION* session) {
  if (session != nullptr) SSL_set_session(ssl_, session);
}

net::IoStatus Stream::handshake() {
  if (established_) return net::IoStatus::Done;
  if (failed_) return net::IoStatus::Error;
  const int r = SSL_do_handshake(ssl_);
  if (r == 1) {
    established_ = true;
    return net::IoStatus::Done;
  }
  return fail(r);
}

template <auto kOp, bool kStopWhenDrained, class Byte>
net::IoStatus Stream::transfer(Byte* data, std::size_t size, std::size_t& n) {
  n = 0;
  if (!established_) {
    if (const net::IoStatus s = handshake(); s != net::IoStatus::Done) return s;
  }
  if (failed_) return net::IoStatus::Error;
  while (n < size) {
    std::size_t moved = 0;
    const int r = kOp(ssl_, data + n, size - n, &moved);
    if (r == 1) {
      n += moved;
      // Read-ahead took what the socket had: when that was all and no record waits, stop
      // here instead of paying a read() that would only say EAGAIN.
      if (kStopWhenDrained && socket_.drained && !SSL_has_pending(ssl_)) break;
      continue;
    }
    const net::IoStatus s = fail(r);
    if (n == 0) return s;
    if (s == net::IoStatus::Error) failed_ = true;  // report it on the next call
    break;
  }
  return net::IoStatus::Done;
}

net::IoStatus Stream::read(char* buffer, std::size_t capacity, std::size_t& n) {
  return transfer<SSL_read_ex, true>(buffer, capacity, n);
}

net::IoStatus Stream::write(const char* data, std::size_t length, std::size_t& n) {
  return transfer<SSL_write_ex, false>(data, length, n);
}

void Stream::shutdown() {
  if (established_ && !failed_) SSL_shutdown(ssl_);
  ERR_clear_error();
}

void Stream::shutdown_write() {
  shutdown();
  ::shutdown(socket_.fd, SHUT_WR);
}

net::IoStatus Stream::writev(const iovec* parts, int count, std::size_t& n) {
  n = 0;
  for (int i = 0; i < count; ++i) {
    std::size_t put = 0;
    const net::IoStatus s =
        write(static_cast<const char*>(parts[i].iov_base), parts[i].iov_len, put);
    if (s != net::IoStatus::Done) return n == 0 ? s : net::IoStatus::Done;
    n += put;
    if (put < parts[i].iov_len) break;
  }
  return net::IoStatus::Done;
}

void Stream::close_quietly() {
  SSL_set_shutdown(ssl_, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
}

bool Stream::resumed() const {
  return SSL_session_reused(ssl_) == 1;
}

std::string_view Stream::alpn() const {
  const unsigned char* name = nullptr;
  unsigned int length = 0;
  SSL_get0_alpn_selected(ssl_, &name, &length);
  return {reinterpret_cast<const char*>(name), length};
}

SessionPtr Stream::take_session() const {
  SessionPtr session(SSL_get1_session(ssl_));
  if (session && SSL_SESSION_is_resumable(session.get()) != 1) session.reset();
  return session;
}

// Maps a failed SSL call to WouldBlock, Eof or Error (with error_ set) and clears the queue.
net::IoStatus Stream::fail(int ret) {
  const int err = SSL_get_error(ssl_, ret);
  switch (err) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
      return net::IoStatus::WouldBlock;
    case SSL_ERROR_ZERO_RETURN:
      if (established_) return net::IoStatus::Eof;
      error_ = ECONNRESET;  // closed in the middle of the handshake
      break;
    case SSL_ERROR_SSL: {
      const int reason = ERR_GET_REASON(ERR_peek_error());
      if (reason == SSL_R_CERTIFICATE_VERIFY_FAILED) {
        error_ = kCertVerifyFailed;
      } else if (is_version_reason(reason)) {
        error_ = kProtocolVersion;
      } else if (socket_.eof || socket_.sys_errno != 0) {
        error_ = socket_.sys_errno != 0 ? socket_.sys_errno : ECONNRESET;
      } else {
        error_ = established_ ? kProtocolError : kHandshakeFailed;
      }
      break;
    }
    default:  // SSL_ERROR_SYSCALL and the rest: the socket failed or the peer went away
      error_ = socket_.sys_errno != 0 ? socket_.sys_errno : ECONNRESET;
      break;
  }
  ERR_clear_error();
  failed_ = true;
  return net::IoStatus::Error;
}

}  // namespace stampede::tls
