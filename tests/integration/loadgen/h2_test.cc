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
#include <sstream>
#include <string>
#include <vector>

#include "cli/generator.h"
#include "loadgen/report/json.h"
#include "loadgen/report/text.h"
#include "loadgen/runner.h"
#include "server/server.h"
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

Config h2_config_for(const server::Server& s) {
  Config c;
  c.url = "http://127.0.0.1:" + std::to_string(s.port()) + "/";
  c.cores = 1;
  c.timeout = std::chrono::seconds(10);
  c.http2 = true;
  return c;
}

Expected<CliRequest> h2_command_line(std::vector<std::string> args) {
  const testing::TempDir dir;
  args.insert(args.begin(), "stampede");
  std::vector<const char*> argv;
  for (const auto& a : args)
    argv.push_back(a.c_str());
  return parse_command_line(static_cast<int>(argv.size()), argv.data(), dir.path());
}

// stampede --http2 --streams 8 -n 1000 -c 2: nothing lost, nothing counted twice.
TEST(Http2, ExactCountsOverStreamsAndConnections) {
  auto s = start_server();
  ASSERT_TRUE(s);
  Config c = h2_config_for(*s);
  c.max_requests = 1000;
  c.concurrency = 2;
  c.streams = 8;
  const RunResult r = must_run(c);
  EXPECT_EQ(s->served(), 1000u);  // what GET /count says
  const auto totals = s->stop();
  EXPECT_EQ(r.total_requests, 1000u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(r.status_counts.at(200), 1000u);
  EXPECT_EQ(totals.requests, 1000u);
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
  server::ServerOptions options;
  options.max_streams = 2;
  auto s = start_server(options);
  ASSERT_TRUE(s);
  Config c = h2_config_for(*s);
  c.max_requests = 200;
  c.concurrency = 1;
  c.streams = 16;
  const RunResult r = must_run(c);
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
  Config c = h2_config_for(*s);
  c.url += "?delay=50";
  c.max_requests = 20;
  c.concurrency = 1;
  c.streams = 2;
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
  Config c = h2_config_for(*s);
  c.max_requests = 30;
  c.concurrency = 1;
  c.streams = 4;
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

constexpr const char* kNghttpd = "/usr/sbin/nghttpd";

// A peer no one here wrote: nghttpd (h2c with prior knowledge, its default 100 streams).
TEST(Http2, AgainstNghttpd) {
  if (!std::filesystem::exists(kNghttpd))
    GTEST_SKIP() << "nghttpd is not installed (make test-deps)";
  const testing::TempDir dir;
  std::ofstream(dir.path() + "/index.html") << "hello";
  const int port = stampede::testing::unused_loopback_port();
  testing::ChildProcess nghttpd({kNghttpd, "--no-tls", "-d", dir.path(), std::to_string(port)});
  ASSERT_TRUE(testing::eventually([&] {
    return testing::connect_loopback(static_cast<std::uint16_t>(port)).valid();
  })) << nghttpd.stderr_text();
  Config c;
  c.url = "http://127.0.0.1:" + std::to_string(port) + "/index.html";
  c.cores = 1;
  c.timeout = std::chrono::seconds(10);
  c.http2 = true;
  c.max_requests = 300;
  c.concurrency = 2;
  c.streams = 8;
  const RunResult r = must_run(c);
  nghttpd.signal(SIGTERM);
  nghttpd.wait(std::chrono::milliseconds(5000));
  EXPECT_EQ(r.total_requests, 300u);
  EXPECT_EQ(r.total_errors, 0u) << ::testing::PrintToString(r.error_codes);
  EXPECT_EQ(r.status_counts.count(200) ? r.status_counts.at(200) : 0u, 300u);
  ASSERT_TRUE(r.h2.server_settings.has_value());
  EXPECT_EQ(r.h2.server_settings->max_concurrent_streams, 100u);
}

// https: ALPN "h2" is offered, the test server's TLS selects it (h2 before http/1.1), and the
// streams run over TLS with the same exact counts as over h2c.
TEST(Http2, HttpsWithAlpnH2AgainstTheTestServer) {
  server::ServerOptions options;
  options.tls_self_signed = true;
  auto s = start_server(options);
  ASSERT_TRUE(s);
  Config c = h2_config_for(*s);
  c.url = "https://127.0.0.1:" + std::to_string(s->port()) + "/";
  c.insecure = true;
  c.max_requests = 300;
  c.concurrency = 2;
  c.streams = 4;
  const RunResult r = must_run(c);
  EXPECT_EQ(s->served(), 300u);
  const auto totals = s->stop();
  EXPECT_EQ(r.total_requests, 300u);
  EXPECT_EQ(r.total_errors, 0u);
  EXPECT_EQ(r.status_counts.at(200), 300u);
  EXPECT_EQ(totals.requests, 300u);
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
  Config c = h2_config_for(*s);
  c.url = "https://127.0.0.1:" + std::to_string(s->port()) + "/";
  c.insecure = true;
  c.max_requests = 3;
  c.concurrency = 1;
  c.streams = 4;
  const RunResult r = must_run(c);
  s->stop();
  EXPECT_EQ(r.total_requests, 3u);
  EXPECT_EQ(error_count(r, "no h2 in ALPN"), 3u);
  EXPECT_EQ(r.tls_handshakes, 3u);
}

// https against nghttpd: ALPN h2, then as over h2c.
TEST(Http2, HttpsAgainstNghttpd) {
  if (!std::filesystem::exists(kNghttpd))
    GTEST_SKIP() << "nghttpd is not installed (make test-deps)";
  const testing::TempDir dir;
  std::ofstream(dir.path() + "/index.html") << "hello";
  const auto credentials = tls::make_self_signed();
  ASSERT_TRUE(credentials.ok());
  std::ofstream(dir.path() + "/cert.pem") << credentials->cert_pem;
  std::ofstream(dir.path() + "/key.pem") << credentials->key_pem;
  const int port = stampede::testing::unused_loopback_port();
  testing::ChildProcess nghttpd({kNghttpd, "-d", dir.path(), std::to_string(port),
                                 dir.path() + "/key.pem", dir.path() + "/cert.pem"});
  ASSERT_TRUE(testing::eventually([&] {
    return testing::connect_loopback(static_cast<std::uint16_t>(port)).valid();
  })) << nghttpd.stderr_text();
  Config c;
  c.url = "https://127.0.0.1:" + std::to_string(port) + "/index.html";
  c.insecure = true;
  c.cores = 1;
  c.timeout = std::chrono::seconds(10);
  c.http2 = true;
  c.max_requests = 200;
  c.concurrency = 2;
  c.streams = 8;
  const RunResult r = must_run(c);
  nghttpd.signal(SIGTERM);
  nghttpd.wait(std::chrono::milliseconds(5000));
  EXPECT_EQ(r.total_requests, 200u);
  EXPECT_EQ(r.total_errors, 0u) << ::testing::PrintToString(r.error_codes);
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
  const testing::TempDir dir;
  const std::string script = dir.path() + "/request.lua";
  std::FILE* f = std::fopen(script.c_str(), "w");
  ASSERT_NE(f, nullptr);
  std::fputs("function request(id) return {path = '/'} end\n", f);
  std::fclose(f);
  EXPECT_EQ(h2_refusal({url, "--http2", "-R", script}),
            "--http2 does not work with Lua scripts or request callbacks (not wired to HTTP/2 "
            "yet)");
}

}  // namespace
}  // namespace stampede::loadgen
