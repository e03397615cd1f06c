// The generator's HTTP/2 client (an --http2 Connection) over a TestStream, against a scripted
// server side made of nghttp2's own server session: answers, RST_STREAM, GOAWAY with a last
// stream id, a server that answers HTTP/1.1, a truncated frame, an oversized header block. Each
// checked on exact counts: every permit ends in exactly one record (a status or a named failure),
// and in one --log line with its stream id.
#include <errno.h>
#include <gtest/gtest.h>
#include <nghttp2/nghttp2.h>
#include <sys/epoll.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "core/clock.h"
#include "h2/error_codes.h"
#include "h2_client_harness.h"
#include "loadgen/connection.h"
#include "loadgen/h2_request.h"
#include "loadgen/request.h"
#include "loadgen/worker_stats.h"
#include "net/event_loop.h"
#include "support/fake_connector.h"
#include "support/request_log_lines.h"
#include "support/temp_dir.h"
#include "support/test_stream.h"

namespace stampede::loadgen {
namespace {

using testing::TestStream;

TEST_F(H2ClientOverStream, AnswersEveryRequestOnOneConnectionWithConcurrentStreams) {
  auto client = start(100, 8);
  // The server answers only once 8 requests are open: the client must keep 8 in flight.
  converse(*client, scripted([pending = std::vector<std::int32_t>()](ScriptedH2Server& s,
                                                                     std::int32_t id) mutable {
    pending.push_back(id);
    if (pending.size() < 8 && s.requests < 97) return;
    for (std::int32_t p : pending)
      s.answer(p, 200);
    pending.clear();
  }));
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(finished_, 1);
  EXPECT_EQ(stats_.requests(), 100u);
  EXPECT_EQ(stats_.status_count(200), 100u);
  EXPECT_EQ(stats_.errors(), 0u);
  EXPECT_EQ(stats_.connections(), 1u);
  EXPECT_EQ(servers_.at(0)->requests, 100u);
  EXPECT_EQ(servers_.at(0)->max_open, 8u);
  ASSERT_TRUE(stats_.h2().server_settings.has_value());
  EXPECT_FALSE(stats_.h2().server_settings->max_concurrent_streams.has_value());
}

TEST_F(H2ClientOverStream, TheServersMaxConcurrentStreamsCapsTheStreams) {
  auto client = start(40, 8);
  converse(*client, [] { return answering(3); });
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.status_count(200), 40u);
  EXPECT_EQ(servers_.at(0)->max_open, 3u);
  ASSERT_TRUE(stats_.h2().server_settings.has_value());
  EXPECT_EQ(stats_.h2().server_settings->max_concurrent_streams, 3u);
  EXPECT_EQ(effective_streams(stats_.h2(), 8), 3u);
}

TEST_F(H2ClientOverStream, EachResetStreamIsOneFailureNamedByItsCode) {
  auto client = start(50, 4);
  converse(*client, scripted([](ScriptedH2Server& s, std::int32_t id) {
    if ((id / 2) % 2 == 0) {
      s.reset(id, NGHTTP2_REFUSED_STREAM);  // streams 1, 5, 9...: 1 of 2 answered
    } else {
      s.answer(id, 200);
    }
  }));
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.requests(), 50u);
  EXPECT_EQ(stats_.status_count(200), 25u);
  EXPECT_EQ(custom("RST_STREAM REFUSED_STREAM"), 25u);
  EXPECT_EQ(stats_.errors(), 25u);
  EXPECT_EQ(stats_.h2().rst_stream.at(NGHTTP2_REFUSED_STREAM), 25u);
  EXPECT_EQ(stats_.connections(), 1u);  // a reset stream does not end the connection
}

TEST_F(H2ClientOverStream, GoawayFailsTheStreamsAboveItsLastIdAndTheRunGoesOnAnew) {
  auto client = start(12, 4);
  // Waits for 4 requests (streams 1, 3, 5, 7), answers 1 and 3, GOAWAY with last id 3.
  converse(*client, first_then_answering([](ScriptedH2Server& s, std::int32_t id) {
    if (id < 7) return;
    s.answer(1, 200);
    s.answer(3, 200);
    s.goaway(3);
  }));
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.requests(), 12u);
  EXPECT_EQ(custom("GOAWAY unprocessed"), 2u);  // streams 5 and 7: not retried
  EXPECT_EQ(stats_.status_count(200), 10u);
  EXPECT_EQ(stats_.h2().goaway.at(NGHTTP2_NO_ERROR), 1u);
  EXPECT_EQ(stats_.connections(), 2u);
  EXPECT_EQ(servers_.at(1)->requests, 8u);
}

TEST_F(H2ClientOverStream, AServerThatAnswersHttp11IsNotHttp2OncePerConnection) {
  auto client = start(3, 8);
  for (int i = 0; i < 50 && !client->finished(); ++i) {
    if (shared_.streams.empty() || shared_.streams.back()->unread() > 0) break;
    TestStream& s = *shared_.streams.back();
    s.feed("HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
    client->on_events(EPOLLIN);
    loop_->expire_next_timer();  // the backoff
  }
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.requests(), 3u);
  EXPECT_EQ(custom("not HTTP/2"), 3u);
  EXPECT_EQ(shared_.streams.size(), 3u);  // one request per connection until SETTINGS arrive
  EXPECT_EQ(stats_.connections(), 3u);
}

TEST_F(H2ClientOverStream, ATruncatedFrameThenEofFailsTheStreamInFlight) {
  auto client = start(1, 8);
  ScriptedH2Server server(0);
  const std::string settings = server.exchange(shared_.streams.at(0)->take_written());
  TestStream& s = *shared_.streams.at(0);
  s.feed(settings);
  // A HEADERS frame header announcing 100 bytes, then 3 of them, then the end.
  s.feed(std::string("\x00\x00\x64\x01\x04\x00\x00\x00\x01\x88\x00\x00", 12));
  s.feed_eof();
  client->on_events(EPOLLIN | EPOLLRDHUP);
  EXPECT_EQ(stats_.failure_count(ECONNRESET), 1u);
  EXPECT_TRUE(loop_->expire_next_timer());  // the backoff; then the worker says stop
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.requests(), 1u);
  EXPECT_EQ(stats_.errors(), 1u);
}

TEST_F(H2ClientOverStream, AnOversizedHeaderBlockFailsItsStreamAndTheConnectionGoesOn) {
  auto client = start(3, 1);
  converse(*client, scripted([](ScriptedH2Server& s, std::int32_t id) {
    // Two fields of 40 KiB: past kMaxHeaderBytes together, each under nghttp2's own limit.
    s.answer(id, 200, id == 3 ? std::string(40 * 1024, 'x') : std::string());
  }));
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.requests(), 3u);
  EXPECT_EQ(custom("headers too large"), 1u);
  EXPECT_EQ(stats_.status_count(200), 2u);
  EXPECT_EQ(stats_.connections(), 1u);
}

TEST_F(H2ClientOverStream, BytesThatAreNotAFrameAtAllAreNotHttp2) {
  auto client = start(1, 1);
  shared_.streams.at(0)->feed("garbage");
  shared_.streams.at(0)->feed_eof();
  client->on_events(EPOLLIN | EPOLLRDHUP);
  EXPECT_TRUE(loop_->expire_next_timer());
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(custom("not HTTP/2"), 1u);
  EXPECT_EQ(stats_.requests(), 1u);
}

// A connection whose stream ids run out (each starts 5 ids before 2^31 - 1 here: 6 streams)
// takes no more streams, ends with our GOAWAY once they are done, and the next permits go on a
// new connection: nothing fails.
TEST_F(H2ClientOverStream, AConnectionThatUsedItsStreamIdsIsFollowedByANewOne) {
  context_.h2_first_stream_id = 0x7fffffff - 10;
  auto client = start(12, 4);
  converse(*client, [] { return answering(0); });
  ASSERT_TRUE(client->finished());
  EXPECT_EQ(stats_.requests(), 12u);
  EXPECT_EQ(stats_.status_count(200), 12u);
  EXPECT_EQ(stats_.errors(), 0u);
  EXPECT_EQ(stats_.connections(), 2u);
  ASSERT_EQ(servers_.size(), 2u);
  EXPECT_EQ(servers_[0]->requests, 6u);
  EXPECT_EQ(servers_[1]->requests, 6u);
}

// --log: a line per stream with its connection and stream id, a reset stream and those a GOAWAY
// left unprocessed under the names the report counts, adding up to the stats.
TEST_F(H2ClientOverStream, TheLogHasALinePerStreamResetsAndGoawayByName) {
  testing::TempDir dir;
  const std::string path = dir.file("h2.csv");
  auto file = LogFile::open(path);
  ASSERT_TRUE(file);
  {
    WorkerLog log(**file, 0);
    log.start(mono_ns());
    context_.log = &log;
    auto client = start(12, 4);
    // Streams 1, 3, 5, 7: 1 reset, 3 answered, GOAWAY with last id 3.
    converse(*client, first_then_answering([](ScriptedH2Server& s, std::int32_t id) {
      if (id < 7) return;
      s.reset(1, NGHTTP2_REFUSED_STREAM);
      s.answer(3, 200);
      s.goaway(3);
    }));
    ASSERT_TRUE(client->finished());
    context_.log = nullptr;
  }  // the log flushes
  const std::vector<testing::LogRow> rows = testing::read_csv_log(path);
  const testing::LogTally t = testing::tally_log(rows);
  EXPECT_EQ(t.lines, stats_.requests());
  EXPECT_EQ(t.with_error, stats_.errors());
  EXPECT_EQ(t.statuses, (std::map<std::string, std::uint64_t>{{"200", 9}}));
  EXPECT_EQ(t.errors, (std::map<std::string, std::uint64_t>{{"GOAWAY unprocessed", 2},
                                                            {"RST_STREAM REFUSED_STREAM", 1}}));
  std::set<std::uint32_t> first_connection;
  for (const testing::LogRow& l : rows) {
    EXPECT_EQ(l.worker, 0);
    if (l.connection == 1) first_connection.insert(l.stream);
    if (l.error == "RST_STREAM REFUSED_STREAM") {
      EXPECT_EQ(l.stream, 1u);
    } else if (l.error == "GOAWAY unprocessed") {
      EXPECT_TRUE(l.stream == 5 || l.stream == 7) << l.stream;
    } else {
      EXPECT_EQ(l.status, "200") << l.stream;
    }
    if (!l.error.empty()) {
      EXPECT_EQ(l.status, "");
    }
  }
  EXPECT_EQ(first_connection, (std::set<std::uint32_t>{1, 3, 5, 7}));
}

}  // namespace
}  // namespace stampede::loadgen
