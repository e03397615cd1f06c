#include <fcntl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "net/fd.h"
#include "net/stream.h"
#include "support/temp_dir.h"
#include "tls/context.h"
#include "tls/errors.h"
#include "tls/self_signed.h"
#include "tls/stream.h"

namespace stampede::tls {
namespace {

using net::IoStatus;

// Two connected non-blocking sockets; both streams are driven from this one thread.
struct SocketPair {
  net::Fd client, server;
  SocketPair() {
    int fds[2];
    EXPECT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
    client.reset(fds[0]);
    server.reset(fds[1]);
  }
};

const Credentials& credentials() {
  static const Credentials c = make_self_signed().value();
  return c;
}

// Writes `text` to a file in `dir`; returns its path.
std::string write_temp(const stampede::testing::TempDir& dir, const std::string& text) {
  const std::string path = dir.file("ca.pem");
  std::ofstream(path) << text;
  return path;
}

// Runs both handshakes until each is done or failed (bounded: every call makes progress).
void handshake(Stream& client, Stream& server, IoStatus& client_status, IoStatus& server_status) {
  auto pending = [](IoStatus s) { return s == IoStatus::WouldBlock; };
  for (int i = 0; i < 100 && (pending(client_status) || pending(server_status)); ++i) {
    if (pending(client_status)) client_status = client.handshake();
    if (pending(server_status)) server_status = server.handshake();
  }
}

struct Connected {
  SocketPair sockets;
  std::unique_ptr<Stream> client, server;
  IoStatus client_status = IoStatus::WouldBlock, server_status = IoStatus::WouldBlock;

  Connected(SSL_CTX* client_ctx, SSL_CTX* server_ctx, const std::string& host,
            SSL_SESSION* session = nullptr) {
    client = Stream::create(client_ctx, sockets.client.get(), Stream::Role::Client);
    server = Stream::create(server_ctx, sockets.server.get(), Stream::Role::Server);
    client->set_server_name(host);
    client->set_session(session);
    handshake(*client, *server, client_status, server_status);
  }
};

ContextPtr server_context() {
  return make_server_context(credentials()).value();
}

ClientOptions options(bool insecure, std::string secure_protocol = "", std::string ca_file = "") {
  ClientOptions o;
  o.insecure = insecure;
  o.secure_protocol = std::move(secure_protocol);
  o.ca_file = std::move(ca_file);
  return o;
}

ContextPtr client_context(ClientOptions options) {
  auto ctx = make_client_context(options);
  EXPECT_TRUE(ctx) << ctx.error().message;
  return std::move(ctx).value();
}

TEST(SecureProtocol, MapsLoadtestNames) {
  EXPECT_EQ(parse_secure_protocol("").value().min, 0);
  EXPECT_EQ(parse_secure_protocol("TLS_method").value().max, 0);
  EXPECT_EQ(parse_secure_protocol("SSLv23_method").value().min, 0);
  const VersionRange v12 = parse_secure_protocol("TLSv1_2_method").value();
  EXPECT_EQ(v12.min, TLS1_2_VERSION);
  EXPECT_EQ(v12.max, TLS1_2_VERSION);
  EXPECT_EQ(parse_secure_protocol("TLSv1_3_client_method").value().min, TLS1_3_VERSION);
  EXPECT_EQ(parse_secure_protocol("TLSv1_method").value().max, TLS1_VERSION);
  EXPECT_FALSE(parse_secure_protocol("TLSv9_method"));
  EXPECT_FALSE(parse_secure_protocol("_method"));
}

TEST(Credentials, SelfSignedIsUsableAndKeyMismatchIsRefused) {
  EXPECT_NE(credentials().cert_pem.find("BEGIN CERTIFICATE"), std::string::npos);
  EXPECT_NE(credentials().key_pem.find("PRIVATE KEY"), std::string::npos);
  EXPECT_TRUE(make_server_context(credentials()));
  const Credentials other = make_self_signed().value();
  auto mismatched = make_server_context({credentials().cert_pem, other.key_pem});
  ASSERT_FALSE(mismatched);
  EXPECT_NE(mismatched.error().message.find("does not match"), std::string::npos);
  EXPECT_FALSE(make_server_context({"not a certificate", credentials().key_pem}));
}

TEST(Credentials, UnreadableFilesAreNamed) {
  auto r = read_credentials("/nonexistent/cert.pem", "/nonexistent/key.pem");
  ASSERT_FALSE(r);
  EXPECT_NE(r.error().message.find("/nonexistent/cert.pem"), std::string::npos);
  ClientOptions o;
  o.cert_file = "/nonexistent/cert.pem";
  EXPECT_FALSE(make_client_context(o));  // --cert without --key
}

// ALPN: a server context that speaks HTTP/2 (serve's) picks "h2" when offered and "http/1.1"
// otherwise; one that does not (the default) never picks "h2".
TEST(Stream, AlpnPicksH2OnlyWhenTheServerSpeaksIt) {
  const auto h2_server = make_server_context(credentials(), ServerAlpn::H2AndHttp11).value();
  const auto http11_server = server_context();
  ClientOptions h2_options = options(true);
  h2_options.h2 = true;
  const auto h2_client = client_context(h2_options);
  const auto http11_client = client_context(options(true));
  const auto negotiated = [](SSL_CTX* client, SSL_CTX* server) {
    Connected c(client, server, "127.0.0.1");
    EXPECT_EQ(c.client_status, IoStatus::Done);
    EXPECT_EQ(c.client->alpn(), c.server->alpn());
    return std::string(c.client->alpn());
  };
  EXPECT_EQ(negotiated(h2_client.get(), h2_server.get()), "h2");
  EXPECT_EQ(negotiated(http11_client.get(), h2_server.get()), "http/1.1");
  EXPECT_EQ(negotiated(h2_client.get(), http11_server.get()), "");
  EXPECT_EQ(negotiated(http11_client.get(), http11_server.get()), "http/1.1");
}

TEST(Stream, InsecureClientTalksAndNegotiatesHttp11) {
  auto server_ctx = server_context();
  auto client_ctx = client_context(options(true));
  Connected c(client_ctx.get(), server_ctx.get(), "127.0.0.1");
  ASSERT_EQ(c.client_status, IoStatus::Done);
  ASSERT_EQ(c.server_status, IoStatus::Done);
  EXPECT_EQ(c.client->alpn(), "http/1.1");
  EXPECT_EQ(c.server->alpn(), "http/1.1");
  std::size_t n = 0;
  ASSERT_EQ(c.client->write("GET / HTTP/1.1\r\n\r\n", 18, n), IoStatus::Done);
  EXPECT_EQ(n, 18u);
  char buffer[64];
  ASSERT_EQ(c.server->read(buffer, sizeof buffer, n), IoStatus::Done);
  EXPECT_EQ(std::string(buffer, n), "GET / HTTP/1.1\r\n\r\n");
  EXPECT_EQ(c.server->read(buffer, sizeof buffer, n), IoStatus::WouldBlock);
  c.server->shutdown();
  EXPECT_EQ(c.client->read(buffer, sizeof buffer, n), IoStatus::Eof);
}

// Through the net::Stream seam: an owning stream closes its socket, gathers parts, and ends its
// direction with close_notify and FIN.
TEST(Stream, IsANetStreamThatOwnsItsSocket) {
  auto server_ctx = server_context();
  auto client_ctx = client_context(options(true));
  SocketPair sockets;
  std::unique_ptr<net::Stream> client =
      Stream::create(client_ctx.get(), std::move(sockets.client), Stream::Role::Client);
  auto server = Stream::create(server_ctx.get(), sockets.server.get(), Stream::Role::Server);
  ASSERT_TRUE(client && server);
  const iovec parts[] = {{const_cast<char*>("GET / "), 6}, {const_cast<char*>("HTTP/1.1"), 8}};
  std::size_t n = 0;
  IoStatus status = IoStatus::WouldBlock;
  for (int i = 0; i < 100 && status == IoStatus::WouldBlock; ++i) {
    status = client->writev(parts, 2, n);  // the handshake runs inside
    char scratch[1];
    std::size_t ignored = 0;
    (void)server->read(scratch, 0, ignored);
    (void)server->handshake();
  }
  ASSERT_EQ(status, IoStatus::Done);
  EXPECT_EQ(n, 14u);
  std::string got;
  char buffer[64];
  for (int i = 0; i < 100 && got.size() < 14; ++i) {
    if (server->read(buffer, sizeof buffer, n) == IoStatus::Done) got.append(buffer, n);
  }
  EXPECT_EQ(got, "GET / HTTP/1.1");
  client->shutdown_write();
  EXPECT_EQ(server->read(buffer, sizeof buffer, n), IoStatus::Eof);
  const int fd = client->fd();
  EXPECT_GE(fd, 0);
  client.reset();
  EXPECT_EQ(::fcntl(fd, F_GETFD), -1);  // the stream closed the socket it owned
}

TEST(Stream, HandshakeRunsInsideReadAndWrite) {
  auto server_ctx = server_context();
  auto client_ctx = client_context(options(true));
  SocketPair sockets;
  auto client = Stream::create(client_ctx.get(), sockets.client.get(), Stream::Role::Client);
  auto server = Stream::create(server_ctx.get(), sockets.server.get(), Stream::Role::Server);
  std::size_t n = 0;
  char buffer[16];
  IoStatus written = IoStatus::WouldBlock, read = IoStatus::WouldBlock;
  for (int i = 0; i < 100 && read != IoStatus::Done; ++i) {
    if (written != IoStatus::Done) written = client->write("ping", 4, n);
    read = server->read(buffer, sizeof buffer, n);
    ASSERT_NE(written, IoStatus::Error);
    ASSERT_NE(read, IoStatus::Error);
  }
  ASSERT_EQ(read, IoStatus::Done);
  EXPECT_EQ(std::string(buffer, n), "ping");
  EXPECT_TRUE(client->established());
}

TEST(Stream, VerifiesAgainstTrustedCertificateAndHostName) {
  auto server_ctx = server_context();
  const stampede::testing::TempDir dir;
  const std::string ca = write_temp(dir, credentials().cert_pem);
  auto client_ctx = client_context(options(false, "", ca));
  {
    Connected ok(client_ctx.get(), server_ctx.get(), "localhost");
    EXPECT_EQ(ok.client_status, IoStatus::Done);
  }
  {
    Connected ip(client_ctx.get(), server_ctx.get(), "127.0.0.1");
    EXPECT_EQ(ip.client_status, IoStatus::Done);
  }
  {
    Connected wrong_host(client_ctx.get(), server_ctx.get(), "example.com");
    ASSERT_EQ(wrong_host.client_status, IoStatus::Error);
    EXPECT_EQ(wrong_host.client->error(), kCertVerifyFailed);
  }
}

TEST(Stream, UntrustedCertificateFailsByName) {
  auto server_ctx = server_context();
  auto client_ctx =
      client_context(options(false));  // the system store does not know our certificate
  Connected c(client_ctx.get(), server_ctx.get(), "localhost");
  ASSERT_EQ(c.client_status, IoStatus::Error);
  EXPECT_EQ(c.client->error(), kCertVerifyFailed);
  EXPECT_EQ(error_name(c.client->error()), "CERT_VERIFY_FAILED");
  // The server sees the client's alert.
  EXPECT_EQ(c.server_status, IoStatus::Error);
}

TEST(Stream, NoCommonVersionIsAProtocolVersionError) {
  auto server_ctx = server_context();
  SSL_CTX_set_min_proto_version(server_ctx.get(), TLS1_3_VERSION);
  auto client_ctx = client_context(options(true, "TLSv1_2_method"));
  Connected c(client_ctx.get(), server_ctx.get(), "localhost");
  ASSERT_EQ(c.client_status, IoStatus::Error);
  EXPECT_EQ(c.client->error(), kProtocolVersion);
}

TEST(Stream, NotTlsIsAHandshakeFailure) {
  auto client_ctx = client_context(options(true));
  SocketPair sockets;
  auto client = Stream::create(client_ctx.get(), sockets.client.get(), Stream::Role::Client);
  EXPECT_EQ(client->handshake(), IoStatus::WouldBlock);
  const std::string answer = "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\n\r\n";
  ASSERT_EQ(::write(sockets.server.get(), answer.data(), answer.size()),
            static_cast<ssize_t>(answer.size()));
  EXPECT_EQ(client->handshake(), IoStatus::Error);
  EXPECT_EQ(client->error(), kHandshakeFailed);
}

TEST(Stream, ResumesASessionOnReconnect) {
  auto server_ctx = server_context();
  for (const char* protocol : {"TLSv1_2_method", "TLSv1_3_method"}) {
    auto client_ctx = client_context(options(true, protocol));
    SessionPtr session;
    {
      Connected first(client_ctx.get(), server_ctx.get(), "localhost");
      ASSERT_EQ(first.client_status, IoStatus::Done);
      EXPECT_FALSE(first.client->resumed());
      // TLS 1.3 tickets come after the handshake: the client reads them with the data.
      std::size_t n = 0;
      char buffer[16];
      ASSERT_EQ(first.server->write("hi", 2, n), IoStatus::Done);
      ASSERT_EQ(first.client->read(buffer, sizeof buffer, n), IoStatus::Done);
      first.client->close_quietly();
      session = first.client->take_session();
    }
    ASSERT_TRUE(session) << protocol;
    Connected second(client_ctx.get(), server_ctx.get(), "localhost", session.get());
    ASSERT_EQ(second.client_status, IoStatus::Done);
    EXPECT_TRUE(second.client->resumed()) << protocol;
  }
}

TEST(Stream, LargeTransferSurvivesShortWrites) {
  auto server_ctx = server_context();
  auto client_ctx = client_context(options(true));
  Connected c(client_ctx.get(), server_ctx.get(), "localhost");
  ASSERT_EQ(c.client_status, IoStatus::Done);
  std::string data(4 << 20, '\0');
  for (std::size_t i = 0; i < data.size(); ++i)
    data[i] = static_cast<char>(i * 7 + i / 4096);
  std::string received;
  std::vector<char> buffer(64 * 1024);
  std::size_t sent = 0;
  bool saw_short_write = false;
  for (int i = 0; i < 100000 && received.size() < data.size(); ++i) {
    std::size_t n = 0;
    if (sent < data.size()) {
      const IoStatus s = c.client->write(data.data() + sent, data.size() - sent, n);
      ASSERT_NE(s, IoStatus::Error);
      if (s == IoStatus::Done) sent += n;
      if (s == IoStatus::WouldBlock || (s == IoStatus::Done && sent < data.size())) {
        saw_short_write = true;
      }
    }
    const IoStatus r = c.server->read(buffer.data(), buffer.size(), n);
    ASSERT_NE(r, IoStatus::Error);
    if (r == IoStatus::Done) received.append(buffer.data(), n);
  }
  EXPECT_TRUE(saw_short_write);
  ASSERT_EQ(received.size(), data.size());
  EXPECT_TRUE(received == data);
}

TEST(Stream, PeerClosingSocketIsEndOfStream) {
  auto server_ctx = server_context();
  auto client_ctx = client_context(options(true));
  Connected c(client_ctx.get(), server_ctx.get(), "localhost");
  ASSERT_EQ(c.client_status, IoStatus::Done);
  std::size_t n = 0;
  char buffer[16];
  ASSERT_EQ(c.client->read(buffer, sizeof buffer, n), IoStatus::WouldBlock);
  c.server.reset();
  c.sockets.server.reset();  // no close_notify: a bare FIN
  EXPECT_EQ(c.client->read(buffer, sizeof buffer, n), IoStatus::Eof);
}

}  // namespace
}  // namespace stampede::tls
