// server::H2Connection over an in-memory TestStream (connection_harness.h), with an nghttp2
// client session in the test as the peer, and raw frames built by hand for the hostile cases:
// the preface a byte at a time, the answer rule shared with HTTP/1.1, independent delays of
// concurrent streams, the body cap, the header timeout, and GOAWAY for an HPACK bomb, floods of
// every costly kind and the forbidden frames of support/h2_frames.h.
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>

#include <cstring>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "h2/flood_guard.h"
#include "h2/preface.h"
#include "server/plan.h"
#include "support/h2_client_session.h"
#include "support/h2_frames.h"
#include "unit/server/connection_harness.h"

namespace stampede::server {
namespace {

using stampede::testing::flood_of;
using stampede::testing::h2_field;

// An nghttp2 client session: submit requests, pump bytes through the harness, read answers.
class H2Peer : public stampede::testing::H2ClientSession {
 public:
  std::int32_t get(const std::string& path, const std::string& extra_value = "") {
    std::vector<nghttp2_nv> extra;
    if (!extra_value.empty()) extra.push_back(h2_field("x-big", extra_value));
    return request("GET", path, "x", extra);
  }
  // A POST with `size` body bytes.
  std::int32_t post(std::size_t size) {
    return request("POST", "/", "x", {}, std::string(size, 'b'));
  }
};

class ServerH2 : public WorkerHarness {
 protected:
  // Client frames in, server frames back to the client, until neither side has more.
  void pump() {
    for (int round = 0; round < 50; ++round) {
      const std::string to_server = peer_.take_output();
      if (!to_server.empty() && !closed()) deliver(to_server);
      const std::string to_client = stream_->take_written();
      if (to_client.empty() && to_server.empty()) return;
      peer_.receive(to_client);
    }
  }
  H2Peer peer_;
};

TEST_F(ServerH2, PrefaceAByteAtATimeThenAGetIsAnswered) {
  open();
  const std::string first = peer_.take_output();
  for (std::size_t i = 0; i < h2::kClientPreface.size() - 1; ++i) {
    deliver(first.substr(i, 1));
    EXPECT_EQ(stream_->take_written(), "") << "decided after " << i + 1 << " bytes";
  }
  deliver(first.substr(h2::kClientPreface.size() - 1));
  peer_.receive(stream_->take_written());
  const std::int32_t id = peer_.get("/");
  pump();
  EXPECT_EQ(peer_.answers[id].status, 200);
  EXPECT_EQ(peer_.answers[id].body, "OK");
  EXPECT_EQ(requests(), 1u);
  hang_up();
  EXPECT_TRUE(closed());
}

TEST_F(ServerH2, TheAnswerRuleIsHttp11s) {
  open();
  const std::int32_t custom = peer_.get("/a?status=503&size=10");
  const std::int32_t bad = peer_.get("/?status=99");
  const std::int32_t head = peer_.get("/count");
  pump();
  EXPECT_EQ(peer_.answers[custom].status, 503);
  EXPECT_EQ(peer_.answers[custom].body, std::string(10, 'x'));
  EXPECT_EQ(peer_.answers[bad].status, 400);
  EXPECT_EQ(peer_.answers[head].status, 200);
  EXPECT_NE(peer_.answers[head].body.find("\"served\":1"), std::string::npos)
      << peer_.answers[head].body;
  EXPECT_TRUE(counts_are({.requests = 1, .errors = 1, .bad_requests = 1}));
}

TEST_F(ServerH2, ConcurrentStreamsAreDelayedIndependently) {
  open();
  const std::int32_t slow = peer_.get("/?delay=400");
  const std::int32_t quick = peer_.get("/?delay=20");
  pump();
  EXPECT_TRUE(peer_.finished.empty());
  run_loop_until([&] {
    peer_.receive(stream_->take_written());
    return peer_.finished.size() == 2;
  });
  ASSERT_EQ(peer_.finished.size(), 2u);
  EXPECT_EQ(peer_.finished[0], quick);  // not held behind the slow one, as in HTTP/1.1
  EXPECT_EQ(peer_.finished[1], slow);
}

TEST_F(ServerH2, BodyOverTheCapGets413) {
  ServerOptions o;
  o.max_body_bytes = 1000;
  make_worker(o);
  open();
  const std::int32_t id = peer_.post(5000);
  pump();
  EXPECT_EQ(peer_.answers[id].status, 413);
  ASSERT_EQ(peer_.reset_codes.count(id), 1u);
  EXPECT_EQ(peer_.reset_codes[id], NGHTTP2_NO_ERROR);
  EXPECT_TRUE(counts_are({.requests = 0, .bad_requests = 1}));
}

TEST_F(ServerH2, NoHeadersWithinTheHeaderTimeoutCloses) {
  ServerOptions o;
  o.header_timeout = std::chrono::milliseconds(30);
  make_worker(o);
  open();
  deliver(peer_.take_output());
  run_loop_until([&] { return closed(); });
  EXPECT_TRUE(closed());
  peer_.receive(stream_->take_written());
  EXPECT_EQ(peer_.goaway_code, NGHTTP2_NO_ERROR);
}

TEST_F(ServerH2, IdleAfterAnAnswerEndsWithGoawayNoError) {
  ServerOptions o;
  o.idle_timeout = std::chrono::milliseconds(30);
  make_worker(o);
  open();
  const std::int32_t id = peer_.get("/");
  pump();
  EXPECT_EQ(peer_.answers[id].status, 200);
  EXPECT_FALSE(closed());
  run_loop_until([&] { return closed(); });
  EXPECT_TRUE(closed());
  peer_.receive(stream_->take_written());
  EXPECT_EQ(peer_.goaway_code, NGHTTP2_NO_ERROR);
}

TEST_F(ServerH2, AnHpackBombEndsWithEnhanceYourCalm) {
  open();
  peer_.get("/", std::string(20000, 'a'));  // over --max-header-bytes (16 KiB) once decoded
  pump();
  EXPECT_EQ(peer_.goaway_code, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_TRUE(closed());
}

TEST_F(ServerH2, FloodsOfEachKindEndWithEnhanceYourCalm) {
  for (h2::Costly kind : {h2::Costly::Settings, h2::Costly::Ping, h2::Costly::Reset,
                          h2::Costly::Empty, h2::Costly::Invalid}) {
    SCOPED_TRACE(static_cast<int>(kind));
    H2Peer peer;
    open();
    stream_->set_write_capacity(static_cast<std::size_t>(-1));
    deliver(peer.take_output() + flood_of(kind));
    peer.receive(stream_->take_written());
    EXPECT_EQ(peer.goaway_code, NGHTTP2_ENHANCE_YOUR_CALM);
    EXPECT_TRUE(closed());
  }
}

// DATA frames with the PADDED flag and a pad length of 0 carry no data: empty ones too.
TEST_F(ServerH2, APaddedEmptyDataFloodEndsWithEnhanceYourCalm) {
  open();
  stream_->set_write_capacity(static_cast<std::size_t>(-1));
  deliver(peer_.take_output() + flood_of(h2::Costly::Empty, stampede::testing::kFloodFrames, true));
  peer_.receive(stream_->take_written());
  EXPECT_EQ(peer_.goaway_code, NGHTTP2_ENHANCE_YOUR_CALM);
  EXPECT_TRUE(closed());
}

// Frames the protocol forbids (support/h2_frames.h), each answered by nghttp2's GOAWAY with its
// code (docs/serve.md).
TEST_F(ServerH2, ForbiddenFramesEndWithTheirGoaway) {
  for (const stampede::testing::ForbiddenFrame& c : stampede::testing::forbidden_frames()) {
    SCOPED_TRACE(c.what);
    H2Peer peer;
    open();
    deliver(peer.take_output() + c.frames);
    peer.receive(stream_->take_written());
    EXPECT_EQ(peer.goaway_code, static_cast<int>(c.code));
    EXPECT_TRUE(closed());
  }
}

TEST_F(ServerH2, Http11StillServedAfterTheSniff) {
  open();
  deliver("P");  // could be the preface...
  EXPECT_EQ(stream_->take_written(), "");
  deliver("OST / HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n");  // ...but is not
  EXPECT_NE(stream_->take_written().find("HTTP/1.1 200"), std::string::npos);
  EXPECT_EQ(requests(), 1u);
}

// serve --no-http2: the preface is an HTTP/1.1 request line like any other, refused 505.
TEST_F(ServerH2, WithoutHttp2ThePrefaceIsAnHttp11RequestRefused505) {
  ServerOptions options;
  options.http2 = false;
  make_worker(options);
  open();
  deliver(peer_.take_output());
  EXPECT_EQ(stream_->take_written().rfind("HTTP/1.1 505 ", 0), 0u);
  EXPECT_EQ(requests(), 0u);
}

TEST(ServerH2Plan, MaxStreamsOutsideItsRangeIsRefused) {
  for (std::uint32_t n : {0u, 10001u}) {
    ServerOptions o;
    o.max_streams = n;
    auto plan = prepare(o);
    ASSERT_FALSE(plan) << n;
    EXPECT_NE(plan.error().message.find("--max-streams: from 1 to 10000"), std::string::npos)
        << plan.error().message;
  }
  for (std::uint32_t n : {1u, 10000u}) {
    ServerOptions o;
    o.max_streams = n;
    EXPECT_TRUE(prepare(o)) << n;
  }
}

}  // namespace
}  // namespace stampede::server
