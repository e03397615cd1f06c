// No allocation per request in the steady state: a run of 11000 requests allocates no more than
// a run of 1000. Counts calls to the global operator new, replaced in this binary; the peer is a
// blocking server below that does not allocate either once running.
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include "loadgen/runner.h"
#include "support/accept_loop.h"
#include "support/counting_new.h"

namespace stampede::loadgen {
namespace {

// One connection at a time, blocking I/O on fixed buffers: answers every request head with
// 200 "OK", and closes after each answer when `close_each`. Each answer is its own send(), so
// TCP_NODELAY, as nginx and `stampede serve` set: with Nagle's algorithm the answers to a
// pipelined batch after the first would wait for the client's delayed ACK (40 ms per batch),
// since the client writes nothing until the whole batch is answered.
class FixedServer {
 public:
  explicit FixedServer(bool close_each) : close_each_(close_each) {}
  std::string url() const { return "http://127.0.0.1:" + std::to_string(loop_.port()) + "/"; }

 private:
  // Counts "\r\n\r\n" across reads (requests have no body) and answers each.
  void answer(int c) {
    static constexpr char kKeep[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nOK";
    static constexpr char kClose[] =
        "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\nOK";
    const int one = 1;
    ::setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    char buffer[4096];
    unsigned matched = 0;
    for (;;) {
      const ssize_t n = ::read(c, buffer, sizeof buffer);
      if (n <= 0) return;
      for (ssize_t i = 0; i < n; ++i) {
        const char want = (matched % 2 == 0) ? '\r' : '\n';
        matched = buffer[i] == want ? matched + 1 : (buffer[i] == '\r' ? 1 : 0);
        if (matched < 4) continue;
        matched = 0;
        const char* reply = close_each_ ? kClose : kKeep;
        const std::size_t size = close_each_ ? sizeof kClose - 1 : sizeof kKeep - 1;
        if (::send(c, reply, size, MSG_NOSIGNAL) != static_cast<ssize_t>(size)) return;
        if (close_each_) return;
      }
    }
  }

  bool close_each_;
  testing::AcceptLoop loop_{[this](int c) { answer(c); }};  // last: stops before close_each_ goes
};

long allocations_for(const std::string& url, bool keep_alive, std::uint64_t requests,
                     std::uint32_t pipeline = 1) {
  Config c;
  c.url = url;
  c.concurrency = 1;
  c.cores = 1;
  c.keep_alive = keep_alive;
  c.max_requests = requests;
  c.pipeline = pipeline;
  c.timeout = std::chrono::seconds(10);
  const long before = stampede::test::allocations.load();
  auto r = run(c);
  const long after = stampede::test::allocations.load();
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r->total_requests, requests);
  EXPECT_EQ(r->total_errors, 0u);
  // The server closes right after each answer: its FIN often comes with the response, and
  // must not leave the connection waiting for an EOF edge that never comes.
  EXPECT_LT(r->elapsed_seconds(), 10.0);
  return after - before;
}

// Runs `small` then `small` + `more` requests against a server that closes after each answer
// or not (`close_each`): the larger run allocates fewer than 10 more times than the smaller.
void expect_no_allocation_per_request(bool close_each, std::uint64_t small_n, std::uint64_t more,
                                      std::uint32_t pipeline = 1) {
  FixedServer server(close_each);
  const long small = allocations_for(server.url(), !close_each, small_n, pipeline);
  const long large = allocations_for(server.url(), !close_each, small_n + more, pipeline);
  EXPECT_LT(large - small, 10) << small << " vs " << large;
  ::testing::Test::RecordProperty("allocations",
                                  std::to_string(small) + " vs " + std::to_string(large));
}

TEST(SteadyState, KeepAliveRequestsDoNotAllocate) {
  expect_no_allocation_per_request(/*close_each=*/false, 1000, 10000);
}

// --pipeline 16: the in-flight ring and the batch are sized once per connection.
TEST(SteadyState, PipelinedRequestsDoNotAllocate) {
  expect_no_allocation_per_request(/*close_each=*/false, 1000, 10000, /*pipeline=*/16);
}

TEST(SteadyState, ConnectionPerRequestDoesNotAllocate) {
  expect_no_allocation_per_request(/*close_each=*/true, 200, 2000);
}

}  // namespace
}  // namespace stampede::loadgen
