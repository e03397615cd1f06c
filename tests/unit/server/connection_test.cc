// server::Connection over an in-memory TestStream (connection_harness.h): requests split at
// every byte, pipelining, short and blocked writes, WANT_WRITE inside a read, resets, a close in
// the middle of a write, the end of the stream inside a head, and a delayed answer whose client
// has gone. Each case checks the bytes written and the worker's counters.
#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "http/response_parser.h"
#include "unit/server/connection_harness.h"

namespace stampede::server {
namespace {

const std::string kGet = "GET /?size=5 HTTP/1.1\r\nHost: x\r\n\r\n";
const std::string kPost = "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n\r\nabc";

struct Answer {
  int status = 0;
  std::string body;
};

// The complete responses in `bytes`, in order (an incomplete last one is left out).
std::vector<Answer> answers_in(std::string_view bytes) {
  http::ResponseParser parser;
  std::vector<Answer> out;
  std::string body;
  parser.set_body_callback([&](std::string_view chunk) { body.append(chunk); });
  int status = 0;
  while (!bytes.empty()) {
    const http::Step step = parser.feed(bytes);
    bytes.remove_prefix(step.consumed);
    if (step.event == http::Event::HeadComplete) {
      status = parser.status();
    } else if (step.event == http::Event::MessageComplete) {
      out.push_back({status, body});
      body.clear();
    } else if (step.event == http::Event::Error) {
      ADD_FAILURE() << "the connection wrote bytes that are no response";
      break;
    } else {
      break;
    }
  }
  return out;
}

class ServerConnection : public WorkerHarness {
 protected:
  // What a connection writes for `request` fed whole, and closes after the client's FIN.
  std::string whole_answer(const std::string& request) {
    open();
    deliver(request);
    std::string answer = stream_->take_written();
    hang_up();
    EXPECT_TRUE(closed());
    return answer;
  }
};

TEST_F(ServerConnection, RequestSplitAtEveryByteGetsTheSameAnswer) {
  for (const std::string& request : {kGet, kPost}) {
    const std::string expected = whole_answer(request);
    ASSERT_EQ(answers_in(expected).size(), 1u);
    for (std::size_t cut = 1; cut < request.size(); ++cut) {
      open();
      deliver(request.substr(0, cut));
      EXPECT_EQ(stream_->take_written(), "") << "cut at " << cut;
      deliver(request.substr(cut));
      EXPECT_EQ(stream_->take_written(), expected) << "cut at " << cut;
      hang_up();
      ASSERT_TRUE(closed()) << "cut at " << cut;
    }
  }
  EXPECT_EQ(requests(), kGet.size() + kPost.size());  // one whole, then one per cut
  EXPECT_EQ(bad_requests(), 0u);
  EXPECT_EQ(connections(), kGet.size() + kPost.size());
}

TEST_F(ServerConnection, PipelinedRequestsByteByByteAreAnsweredInOrder) {
  const std::string pipeline =
      "GET /?size=1 HTTP/1.1\r\nHost: x\r\n\r\n"
      "GET /?status=404 HTTP/1.1\r\nHost: x\r\n\r\n" +
      kPost + "GET /count HTTP/1.1\r\nHost: x\r\n\r\n";
  open();
  stream_->set_read_limit(1);
  stream_->feed(pipeline);
  for (std::size_t i = 0; i < pipeline.size(); ++i)
    events(kIn);
  EXPECT_EQ(stream_->unread(), 0u);
  const std::vector<Answer> got = answers_in(stream_->written());
  ASSERT_EQ(got.size(), 4u);
  EXPECT_EQ(got[0].status, 200);
  EXPECT_EQ(got[0].body, "x");
  EXPECT_EQ(got[1].status, 404);
  EXPECT_EQ(got[2].status, 200);
  EXPECT_EQ(got[2].body, "OK");
  EXPECT_NE(got[3].body.find("\"served\":3"), std::string::npos) << got[3].body;
  EXPECT_TRUE(counts_are({.requests = 3, .errors = 1}));
  EXPECT_FALSE(closed());
}

TEST_F(ServerConnection, PipelinedRequestsInOneReadAreAnsweredInOneWrite) {
  open();
  deliver(kGet + kPost + kGet);
  const std::vector<Answer> got = answers_in(stream_->written());
  ASSERT_EQ(got.size(), 3u);
  EXPECT_EQ(got[0].body, "xxxxx");
  EXPECT_EQ(got[1].body, "OK");
  EXPECT_EQ(got[2].body, "xxxxx");
  EXPECT_EQ(stream_->operations(), 2u);  // one read, one write
  EXPECT_EQ(requests(), 3u);
}

TEST_F(ServerConnection, ShortWriteSendsTheRestOnTheNextWritableEvent) {
  const std::string expected = whole_answer(kGet);
  open();
  stream_->fail_at(2, Fault::Short, 10);  // 1: the read, 2: the write
  deliver(kGet);
  EXPECT_EQ(stream_->written(), expected.substr(0, 10));
  events(kOut);
  EXPECT_EQ(stream_->written(), expected);
  events(kOut);
  EXPECT_EQ(stream_->written(), expected);  // nothing twice
  EXPECT_EQ(requests(), 2u);
  EXPECT_FALSE(closed());
}

TEST_F(ServerConnection, BlockedWriteResumesWhenTheClientReads) {
  const std::string expected = whole_answer(kGet);
  open();
  stream_->set_write_capacity(7);
  deliver(kGet + kGet);
  EXPECT_EQ(stream_->written(), expected.substr(0, 7));
  events(kOut);  // still full: EAGAIN
  EXPECT_EQ(stream_->written(), expected.substr(0, 7));
  stream_->fail_at(stream_->operations() + 1, Fault::WouldBlock);
  stream_->add_write_capacity(1 << 20);
  events(kOut);  // EAGAIN once more
  EXPECT_EQ(stream_->written(), expected.substr(0, 7));
  events(kOut);
  EXPECT_EQ(stream_->written(), expected + expected);
  EXPECT_EQ(requests(), 3u);
}

TEST_F(ServerConnection, ResetInTheMiddleOfARequestClosesWithoutAnswer) {
  open();
  deliver(kPost.substr(0, 20));
  stream_->fail_at(stream_->operations() + 1, Fault::Reset);
  deliver(kPost.substr(20));
  EXPECT_TRUE(closed());
  EXPECT_EQ(stream_->written(), "");
  EXPECT_TRUE(counts_are({.requests = 0, .bad_requests = 0, .served = 0}));
}

TEST_F(ServerConnection, WantWriteInsideAReadIsRetriedWhenWritable) {
  open();
  stream_->fail_at(1, Fault::WantWrite);
  deliver(kGet);
  EXPECT_EQ(stream_->written(), "");
  EXPECT_EQ(stream_->unread(), kGet.size());
  events(kOut);  // the record layer could write: the read goes on
  const std::vector<Answer> got = answers_in(stream_->written());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "xxxxx");
  EXPECT_EQ(requests(), 1u);
}

TEST_F(ServerConnection, CloseInTheMiddleOfAWriteClosesAfterThePrefix) {
  const std::string expected = whole_answer(kGet + kGet);
  open();
  stream_->fail_at(2, Fault::CloseMidWrite, 30);
  deliver(kGet + kGet);
  EXPECT_TRUE(closed());
  EXPECT_EQ(stream_->written(), expected.substr(0, 30));
  EXPECT_EQ(requests(), 4u);  // read in full before the peer went
  EXPECT_EQ(bad_requests(), 0u);
  // The pooled connection serves the next client as if nothing happened.
  EXPECT_EQ(whole_answer(kGet), expected.substr(0, expected.size() / 2));
}

// docs/serve.md: a request cut short by the client's end of stream gets a 400 and a close; it
// is a bad request, never a served one.
TEST_F(ServerConnection, EndOfStreamInsideAHeadIsRefusedNotServed) {
  for (const bool as_fault : {false, true}) {
    const std::uint64_t bad_before = bad_requests();
    open();
    deliver("GET / HTTP/1.1\r\nHo");
    EXPECT_EQ(stream_->take_written(), "");
    if (as_fault) {
      stream_->fail_at(stream_->operations() + 1, Fault::Eof);
      deliver("st: x\r\n\r\n");  // never read: the stream ended before it
    } else {
      hang_up();
    }
    EXPECT_TRUE(closed());
    const std::vector<Answer> got = answers_in(stream_->written());
    ASSERT_EQ(got.size(), 1u);
    EXPECT_EQ(got[0].status, 400);
    EXPECT_TRUE(counts_are({.requests = 0, .bad_requests = bad_before + 1, .served = 0}));
  }
}

TEST_F(ServerConnection, DelayedAnswerToAClientThatResetIsDropped) {
  open();
  deliver("GET /?delay=20 HTTP/1.1\r\nHost: x\r\n\r\n");
  EXPECT_EQ(stream_->written(), "");
  stream_->fail_at(stream_->operations() + 1, Fault::Reset);
  events(kReset);
  EXPECT_TRUE(closed());
  EXPECT_EQ(requests(), 1u);  // read in full; its answer had nowhere to go
  // The pooled object serves the next client; the gone client's timer must not answer on it.
  Connection& next = open();
  EXPECT_EQ(&next, connection_);
  deliver("GET /?delay=300 HTTP/1.1\r\nHost: x\r\n\r\n");
  run_loop_for(40);  // past the gone client's 20 ms, well before this one's 300 ms
  EXPECT_EQ(stream_->written(), "");
  run_loop_until([&] { return !stream_->written().empty(); });
  const std::vector<Answer> got = answers_in(stream_->written());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "OK");
  EXPECT_EQ(requests(), 2u);
  EXPECT_FALSE(closed());
}

TEST_F(ServerConnection, DelayedAnswerFindingTheClientGoneCloses) {
  open();
  deliver("GET /?delay=20 HTTP/1.1\r\nHost: x\r\n\r\n");
  stream_->fail_at(stream_->operations() + 1, Fault::Reset);  // the answer's write
  run_loop_until([&] { return closed(); });
  EXPECT_TRUE(closed());
  EXPECT_EQ(stream_->written(), "");
  EXPECT_TRUE(counts_are({.requests = 1, .errors = 0, .bad_requests = 0}));
}

TEST_F(ServerConnection, DelayedAnswerStillGoesToAClientThatHalfClosed) {
  open();
  deliver("GET /?delay=20 HTTP/1.1\r\nHost: x\r\n\r\n");
  hang_up();
  EXPECT_FALSE(closed());
  run_loop_until([&] { return closed(); });
  EXPECT_TRUE(closed());
  const std::vector<Answer> got = answers_in(stream_->written());
  ASSERT_EQ(got.size(), 1u);
  EXPECT_EQ(got[0].body, "OK");
  EXPECT_TRUE(counts_are({.requests = 1, .served = 1}));
}

}  // namespace
}  // namespace stampede::server
