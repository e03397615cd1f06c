// --http2 end to end, in-process (and against nghttpd, nghttp2's own server, when installed): the
// generator's HTTP/2 client against the test server's h2c (src/server/h2_connection), exact counts
// on both sides; the server's SETTINGS_MAX_CONCURRENT_STREAMS below --streams; a server that
// answers HTTP/1.1 only; the option sweep of --streams and the combinations --http2 refuses,
// through the command line's parse (one line naming the option).
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "cli/generator.h"
#include "loadgen/report/json.h"
#include "loadgen/report/text.h"
#include "loadgen/runner.h"
#include "server/server.h"
#include "support/generator_refusal.h"
#include "support/in_process.h"
#include "support/loopback.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/wait.h"
#include "tls/self_signed.h"

namespace stampede::loadgen {
namespace {

using testing::error_count;
using testing::must_run;
using testing::start_server;
using testing::start_server_with;

// An --http2 run of `requests` over `concurrency` connections of `streams` streams each against
// `url`.
Config h2_config(std::string url, std::uint64_t requests, std::uint32_t concurrency,
                 std::uint32_t streams) {
  Config c;
  c.url = std::move(url);
  c.cores = 1;
  c.timeout = std::chrono::seconds(10);
  c.http2 = true;
  c.max_requests = requests;
  c.concurrency = concurrency;
  c.streams = streams;
  return c;
}

// The same against the test server `s` ("http://127.0.0.1:PORT/").
Config h2_config_for(const server::Server& s, std::uint64_t requests, std::uint32_t concurrency,
                     std::uint32_t streams) {
  return h2_config("http://127.0.0.1:" + std::to_string(s.port()) + "/", requests, concurrency,
                   streams);
}

// The checks of a run of `n` requests against the test server `s`, all answered 200 and seen by
// the server (GET /count, then its totals once stopped); returns those totals.
server::ServerTotals expect_exact_counts(const RunResult& r, server::Server& s, std::uint64_t n) {
  EXPECT_EQ(s.served(), n);
  const auto totals = s.stop();
  EXPECT_EQ(r.total_requests, n);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(r.status_counts.at(200), n);
  EXPECT_EQ(totals.requests, n);
  return totals;
}

// nghttpd serving a folder that holds index.html ("hello") on a port of 127.0.0.1, h2c or (with
// `tls`) https with a self-signed certificate; stopped by SIGTERM when it goes out of scope.
class Nghttpd {
 public:
  static constexpr const char* kPath = "/usr/sbin/nghttpd";

  explicit Nghttpd(bool tls) : port_(testing::unused_loopback_port()) {
    std::ofstream(dir_.file("index.html")) << "hello";
    std::vector<std::string> argv{kPath};
    if (!tls) argv.emplace_back("--no-tls");
    argv.insert(argv.end(), {"-d", dir_.path(), std::to_string(port_)});
    if (tls) {
      const auto credentials = tls::make_self_signed();
      EXPECT_TRUE(credentials.ok());
      if (credentials.ok()) {
        std::ofstream(dir_.file("cert.pem")) << credentials->cert_pem;
        std::ofstream(dir_.file("key.pem")) << credentials->key_pem;
      }
      argv.insert(argv.end(), {dir_.file("key.pem"), dir_.file("cert.pem")});
    }
    process_.emplace(std::move(argv));
  }
  ~Nghttpd() {
    process_->signal(SIGTERM);
    process_->wait(std::chrono::milliseconds(5000));
  }

  // Whether it accepts connections within the default deadline of testing::eventually.
  bool ready() const {
    return testing::eventually([&] { return testing::connect_loopback(port_).valid(); });
  }
  std::string stderr_text() const { return process_->stderr_text(); }
  // Its index.html over `scheme` ("http" or "https").
  std::string url(const std::string& scheme) const {
    return scheme + "://127.0.0.1:" + std::to_string(port_) + "/index.html";
  }

 private:
  testing::TempDir dir_;
  std::uint16_t port_;
  std::optional<testing::ChildProcess> process_;
};

// The run of `requests` over 2 connections of 8 streams against nghttpd (h2c, or https with
// `tls`), which is stopped before this returns, checked to count them all without error; empty,
// with a test failure, when nghttpd does not start.
RunResult expect_nghttpd_run(bool tls, std::uint64_t requests) {
  const Nghttpd nghttpd(tls);
  const bool ready = nghttpd.ready();
  EXPECT_TRUE(ready) << nghttpd.stderr_text();
  if (!ready) return {};
  Config c = h2_config(nghttpd.url(tls ? "https" : "http"), requests, 2, 8);
  c.insecure = tls;
  RunResult r = must_run(c);
  EXPECT_EQ(r.total_requests, requests);
  EXPECT_EQ(r.total_errors, 0u) << ::testing::PrintToString(r.error_codes);
  return r;
}

Expected<CliRequest> h2_command_line(const std::vector<std::string>& args) {
  const testing::TempDir dir;
  return testing::generator_command_line(args, dir.path());
}

// stampede --http2 --streams 8 -n 1000 -c 2: nothing lost, nothing counted twice.
TEST(Http2, ExactCountsOverStreamsAndConnections) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const RunResult r = must_run(h2_config_for(*s, 1000, 2, 8));
  const auto totals = expect_exact_counts(r, *s, 1000);
  EXPECT_EQ(r.connections_opened, 2u);
  EXPECT_EQ(totals.connections, 2u);
  EXPECT_TRUE(r.http2);
  ASSERT_TRUE(r.h2.server_settings.has_value());
  EXPECT_EQ(r.h2.server_settings->max_concurrent_streams, 128u);  // serve's default
  EXPECT_EQ(r.h2.server_settings->max_frame_size, 16384u);
  std::ostringstream text;
  write_text_report(r, text);
  EXPECT_NE(text.str().find("Streams/connection:  8\n"), std::string::npos) << text.str();
  EXPECT_NE(text.str().find("MAX_CONCURRENT_STREAMS 128"), std::string::npos) << text.str();
}

TEST(Http2, TheServersStreamLimitIsUsedAndReported) {
  auto s = start_server_with([](server::ServerOptions& o) { o.max_streams = 2; });
  ASSERT_TRUE(s);
  const RunResult r = must_run(h2_config_for(*s, 200, 1, 16));
  s->stop();
  EXPECT_EQ(r.total_requests, 200u);
  EXPECT_EQ(r.total_errors, 0u);  // never above the server's limit: no REFUSED_STREAM
  EXPECT_TRUE(r.h2.rst_stream.empty());
  EXPECT_EQ(effective_streams(r.h2, 16), 2u);
  std::ostringstream text;
  write_text_report(r, text);
  EXPECT_NE(text.str().find("Streams/connection:  2 (--streams 16: the server allows 2)"),
            std::string::npos)
      << text.str();
  const auto json = to_json(r);
  EXPECT_EQ(json.at("http2").at("streamsPerConnection"), 16);
  EXPECT_EQ(json.at("http2").at("streamsUsed"), 2);
  EXPECT_EQ(json.at("http2").at("serverSettings").at("maxConcurrentStreams"), 2);
}

// --rps: the streams carry the schedule. 2 streams of a server that takes 50 ms each hold 40
// requests/s at most: at 100/s nearly every request waits for a free stream, and its latency
// counts from its intended time (corrected >= uncorrected + the wait).
TEST(Http2, PacedRequestsWaitForAFreeStream) {
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = h2_config_for(*s, 20, 1, 2);
  c.url += "?delay=50";
  c.rps = 100;
  const RunResult r = must_run(c);
  s->stop();
  EXPECT_EQ(r.total_requests, 20u);
  EXPECT_EQ(r.total_errors, 0u);
  ASSERT_TRUE(r.rate.has_value());
  EXPECT_EQ(r.rate->scheduled, 20u);
  EXPECT_GE(r.rate->late_waiting, 10u);  // the schedule outruns 2 streams from the 3rd request
  // The last request is due at 190 ms and is answered after 10 rounds of 50 ms at the earliest.
  EXPECT_GT(r.latency.max(), r.rate->uncorrected.max());
}

TEST(Http2, QueryIndexAndBodyGoWithEveryStream) {
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = h2_config_for(*s, 30, 1, 4);
  c.method = "POST";
  c.body = std::string(40000, 'b');  // more than one DATA frame
  c.url += "?status=201&i=INDEX";
  c.index_param = "INDEX";
  const RunResult r = must_run(c);
  s->stop();
  EXPECT_EQ(r.total_requests, 30u);
  EXPECT_EQ(r.status_counts.at(201), 30u);
  EXPECT_GT(r.bytes_written, 30u * 40000u);
}

// A peer no one here wrote: nghttpd (h2c with prior knowledge, its default 100 streams).
TEST(Http2, AgainstNghttpd) {
  if (!std::filesystem::exists(Nghttpd::kPath))
    GTEST_SKIP() << "nghttpd is not installed (make test-deps)";
  const RunResult r = expect_nghttpd_run(/*tls=*/false, 300);
  EXPECT_EQ(r.status_counts.count(200) ? r.status_counts.at(200) : 0u, 300u);
  ASSERT_TRUE(r.h2.server_settings.has_value());
  EXPECT_EQ(r.h2.server_settings->max_concurrent_streams, 100u);
}

// https: ALPN "h2" is offered, the test server's TLS selects it (h2 before http/1.1), and the
// streams run over TLS with the same exact counts as over h2c.
TEST(Http2, HttpsWithAlpnH2AgainstTheTestServer) {
  auto s = start_server_with([](server::ServerOptions& o) { o.tls_self_signed = true; });
  ASSERT_TRUE(s);
  Config c = h2_config("https://127.0.0.1:" + std::to_string(s->port()) + "/", 300, 2, 4);
  c.insecure = true;
  const RunResult r = must_run(c);
  expect_exact_counts(r, *s, 300);
  EXPECT_EQ(r.tls_handshakes, 2u);
  ASSERT_TRUE(r.h2.server_settings.has_value());
  EXPECT_EQ(r.h2.server_settings->max_concurrent_streams, 128u);
}

// https: ALPN "h2" is the only protocol offered; serve --no-http2 selects http/1.1 only.
TEST(Http2, HttpsWithoutH2InAlpnIsOneFailurePerConnection) {
  server::ServerOptions options;
  options.tls_self_signed = true;
  options.http2 = false;  // serve --no-http2: ALPN http/1.1 only
  auto s = start_server(options);
  ASSERT_TRUE(s);
  Config c = h2_config("https://127.0.0.1:" + std::to_string(s->port()) + "/", 3, 1, 4);
  c.insecure = true;
  const RunResult r = must_run(c);
  s->stop();
  EXPECT_EQ(r.total_requests, 3u);
  EXPECT_EQ(error_count(r, "no h2 in ALPN"), 3u);
  EXPECT_EQ(r.tls_handshakes, 3u);
}

// https against nghttpd: ALPN h2, then as over h2c.
TEST(Http2, HttpsAgainstNghttpd) {
  if (!std::filesystem::exists(Nghttpd::kPath))
    GTEST_SKIP() << "nghttpd is not installed (make test-deps)";
  const RunResult r = expect_nghttpd_run(/*tls=*/true, 200);
  EXPECT_EQ(r.tls_handshakes, 2u);
}

std::string h2_refusal(const std::vector<std::string>& args) {
  auto request = h2_command_line(args);
  return request.ok() ? std::string("accepted") : request.error().message;
}

TEST(Http2, StreamsOptionSweep) {
  const std::string url = "http://127.0.0.1:9/";
  for (const char* bad : {"0", "1001", "abc", "-1", "", "2x", "1e3"}) {
    const std::string line = h2_refusal({url, "--http2", "--streams", bad});
    EXPECT_EQ(line.rfind("--streams: ", 0), 0u) << "'" << bad << "': " << line;
  }
  EXPECT_EQ(h2_refusal({url, "--http2", "--streams", "1000"}), "accepted");
  EXPECT_EQ(h2_refusal({url, "--streams", "4"}), "--streams: needs --http2");
  // h2load's -m is the streams; here it is the method, and a number is none.
  const std::string not_a_method =
      "-m: '10' is not a method (-m is the method, as in loadtest; for h2load's -m, streams per "
      "connection, use --streams)";
  EXPECT_EQ(h2_refusal({url, "--http2", "-m", "10"}), not_a_method);
  EXPECT_EQ(h2_refusal({url, "-m", "10"}), not_a_method);
  EXPECT_EQ(h2_refusal({url, "--http2", "-m", "post"}), "accepted");
}

TEST(Http2, RefusedCombinationsNameBothOptions) {
  const std::string url = "http://127.0.0.1:9/";
  EXPECT_EQ(h2_refusal({url, "--http2", "-k", "--pipeline", "4"}),
            "--http2 and --pipeline do not go together: HTTP/2 carries concurrent requests as "
            "streams (--streams)");
  EXPECT_EQ(h2_refusal({url, "--http2", "--proxy", "http://127.0.0.1:9"}),
            "--http2 and --proxy do not go together (no HTTP/2 through a proxy yet)");
  EXPECT_EQ(h2_refusal({"ws://127.0.0.1:9/", "--http2"}),
            "--http2 does not apply to WebSocket (ws://, wss://)");
}

}  // namespace
}  // namespace stampede::loadgen
