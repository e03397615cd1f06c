// HTTP/1.x behaviour of the test server, over raw sockets: keep-alive, HTTP/1.0, pipelining,
// request bodies, 100-continue, HEAD, per-request overrides, delays, large answers, stop.
#include <gtest/gtest.h>

#include <cstdio>
#include <fstream>
#include <thread>

#include "fixture.h"
#include "support/process.h"
#include "support/temp_dir.h"

namespace stampede::server::testing {
namespace {

using Clock = std::chrono::steady_clock;

// Reads the answer to an upload whose body the server discards (200 "OK"), then the answer to
// the GET /?size=N sent right behind it: `next_body` (N x's) when no body byte leaked into it.
void expect_discarded_then(RawClient& client, const std::string& next_body) {
  auto first = client.read_reply();
  auto second = client.read_reply();
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->status, 200);
  EXPECT_EQ(first->body, "OK");
  EXPECT_EQ(second->body, next_body);
}

using ServerProtocol = WithServer;

TEST_F(ServerProtocol, KeepAliveServesManyRequestsOnOneConnection) {
  RawClient client(server_->port());
  ASSERT_TRUE(client.connected());
  for (int i = 0; i < 100; ++i) {
    auto reply = client.exchange(get("/"));
    ASSERT_TRUE(is_answer(reply, 200, "OK")) << "request " << i;
    EXPECT_EQ(reply->content_type, "text/plain");
    EXPECT_TRUE(reply->keep_alive);
    // HTTP/1.1 persists by default: nothing to say, so no Connection header is sent.
    EXPECT_FALSE(reply->connection) << *reply->connection;
  }
  EXPECT_TRUE(totals_are(server_->stop(), {.requests = 100, .errors = 0, .connections = 1}));
}

TEST_F(ServerProtocol, DateHeaderIsSent) {
  const std::string raw = answer_until_close(server_->port(), get("/", "Connection: close\r\n"));
  const std::size_t date = raw.find("\r\nDate: ");
  ASSERT_NE(date, std::string::npos) << raw;
  EXPECT_EQ(raw.substr(date + 8 + 25, 6), " GMT\r\n") << raw;
}

TEST_F(ServerProtocol, Http10ClosesUnlessAskedToKeepAlive) {
  {
    RawClient client(server_->port());
    auto reply = client.exchange("GET / HTTP/1.0\r\n\r\n");
    ASSERT_TRUE(is_answer(reply, 200, "OK"));
    EXPECT_EQ(reply->connection, "close");
    EXPECT_TRUE(client.closed_by_peer());
  }
  RawClient client(server_->port());
  for (int i = 0; i < 3; ++i) {
    auto reply = client.exchange("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n");
    ASSERT_TRUE(reply) << i;
    EXPECT_EQ(reply->status, 200);
    EXPECT_EQ(reply->connection, "keep-alive");
  }
  EXPECT_EQ(server_->stop().requests, 4u);
}

TEST_F(ServerProtocol, ConnectionCloseIsHonoured) {
  RawClient client(server_->port());
  auto reply = client.exchange(get("/", "Connection: close\r\n"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_FALSE(reply->keep_alive);
  EXPECT_TRUE(client.closed_by_peer());
}

TEST_F(ServerProtocol, PipelinedRequestsAreAnsweredInOrder) {
  RawClient client(server_->port());
  // The first answer is delayed: a server answering as requests finish would reorder them.
  std::string batch = get("/?delay=40&size=1") + get("/?size=2") + get("/?status=404") +
                      "HEAD / HTTP/1.1\r\nHost: x\r\n\r\n" + get("/?size=3");
  ASSERT_TRUE(client.send(batch));
  auto r1 = client.read_reply();
  auto r2 = client.read_reply();
  auto r3 = client.read_reply();
  auto r4 = client.read_reply(true);
  auto r5 = client.read_reply();
  ASSERT_TRUE(r1 && r2 && r3 && r4 && r5);
  EXPECT_EQ(r1->body, "x");
  EXPECT_EQ(r2->body, "xx");
  EXPECT_EQ(r3->status, 404);
  EXPECT_EQ(r4->status, 200);
  EXPECT_EQ(r4->body, "");
  EXPECT_EQ(r5->body, "xxx");
}

TEST_F(ServerProtocol, ManyPipelinedRequestsInOneWrite) {
  RawClient client(server_->port());
  std::string batch;
  for (int i = 0; i < 2000; ++i)
    batch += get("/");
  ASSERT_TRUE(client.send(batch));
  for (int i = 0; i < 2000; ++i) {
    auto reply = client.read_reply();
    ASSERT_TRUE(reply) << i;
    ASSERT_EQ(reply->status, 200);
  }
  EXPECT_EQ(server_->stop().requests, 2000u);
}

TEST_F(ServerProtocol, ContentLengthBodyIsReadAndDiscarded) {
  RawClient client(server_->port());
  const std::string body(100000, 'b');
  ASSERT_TRUE(client.send("POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100000\r\n\r\n" +
                          body + get("/?size=5")));
  expect_discarded_then(client, "xxxxx");
}

TEST_F(ServerProtocol, LargeUploadIsReadInTurnsAndDiscarded) {
  // 16 MiB: more than one activation reads (64 x 64 KiB), so the connection has to come back
  // to the rest of its socket on its own.
  RawClient client(server_->port());
  const std::size_t size = 16u << 20;
  ASSERT_TRUE(client.send("POST / HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(size) +
                          "\r\n\r\n"));
  const std::string chunk(1 << 20, 'u');
  for (std::size_t sent = 0; sent < size; sent += chunk.size())
    ASSERT_TRUE(client.send(chunk));
  ASSERT_TRUE(client.send(get("/?size=6")));
  expect_discarded_then(client, "xxxxxx");
}

TEST_F(ServerProtocol, ChunkedBodyIsReadAndDiscarded) {
  RawClient client(server_->port());
  const std::string request =
      "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n1a\r\nabcdefghijklmnopqrstuvwxyz\r\n0\r\nX-Trailer: t\r\n\r\n";
  // Sent byte by byte: the body and its framing may arrive in any pieces.
  for (char c : request)
    ASSERT_TRUE(client.send(std::string_view(&c, 1)));
  auto reply = client.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  auto next = client.exchange(get("/"));
  ASSERT_TRUE(next);
  EXPECT_EQ(next->status, 200);
  EXPECT_EQ(server_->stop().requests, 2u);
}

TEST_F(ServerProtocol, ExpectContinueGetsA100BeforeTheBody) {
  RawClient client(server_->port());
  ASSERT_TRUE(client.send(
      "PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\n"));
  const std::string interim = client.read_until("\r\n\r\n");
  EXPECT_EQ(interim, "HTTP/1.1 100 Continue\r\n\r\n");
  ASSERT_TRUE(client.send("hello"));
  auto reply = client.read_reply();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
}

TEST_F(ServerProtocol, ExpectContinueWithoutBodyGetsNoInterim) {
  const std::string raw = answer_until_close(
      server_->port(), get("/", "Expect: 100-continue\r\nConnection: close\r\n"));
  EXPECT_EQ(raw.find("100 Continue"), std::string::npos) << raw;
  EXPECT_EQ(raw.rfind("HTTP/1.1 200 OK", 0), 0u) << raw;
}

TEST_F(ServerProtocol, HeadAnswersWithoutBody) {
  RawClient client(server_->port());
  auto head = client.exchange("HEAD / HTTP/1.1\r\nHost: x\r\n\r\n");
  ASSERT_TRUE(is_answer(head, 200, ""));
  auto next = client.exchange(get("/"));  // framing intact: no stray body bytes
  ASSERT_TRUE(next);
  EXPECT_EQ(next->body, "OK");
}

TEST_F(ServerProtocol, QueryOverridesShapeTheAnswer) {
  RawClient client(server_->port());
  auto r = client.exchange(get("/any/path?status=503&size=20k"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 503);
  EXPECT_EQ(r->body.size(), 20480u);
  r = client.exchange(get("/?status=201&cachebust=123"));
  ASSERT_TRUE(is_answer(r, 201, "OK"));
  r = client.exchange(get("/?status=204"));
  ASSERT_TRUE(is_answer(r, 204, ""));
  r = client.exchange(get("/?close=1"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_FALSE(r->keep_alive);
  EXPECT_TRUE(client.closed_by_peer());
  EXPECT_TRUE(totals_are(server_->stop(), {.requests = 4, .errors = 1}));
}

TEST_F(ServerProtocol, BadOverrideIs400AndKeepsTheConnection) {
  RawClient client(server_->port());
  auto r = client.exchange(get("/?delay=soon"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(r->body.find("delay"), std::string::npos);
  EXPECT_TRUE(r->keep_alive);
  r = client.exchange(get("/"));
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 200);
  EXPECT_TRUE(totals_are(server_->stop(), {.requests = 1, .bad_requests = 1}));
}

TEST_F(ServerProtocol, ServerDelayIsAtLeastTheDelay) {
  ASSERT_TRUE(
      restart_with([](server::ServerOptions& o) { o.delay = std::chrono::milliseconds(50); }));
  RawClient client(server_->port());
  for (int i = 0; i < 3; ++i) {
    const auto start = Clock::now();
    auto reply = client.exchange(get("/"));
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 200);
    EXPECT_GE(elapsed_ms(start), 50);
  }
  // The service time covers the delay.
  EXPECT_GE(server_->stop().mean_service_ms(), 50.0);
}

TEST_F(ServerProtocol, QueryDelayOverridesServerDelay) {
  ASSERT_TRUE(restart_with([](server::ServerOptions& o) { o.delay = std::chrono::seconds(30); }));
  RawClient client(server_->port());
  auto start = Clock::now();
  auto reply = client.exchange(get("/?delay=80"));
  ASSERT_TRUE(reply);
  const auto ms = elapsed_ms(start);
  EXPECT_GE(ms, 80);
  EXPECT_LT(ms, 30000);
  start = Clock::now();
  reply = client.exchange(get("/?delay=0"));
  ASSERT_TRUE(reply);
  EXPECT_LT(elapsed_ms(start), 30000);
}

TEST_F(ServerProtocol, DelaysRunConcurrentlyAcrossConnections) {
  std::vector<std::unique_ptr<RawClient>> clients;
  for (int i = 0; i < 50; ++i) {
    clients.push_back(std::make_unique<RawClient>(server_->port()));
    ASSERT_TRUE(clients.back()->send(get("/?delay=200")));
  }
  const auto start = Clock::now();
  for (auto& c : clients) {
    auto reply = c->read_reply();
    ASSERT_TRUE(reply);
    EXPECT_EQ(reply->status, 200);
  }
  // Fifty 200 ms waits on one worker thread overlap: far less than 50 x 200 ms.
  EXPECT_LT(elapsed_ms(start), 5000);
}

TEST_F(ServerProtocol, LargeAnswersSurviveASlowReader) {
  RawClient client(server_->port());
  ASSERT_TRUE(client.send(get("/?size=8m") + get("/?size=3")));
  auto big = client.read_reply();
  auto small = client.read_reply();
  ASSERT_TRUE(big && small);
  EXPECT_EQ(big->body.size(), 8u << 20);
  EXPECT_EQ(small->body, "xxx");
}

TEST_F(ServerProtocol, BodyFromFile) {
  const stampede::testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  const std::string path = dir + "/body.json";
  std::ofstream(path) << R"({"hello":"world"})";
  ASSERT_TRUE(restart_with([&](server::ServerOptions& o) { o.body_file = path; }));
  RawClient client(server_->port());
  auto reply = client.exchange(get("/"));
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->body, R"({"hello":"world"})");
  EXPECT_EQ(reply->content_type, "application/json");
}

TEST_F(ServerProtocol, StopFinishesInFlightRequests) {
  ASSERT_TRUE(
      restart_with([](server::ServerOptions& o) { o.delay = std::chrono::milliseconds(300); }));
  RawClient busy(server_->port());
  RawClient idle(server_->port());
  ASSERT_TRUE(idle.exchange(get("/?delay=0")));
  ASSERT_TRUE(busy.send(get("/")));
  ASSERT_TRUE(eventually([&] { return server_->totals().requests == 2; }));
  std::thread stopper([&] { server_->stop(); });
  auto reply = busy.read_reply();
  stopper.join();
  ASSERT_TRUE(reply);
  EXPECT_EQ(reply->status, 200);
  EXPECT_EQ(reply->connection, "close");
  EXPECT_TRUE(idle.closed_by_peer());
}

TEST_F(ServerProtocol, StopIsBoundedByTheDrainTimeout) {
  ASSERT_TRUE(restart_with(
      [](server::ServerOptions& o) { o.drain_timeout = std::chrono::milliseconds(100); }));
  RawClient client(server_->port());
  ASSERT_TRUE(client.send(get("/?delay=60000")));
  ASSERT_TRUE(eventually([&] { return server_->totals().requests == 1; }));
  const auto start = Clock::now();
  server_->stop();
  EXPECT_LT(elapsed_ms(start), 5000);
  EXPECT_TRUE(client.closed_by_peer());
}

}  // namespace
}  // namespace stampede::server::testing
