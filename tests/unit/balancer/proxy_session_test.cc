// ProxySession and UpstreamConn without sockets (stream_rig.h: the client connection and every
// backend connection are TestStreams). The test delivers each readiness edge itself by calling
// the session's handlers.
//
// Operations on a backend stream are counted from 1: the handshake (1), the request's write (2),
// then the reads.
#include <gtest/gtest.h>
#include <sys/epoll.h>

#include <string>

#include "stream_rig.h"

namespace stampede::balancer {
namespace {

using rig::Rig;
using testing::TestStream;
using Fault = TestStream::Fault;

constexpr std::uint32_t kIn = EPOLLIN;
constexpr std::uint32_t kOut = EPOLLOUT;

const std::string kGet = "GET /x HTTP/1.1\r\nHost: h\r\n\r\n";
const std::string kPost = "POST /x HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc";
const std::string kOk = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool ends_with(const std::string& s, std::string_view suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

TEST(ProxySessionStreams, RelaysOneExchange) {
  Rig rig;
  TestStream* client = nullptr;
  ProxySession& session = rig.connect(client);
  client->feed(kGet);
  session.on_events(kIn);
  ASSERT_EQ(rig.opener.opened.size(), 1u);
  TestStream& backend = *rig.opener.opened[0].stream;
  EXPECT_TRUE(starts_with(backend.written(), "GET /x HTTP/1.1\r\n"));
  EXPECT_NE(backend.written().find("X-Forwarded-For: unknown\r\n"), std::string::npos);
  backend.feed(kOk);
  session.on_upstream_events(kIn);
  EXPECT_TRUE(starts_with(client->written(), "HTTP/1.1 200 OK\r\n"));
  EXPECT_NE(client->written().find("x-backend: a\r\n"), std::string::npos);
  EXPECT_TRUE(ends_with(client->written(), "\r\n\r\nok"));
  EXPECT_FALSE(session.closed());
  EXPECT_EQ(rig.totals(0).responses, 1u);
}

// The request, then the response, split in two at every byte: the backend sees the same bytes
// and the client the same response as when each arrives whole.
TEST(ProxySessionStreams, SplitAtEveryByte) {
  Rig rig(1);
  std::string whole_request, whole_response;
  for (std::size_t cut = 0; cut < kPost.size(); ++cut) {
    TestStream* client = nullptr;
    ProxySession& session = rig.connect(client);
    client->feed(kPost.substr(0, cut));
    session.on_events(kIn);
    client->feed(kPost.substr(cut));
    session.on_events(kIn);
    ASSERT_EQ(rig.opener.opened.size(), cut + 1) << "cut " << cut;
    TestStream& backend = *rig.opener.opened.back().stream;
    if (cut == 0) whole_request = backend.written();
    EXPECT_EQ(backend.written(), whole_request) << "cut " << cut;
    const std::size_t response_cut = cut % kOk.size();
    backend.feed(kOk.substr(0, response_cut));
    session.on_upstream_events(kIn);
    backend.feed(kOk.substr(response_cut));
    session.on_upstream_events(kIn);
    if (cut == 0) whole_response = client->written();
    EXPECT_EQ(client->written(), whole_response) << "cut " << cut;
  }
  EXPECT_TRUE(ends_with(whole_request, "\r\n\r\nabc"));
  EXPECT_TRUE(ends_with(whole_response, "\r\n\r\nok"));
}

// A reset from a fresh backend connection after the request went out, before any response
// byte: a GET goes to the other backend; a POST gets a 502 and is not re-sent.
TEST(ProxySessionStreams, ResetAfterRequestRetriesGetOnly) {
  for (const bool get : {true, false}) {
    Rig rig;
    rig.opener.prepare = [](const std::string& name, TestStream& s) {
      if (name == "a") s.fail_at(3, Fault::Reset);  // the first read
    };
    TestStream* client = nullptr;
    ProxySession& session = rig.connect(client);
    client->feed(get ? kGet : kPost);
    session.on_events(kIn);
    ASSERT_EQ(rig.opener.opened.size(), 1u);
    EXPECT_FALSE(rig.opener.opened[0].stream->written().empty());
    session.on_upstream_events(kIn);
    if (get) {
      ASSERT_EQ(rig.opener.opened.size(), 2u);
      EXPECT_EQ(rig.opener.opened[1].backend, "b");
      TestStream& b = *rig.opener.opened[1].stream;
      EXPECT_TRUE(starts_with(b.written(), "GET /x"));
      b.feed(kOk);
      session.on_upstream_events(kIn);
      EXPECT_NE(client->written().find("x-backend: b\r\n"), std::string::npos);
      EXPECT_EQ(rig.totals(0).retries, 1u);
    } else {
      EXPECT_EQ(rig.opener.opened.size(), 1u);
      EXPECT_TRUE(starts_with(client->written(), "HTTP/1.1 502 "));
      EXPECT_NE(client->written().find("backend unreachable"), std::string::npos);
    }
    EXPECT_EQ(rig.totals(0).failures, 1u);
    EXPECT_FALSE(rig.live(0));  // a reset on a fresh connection: out of rotation
  }
}

// The backend takes the request a few bytes at a time, the client the response likewise.
TEST(ProxySessionStreams, WouldBlockMidWriteBothWays) {
  Rig rig;
  rig.opener.prepare = [](const std::string&, TestStream& s) { s.set_write_capacity(7); };
  TestStream* client = nullptr;
  ProxySession& session = rig.connect(client);
  client->set_write_capacity(5);
  client->feed(kPost);
  session.on_events(kIn);
  TestStream& backend = *rig.opener.opened.at(0).stream;
  EXPECT_EQ(backend.written().size(), 7u);
  for (int i = 0; i < 100 && !ends_with(backend.written(), "abc"); ++i) {
    backend.add_write_capacity(7);
    session.on_upstream_events(kOut);
  }
  EXPECT_TRUE(ends_with(backend.written(), "\r\n\r\nabc"));
  backend.feed(kOk);
  session.on_upstream_events(kIn);
  EXPECT_EQ(client->written().size(), 5u);
  for (int i = 0; i < 100 && !ends_with(client->written(), "ok"); ++i) {
    client->add_write_capacity(5);
    session.on_events(kOut);
  }
  EXPECT_TRUE(starts_with(client->written(), "HTTP/1.1 200 OK\r\n"));
  EXPECT_TRUE(ends_with(client->written(), "\r\n\r\nok"));
  // A planned EAGAIN on a write moves nothing; the next writability edge goes on.
  client->fail_at(client->operations() + 2, Fault::WouldBlock);  // after the read: the write
  client->feed(kGet);
  session.on_events(kIn);
  TestStream& second = *rig.opener.opened.at(1).stream;
  second.add_write_capacity(1000);
  session.on_upstream_events(kOut);
  second.feed(kOk);
  const std::size_t before = client->written().size();
  session.on_upstream_events(kIn);
  EXPECT_EQ(client->written().size(), before);
  client->add_write_capacity(1000);
  session.on_events(kOut);
  EXPECT_NE(client->written().find("x-backend: b\r\n"), std::string::npos);
  EXPECT_TRUE(ends_with(client->written(), "\r\n\r\nok"));
}

// TLS's WANT_WRITE inside a read: the read resumes on the writability edge, on either side.
TEST(ProxySessionStreams, WantWriteInsideReadResumesOnWritable) {
  Rig rig;
  rig.opener.prepare = [](const std::string&, TestStream& s) { s.fail_at(3, Fault::WantWrite); };
  TestStream* client = nullptr;
  ProxySession& session = rig.connect(client);
  client->fail_at(1, Fault::WantWrite);
  client->feed(kGet);
  session.on_events(kIn);
  EXPECT_TRUE(rig.opener.opened.empty());
  session.on_events(kOut);  // no new bytes: only the stream's wish to write
  ASSERT_EQ(rig.opener.opened.size(), 1u);
  TestStream& backend = *rig.opener.opened[0].stream;
  backend.feed(kOk);
  session.on_upstream_events(kIn);
  EXPECT_TRUE(client->written().empty());
  session.on_upstream_events(kOut);
  EXPECT_TRUE(ends_with(client->written(), "\r\n\r\nok"));
}

// The backend connection breaks in the middle of taking the request: nothing complete reached
// it, so even a POST goes to the other backend.
TEST(ProxySessionStreams, CloseMidWriteToBackendResendsElsewhere) {
  Rig rig;
  rig.opener.prepare = [](const std::string& name, TestStream& s) {
    if (name == "a") s.fail_at(2, Fault::CloseMidWrite, 10);
  };
  TestStream* client = nullptr;
  ProxySession& session = rig.connect(client);
  client->feed(kPost);
  session.on_events(kIn);
  ASSERT_EQ(rig.opener.opened.size(), 2u);
  EXPECT_EQ(rig.opener.opened[0].stream->written().size(), 10u);
  TestStream& b = *rig.opener.opened[1].stream;
  EXPECT_TRUE(ends_with(b.written(), "\r\n\r\nabc"));
  b.feed(kOk);
  session.on_upstream_events(kIn);
  EXPECT_NE(client->written().find("x-backend: b\r\n"), std::string::npos);
}

// The client goes away while the response streams to it: the attempt is a client abort, never
// a failure of the backend, which stays in rotation.
TEST(ProxySessionStreams, ClientGoneMidResponseNotBlamedOnBackend) {
  Rig rig;
  TestStream* client = nullptr;
  ProxySession& session = rig.connect(client);
  client->set_write_capacity(20);
  client->feed(kGet);
  session.on_events(kIn);
  TestStream& backend = *rig.opener.opened.at(0).stream;
  backend.feed("HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n" + std::string(100, 'x'));
  session.on_upstream_events(kIn);
  EXPECT_EQ(client->written().size(), 20u);
  client->fail_at(client->operations() + 1, Fault::CloseMidWrite, 3);
  client->add_write_capacity(1000);
  session.on_events(kOut);
  EXPECT_TRUE(session.closed());
  const BackendTotals t = rig.totals(0);
  EXPECT_EQ(t.failures, 0u);
  EXPECT_EQ(t.client_aborts, 1u);
  EXPECT_TRUE(rig.live(0));
}

// A handshake that fails is a connect failure of that backend: the request goes elsewhere.
TEST(ProxySessionStreams, FailedHandshakeIsAConnectFailure) {
  Rig rig;
  rig.opener.prepare = [](const std::string& name, TestStream& s) {
    if (name == "a") s.fail_at(1, Fault::Reset);
  };
  TestStream* client = nullptr;
  ProxySession& session = rig.connect(client);
  client->feed(kPost);
  session.on_events(kIn);
  ASSERT_EQ(rig.opener.opened.size(), 2u);
  EXPECT_TRUE(rig.opener.opened[0].stream->written().empty());
  TestStream& b = *rig.opener.opened[1].stream;
  b.feed(kOk);
  session.on_upstream_events(kIn);
  EXPECT_NE(client->written().find("x-backend: b\r\n"), std::string::npos);
  EXPECT_FALSE(rig.live(0));
}

}  // namespace
}  // namespace stampede::balancer
