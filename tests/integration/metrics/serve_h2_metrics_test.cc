// GET /metrics of `stampede serve` over HTTP/2 (h2c with prior knowledge): the same text, with
// the statuses of the streams served before it.
#include <gtest/gtest.h>

#include <sys/socket.h>

#include <string>

#include "support/h2_client_session.h"
#include "support/loopback.h"
#include "support/test_server.h"

namespace stampede::testing {
namespace {

// Sends what `session` queued and feeds it what comes back until stream `id` is answered, at
// most 200 reads (each bounded by the socket's 2 s timeout).
bool await_answer(int fd, H2ClientSession& session, std::int32_t id) {
  char buffer[16384];
  for (int i = 0; i < 200 && !session.answered(id); ++i) {
    if (!send_all(fd, session.take_output())) return false;
    const ssize_t n = recv_some(fd, buffer, sizeof buffer);
    if (n <= 0) return false;
    session.receive(std::string_view(buffer, static_cast<std::size_t>(n)));
  }
  return session.answered(id);
}

TEST(ServeMetrics, AnsweredOverHttp2) {
  auto s = start_server();
  ASSERT_TRUE(s);
  net::Fd fd = connect_loopback(s->port());
  ASSERT_TRUE(fd);
  timeval tv{2, 0};
  setsockopt(fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  H2ClientSession session;
  const std::int32_t ok = session.request("GET", "/", "x");
  const std::int32_t missing = session.request("GET", "/?status=404", "x");
  ASSERT_TRUE(await_answer(fd.get(), session, ok));
  ASSERT_TRUE(await_answer(fd.get(), session, missing));
  const std::int32_t metrics = session.request("GET", "/metrics", "x");
  ASSERT_TRUE(await_answer(fd.get(), session, metrics));
  const H2Answer& a = session.answers[metrics];
  EXPECT_EQ(a.status, 200);
  EXPECT_EQ(a.headers.at("content-type"), "text/plain; version=0.0.4; charset=utf-8");
  EXPECT_NE(a.body.find("\nstampede_serve_requests_total 2\n"), std::string::npos) << a.body;
  EXPECT_NE(a.body.find("\nstampede_serve_responses_total{status=\"200\"} 1\n"), std::string::npos);
  EXPECT_NE(a.body.find("\nstampede_serve_responses_total{status=\"404\"} 1\n"), std::string::npos);
  EXPECT_EQ(a.body.find("\nstampede_serve_sent_bytes_total 0\n"), std::string::npos);
  fd.reset();
  s->stop();
}

}  // namespace
}  // namespace stampede::testing
