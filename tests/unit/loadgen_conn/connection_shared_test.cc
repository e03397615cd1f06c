// The pieces the generator's clients share, each on its own: the permit exchange with the owner
// (HeldPermit, for Connection, its pipelined path and H2Client), over an owner that records what
// it was asked, and the read loop (read_available, for those and WsClient) over a TestStream.
#include <errno.h>
#include <gtest/gtest.h>
#include <sys/epoll.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "connection_harness.h"
#include "loadgen/connection.h"
#include "loadgen/connection_permit.h"
#include "loadgen/connection_read.h"
#include "support/fake_connector.h"
#include "support/test_stream.h"

namespace stampede::loadgen {
namespace {

using testing::TestStream;
using Fault = TestStream::Fault;

// An owner whose next permit is `answer`, recording the holds it is asked for.
class PermitOwner : public OwnerHarness {
 protected:
  SendPermit next_send(std::int64_t now_ns) override {
    asked_at_.push_back(now_ns);
    return answer_;
  }
  void hold(Connection& connection, std::int64_t at_ns) override {
    held_by_.push_back(&connection);
    held_at_.push_back(at_ns);
  }

  Connection connection_{context_, std::make_unique<testing::FakeConnector>(shared_)};
  SendPermit answer_;
  std::vector<std::int64_t> asked_at_;
  std::vector<Connection*> held_by_;
  std::vector<std::int64_t> held_at_;
};

TEST_F(PermitOwner, NoMorePermitsIsStopAndHoldsNothing) {
  HeldPermit held;
  EXPECT_FALSE(held.next(*this, connection_, 100, true).send);
  EXPECT_EQ(asked_at_, std::vector<std::int64_t>{100});
  EXPECT_FALSE(held.held);
  EXPECT_TRUE(held_by_.empty());
}

TEST_F(PermitOwner, APermitDueLaterIsHeldAndTheOwnerToldOnce) {
  answer_ = SendPermit{true, 250, 7};
  HeldPermit held;
  const SendPermit out = held.next(*this, connection_, 100, true);
  EXPECT_TRUE(out.send);
  EXPECT_TRUE(held.held);
  EXPECT_FALSE(held.due);
  EXPECT_EQ(held_by_, std::vector<Connection*>{&connection_});
  EXPECT_EQ(held_at_, std::vector<std::int64_t>{250});
  held.due = true;  // what send_pending does
  const SendPermit taken = held.take();
  EXPECT_FALSE(held.held);
  EXPECT_FALSE(held.due);
  EXPECT_EQ(taken.index, 7u);
  EXPECT_EQ(taken.at_ns, 250);
  // Held until its time: any lag is the generator's own, not a wait for a connection.
  EXPECT_FALSE(taken.waited_for_connection);
}

TEST_F(PermitOwner, ADuePermitWaitedForAConnectionOnlyWhenLateAndTheClientWasBusy) {
  struct Case {
    std::int64_t at_ns;
    bool after_busy;
    bool waited;
  };
  for (const Case c : {Case{99, true, true}, Case{100, true, false}, Case{99, false, false}}) {
    answer_ = SendPermit{true, c.at_ns, 3};
    HeldPermit held;
    const SendPermit out = held.next(*this, connection_, 100, c.after_busy);
    EXPECT_TRUE(out.send);
    EXPECT_EQ(out.index, 3u);
    EXPECT_EQ(out.waited_for_connection, c.waited) << c.at_ns << " " << c.after_busy;
    EXPECT_FALSE(held.held);
  }
  EXPECT_TRUE(held_by_.empty());
}

// A stream of its own, read through read_available into the fixture's 16 KiB buffer.
class ReadAvailable : public OwnerHarness {
 protected:
  // Reads `stream_` with `events`, keeping what on_bytes saw; on_bytes says stop after `chunks`.
  ReadEnd read(std::uint32_t events, int chunks = 1000) {
    return read_available(stream_, context_, events, [&](const char* data, std::size_t n) {
      seen_.emplace_back(data, n);
      return static_cast<int>(seen_.size()) < chunks;
    });
  }

  TestStream stream_;
  std::vector<std::string> seen_;
};

TEST_F(ReadAvailable, AShortReadIsDrainedAfterOneRead) {
  stream_.feed("hello");
  stream_.feed_eof();  // not read: a short read without a hang-up ends the loop
  EXPECT_EQ(read(EPOLLIN), ReadEnd::Drained);
  EXPECT_EQ(seen_, std::vector<std::string>{"hello"});
  EXPECT_EQ(stream_.operations(), 1u);
  EXPECT_EQ(stats_.bytes_read(), 5u);
}

TEST_F(ReadAvailable, AfterAHangupItReadsOnToTheEof) {
  stream_.feed("hello");
  stream_.feed_eof();
  EXPECT_EQ(read(EPOLLIN | EPOLLRDHUP), ReadEnd::Eof);
  EXPECT_EQ(seen_, std::vector<std::string>{"hello"});
  EXPECT_EQ(stats_.bytes_read(), 5u);
}

TEST_F(ReadAvailable, FullReadsGoOnUntilTheStreamWouldBlock) {
  const std::string big(2 * buffer_.size(), 'x');
  stream_.feed(big);
  EXPECT_EQ(read(EPOLLIN), ReadEnd::WouldBlock);
  ASSERT_EQ(seen_.size(), 2u);
  EXPECT_EQ(seen_[0].size() + seen_[1].size(), big.size());
  EXPECT_EQ(stream_.operations(), 3u);
  EXPECT_EQ(stats_.bytes_read(), big.size());
}

TEST_F(ReadAvailable, StoppedByTheClientItReadsNoMore) {
  stream_.feed(std::string(2 * buffer_.size(), 'x'));
  EXPECT_EQ(read(EPOLLIN, /*chunks=*/1), ReadEnd::Stopped);
  EXPECT_EQ(seen_.size(), 1u);
  EXPECT_EQ(stream_.operations(), 1u);
  EXPECT_EQ(stream_.unread(), buffer_.size());
}

TEST_F(ReadAvailable, AnErrorEndsItWithNothingCounted) {
  stream_.feed("hello");
  stream_.fail_at(1, Fault::Reset);
  EXPECT_EQ(read(EPOLLIN), ReadEnd::Error);
  EXPECT_EQ(stream_.error(), ECONNRESET);
  EXPECT_TRUE(seen_.empty());
  EXPECT_EQ(stats_.bytes_read(), 0u);
}

TEST_F(ReadAvailable, AnEmptyStreamWouldBlock) {
  EXPECT_EQ(read(EPOLLIN), ReadEnd::WouldBlock);
  EXPECT_TRUE(seen_.empty());
}

}  // namespace
}  // namespace stampede::loadgen
