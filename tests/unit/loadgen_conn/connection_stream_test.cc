// The generator's HTTP Connection over a TestStream: no socket, no server. Each fault a socket or
// a TLS record layer can produce, checked on what the worker's stats count (statuses, failures by
// errno, requests: none lost, none counted twice) and on the bytes written (each request once).
#include <errno.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>

#include <memory>
#include <string>
#include <vector>

#include "connection_harness.h"
#include "http/writer.h"
#include "loadgen/connection.h"
#include "loadgen/request.h"
#include "loadgen/worker_stats.h"
#include "net/event_loop.h"
#include "support/test_stream.h"

namespace stampede::loadgen {
namespace {

using testing::TestStream;
using Fault = TestStream::Fault;

constexpr std::string_view kResponse = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello";
constexpr std::string_view kChunked =
    "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n";

class ConnectionOverStream : public ConnectionHarness {
 protected:
  std::string request_bytes(int times) const {
    std::string out;
    for (int i = 0; i < times; ++i)
      out += request_.fixed();
    return out;
  }
};

TEST_F(ConnectionOverStream, ResponseSplitAtEveryByteIsCountedOnce) {
  std::uint64_t expected = 0;
  for (const std::string_view response : {kResponse, kChunked}) {
    for (std::size_t split = 1; split < response.size(); ++split) {
      auto connection = start(1);
      ASSERT_EQ(stream().take_written(), request_bytes(1));
      stream().feed(response.substr(0, split));
      connection->on_events(EPOLLIN);
      ASSERT_EQ(stats_.requests(), expected) << "split " << split;
      stream().feed(response.substr(split));
      connection->on_events(EPOLLIN);
      ++expected;
      ASSERT_EQ(stats_.requests(), expected) << "split " << split;
      EXPECT_TRUE(connection->finished());
      EXPECT_EQ(stream().take_written(), "");
    }
  }
  EXPECT_EQ(stats_.status_count(200), kResponse.size() - 1);
  EXPECT_EQ(stats_.status_count(201), kChunked.size() - 1);
  EXPECT_EQ(stats_.errors(), 0u);
  EXPECT_EQ(shared_.streams.size(), expected);
}

// A reset where the second keep-alive response should be: that request fails as ECONNRESET, and
// since the socket had answered before, the third goes at once on a new socket.
TEST_F(ConnectionOverStream, ResetAfterTheRequestFailsItAndTheNextGoesOnANewSocket) {
  shared_.prepare = [](TestStream& s) {
    s.feed(kResponse);
    s.fail_at(4, Fault::Reset);  // write 1, read 1, write 2, read 2
  };
  auto connection = start(3);
  connection->on_events(EPOLLIN);
  ASSERT_EQ(shared_.streams.size(), 1u);
  connection->on_events(EPOLLIN);
  ASSERT_EQ(shared_.streams.size(), 2u);
  EXPECT_EQ(shared_.streams[0]->written(), request_bytes(2));
  EXPECT_EQ(shared_.streams[1]->written(), request_bytes(1));
  connection->on_events(EPOLLIN);
  EXPECT_EQ(stats_.requests(), 3u);
  EXPECT_EQ(stats_.status_count(200), 2u);
  EXPECT_EQ(stats_.failure_count(ECONNRESET), 1u);
  EXPECT_EQ(stats_.errors(), 1u);
  EXPECT_TRUE(connection->finished());
  EXPECT_EQ(finished_, 1);
}

TEST_F(ConnectionOverStream, ResetOnAFreshSocketBacksOffInsteadOfReconnecting) {
  shared_.prepare = [](TestStream& s) { s.fail_at(2, Fault::Reset); };
  auto connection = start(2);
  connection->on_events(EPOLLIN);
  EXPECT_EQ(stats_.requests(), 1u);
  EXPECT_EQ(stats_.failure_count(ECONNRESET), 1u);
  EXPECT_EQ(shared_.streams.size(), 1u);  // the next socket waits for the backoff timer
  EXPECT_EQ(shared_.closes, 1u);
  EXPECT_EQ(shared_.clean_closes, 0u);
  EXPECT_FALSE(connection->finished());
}

TEST_F(ConnectionOverStream, WouldBlockInTheMiddleOfAWriteResumesWhereItStopped) {
  shared_.prepare = short_write_then_would_block;
  auto connection = start(1);
  EXPECT_EQ(stream().written(), request_bytes(1).substr(0, 10));
  connection->on_events(EPOLLOUT);
  EXPECT_EQ(stream().written(), request_bytes(1));
  EXPECT_EQ(stats_.bytes_written(), request_bytes(1).size());
  stream().feed(kResponse);
  connection->on_events(EPOLLIN);
  EXPECT_EQ(stats_.requests(), 1u);
  EXPECT_EQ(stats_.status_count(200), 1u);
  EXPECT_EQ(stats_.errors(), 0u);
}

// TLS's WANT_WRITE inside a read: the read goes on when the socket becomes writable, with no
// readable edge to bring it back.
TEST_F(ConnectionOverStream, WantWriteInsideAReadResumesOnWritability) {
  shared_.prepare = [](TestStream& s) {
    s.feed(kResponse);
    s.fail_at(2, Fault::WantWrite);
  };
  auto connection = start(1);
  connection->on_events(EPOLLIN);
  EXPECT_EQ(stats_.requests(), 0u);
  connection->on_events(EPOLLOUT);
  EXPECT_EQ(stats_.requests(), 1u);
  EXPECT_EQ(stats_.status_count(200), 1u);
  EXPECT_EQ(stats_.errors(), 0u);
}

TEST_F(ConnectionOverStream, CloseInTheMiddleOfAWriteIsOneEpipeFailure) {
  shared_.prepare = [](TestStream& s) { s.fail_at(1, Fault::CloseMidWrite, 5); };
  auto connection = start(1);
  EXPECT_EQ(stream().written(), request_bytes(1).substr(0, 5));
  expect_one_failure(EPIPE);
  EXPECT_EQ(stats_.status_count(200), 0u);
}

// Closed before any byte of the response: Node's "socket hang up", counted as ECONNRESET.
TEST_F(ConnectionOverStream, EofBeforeAnyResponseByteIsAConnectionReset) {
  expect_eof_first_is_a_reset([this] { return start(1); });
}

}  // namespace
}  // namespace stampede::loadgen
