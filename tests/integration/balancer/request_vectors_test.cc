// The request vectors on the wire: every request vector of tests/vectors/http/framing.json and
// requests.json goes to a running `stampede serve` and to a `stampede balance` in front of a
// recording backend (EchoBackend), each on a new connection, whole and one byte at a time (one
// send() per byte with TCP_NODELAY; vectors up to kBytewiseMax bytes). For each it checks the
// verdict ("ok": a 2xx answer, else the status), whether the connection is closed afterwards
// (an accepted request that keeps it open answers a second request on it), and for balance what
// the backend received: nothing for a refused request, exactly the vector's request (method,
// target, body bytes as sent) for an accepted one. The verdict is the vector's "ours" unless it
// names another for "serve" or "balance", with the reason in "wire" (listed in
// docs/http-conformance.md). One serve, one backend and one balancer serve every vector.
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "http/request_parser.h"
#include "lb_support.h"
#include "support/temp_dir.h"

namespace stampede::balancer::testing {
namespace {

const std::string kVectorDir = std::string(STAMPEDE_SOURCE_DIR) + "/tests/vectors/http/";
// Byte-at-a-time costs a wake-up of the server per byte; the few vectors over this size (the
// oversize heads, 8-20 KiB) go whole only.
constexpr std::size_t kBytewiseMax = 2048;

struct WireVector {
  std::string name;
  std::string bytes;
  std::string serve;    // expected verdict of serve: "ok" or the status
  std::string balance;  // expected verdict of balance
  // An accepted request after which the connection closes: it does not keep the connection
  // alive (HTTP/1.0, Connection: close), or bytes follow it that are not a request (a body
  // that a smuggling vector's unrecognised framing leaves behind), which get a 400.
  bool close = false;
  bool head = false;    // a HEAD request: its answer has no body
  std::string haproxy;  // the peers' verdicts (framing vectors): see peer_verdict()
  std::string nginx;
};

// JSON strings hold one character per byte (U+0000..U+00FF); nlohmann gives them as UTF-8.
std::string wire_bytes(const std::string& utf8) {
  std::string out;
  for (std::size_t i = 0; i < utf8.size(); ++i) {
    const auto c = static_cast<unsigned char>(utf8[i]);
    if (c < 0x80) {
      out.push_back(static_cast<char>(c));
    } else {
      const auto next = static_cast<unsigned char>(utf8[++i]);
      out.push_back(static_cast<char>(((c & 0x03) << 6) | (next & 0x3f)));
    }
  }
  return out;
}

std::string verdict_text(const nlohmann::json& v) {
  return v.is_string() ? v.get<std::string>() : std::to_string(v.get<int>());
}

// A request as our parser reads it: method, target and the body bytes as sent (chunk framing
// included, which the balancer forwards as it came).
struct ParsedRequest {
  bool complete = false;
  bool keep_alive = false;
  std::size_t rest = 0;  // bytes after the request
  std::string method;
  std::string target;
  std::string body;
};

ParsedRequest parse_request(std::string_view bytes) {
  http::RequestParser parser;
  ParsedRequest out;
  std::size_t fed = 0, head_end = 0;
  for (;;) {
    const http::Step step = parser.feed(bytes.substr(fed));
    fed += step.consumed;
    if (step.event == http::Event::HeadComplete) {
      head_end = fed;
      out.method = parser.method();
      out.target = parser.target();
      continue;
    }
    if (step.event == http::Event::MessageComplete) {
      out.body = bytes.substr(head_end, fed - head_end);
      out.complete = true;
      out.keep_alive = parser.keep_alive();
      out.rest = bytes.size() - fed;
    }
    return out;
  }
}

std::vector<WireVector> load_wire_vectors() {
  std::vector<WireVector> out;
  for (const char* file : {"framing.json", "requests.json"}) {
    const nlohmann::json doc =
        nlohmann::json::parse(stampede::testing::read_file(kVectorDir + file));
    for (const nlohmann::json& v : doc) {
      if (v.at("kind") != "request") continue;
      WireVector w;
      w.name = v.at("name");
      w.bytes = wire_bytes(v.at("bytes"));
      const std::string ours = verdict_text(v.at("ours"));
      w.serve = v.contains("serve") ? verdict_text(v.at("serve")) : ours;
      w.balance = v.contains("balance") ? verdict_text(v.at("balance")) : ours;
      w.head = w.bytes.rfind("HEAD ", 0) == 0;
      const ParsedRequest parsed = parse_request(w.bytes);
      w.close = parsed.complete && (!parsed.keep_alive || parsed.rest > 0);
      if (v.contains("haproxy")) w.haproxy = verdict_text(v.at("haproxy"));
      if (v.contains("nginx")) w.nginx = verdict_text(v.at("nginx"));
      out.push_back(std::move(w));
    }
  }
  return out;
}

// True when the peer has sent something or closed: a refused request's answer is there, and
// more bytes would only meet a reset that can discard it.
bool peer_spoke(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 0) > 0;
}

struct WireResult {
  std::string verdict;  // "ok", the status, or "no answer"
  bool closed = false;
};

WireResult send_vector(std::uint16_t port, const WireVector& v, const std::string& expected,
                       bool bytewise) {
  Client client(port, 3000ms);
  if (!client.connected()) return {"no connection", true};
  const int one = 1;
  ::setsockopt(client.fd(), IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
  const bool accepted = expected == "ok";
  if (bytewise) {
    for (const char& byte : v.bytes) {
      // An accepted request may get a 100 Continue halfway; a refused one stops at the answer.
      if (!accepted && peer_spoke(client.fd())) break;
      if (!client.send(std::string_view(&byte, 1))) break;
    }
  } else {
    client.send(v.bytes);
  }
  // A request cut short is only refused when the stream ends.
  if (!accepted) ::shutdown(client.fd(), SHUT_WR);
  const std::optional<Response> r = client.read_response(v.head);
  WireResult out;
  if (!r) {
    out.verdict = "no answer";
    out.closed = client.closed_by_peer();
    return out;
  }
  out.verdict = r->status / 100 == 2 ? "ok" : std::to_string(r->status);
  if (out.verdict == "ok" && !v.close) {
    // Open: a second request on the connection gets its answer.
    client.send("GET /after HTTP/1.1\r\nHost: x\r\n\r\n");
    const std::optional<Response> after = client.read_response();
    out.closed = !after || after->status != 200;
  } else {
    out.closed = client.closed_by_peer();
  }
  return out;
}

class WireVectors : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    vectors_ = new std::vector<WireVector>(load_wire_vectors());
    serve_ = new ServeProcess("vectors");
    echo_ = new EchoBackend("echo");
    if (echo_->start()) balancer_ = start_balancer(base_config({spec("echo", echo_->port())}));
  }
  static void TearDownTestSuite() {
    balancer_.reset();
    delete echo_;
    delete serve_;
    delete vectors_;
  }

  void run_serve(bool bytewise) {
    ASSERT_NE(serve_->port(), 0);
    ASSERT_GE(vectors_->size(), 260u);
    for (const WireVector& v : *vectors_) {
      if (bytewise && v.bytes.size() > kBytewiseMax) continue;
      SCOPED_TRACE(v.name);
      const WireResult r = send_vector(serve_->port(), v, v.serve, bytewise);
      EXPECT_EQ(r.verdict, v.serve);
      EXPECT_EQ(r.closed, v.serve != "ok" || v.close);
    }
  }

  void run_balance(bool bytewise) {
    ASSERT_TRUE(balancer_);
    ASSERT_GE(vectors_->size(), 260u);
    std::size_t forwarded = echo_->request_count();
    for (const WireVector& v : *vectors_) {
      if (bytewise && v.bytes.size() > kBytewiseMax) continue;
      SCOPED_TRACE(v.name);
      const std::size_t before = echo_->request_count();
      const WireResult r = send_vector(balancer_->port(), v, v.balance, bytewise);
      EXPECT_EQ(r.verdict, v.balance);
      EXPECT_EQ(r.closed, v.balance != "ok" || v.close);
      const std::vector<std::string> seen = echo_->requests();
      if (v.balance != "ok") {
        EXPECT_EQ(seen.size(), before) << "a refused request reached the backend";
        continue;
      }
      forwarded += v.close ? 1 : 2;  // the request, then GET /after on the same connection
      ASSERT_GT(seen.size(), before) << "an accepted request did not reach the backend";
      const ParsedRequest sent = parse_request(v.bytes);
      const ParsedRequest got = parse_request(seen[before]);
      EXPECT_TRUE(got.complete) << seen[before];
      EXPECT_EQ(got.method, sent.method);
      EXPECT_EQ(got.target, sent.target);
      EXPECT_EQ(got.body, sent.body);
      EXPECT_EQ(seen.size(), before + (v.close ? 1 : 2)) << "one request, then GET /after";
    }
    // Nothing arrived late either: the backend saw exactly the accepted requests.
    EXPECT_EQ(echo_->request_count(), forwarded);
  }

  static std::vector<WireVector>* vectors_;
  static ServeProcess* serve_;
  static EchoBackend* echo_;
  static std::unique_ptr<Balancer> balancer_;
};

std::vector<WireVector>* WireVectors::vectors_ = nullptr;
ServeProcess* WireVectors::serve_ = nullptr;
EchoBackend* WireVectors::echo_ = nullptr;
std::unique_ptr<Balancer> WireVectors::balancer_;

TEST_F(WireVectors, ServeWhole) {
  run_serve(false);
}

TEST_F(WireVectors, ServeByteAtATime) {
  run_serve(true);
}

TEST_F(WireVectors, BalanceWhole) {
  run_balance(false);
}

TEST_F(WireVectors, BalanceByteAtATime) {
  run_balance(true);
}

// ---- HAProxy and nginx on the framing vectors --------------------------------------------------
// Each peer (Debian's, TEST_DEPS in the Makefile) runs as a reverse proxy in front of its own
// EchoBackend on loopback ports; every framing vector goes to it whole, then the client's side
// is shut (a request cut short is decided at the end of the stream). The peer's verdict is
// "ok" (a 2xx answer and one whole request at the backend), the status it answered with nothing
// forwarded, "close" (no answer, nothing forwarded), "fwd" (it forwarded bytes in which the
// backend, our own parser, found no whole request), or the answer followed by "+fwd" (and a
// count when more than one) when whole requests reached the backend anyway. Each forwarded
// request has its own backend connection (no reuse), so the counts are per vector. The vector file
// records both peers' verdicts ("haproxy", "nginx"), so a change in theirs fails here as a change
// in ours fails above; docs/http-conformance.md lists where they differ from ours and why.

// Framing and smuggling vectors: the ones a peer's verdict is recorded for.
bool is_framing_vector(const std::string& name) {
  for (const char* prefix :
       {"req-chunk", "req-cl-", "req-te-", "req-duplicate-cl", "req-trailer", "req-final", "rq-te-",
        "rq-clte-", "rq-tecl-", "rq-cl-", "rq-chunk-"}) {
    if (name.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

// A port nothing listens on now (the kernel's pick, released at once) for a peer's config.
int unused_port() {
  net::Fd fd(::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  ::bind(fd.get(), reinterpret_cast<sockaddr*>(&address), sizeof address);
  ::getsockname(fd.get(), reinterpret_cast<sockaddr*>(&address), &length);
  return ntohs(address.sin_port);
}

// Bounded wait (10 s) until something accepts connections on `port`.
bool wait_until_listening(std::uint16_t port) {
  for (int i = 0; i < 1000; ++i) {
    if (Client(port, 1000ms).connected()) return true;
    ::poll(nullptr, 0, 10);
  }
  return false;
}

std::string haproxy_config(int port, std::uint16_t backend) {
  return "global\n  nbthread 1\ndefaults\n  mode http\n  timeout connect 1s\n"
         "  timeout client 2s\n  timeout server 2s\n  retries 0\n  http-reuse never\n"
         "  option http-server-close\n"
         "frontend fe\n  bind 127.0.0.1:" +
         std::to_string(port) +
         "\n  default_backend be\nbackend be\n  server echo 127.0.0.1:" + std::to_string(backend) +
         "\n";
}

std::string nginx_proxy_config(const std::string& dir, int port, std::uint16_t backend) {
  std::string temp;
  for (const char* kind : {"client_body", "proxy", "fastcgi", "uwsgi", "scgi"})
    temp += std::string("  ") + kind + "_temp_path " + dir + "/" + kind + ";\n";
  return "daemon off;\nmaster_process off;\nworker_processes 1;\npid " + dir +
         "/nginx.pid;\nerror_log " + dir + "/error.log warn;\nevents { worker_connections 64; }\n" +
         "http {\n  access_log off;\n" + temp +
         "  server {\n    listen 127.0.0.1:" + std::to_string(port) +
         ";\n    location / {\n      proxy_pass http://127.0.0.1:" + std::to_string(backend) +
         ";\n      proxy_http_version 1.1;\n      proxy_set_header Connection \"\";\n"
         "      proxy_ignore_client_abort on;\n    }\n  }\n}\n";
}

// One peer proxy in front of its own EchoBackend; stopped (and its files removed) on destruction.
class PeerProxy {
 public:
  enum class Kind { Haproxy, Nginx };
  explicit PeerProxy(Kind kind) : port_(unused_port()) {
    if (!echo_.start()) return;
    if (kind == Kind::Haproxy) {
      std::ofstream(dir_ + "/haproxy.cfg") << haproxy_config(port_, echo_.port());
      child_ = std::make_unique<stampede::testing::ChildProcess>(
          std::vector<std::string>{"/usr/sbin/haproxy", "-db", "-f", dir_ + "/haproxy.cfg"});
    } else {
      std::ofstream(dir_ + "/nginx.conf") << nginx_proxy_config(dir_, port_, echo_.port());
      child_ = std::make_unique<stampede::testing::ChildProcess>(std::vector<std::string>{
          "/usr/sbin/nginx", "-p", dir_, "-e", dir_ + "/error.log", "-c", dir_ + "/nginx.conf"});
    }
    ready_ = wait_until_listening(static_cast<std::uint16_t>(port_));
  }
  ~PeerProxy() {
    if (child_) {
      child_->signal(SIGTERM);
      child_->wait(5000ms);
    }
    child_.reset();
    echo_.stop();
  }
  bool ready() const { return ready_; }
  std::string log() const { return child_ ? child_->stderr_text() : ""; }

  std::string verdict(const WireVector& v) {
    const std::size_t requests = echo_.request_count();
    const std::size_t connections = echo_.connection_count();
    Client client(static_cast<std::uint16_t>(port_), 3000ms);
    client.send(v.bytes);
    ::shutdown(client.fd(), SHUT_WR);
    const std::optional<Response> r = client.read_response(v.head);
    const std::string answer = !r                     ? "close"
                               : r->status / 100 == 2 ? "ok"
                                                      : std::to_string(r->status);
    client.closed_by_peer();  // the backend's side is done once the client's is
    const std::size_t complete = echo_.request_count() - requests;
    if (complete == 0) {
      // Something reached the backend, which found no whole request in it: which status the
      // peer then answers (400 or 502) depends on timing, the forwarding does not.
      return echo_.connection_count() > connections ? "fwd" : answer;
    }
    if (answer == "ok" && complete == 1) return answer;
    return answer + "+fwd" + (complete > 1 ? std::to_string(complete) : "");
  }

 private:
  stampede::testing::TempDir tmp_;
  const std::string dir_ = tmp_.path();
  int port_;
  EchoBackend echo_{"echo"};
  std::unique_ptr<stampede::testing::ChildProcess> child_;
  bool ready_ = false;
};

// What is compared: accepted ("ok"), refused before a whole request reached the backend (any
// status, "close" or "fwd": which one a streaming peer gives can depend on timing), or a whole
// request forwarded with another answer (exact).
std::string peer_class(const std::string& verdict) {
  if (verdict == "ok" || verdict.find("+fwd") != std::string::npos) return verdict;
  return "refused";
}

void check_peer(PeerProxy::Kind kind, const char* name, std::string WireVector::*expected) {
  const std::vector<WireVector> vectors = load_wire_vectors();
  PeerProxy peer(kind);
  ASSERT_TRUE(peer.ready()) << name << " did not start: " << peer.log();
  int framing = 0;
  for (const WireVector& v : vectors) {
    if (!is_framing_vector(v.name)) continue;
    ++framing;
    SCOPED_TRACE(v.name);
    const std::string verdict = peer.verdict(v);
    EXPECT_FALSE((v.*expected).empty()) << name << " answered " << verdict << ": not recorded";
    EXPECT_EQ(peer_class(verdict), peer_class(v.*expected))
        << name << " answered " << verdict << ", recorded: " << v.*expected;
  }
  EXPECT_GE(framing, 150);
}

TEST(PeerVerdicts, Haproxy) {
  if (!std::filesystem::exists("/usr/sbin/haproxy")) {
    GTEST_SKIP() << "haproxy is not installed (TEST_DEPS: make test-deps)";
  }
  check_peer(PeerProxy::Kind::Haproxy, "haproxy", &WireVector::haproxy);
}

TEST(PeerVerdicts, Nginx) {
  if (!std::filesystem::exists("/usr/sbin/nginx")) {
    GTEST_SKIP() << "nginx is not installed (TEST_DEPS: make test-deps)";
  }
  check_peer(PeerProxy::Kind::Nginx, "nginx", &WireVector::nginx);
}

}  // namespace
}  // namespace stampede::balancer::testing
