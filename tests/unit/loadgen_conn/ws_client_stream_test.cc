// The generator's WsClient over a TestStream: the upgrade, one message and its reply, and each
// fault a socket or a TLS record layer can produce, checked on what the worker's stats count
// (messages answered, failures by errno, requests: none lost, none counted twice).
#include <errno.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>

#include <memory>
#include <string>
#include <vector>

#include "connection_harness.h"
#include "loadgen/connection.h"
#include "loadgen/worker_stats.h"
#include "loadgen/ws_client.h"
#include "net/event_loop.h"
#include "support/fake_connector.h"
#include "support/test_stream.h"
#include "support/ws_frames.h"
#include "ws/handshake.h"

namespace stampede::loadgen {
namespace {

using testing::FakeConnector;
using testing::TestStream;
using Fault = TestStream::Fault;

constexpr std::string_view kKeyField = "Sec-WebSocket-Key: ";

class WsClientOverStream : public OwnerHarness {
 protected:
  WsClientOverStream() {
    plan_.handshake_prefix = ws::request_prefix(ws::ClientRequest{"/", "target", {}});
    plan_.message = IndexedText("hello", "");
    context_.websocket = &plan_;
  }

  std::unique_ptr<WsClient> start(std::uint64_t permits) {
    permits_ = permits;
    auto client = std::make_unique<WsClient>(context_, std::make_unique<FakeConnector>(shared_));
    client->start();
    return client;
  }
  // The server's 101 for the upgrade request written on the current stream.
  std::string accept_answer() {
    const std::string& written = stream().written();
    const std::size_t at = written.find(kKeyField);
    if (at == std::string::npos) return {};
    const std::size_t from = at + kKeyField.size();
    const std::string key = written.substr(from, written.find("\r\n", from) - from);
    return "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
           "Sec-WebSocket-Accept: " +
           ws::accept_for(key) + "\r\n\r\n";
  }
  // Answers the upgrade of `client` (101) on the current stream: the client then writes its
  // message.
  void accept_upgrade(WsClient& client) {
    stream().feed(accept_answer());
    client.on_events(EPOLLIN);
  }
  // The client's frames written after the upgrade request.
  std::vector<testing::ParsedWsFrame> frames_written() {
    const std::string& written = stream().written();
    const std::size_t end = written.find("\r\n\r\n");
    if (end == std::string::npos) return {};
    return testing::ws_parse_frames(std::string_view(written).substr(end + 4));
  }

  WsPlan plan_;
};

const std::string kReply = testing::ws_frame(0x1, "hello", /*masked=*/false);

// The 101 split at every byte, then the reply split at every byte (fed once the message is out:
// frames in the same read as the 101 are the server's greeting, not a reply): one message
// answered each time, one message frame sent.
TEST_F(WsClientOverStream, AnswerAndReplySplitAtEveryByteCountOneMessage) {
  std::uint64_t expected = 0;
  // Cuts in the 101 (reply whole), then in the reply (101 whole); 0 is no cut.
  for (const bool in_reply : {false, true}) {
    for (std::size_t split = 1;; ++split) {
      auto client = start(1);
      const std::string answer = accept_answer();
      const std::size_t length = in_reply ? kReply.size() : answer.size();
      if (split >= length) break;
      const std::string_view first = in_reply ? std::string_view(kReply) : answer;
      if (in_reply) {
        stream().feed(answer);
        client->on_events(EPOLLIN);
      }
      stream().feed(first.substr(0, split));
      client->on_events(EPOLLIN);
      ASSERT_EQ(stats_.ws().messages, expected) << in_reply << " split " << split;
      stream().feed(first.substr(split));
      client->on_events(EPOLLIN);
      if (!in_reply) {
        ASSERT_EQ(frames_written().size(), 1u) << "split " << split;
        stream().feed(kReply);
        client->on_events(EPOLLIN);
      }
      ++expected;
      ASSERT_EQ(stats_.ws().messages, expected) << in_reply << " split " << split;
      const auto frames = frames_written();
      ASSERT_EQ(frames.size(), 2u);  // the message, then our close (no more permits)
      EXPECT_EQ(frames[0].payload, "hello");
    }
  }
  EXPECT_EQ(stats_.requests(), expected);
  EXPECT_EQ(stats_.errors(), 0u);
}

TEST_F(WsClientOverStream, ResetAfterTheMessageIsOneFailureAndABackoff) {
  auto client = start(2);
  stream().feed(accept_answer());
  stream().fail_at(stream().operations() + 3, Fault::Reset);  // read 101, write message, read
  client->on_events(EPOLLIN);
  ASSERT_EQ(frames_written().size(), 1u);
  client->on_events(EPOLLIN);
  EXPECT_EQ(stats_.requests(), 1u);
  EXPECT_EQ(stats_.failure_count(ECONNRESET), 1u);
  EXPECT_EQ(stats_.ws().messages, 0u);
  EXPECT_EQ(shared_.streams.size(), 1u);  // no reply ever: the next socket waits for a backoff
  EXPECT_FALSE(client->finished());
}

TEST_F(WsClientOverStream, WouldBlockInTheMiddleOfTheUpgradeResumesWhereItStopped) {
  shared_.prepare = short_write_then_would_block;
  auto client = start(1);
  EXPECT_EQ(stream().written().size(), 10u);
  client->on_events(EPOLLOUT);
  const std::string& written = stream().written();
  EXPECT_EQ(written.compare(0, plan_.handshake_prefix.size(), plan_.handshake_prefix), 0);
  EXPECT_EQ(written.find("\r\n\r\n"), written.size() - 4);
  accept_upgrade(*client);
  ASSERT_EQ(frames_written().size(), 1u);
  stream().feed(kReply);
  client->on_events(EPOLLIN);
  EXPECT_EQ(stats_.ws().messages, 1u);
  EXPECT_EQ(stats_.errors(), 0u);
}

// TLS's WANT_WRITE inside a read: the read goes on when the socket becomes writable.
TEST_F(WsClientOverStream, WantWriteInsideAReadResumesOnWritability) {
  auto client = start(1);
  accept_upgrade(*client);
  ASSERT_EQ(frames_written().size(), 1u);
  stream().feed(kReply);
  stream().fail_at(stream().operations() + 1, Fault::WantWrite);
  client->on_events(EPOLLIN);
  EXPECT_EQ(stats_.ws().messages, 0u);
  client->on_events(EPOLLOUT);
  EXPECT_EQ(stats_.ws().messages, 1u);
  EXPECT_EQ(stats_.errors(), 0u);
}

TEST_F(WsClientOverStream, CloseInTheMiddleOfTheMessageIsOneEpipeFailure) {
  auto client = start(1);
  stream().feed(accept_answer());
  stream().fail_at(stream().operations() + 2, Fault::CloseMidWrite, 3);  // read 101, write
  client->on_events(EPOLLIN);
  expect_one_failure(EPIPE);
  EXPECT_EQ(stats_.ws().messages, 0u);
}

TEST_F(WsClientOverStream, EofBeforeAnyAnswerByteIsAConnectionReset) {
  expect_eof_first_is_a_reset([this] { return start(1); });
}

// The 101 and the server's close in one readiness event (edge-triggered: none follows): the
// message goes out and the close is read at once, one failure, not a wait for the timeout.
TEST_F(WsClientOverStream, EofRightBehindTheUpgradeEndsTheMessageAtOnce) {
  auto client = start(1);
  stream().feed(accept_answer());
  stream().feed_eof();
  client->on_events(EPOLLIN | EPOLLRDHUP);
  EXPECT_EQ(frames_written().size(), 1u);
  EXPECT_EQ(stats_.requests(), 1u);
  EXPECT_EQ(stats_.errors(), 1u);
  EXPECT_EQ(stats_.failure_count(ECONNRESET), 0u);
  EXPECT_EQ(stats_.ws().messages, 0u);
}

}  // namespace
}  // namespace stampede::loadgen
