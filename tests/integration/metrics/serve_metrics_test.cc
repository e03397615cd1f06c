// GET /metrics of `stampede serve` (in process) and of `stampede balance` (the binary): the
// figures, and promtool's lint of both texts (no warning).
#include <gtest/gtest.h>

#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <string>

#include "metrics_support.h"
#include "support/loopback.h"
#include "support/process.h"
#include "support/temp_dir.h"
#include "support/test_server.h"

namespace stampede::testing {
namespace {

using namespace std::chrono_literals;

TEST(ServeMetrics, CountsByStatusBytesAndConnectionsAndLintsClean) {
  server::ServerOptions options;
  options.cores = 2;
  auto s = start_server(options);
  ASSERT_TRUE(s);
  for (int i = 0; i < 3; ++i)
    ASSERT_NE(get_raw(s->port(), "/"), "");
  for (int i = 0; i < 2; ++i)
    ASSERT_NE(get_raw(s->port(), "/?status=404"), "");
  const std::string response = get_raw(s->port(), "/metrics");
  s->stop();
  EXPECT_NE(response.find("Content-Type: text/plain; version=0.0.4; charset=utf-8\r\n"),
            std::string::npos)
      << response;
  const std::string text = body_of(response);
  EXPECT_NE(text.find("\nstampede_serve_requests_total 5\n"), std::string::npos) << text;
  EXPECT_NE(text.find("\nstampede_serve_responses_total{status=\"200\"} 3\n"), std::string::npos);
  EXPECT_NE(text.find("\nstampede_serve_responses_total{status=\"404\"} 2\n"), std::string::npos);
  EXPECT_NE(text.find("\nstampede_serve_connections_accepted_total 6\n"), std::string::npos);
  EXPECT_NE(text.find("\nstampede_serve_request_duration_seconds_count 5\n"), std::string::npos);
  EXPECT_EQ(text.find("\nstampede_serve_sent_bytes_total 0\n"), std::string::npos);
  const std::string lint = promtool_lint(text);
  if (lint == "skip") GTEST_SKIP() << "promtool missing (prometheus)";
  EXPECT_EQ(lint, "");
}

TEST(BalanceMetrics, LintsClean) {
  if (access("/usr/bin/promtool", X_OK) != 0) GTEST_SKIP() << "promtool missing (prometheus)";
  auto backend = start_server();
  ASSERT_TRUE(backend);
  TempDir dir;
  const std::string ready = dir.file("port");
  ChildProcess lb({STAMPEDE_BINARY, "balance", "--listen", "127.0.0.1:0", "--backend",
                   "a=127.0.0.1:" + std::to_string(backend->port()), "--ready-file", ready});
  const int port = wait_for_port_file(ready, 10s);
  ASSERT_GT(port, 0) << lb.stderr_text();
  ASSERT_NE(get_raw(static_cast<std::uint16_t>(port), "/"), "");
  const std::string text = body_of(get_raw(static_cast<std::uint16_t>(port), "/metrics"));
  EXPECT_NE(text.find("stampede_lb_responses_total{backend=\"a\""), std::string::npos) << text;
  EXPECT_EQ(promtool_lint(text), "");
}

}  // namespace
}  // namespace stampede::testing
