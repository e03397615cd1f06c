// The generator's pipelined Connection (--pipeline N) over a TestStream: no socket, no server.
// Closed loop, a batch of N requests goes out in one write and the next batch only once every
// request of the last one is answered; the last batch is what is left of -n; a batch the socket
// takes in parts is finished before anything else; a connection that ends with requests
// unanswered counts each once, by name. With --rps (paced) the answered requests are replaced
// at once by the permits that are due. Checked on the bytes and the write() calls the stream saw
// (counts that do not move) and on what the worker's stats count.
#include <errno.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "connection_harness.h"
#include "loadgen/connection.h"
#include "support/test_stream.h"

namespace stampede::loadgen {
namespace {

constexpr std::string_view kOkResponse = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK";
constexpr std::uint32_t kPipelineDepth = 4;

class PipelinedConnection : public ConnectionHarness {
 protected:
  PipelinedConnection() { context_.pipeline = kPipelineDepth; }

  std::string requests(int n) const { return repeat(request_.fixed(), n); }
  static std::string responses(int n) { return repeat(kOkResponse, n); }
  static std::string repeat(std::string_view bytes, int n) {
    std::string out;
    for (int i = 0; i < n; ++i)
      out += bytes;
    return out;
  }

  // The peer answers `n` more requests, read in one wake-up.
  void answer(Connection& connection, int n) {
    stream().feed(responses(n));
    connection.on_events(EPOLLIN);
  }

  std::uint64_t unanswered() const {
    const auto it = stats_.custom_errors().find(kUnanswered);
    return it == stats_.custom_errors().end() ? 0 : it->second;
  }
};

// -n 10 at depth 4: writes of 4, 4 and 2 requests, one write() each; three answers of four
// write nothing (the batch is still in flight).
TEST_F(PipelinedConnection, ClosedLoopWritesWholeBatchesOnlyOnceEachIsAnswered) {
  auto connection = start(10);
  EXPECT_EQ(stream().take_written(), requests(4));
  EXPECT_EQ(stream().writes(), 1u);
  EXPECT_EQ(given_, 4u);

  answer(*connection, 3);
  EXPECT_EQ(stats_.requests(), 3u);
  EXPECT_EQ(stream().take_written(), "");
  EXPECT_EQ(stream().writes(), 1u);
  EXPECT_EQ(given_, 4u);

  answer(*connection, 1);
  EXPECT_EQ(stream().take_written(), requests(4));
  EXPECT_EQ(stream().writes(), 2u);

  answer(*connection, 2);
  answer(*connection, 2);
  EXPECT_EQ(stream().take_written(), requests(2));  // the last batch: what -n leaves
  EXPECT_EQ(stream().writes(), 3u);
  EXPECT_FALSE(connection->finished());

  answer(*connection, 2);
  EXPECT_EQ(stats_.requests(), 10u);
  EXPECT_EQ(stats_.status_count(200), 10u);
  EXPECT_EQ(stats_.errors(), 0u);
  EXPECT_EQ(given_, 10u);
  EXPECT_TRUE(connection->finished());
  EXPECT_EQ(finished_, 1);
  EXPECT_EQ(shared_.streams.size(), 1u);
  EXPECT_EQ(stream().writes(), 3u);
}

// The socket takes 10 bytes of the batch, then would block: the rest goes on writability, and
// answers read meanwhile take no permit until the whole batch is answered.
TEST_F(PipelinedConnection, ABatchTheSocketTakesInPartsIsFinishedFirst) {
  shared_.prepare = short_write_then_would_block;
  auto connection = start(8);
  EXPECT_EQ(stream().written(), requests(4).substr(0, 10));
  stream().feed(responses(1));  // the server answered the first request early
  connection->on_events(EPOLLIN | EPOLLOUT);
  EXPECT_EQ(stream().take_written(), requests(4));
  EXPECT_EQ(stats_.requests(), 1u);
  EXPECT_EQ(given_, 4u);

  answer(*connection, 3);
  EXPECT_EQ(stream().take_written(), requests(4));
  EXPECT_EQ(given_, 8u);
  answer(*connection, 4);
  EXPECT_EQ(stats_.status_count(200), 8u);
  EXPECT_EQ(stats_.bytes_written(), requests(8).size());
  EXPECT_TRUE(connection->finished());
}

// The peer answers 2 of a batch of 4 and closes: the third counts as ECONNRESET, the fourth as
// PIPELINE_UNANSWERED, each once; the connection (it had answered) reconnects at once with a
// batch of the 4 requests -n leaves.
TEST_F(PipelinedConnection, CloseWithABatchPendingCountsEachUnansweredOnceByName) {
  auto connection = start(8);
  stream().feed(responses(2));
  stream().feed_eof();
  connection->on_events(EPOLLIN | EPOLLRDHUP);
  EXPECT_EQ(stats_.status_count(200), 2u);
  EXPECT_EQ(stats_.failure_count(ECONNRESET), 1u);
  EXPECT_EQ(unanswered(), 1u);
  EXPECT_EQ(stats_.requests(), 4u);
  ASSERT_EQ(shared_.streams.size(), 2u);
  EXPECT_EQ(stream().take_written(), requests(4));

  answer(*connection, 4);
  EXPECT_EQ(stats_.requests(), 8u);
  EXPECT_EQ(stats_.errors(), 2u);
  EXPECT_EQ(given_, 8u);
  EXPECT_TRUE(connection->finished());
}

// --rps: a batch is what is due when the connection writes; each answer makes room for a permit
// that is due (all are, here), written at once, so the connection keeps the schedule instead of
// waiting for its slowest request.
TEST_F(PipelinedConnection, PacedRunsReplaceAnsweredRequestsAtOnce) {
  context_.paced = true;
  auto connection = start(6);
  EXPECT_EQ(stream().take_written(), requests(4));
  answer(*connection, 1);
  EXPECT_EQ(stream().take_written(), requests(1));
  answer(*connection, 1);
  EXPECT_EQ(stream().take_written(), requests(1));
  EXPECT_EQ(stream().writes(), 3u);
  answer(*connection, 4);
  EXPECT_EQ(stats_.status_count(200), 6u);
  EXPECT_TRUE(connection->finished());
}

}  // namespace
}  // namespace stampede::loadgen
