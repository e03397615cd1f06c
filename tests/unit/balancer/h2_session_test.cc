// H2Session's writing rule without sockets (stream_rig.h): what the streams of a client's HTTP/2
// connection produce in one loop iteration leaves in one write, and a full socket is not written
// to again before its EPOLLOUT. The backends' answers arrive through the worker's loop
// (TestStream::notify(), run_once), as readiness edges of one iteration do.
#include <gtest/gtest.h>
#include <sys/epoll.h>

#include <string>
#include <vector>

#include "stream_rig.h"
#include "support/h2_client_session.h"

namespace stampede::balancer {
namespace h2session {

using rig::Rig;
using testing::H2ClientSession;
using testing::TestStream;

const std::string kAnswer = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

// A client connection switched to HTTP/2 with `streams` GETs open, each sent to its own backend
// connection (the rig pools none).
struct Front {
  explicit Front(Rig& rig, int streams) : session(rig.connect(client)) {
    for (int i = 0; i < streams; ++i)
      ids.push_back(peer.request("GET", "/s" + std::to_string(i), "front.test"));
    client->feed(peer.take_output());
    session.on_events(EPOLLIN);
    rig.loop().run_once(0);  // the session's SETTINGS go out
    peer.receive(client->take_written());
  }

  TestStream* client = nullptr;
  ProxySession& session;
  H2ClientSession peer;
  std::vector<std::int32_t> ids;
};

TEST(H2SessionWrites, AnswersOfOneIterationLeaveInOneWrite) {
  Rig rig(2);
  Front front(rig, 10);
  ASSERT_EQ(rig.opener.opened.size(), 10u);
  const std::size_t writes = front.client->writes();
  for (const auto& backend : rig.opener.opened) {
    backend.stream->feed(kAnswer);
    backend.stream->notify();
  }
  rig.loop().run_once(0);  // ten backends readable in one iteration
  EXPECT_EQ(front.client->writes() - writes, 1u);
  front.peer.receive(front.client->take_written());
  int from_a = 0;
  for (std::int32_t id : front.ids) {
    const auto& answer = front.peer.answers[id];
    EXPECT_TRUE(answer.done) << "stream " << id;
    EXPECT_EQ(answer.status, 200);
    EXPECT_EQ(answer.body, "ok");
    from_a += answer.headers.count("x-backend") && answer.headers.at("x-backend") == "a";
  }
  EXPECT_EQ(from_a, 5);  // round robin over a and b, per stream
  EXPECT_EQ(rig.totals(0).responses + rig.totals(1).responses, 10u);
}

TEST(H2SessionWrites, AnswersOfLaterIterationsLeaveInWritesOfTheirOwn) {
  Rig rig(2);
  Front front(rig, 3);
  ASSERT_EQ(rig.opener.opened.size(), 3u);
  for (std::size_t i = 0; i < 3; ++i) {
    const std::size_t writes = front.client->writes();
    rig.opener.opened[i].stream->feed(kAnswer);
    rig.opener.opened[i].stream->notify();
    rig.loop().run_once(0);
    EXPECT_EQ(front.client->writes() - writes, 1u) << "answer " << i;
    front.peer.receive(front.client->take_written());
    EXPECT_TRUE(front.peer.answered(front.ids[i]));
  }
}

TEST(H2SessionWrites, AFullSocketWaitsForItsEpolloutAndLosesNothing) {
  Rig rig(2);
  Front front(rig, 10);
  ASSERT_EQ(rig.opener.opened.size(), 10u);
  front.client->set_write_capacity(100);  // the client's socket takes 100 bytes, then is full
  const std::size_t writes = front.client->writes();
  for (const auto& backend : rig.opener.opened) {
    backend.stream->feed(kAnswer);
    backend.stream->notify();
  }
  rig.loop().run_once(0);
  EXPECT_EQ(front.client->writes() - writes, 1u);  // a short write: the socket is full
  // Iterations that bring the session nothing write nothing; a stream's timeout sweep neither.
  for (int i = 0; i < 3; ++i)
    rig.loop().run_once(0);
  front.session.on_tick(rig.loop().now_ns());
  rig.loop().run_once(0);
  EXPECT_EQ(front.client->writes() - writes, 1u);
  // The socket drains: its EPOLLOUT brings the rest in one write.
  front.client->set_write_capacity(static_cast<std::size_t>(-1));
  front.session.on_events(EPOLLOUT);
  rig.loop().run_once(0);
  EXPECT_EQ(front.client->writes() - writes, 2u);
  front.peer.receive(front.client->take_written());
  for (std::int32_t id : front.ids) {
    EXPECT_TRUE(front.peer.answered(id)) << "stream " << id;
    EXPECT_EQ(front.peer.answers[id].body, "ok");
  }
}

// A finished stream's buffers go to the connection's next stream (H2Session::lend_buffer): the
// next one starts from empty queues, whatever the first one held.
TEST(H2SessionWrites, ALaterStreamReusesBuffersAndSeesNoneOfTheirBytes) {
  Rig rig(2);
  Front front(rig, 1);
  ASSERT_EQ(rig.opener.opened.size(), 1u);
  rig.opener.opened[0].stream->feed(
      "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\na\r\n0123456789\r\n0\r\n\r\n");
  rig.opener.opened[0].stream->notify();
  rig.loop().run_once(0);
  front.peer.receive(front.client->take_written());
  EXPECT_EQ(front.peer.answers[front.ids[0]].body, "0123456789");

  const std::int32_t second = front.peer.request("GET", "/second", "front.test");
  front.client->feed(front.peer.take_output());
  front.session.on_events(EPOLLIN);
  ASSERT_EQ(rig.opener.opened.size(), 2u);
  const std::string& sent = rig.opener.opened[1].stream->written();
  EXPECT_EQ(sent.rfind("GET /second HTTP/1.1\r\n", 0), 0u) << sent;
  EXPECT_EQ(sent.find("GET", 1), std::string::npos) << sent;
  rig.opener.opened[1].stream->feed(kAnswer);
  rig.opener.opened[1].stream->notify();
  rig.loop().run_once(0);
  front.peer.receive(front.client->take_written());
  EXPECT_TRUE(front.peer.answered(second));
  EXPECT_EQ(front.peer.answers[second].body, "ok");
}

}  // namespace h2session
}  // namespace stampede::balancer
