// Upgrade (websocket-style) requests: Upgrade is forwarded with "Connection: upgrade", and a
// 101 turns the connection into a byte tunnel both ways.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include "lb_support.h"

namespace stampede::balancer::testing {
namespace {

// Accepts one connection, answers its head with 101 and then echoes bytes until EOF.
class UpgradeEchoBackend {
 public:
  UpgradeEchoBackend() {
    listener_.reset(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof addr;
    bind(listener_.get(), reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    listen(listener_.get(), 8);
    getsockname(listener_.get(), reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~UpgradeEchoBackend() {
    shutdown(listener_.get(), SHUT_RDWR);
    thread_.join();
  }
  std::uint16_t port() const { return port_; }
  std::string head() const { return head_; }

 private:
  void serve() {
    int fd = accept4(listener_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) return;
    timeval tv{5, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    std::string buf;
    char chunk[65536];
    while (buf.find("\r\n\r\n") == std::string::npos) {
      ssize_t n = recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) break;
      buf.append(chunk, static_cast<std::size_t>(n));
    }
    std::size_t end = buf.find("\r\n\r\n");
    head_ = buf.substr(0, end == std::string::npos ? buf.size() : end + 4);
    std::string rest = end == std::string::npos ? "" : buf.substr(end + 4);
    std::string answer =
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: echo\r\nConnection: Upgrade\r\n\r\n" + rest;
    send(fd, answer.data(), answer.size(), MSG_NOSIGNAL);
    for (;;) {
      ssize_t n = recv(fd, chunk, sizeof chunk, 0);
      if (n <= 0) break;
      send(fd, chunk, static_cast<std::size_t>(n), MSG_NOSIGNAL);
    }
    close(fd);
  }

  net::Fd listener_;
  std::uint16_t port_ = 0;
  std::string head_;
  std::thread thread_;
};

TEST(Tunnel, UpgradeAnswered101BecomesATunnel) {
  UpgradeEchoBackend backend;
  auto lb = start_balancer(base_config({spec("u", backend.port())}));
  ASSERT_TRUE(lb);
  {
    Client client(lb->port());
    ASSERT_TRUE(
        client.send("GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: echo\r\n"
                    "Connection: keep-alive, Upgrade\r\n\r\nearly"));
    auto head = client.read_until("\r\n\r\n");
    ASSERT_TRUE(head);
    EXPECT_EQ(head->rfind("HTTP/1.1 101 ", 0), 0u) << *head;
    EXPECT_NE(head->find("Upgrade: echo\r\n"), std::string::npos) << *head;
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
  EXPECT_NE(h.find("Upgrade: echo\r\n"), std::string::npos) << h;
  EXPECT_NE(h.find("Connection: upgrade\r\n"), std::string::npos) << h;
  EXPECT_EQ(h.find("keep-alive"), std::string::npos) << h;
}

}  // namespace
}  // namespace stampede::balancer::testing
