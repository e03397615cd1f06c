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

#include "connection_harness.h"
#include "core/clock.h"
#include "h2/error_codes.h"
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

using testing::FakeConnector;
using testing::TestStream;

// nghttp2's server session, driven by the test: what it decides to do with each request is
// `on_request` (answer, reset, nothing), called when a request's END_STREAM arrived.
class ScriptedH2Server {
 public:
  explicit ScriptedH2Server(std::uint32_t max_streams) {
    nghttp2_session_callbacks* cb = nullptr;
    nghttp2_session_callbacks_new(&cb);
    nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_cb);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close_cb);
    nghttp2_option* option = nullptr;
    nghttp2_option_new(&option);
    // Lets the oversized header block out (nghttp2 refuses to send more than 64 KiB).
    nghttp2_option_set_max_send_header_block_length(option, 1 << 20);
    nghttp2_session_server_new2(&session_, cb, this, option);
    nghttp2_option_del(option);
    nghttp2_session_callbacks_del(cb);
    std::vector<nghttp2_settings_entry> iv = {{NGHTTP2_SETTINGS_MAX_FRAME_SIZE, 16384}};
    if (max_streams > 0) iv.push_back({NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, max_streams});
    nghttp2_submit_settings(session_, NGHTTP2_FLAG_NONE, iv.data(), iv.size());
  }
  ~ScriptedH2Server() { nghttp2_session_del(session_); }

  void answer(std::int32_t id, int status, const std::string& extra_value = {}) {
    const std::string code = std::to_string(status);
    std::vector<nghttp2_nv> nv = {field(":status", code)};
    if (!extra_value.empty()) {
      nv.push_back(field("x-big", extra_value));
      nv.push_back(field("x-big-too", extra_value));
    }
    nghttp2_data_provider provider{};
    provider.read_callback = body_cb;
    nghttp2_submit_response(session_, id, nv.data(), nv.size(), &provider);
  }
  void reset(std::int32_t id, std::uint32_t code) {
    nghttp2_submit_rst_stream(session_, NGHTTP2_FLAG_NONE, id, code);
  }
  void goaway(std::int32_t last_id) {
    nghttp2_submit_goaway(session_, NGHTTP2_FLAG_NONE, last_id, NGHTTP2_NO_ERROR, nullptr, 0);
  }
  // What the client wrote, fed; what the server then has to say, returned.
  std::string exchange(const std::string& from_client) {
    nghttp2_session_mem_recv(session_, reinterpret_cast<const std::uint8_t*>(from_client.data()),
                             from_client.size());
    std::string out;
    for (;;) {
      const std::uint8_t* data = nullptr;
      const ssize_t n = nghttp2_session_mem_send(session_, &data);
      if (n <= 0) break;
      out.append(reinterpret_cast<const char*>(data), static_cast<std::size_t>(n));
    }
    return out;
  }

  std::function<void(ScriptedH2Server&, std::int32_t)> on_request;
  std::uint32_t requests = 0;
  std::size_t open = 0;
  std::size_t max_open = 0;

 private:
  static nghttp2_nv field(std::string_view name, std::string_view value) {
    return {reinterpret_cast<std::uint8_t*>(const_cast<char*>(name.data())),
            reinterpret_cast<std::uint8_t*>(const_cast<char*>(value.data())), name.size(),
            value.size(), NGHTTP2_NV_FLAG_NONE};
  }
  static int on_frame_cb(nghttp2_session*, const nghttp2_frame* frame, void* user) {
    auto& self = *static_cast<ScriptedH2Server*>(user);
    if (frame->hd.type == NGHTTP2_HEADERS && frame->headers.cat == NGHTTP2_HCAT_REQUEST) {
      self.max_open = std::max(self.max_open, ++self.open);
    }
    if ((frame->hd.type == NGHTTP2_HEADERS || frame->hd.type == NGHTTP2_DATA) &&
        (frame->hd.flags & NGHTTP2_FLAG_END_STREAM)) {
      ++self.requests;
      if (self.on_request) self.on_request(self, frame->hd.stream_id);
    }
    return 0;
  }
  static int on_close_cb(nghttp2_session*, std::int32_t, std::uint32_t, void* user) {
    --static_cast<ScriptedH2Server*>(user)->open;
    return 0;
  }
  static ssize_t body_cb(nghttp2_session*, std::int32_t, std::uint8_t* buffer, std::size_t,
                         std::uint32_t* flags, nghttp2_data_source*, void*) {
    std::memcpy(buffer, "hello", 5);
    *flags |= NGHTTP2_DATA_FLAG_EOF;
    return 5;
  }

  nghttp2_session* session_ = nullptr;
};

class H2ClientOverStream : public ConnectionHarness {
 protected:
  H2ClientOverStream() : h2_(H2Request::build(spec(), "http", "")) { context_.h2 = &h2_; }

  std::unique_ptr<Connection> start(std::uint64_t permits, std::uint32_t streams) {
    context_.streams = streams;
    return ConnectionHarness::start(permits);
  }

  // Carries bytes both ways until neither side has more, or the client finished. A server's
  // socket that ended (`servers_` shorter than the streams) gets a new scripted server.
  void converse(Connection& client, const std::function<std::unique_ptr<ScriptedH2Server>()>& make,
                int rounds = 2000) {
    for (int i = 0; i < rounds && !client.finished(); ++i) {
      while (servers_.size() < shared_.streams.size())
        servers_.push_back(make());
      TestStream& s = *shared_.streams.back();
      const std::string out = servers_.back()->exchange(s.take_written());
      if (out.empty() && s.unread() == 0) {
        if (!loop_->expire_next_timer()) break;  // a backoff: the next socket
        continue;
      }
      s.feed(out);
      client.on_events(EPOLLIN | EPOLLOUT);
    }
  }

  std::uint64_t custom(std::string_view code) const {
    auto it = stats_.custom_errors().find(code);
    return it == stats_.custom_errors().end() ? 0 : it->second;
  }

  H2Request h2_;
  std::vector<std::unique_ptr<ScriptedH2Server>> servers_;
};

std::unique_ptr<ScriptedH2Server> answering(std::uint32_t max_streams) {
  auto server = std::make_unique<ScriptedH2Server>(max_streams);
  server->on_request = [](ScriptedH2Server& s, std::int32_t id) { s.answer(id, 200); };
  return server;
}

// For a run that goes on anew: the first connection's server does `first` with each request,
// every later one answers each request 200.
std::function<std::unique_ptr<ScriptedH2Server>()> first_then_answering(
    std::function<void(ScriptedH2Server&, std::int32_t)> first) {
  return [first = std::move(first), made = false]() mutable {
    if (made) return answering(0);
    made = true;
    auto server = std::make_unique<ScriptedH2Server>(0);
    server->on_request = first;
    return server;
  };
}

TEST_F(H2ClientOverStream, AnswersEveryRequestOnOneConnectionWithConcurrentStreams) {
  auto client = start(100, 8);
  // The server answers only once 8 requests are open: the client must keep 8 in flight.
  converse(*client, [] {
    auto server = std::make_unique<ScriptedH2Server>(0);
    server->on_request = [pending = std::vector<std::int32_t>()](ScriptedH2Server& s,
                                                                 std::int32_t id) mutable {
      pending.push_back(id);
      if (pending.size() < 8 && s.requests < 97) return;
      for (std::int32_t p : pending)
        s.answer(p, 200);
      pending.clear();
    };
    return server;
  });
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
  converse(*client, [] {
    auto server = std::make_unique<ScriptedH2Server>(0);
    server->on_request = [](ScriptedH2Server& s, std::int32_t id) {
      if ((id / 2) % 2 == 0) {
        s.reset(id, NGHTTP2_REFUSED_STREAM);  // streams 1, 5, 9...: 1 of 2 answered
      } else {
        s.answer(id, 200);
      }
    };
    return server;
  });
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
  converse(*client, [] {
    auto server = std::make_unique<ScriptedH2Server>(0);
    server->on_request = [](ScriptedH2Server& s, std::int32_t id) {
      // Two fields of 40 KiB: past kMaxHeaderBytes together, each under nghttp2's own limit.
      s.answer(id, 200, id == 3 ? std::string(40 * 1024, 'x') : std::string());
    };
    return server;
  });
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
