// The balancer's TLS listener (--tls-cert/--tls-key): ALPN h2 gets the HTTP/2 front (curl
// --http2 and h2load over https, each stream balanced), http/1.1 or no ALPN the HTTP/1.1 path
// (X-Forwarded-Proto: https, /lb-stats over TLS); hostile clients — plain HTTP to the TLS port, a
// ClientHello cut short, a close mid-handshake, a handshake that stalls — are dropped, counted as
// the client's (client_tls in /lb-stats, never a backend's failure), and never hold the worker up.
// Backends are in-process `stampede serve` instances or the recording echo backend.
#include <gtest/gtest.h>
#include <openssl/bio.h>
#include <openssl/ssl.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <functional>
#include <string>

#include "lb_support.h"
#include "support/credential_files.h"
#include "support/loopback.h"
#include "support/process.h"
#include "support/test_server.h"
#include "tls/self_signed.h"

namespace stampede::balancer::testing {
namespace tlslisten {

constexpr const char* kH2load = "/usr/bin/h2load";
constexpr const char* kCurl = "/usr/bin/curl";
// ALPN lists in wire format (length-prefixed names).
constexpr std::string_view kOfferHttp11("\x08http/1.1", 9);
constexpr std::string_view kOfferH2("\x02h2", 3);

// A TLS client over a blocking loopback socket, driven through memory BIOs so that the test
// decides what reaches the balancer and when: the ClientHello whole, cut short or in pieces.
// Certificates are not verified (the balancer's is a throwaway). Every read is bounded by a
// 5 s receive timeout.
class TlsPeer {
 public:
  // `alpn`: the protocols offered, in wire format; empty offers no ALPN extension.
  TlsPeer(std::uint16_t port, std::string_view alpn)
      : ctx_(SSL_CTX_new(TLS_client_method())), fd_(stampede::testing::connect_loopback(port)) {
    SSL_CTX_set_verify(ctx_, SSL_VERIFY_NONE, nullptr);
    if (!alpn.empty()) {
      SSL_CTX_set_alpn_protos(ctx_, reinterpret_cast<const unsigned char*>(alpn.data()),
                              static_cast<unsigned>(alpn.size()));
    }
    ssl_ = SSL_new(ctx_);
    rbio_ = BIO_new(BIO_s_mem());
    wbio_ = BIO_new(BIO_s_mem());
    SSL_set_bio(ssl_, rbio_, wbio_);
    SSL_set_connect_state(ssl_);
    const timeval timeout{5, 0};
    setsockopt(fd_.get(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  }
  ~TlsPeer() {
    SSL_free(ssl_);
    SSL_CTX_free(ctx_);
  }
  TlsPeer(const TlsPeer&) = delete;
  TlsPeer& operator=(const TlsPeer&) = delete;

  int fd() const { return fd_.get(); }
  // The first flight (the ClientHello), made but not sent.
  std::string client_hello() {
    SSL_do_handshake(ssl_);
    return take_output();
  }
  bool send_raw(std::string_view bytes) { return stampede::testing::send_all(fd_.get(), bytes); }
  // Runs the handshake to its end, each flight sent in writes of `piece` bytes (0: whole).
  bool handshake(std::size_t piece = 0) {
    for (int round = 0; round < 50; ++round) {
      const int r = SSL_do_handshake(ssl_);
      if (!flush(piece)) return false;
      if (r == 1) return true;
      if (SSL_get_error(ssl_, r) != SSL_ERROR_WANT_READ || !fill()) return false;
    }
    return false;
  }
  // The protocol the balancer selected by ALPN; empty when none.
  std::string alpn() const {
    const unsigned char* name = nullptr;
    unsigned length = 0;
    SSL_get0_alpn_selected(ssl_, &name, &length);
    return {reinterpret_cast<const char*>(name), length};
  }
  bool send(std::string_view plain) {
    std::size_t written = 0;
    return SSL_write_ex(ssl_, plain.data(), plain.size(), &written) == 1 && flush(0);
  }
  // Decrypted bytes until the balancer closes the connection (or 5 s of silence).
  std::string read_to_end() {
    std::string out;
    for (int round = 0; round < 10000; ++round) {
      char buffer[16384];
      std::size_t n = 0;
      while (SSL_read_ex(ssl_, buffer, sizeof buffer, &n) == 1)
        out.append(buffer, n);
      if (!fill()) break;
    }
    return out;
  }

 private:
  std::string take_output() {
    std::string out;
    char buffer[4096];
    int n;
    while ((n = BIO_read(wbio_, buffer, sizeof buffer)) > 0)
      out.append(buffer, static_cast<std::size_t>(n));
    return out;
  }
  bool flush(std::size_t piece) {
    const std::string out = take_output();
    const std::size_t step = piece == 0 ? std::max<std::size_t>(out.size(), 1) : piece;
    for (std::size_t at = 0; at < out.size(); at += step) {
      if (!send_raw(std::string_view(out).substr(at, step))) return false;
    }
    return true;
  }
  // One read from the socket into the TLS input; false at EOF, an error or the timeout.
  bool fill() {
    char buffer[16384];
    const ssize_t n = stampede::testing::recv_some(fd_.get(), buffer, sizeof buffer);
    if (n <= 0) return false;
    BIO_write(rbio_, buffer, static_cast<int>(n));
    return true;
  }

  SSL_CTX* ctx_;
  SSL* ssl_ = nullptr;
  BIO* rbio_ = nullptr;  // owned by ssl_
  BIO* wbio_ = nullptr;  // owned by ssl_
  net::Fd fd_;
};

// A throwaway certificate and key on disk for the whole suite.
class TlsListener : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { files_ = new stampede::testing::CredentialFiles(); }
  static void TearDownTestSuite() { delete files_; }

  static void listen_tls(BalancerConfig& c) {
    c.tls_cert = files_->cert();
    c.tls_key = files_->key();
  }
  static BalancerConfig tls_config(std::vector<BackendSpec> backends) {
    BalancerConfig c = base_config(std::move(backends));
    listen_tls(c);
    return c;
  }
  // Backend "e" behind a balancer listening with TLS, changed by `adjust`.
  static EchoBehindBalancer tls_echo(const std::function<void(BalancerConfig&)>& adjust = {}) {
    return EchoBehindBalancer({.name = "e"}, [&adjust](BalancerConfig& c) {
      listen_tls(c);
      if (adjust) adjust(c);
    });
  }
  static std::unique_ptr<server::Server> instance(const std::string& id) {
    server::ServerOptions options;
    options.id = id;
    return stampede::testing::start_server(options);
  }
  static std::string url(const Balancer& lb, const std::string& path) {
    return "https://127.0.0.1:" + std::to_string(lb.port()) + path;
  }
  // The client_tls figures of /lb-stats.
  static nlohmann::json client_tls(const Balancer& lb) {
    return nlohmann::json::parse(lb.stats_json())["client_tls"];
  }

  static stampede::testing::CredentialFiles* files_;
};

stampede::testing::CredentialFiles* TlsListener::files_ = nullptr;

std::size_t count_of(const std::string& text, const std::string& what) {
  std::size_t n = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1))
    ++n;
  return n;
}

TEST_F(TlsListener, CurlHttp2OverHttpsBalancesEachStreamWithXBackend) {
  if (access(kCurl, X_OK) != 0) GTEST_SKIP() << kCurl << " missing";
  auto a = instance("a"), b = instance("b"), c = instance("c");
  ASSERT_TRUE(a && b && c);
  auto lb = start_balancer(
      tls_config({spec("a", a->port()), spec("b", b->port()), spec("c", c->port())}));
  ASSERT_TRUE(lb);
  // Three URLs on one curl: one connection, ALPN h2, three streams.
  const auto run =
      stampede::testing::run_command({kCurl, "-sS", "-k", "-i", "--http2", "--max-time", "5",
                                      url(*lb, "/1"), url(*lb, "/2"), url(*lb, "/3")},
                                     std::chrono::seconds(10));
  ASSERT_EQ(run.status, 0) << run.err;
  EXPECT_EQ(count_of(run.out, "HTTP/2 200"), 3u) << run.out;
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_EQ(count_of(run.out, std::string("x-backend: ") + name + "\r\n"), 1u) << run.out;
  }
  EXPECT_EQ(client_tls(*lb)["handshakes"], 1);
}

TEST_F(TlsListener, H2loadOverHttpsSplitsStreamsOfOneConnectionEvenly) {
  if (access(kH2load, X_OK) != 0) GTEST_SKIP() << kH2load << " missing (nghttp2-client)";
  auto a = instance("a"), b = instance("b"), c = instance("c");
  ASSERT_TRUE(a && b && c);
  auto lb = start_balancer(
      tls_config({spec("a", a->port()), spec("b", b->port()), spec("c", c->port())}));
  ASSERT_TRUE(lb);
  const auto run = stampede::testing::run_command(
      {kH2load, "-c", "1", "-m", "10", "-n", "300", url(*lb, "/")}, std::chrono::seconds(20));
  EXPECT_EQ(run.status, 0) << run.err;
  EXPECT_NE(run.out.find("300 succeeded, 0 failed, 0 errored"), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("Application protocol: h2"), std::string::npos) << run.out;
  EXPECT_EQ(a->served(), 100u);
  EXPECT_EQ(b->served(), 100u);
  EXPECT_EQ(c->served(), 100u);
  for (const char* name : {"a", "b", "c"}) {
    EXPECT_EQ(backend_stats(*lb, name)["responses"], 100) << name;
  }
}

TEST_F(TlsListener, Http11OrNoAlpnGetsTheHttp11PathWithForwardedProtoHttps) {
  EchoBehindBalancer setup = tls_echo();
  ASSERT_TRUE(setup.ok());
  auto& [echo, lb] = setup;
  for (std::string_view offer : {kOfferHttp11, std::string_view()}) {
    TlsPeer peer(lb->port(), offer);
    ASSERT_TRUE(peer.handshake());
    EXPECT_EQ(peer.alpn(), offer.empty() ? "" : "http/1.1");
    ASSERT_TRUE(peer.send("GET /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
    const std::string response = peer.read_to_end();
    EXPECT_EQ(response.rfind("HTTP/1.1 200 ", 0), 0u) << response;
    EXPECT_NE(response.find("x-backend: e\r\n"), std::string::npos) << response;
  }
  ASSERT_EQ(echo.request_count(), 2u);
  EXPECT_NE(echo.requests()[0].find("X-Forwarded-Proto: https\r\n"), std::string::npos)
      << echo.requests()[0];
  // The admin endpoint answers over TLS too; over TLS only ALPN selects HTTP/2, so a preface
  // without it is an HTTP/1.1 request for version 2.0 (RFC 9113 3.3: no prior knowledge on TLS).
  TlsPeer stats(lb->port(), kOfferHttp11);
  ASSERT_TRUE(stats.handshake());
  ASSERT_TRUE(stats.send("GET /lb-stats HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  const std::string reply = stats.read_to_end();
  const std::size_t body_at = reply.find("\r\n\r\n");
  ASSERT_NE(body_at, std::string::npos) << reply;
  const auto figures = nlohmann::json::parse(reply.substr(body_at + 4), nullptr, false);
  EXPECT_EQ(figures["client_tls"],
            nlohmann::json::parse(
                R"({"handshakes": 3, "failed": {"error": 0, "closed": 0, "timeout": 0}})"))
      << reply;
  TlsPeer preface(lb->port(), std::string_view());
  ASSERT_TRUE(preface.handshake());
  ASSERT_TRUE(preface.send("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"));
  EXPECT_EQ(preface.read_to_end().rfind("HTTP/1.1 505 ", 0), 0u);
}

TEST_F(TlsListener, PlainHttpToTheTlsPortIsDroppedAndCountedAsTheClients) {
  EchoBehindBalancer setup = tls_echo();
  ASSERT_TRUE(setup.ok());
  auto& [echo, lb] = setup;
  Client plain(lb->port());
  ASSERT_TRUE(plain.send("GET / HTTP/1.1\r\nHost: t\r\n\r\n"));
  EXPECT_TRUE(plain.closed_by_peer());
  EXPECT_TRUE(eventually([&] { return client_tls(*lb)["failed"]["error"] == 1; }, 2000ms));
  EXPECT_EQ(echo.request_count(), 0u);
  EXPECT_EQ(backend_stats(*lb, "e")["failures"], 0);
  // The process is up and serves TLS clients.
  TlsPeer peer(lb->port(), kOfferHttp11);
  ASSERT_TRUE(peer.handshake());
  ASSERT_TRUE(peer.send("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(peer.read_to_end().rfind("HTTP/1.1 200 ", 0), 0u);
}

TEST_F(TlsListener, ATruncatedClientHelloOrACloseMidHandshakeIsTheClientsFailure) {
  EchoBehindBalancer setup = tls_echo();
  ASSERT_TRUE(setup.ok());
  auto& [echo, lb] = setup;
  {
    TlsPeer cut(lb->port(), kOfferH2);
    const std::string hello = cut.client_hello();
    ASSERT_GT(hello.size(), 100u);
    ASSERT_TRUE(cut.send_raw(hello.substr(0, hello.size() / 2)));
  }                                          // closed with half a ClientHello sent
  { TlsPeer silent(lb->port(), kOfferH2); }  // connected, closed without a byte
  EXPECT_TRUE(eventually([&] { return client_tls(*lb)["failed"]["closed"] == 2; }, 2000ms))
      << client_tls(*lb);
  EXPECT_EQ(client_tls(*lb)["handshakes"], 0);
  const nlohmann::json e = backend_stats(*lb, "e");
  EXPECT_EQ(e["sent"], 0);
  EXPECT_EQ(e["failures"], 0);
  EXPECT_EQ(e["client_aborts"], 0);
  // A ClientHello that arrives in pieces of 7 bytes is a handshake like any other.
  TlsPeer slow(lb->port(), kOfferHttp11);
  ASSERT_TRUE(slow.handshake(7));
  ASSERT_TRUE(slow.send("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(slow.read_to_end().rfind("HTTP/1.1 200 ", 0), 0u);
}

// One worker: a client stalled mid-handshake must not hold it (the handshake is driven by
// readiness), and it is dropped at --client-timeout from its accept.
TEST_F(TlsListener, AStalledHandshakeNeitherBlocksTheWorkerNorOutlivesTheClientTimeout) {
  EchoBehindBalancer setup = tls_echo([](BalancerConfig& c) { c.client_timeout = Millis(1000); });
  ASSERT_TRUE(setup.ok());
  auto& [echo, lb] = setup;
  const auto began = std::chrono::steady_clock::now();
  TlsPeer stalled(lb->port(), kOfferH2);
  const std::string hello = stalled.client_hello();
  ASSERT_TRUE(stalled.send_raw(hello.substr(0, 40)));
  TlsPeer other(lb->port(), kOfferHttp11);
  ASSERT_TRUE(other.handshake());
  ASSERT_TRUE(other.send("GET / HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n"));
  EXPECT_EQ(other.read_to_end().rfind("HTTP/1.1 200 ", 0), 0u);
  EXPECT_EQ(client_tls(*lb)["failed"]["timeout"], 0);  // served while the other still stalls
  char byte;
  const ssize_t got = stampede::testing::recv_some(stalled.fd(), &byte, 1);  // 5 s at most
  EXPECT_TRUE(got == 0 || (got < 0 && errno == ECONNRESET)) << got;          // dropped
  EXPECT_GE(std::chrono::steady_clock::now() - began, 1000ms);
  EXPECT_TRUE(eventually([&] { return client_tls(*lb)["failed"]["timeout"] == 1; }, 2000ms));
}

TEST_F(TlsListener, CertificateAndKeyAreCheckedBeforeListening) {
  BalancerConfig one = base_config({spec("e", 1)});
  one.tls_cert = files_->cert();
  auto alone = prepare(one);
  ASSERT_FALSE(alone);
  EXPECT_EQ(alone.error().message, "--tls-cert and --tls-key go together");

  BalancerConfig missing = tls_config({spec("e", 1)});
  missing.tls_key = files_->dir().file("none.pem");
  auto unreadable = prepare(missing);
  ASSERT_FALSE(unreadable);
  EXPECT_EQ(unreadable.error().message.rfind("--tls-cert/--tls-key: ", 0), 0u)
      << unreadable.error().message;

  // Another certificate's key: one line, exit 2, nothing listened.
  const std::string other_key = files_->dir().file("other-key.pem");
  std::ofstream(other_key) << tls::make_self_signed().value().key_pem;
  const std::string cert = files_->cert();
  const auto r = stampede::testing::run_stampede({"balance", "--listen", "127.0.0.1:0", "--backend",
                                                  "e=127.0.0.1:1", "--tls-cert", cert, "--tls-key",
                                                  other_key});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("stampede: --tls-cert '" + cert + "', --tls-key '" + other_key + "': ", 0),
            0u)
      << r.err;
  EXPECT_NE(r.err.find("does not match"), std::string::npos) << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
}

}  // namespace tlslisten
}  // namespace stampede::balancer::testing
