// server::H2Connection over an in-memory TestStream (connection_harness.h), with an nghttp2
// client session in the test as the peer, and raw frames built by hand for the hostile cases:
// the preface a byte at a time, the answer rule shared with HTTP/1.1, independent delays of
// concurrent streams, the body cap, the header timeout, and GOAWAY for an HPACK bomb, a PING
// flood and DATA on stream 0.
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
#include "unit/server/connection_harness.h"

namespace stampede::server {
namespace {

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

// A raw frame header (RFC 9113 4.1) and payload.
std::string raw_frame(std::uint8_t type, std::uint8_t flags, std::uint32_t stream,
                      const std::string& payload) {
  std::string f;
  const std::size_t n = payload.size();
  f.push_back(static_cast<char>(n >> 16));
  f.push_back(static_cast<char>(n >> 8));
  f.push_back(static_cast<char>(n));
  f.push_back(static_cast<char>(type));
  f.push_back(static_cast<char>(flags));
  for (int shift = 24; shift >= 0; shift -= 8)
    f.push_back(static_cast<char>(stream >> shift));
  return f + payload;
}

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
  EXPECT_EQ(requests(), 1u);
  EXPECT_EQ(errors(), 1u);
  EXPECT_EQ(bad_requests(), 1u);
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
  EXPECT_EQ(bad_requests(), 1u);
  EXPECT_EQ(requests(), 0u);
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

// A GET's header block in HPACK without the dynamic table: :method GET, :scheme http, :path /
// (static indexes), :authority x (literal, not indexed).
const std::string kGetBlock = std::string("\x82\x86\x84\x01\x01x", 6);
constexpr std::uint8_t kEndHeaders = NGHTTP2_FLAG_END_HEADERS;

// 600 frames of one kind: over the flood guard's 500 a second, under nghttp2's own limit of
// 1000 unsent acknowledgements, so only the server's guard can end the session.
constexpr int kFloodFrames = 600;

std::string flood_of(h2::Costly kind) {
  std::string frames;
  if (kind == h2::Costly::Empty)  // one open stream, then empty DATA frames on it
    frames = raw_frame(NGHTTP2_HEADERS, kEndHeaders, 1, kGetBlock);
  for (int i = 0; i < kFloodFrames; ++i) {
    const auto id = static_cast<std::uint32_t>(2 * i + 1);
    switch (kind) {
      case h2::Costly::Settings:
        frames += raw_frame(NGHTTP2_SETTINGS, 0, 0, "");
        break;
      case h2::Costly::Ping:
        frames += raw_frame(NGHTTP2_PING, 0, 0, std::string(8, 'p'));
        break;
      case h2::Costly::Reset:  // rapid reset: open a stream, cancel it
        frames += raw_frame(NGHTTP2_HEADERS, kEndHeaders | NGHTTP2_FLAG_END_STREAM, id, kGetBlock);
        frames += raw_frame(NGHTTP2_RST_STREAM, 0, id, std::string("\0\0\0\x08", 4));
        break;
      case h2::Costly::Empty:
        frames += raw_frame(NGHTTP2_DATA, 0, 1, "");
        break;
    }
  }
  return frames;
}

TEST_F(ServerH2, FloodsOfEachKindEndWithEnhanceYourCalm) {
  for (h2::Costly kind :
       {h2::Costly::Settings, h2::Costly::Ping, h2::Costly::Reset, h2::Costly::Empty}) {
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

// Frames the protocol forbids, each answered by nghttp2's GOAWAY with its code (docs/serve.md).
TEST_F(ServerH2, ForbiddenFramesEndWithTheirGoaway) {
  struct Case {
    const char* what;
    std::string frame;
    int code;
  };
  const std::vector<Case> cases = {
      // PADDED with a pad length (10) longer than the rest of the payload (4 bytes)
      {"bad padding",
       raw_frame(NGHTTP2_HEADERS, kEndHeaders | NGHTTP2_FLAG_PADDED, 1,
                 "\x0a"
                 "abcd"),
       NGHTTP2_PROTOCOL_ERROR},
      // a frame of 20000 bytes, over SETTINGS_MAX_FRAME_SIZE (16384 until the server raises it)
      {"oversized frame", raw_frame(NGHTTP2_DATA, 0, 1, std::string(20000, 'd')),
       NGHTTP2_FRAME_SIZE_ERROR},
      // an HPACK dynamic table size update to 4097, over the 4096 the server announces
      {"table size update",
       raw_frame(NGHTTP2_HEADERS, kEndHeaders | NGHTTP2_FLAG_END_STREAM, 1,
                 std::string("\x3f\xe2\x1f", 3) + kGetBlock),
       NGHTTP2_COMPRESSION_ERROR},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.what);
    H2Peer peer;
    open();
    deliver(peer.take_output() + c.frame);
    peer.receive(stream_->take_written());
    EXPECT_EQ(peer.goaway_code, c.code);
    EXPECT_TRUE(closed());
  }
}

TEST_F(ServerH2, DataOnStreamZeroIsAProtocolError) {
  open();
  deliver(peer_.take_output() + raw_frame(NGHTTP2_DATA, 0, 0, "abc"));
  peer_.receive(stream_->take_written());
  EXPECT_EQ(peer_.goaway_code, NGHTTP2_PROTOCOL_ERROR);
  EXPECT_TRUE(closed());
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
