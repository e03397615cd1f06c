// Upgrade requests (docs/balance.md, Forwarding): a WebSocket upgrade is forwarded with
// "Connection: upgrade" and a 101 turns the connection into a byte tunnel both ways; any other
// upgrade (h2c, another protocol, a list) loses its Upgrade field and goes as plain HTTP/1.1.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <string>
#include <string_view>

#include "lb_support.h"
#include "support/accept_loop.h"
#include "support/loopback.h"

namespace stampede::balancer::testing {
namespace {

// Answers the head of each connection with 101 and then echoes bytes until EOF.
class UpgradeEchoBackend {
 public:
  std::uint16_t port() const { return loop_.port(); }
  // The head of the last connection, as the backend received it.
  std::string head() const {
    std::lock_guard lock(mutex_);
    return head_;
  }

 private:
  void serve(int fd) {
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string buf;
    char chunk[65536];
    while (buf.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = stampede::testing::recv_some(fd, chunk, sizeof chunk);
      if (n <= 0) break;
      buf.append(chunk, static_cast<std::size_t>(n));
    }
    std::size_t end = buf.find("\r\n\r\n");
    {
      std::lock_guard lock(mutex_);
      head_ = buf.substr(0, end == std::string::npos ? buf.size() : end + 4);
    }
    std::string rest = end == std::string::npos ? "" : buf.substr(end + 4);
    stampede::testing::send_all(
        fd,
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n" +
            rest);
    for (;;) {
      ssize_t n = stampede::testing::recv_some(fd, chunk, sizeof chunk);
      if (n <= 0) break;
      stampede::testing::send_all(fd, std::string_view(chunk, static_cast<std::size_t>(n)));
    }
  }

  mutable std::mutex mutex_;
  std::string head_;
  stampede::testing::AcceptLoop loop_{[this](int fd) { serve(fd); }};  // last: stops first
};

TEST(Tunnel, UpgradeAnswered101BecomesATunnel) {
  UpgradeEchoBackend backend;
  auto lb = start_balancer(base_config({spec("u", backend.port())}));
  ASSERT_TRUE(lb);
  {
    Client client(lb->port());
    ASSERT_TRUE(
        client.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: WebSocket\r\n"
                    "Connection: keep-alive, Upgrade\r\n\r\nearly"));
    auto head = client.read_until("\r\n\r\n");
    ASSERT_TRUE(head);
    EXPECT_EQ(head->rfind("HTTP/1.1 101 ", 0), 0u) << *head;
    EXPECT_NE(head->find("Upgrade: websocket\r\n"), std::string::npos) << *head;
    EXPECT_NE(head->find("x-backend: u\r\n"), std::string::npos) << *head;
    EXPECT_NE(head->find("Connection: upgrade\r\n"), std::string::npos) << *head;
    EXPECT_TRUE(client.wait_for("early"));  // sent right after the request, echoed back
    ASSERT_TRUE(client.send("ping-1"));
    EXPECT_TRUE(client.wait_for("ping-1"));
    std::string big(300000, 'z');
    big += "END";
    std::thread writer([&] { client.send(big); });
    auto echoed = client.read_until("END");
    writer.join();
    ASSERT_TRUE(echoed);
    EXPECT_EQ(echoed->size(), big.size());
  }
  std::string h = backend.head();
  EXPECT_NE(h.find("Upgrade: WebSocket\r\n"), std::string::npos) << h;
  EXPECT_NE(h.find("Connection: upgrade\r\n"), std::string::npos) << h;
  EXPECT_EQ(h.find("keep-alive"), std::string::npos) << h;
}

// Every upgrade but WebSocket alone: forwarded without Upgrade, as a plain request that the
// backend answers normally.
const char* const kNotWebSocket[] = {
    "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA\r\nConnection: Upgrade, "
    "HTTP2-Settings\r\n",
    "Upgrade: echo\r\nConnection: Upgrade\r\n",
    "Upgrade: websocket, h2c\r\nConnection: Upgrade\r\n",
    "Upgrade: websocket\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n",
    "Upgrade: websocket/13\r\nConnection: Upgrade\r\n",
};

TEST(Tunnel, OtherUpgradesAreForwardedAsPlainRequests) {
  EchoBackend backend("e");
  ASSERT_TRUE(backend.start());
  auto lb = start_balancer(base_config({spec("e", backend.port())}));
  ASSERT_TRUE(lb);
  for (const char* upgrade : kNotWebSocket) {
    SCOPED_TRACE(upgrade);
    Client client(lb->port());
    ASSERT_TRUE(client.send(std::string("GET /x HTTP/1.1\r\nHost: x\r\n") + upgrade + "\r\n"));
    auto r = client.read_response();
    ASSERT_TRUE(r);
    EXPECT_EQ(r->status, 200) << r->raw;
    EXPECT_EQ(r->header("x-backend"), "e");
    // The connection is still HTTP: a second request on it is answered too.
    auto again = client.get("/y");
    ASSERT_TRUE(again);
    EXPECT_EQ(again->status, 200) << again->raw;
  }
  const std::vector<std::string> seen = backend.requests();
  ASSERT_EQ(seen.size(), 2 * std::size(kNotWebSocket));
  for (const std::string& head : seen) {
    EXPECT_EQ(head.find("Upgrade:"), std::string::npos) << head;
    EXPECT_EQ(head.find("pgrade\r\n"), std::string::npos) << head;  // no Connection: upgrade
  }
}

TEST(Tunnel, A101ToARequestThatWasNotAWebSocketUpgradeIs502) {
  UpgradeEchoBackend backend;  // answers 101 whatever was asked
  auto lb = start_balancer(base_config({spec("u", backend.port())}));
  ASSERT_TRUE(lb);
  Client client(lb->port());
  ASSERT_TRUE(
      client.send("GET /x HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n"));
  auto r = client.read_response();
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 502) << r->raw;
  EXPECT_NE(r->body.find("bad backend response"), std::string::npos) << r->raw;
  EXPECT_EQ(backend.head().find("Upgrade:"), std::string::npos) << backend.head();
}

}  // namespace
}  // namespace stampede::balancer::testing
