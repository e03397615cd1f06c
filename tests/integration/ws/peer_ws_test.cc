// Interoperability with a WebSocket implementation no one here wrote: the npm package `ws`
// (tests/peers). The generator against a `ws` echo server, and a `ws` client against
// `stampede serve`. Skipped, saying why, when node or the package is missing (make test-deps).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <string>

#include "loadgen/runner.h"
#include "server/server.h"
#include "support/credential_files.h"
#include "support/in_process.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::loadgen {
namespace {

using std::chrono::milliseconds;
namespace fs = std::filesystem;

const fs::path kPeers = fs::path(STAMPEDE_SOURCE_DIR) / "tests" / "peers";

// node's path from PATH, or "" when it is not installed.
std::string find_node() {
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    const fs::path candidate = fs::path(dirs.substr(start, end - start)) / "node";
    std::error_code ec;
    if (fs::is_regular_file(candidate, ec)) return candidate.string();
    start = end + 1;
  }
  return "";
}

// Skips the test unless node and tests/peers/node_modules/ws are there.
#define REQUIRE_PEER(node)                                                                       \
  const std::string node = find_node();                                                          \
  if (node.empty()) GTEST_SKIP() << "node is not installed (make test-deps installs it)";        \
  if (!fs::exists(kPeers / "node_modules" / "ws" / "package.json")) {                            \
    GTEST_SKIP() << "the npm package ws is missing in tests/peers (make test-deps installs it)"; \
  }

// 200 messages of `message` over 4 clients to the echo server at SCHEME://127.0.0.1:PORT/echo.
Config echo_client(const std::string& scheme, int port, const std::string& message) {
  Config c = testing::one_core_config(scheme + "://127.0.0.1:" + std::to_string(port) + "/echo",
                                      200, 4, std::chrono::seconds(5));
  c.body = message;
  return c;
}

// Every message of echo_client's run answered, over its 4 connections.
void expect_all_echoed(const RunResult& r) {
  EXPECT_EQ(r.total_requests, 200u);
  EXPECT_EQ(r.total_errors, 0u) << (r.error_codes.empty() ? "" : r.error_codes.begin()->first);
  EXPECT_EQ(r.ws.messages, 200u);
  EXPECT_EQ(r.connections_opened, 4u);
}

TEST(PeerWs, GeneratorAgainstTheWsEchoServer) {
  REQUIRE_PEER(node);
  const testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  const std::string ready = dir + "/port";
  const std::string message = "interop \xc3\xa9t\xc3\xa9";
  testing::ChildProcess peer({node, (kPeers / "ws_echo_server.mjs").string(), ready, message});
  const int port = testing::wait_for_port_file(ready, milliseconds(10000));
  ASSERT_GT(port, 0) << peer.stderr_text();
  Config c = echo_client("ws", port, message);
  auto r = run(c);
  ASSERT_TRUE(r) << r.error().message;
  expect_all_echoed(*r);
  EXPECT_TRUE(peer.running());
}

// wss://: the same echo server behind node's https server, with a throwaway certificate.
TEST(PeerWs, GeneratorAgainstTheWsEchoServerOverTls) {
  REQUIRE_PEER(node);
  const testing::CredentialFiles files;
  const std::string ready = files.dir().file("port");
  testing::ChildProcess peer({node, (kPeers / "ws_echo_server.mjs").string(), "--tls", files.cert(),
                              files.key(), ready, "over TLS"});
  const int port = testing::wait_for_port_file(ready, milliseconds(10000));
  ASSERT_GT(port, 0) << peer.stderr_text();
  Config c = echo_client("wss", port, "over TLS");
  c.insecure = true;
  auto r = run(c);
  ASSERT_TRUE(r) << r.error().message;
  expect_all_echoed(*r);
  EXPECT_EQ(r->tls_handshakes, 4u);

  // Without --insecure the self-signed certificate fails, counted by name.
  c.insecure = false;
  c.max_requests = 4;
  c.concurrency = 2;
  r = run(c);
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->error_codes, (std::map<std::string, std::uint64_t>{{"CERT_VERIFY_FAILED", 4}}));
  EXPECT_TRUE(peer.running());
}

TEST(PeerWs, WsClientAgainstStampedeServe) {
  REQUIRE_PEER(node);
  auto s = testing::start_server();
  ASSERT_TRUE(s);
  const std::string url = "ws://127.0.0.1:" + std::to_string(s->port()) + "/chat";
  const auto result = testing::run_command(
      {node, (kPeers / "ws_client.mjs").string(), url, "100", "h\xc3\xa9llo from ws"},
      milliseconds(20000));
  EXPECT_EQ(result.status, 0) << result.out << result.err;
  EXPECT_EQ(result.out, "ok 100\n") << result.err;
  const auto totals = s->stop();
  EXPECT_EQ(totals.requests, 100u);
  EXPECT_EQ(totals.connections, 1u);
}

}  // namespace
}  // namespace stampede::loadgen
