// The worker's SocketOpener against a TLS `serve` in this process: its connectors are the
// generator's (net::TcpConnector with tls::ClientStep), and the connections to one backend share
// one TLS session, so a connection opened after one that closed cleanly resumes it (as HAProxy
// and nginx do towards their backends).
#include <gtest/gtest.h>
#include <sys/epoll.h>

#include <memory>
#include <string>

#include "balancer/backend.h"
#include "balancer/upstream_opener.h"
#include "core/clock.h"
#include "net/event_loop.h"
#include "support/test_server.h"
#include "tls/context.h"

namespace stampede::balancer {
namespace {

// Collects the readiness of one socket; the test drives the connector itself.
class EventFlags final : public net::IoHandler {
 public:
  void on_events(std::uint32_t events) override { events_ |= events; }
  std::uint32_t events_ = 0;
};

constexpr std::int64_t kPatienceNs = 5'000'000'000;

// One request with "Connection: close" over `connector` (connect, handshake, write, read to the
// server's close), then a clean close. Whether its handshake resumed a session.
bool one_exchange(net::EventLoop& loop, net::Connector& connector) {
  const std::int64_t deadline = mono_ns() + kPatienceNs;
  const auto wait = [&] {
    loop.run_once(10'000'000);
    return mono_ns() < deadline;
  };
  EventFlags flags;
  bool connected = false;
  EXPECT_EQ(connector.open(loop, flags, mono_ns(), connected), 0);
  while (!connected && !(flags.events_ & (EPOLLOUT | EPOLLERR | EPOLLHUP)) && wait()) {
  }
  if (!connected) {
    EXPECT_EQ(connector.connect_result(), 0);
  }
  net::IoStatus status;
  while ((status = connector.handshake()) == net::IoStatus::WouldBlock && wait()) {
  }
  EXPECT_EQ(status, net::IoStatus::Done) << connector.error();
  const bool resumed = connector.resumed();
  const std::string request = "GET / HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n";
  std::size_t n = 0;
  EXPECT_EQ(connector.stream()->write(request.data(), request.size(), n), net::IoStatus::Done);
  EXPECT_EQ(n, request.size());
  std::string response;
  char buffer[4096];
  while (status != net::IoStatus::Eof && status != net::IoStatus::Error) {
    status = connector.stream()->read(buffer, sizeof buffer, n);
    if (status == net::IoStatus::Done) response.append(buffer, n);
    if (status == net::IoStatus::WouldBlock && !wait()) break;
  }
  EXPECT_EQ(response.compare(0, 12, "HTTP/1.1 200"), 0) << response;
  connector.close(true);
  return resumed;
}

TEST(SocketOpener, ConnectionsToATlsBackendResumeItsSession) {
  server::ServerOptions options;
  options.tls_self_signed = true;
  auto server = testing::start_server(options);
  ASSERT_TRUE(server);
  tls::ClientOptions client;
  client.insecure = true;
  auto context = tls::make_client_context(client);
  ASSERT_TRUE(context.ok());
  const std::string address = "127.0.0.1:" + std::to_string(server->port());
  BackendState state(0, BackendSpec{"a", address, 1, true}, *net::parse_host_port(address));
  state.set_tls(context->get(), "127.0.0.1");
  auto loop = net::EventLoop::create();
  ASSERT_TRUE(loop.ok());

  SocketOpener opener;
  auto first = opener.connector(state);
  EXPECT_FALSE(one_exchange(**loop, *first));
  // A new connector per connection, as UpstreamConn and the health probe have: the session
  // lives in the opener, not in the connector.
  first.reset();
  auto second = opener.connector(state);
  EXPECT_TRUE(one_exchange(**loop, *second));
  EXPECT_TRUE(one_exchange(**loop, *opener.connector(state)));
}

}  // namespace
}  // namespace stampede::balancer
