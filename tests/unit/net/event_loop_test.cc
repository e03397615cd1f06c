#include "net/event_loop.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "net/socket.h"
#include "support/test_pipe.h"

namespace stampede::net {
namespace {

// Every test of the loop runs over each backend: both keep the contract of event_loop.h.
class EventLoopTest : public ::testing::TestWithParam<IoBackend> {
 protected:
  std::unique_ptr<EventLoop> make_loop() {
    auto loop = EventLoop::create(GetParam());
    EXPECT_TRUE(loop.ok()) << loop.error().message;
    return std::move(loop).value();
  }
};

INSTANTIATE_TEST_SUITE_P(Backends, EventLoopTest,
                         ::testing::Values(IoBackend::Epoll, IoBackend::Uring),
                         [](const auto& info) { return std::string(io_backend_name(info.param)); });

TEST_P(EventLoopTest, TimersFireInDeadlineOrder) {
  auto loop = make_loop();
  std::vector<int> order;
  std::int64_t base = loop->now_ns();
  Timer a([&] { order.push_back(1); });
  Timer b([&] { order.push_back(2); });
  Timer c([&] { order.push_back(3); });
  Timer done([&] { loop->stop(); });
  loop->schedule(c, base + 3'000'000);
  loop->schedule(a, base + 1'000'000);
  loop->schedule(b, base + 2'000'000);
  loop->schedule(done, base + 4'000'000);
  loop->run();
  EXPECT_EQ(order, (std::vector<int>{1, 2, 3}));
  EXPECT_GE(loop->now_ns(), base + 4'000'000);
}

TEST_P(EventLoopTest, CancelledAndDestroyedTimersDoNotFire) {
  auto loop = make_loop();
  int fired = 0;
  Timer keep([&] { ++fired; });
  Timer cancelled([&] { fired += 100; });
  Timer done([&] { loop->stop(); });
  loop->schedule(keep, loop->now_ns() + 1'000'000);
  loop->schedule(cancelled, loop->now_ns() + 500'000);
  {
    Timer destroyed([&] { fired += 1000; });
    loop->schedule(destroyed, loop->now_ns() + 200'000);
  }
  loop->cancel(cancelled);
  EXPECT_FALSE(cancelled.armed());
  loop->schedule(done, loop->now_ns() + 2'000'000);
  loop->run();
  EXPECT_EQ(fired, 1);
}

TEST_P(EventLoopTest, RescheduleMovesTheDeadline) {
  auto loop = make_loop();
  std::vector<int> order;
  Timer a([&] { order.push_back(1); });
  Timer b([&] { order.push_back(2); });
  Timer done([&] { loop->stop(); });
  loop->schedule(a, loop->now_ns() + 1'000'000);
  loop->schedule(b, loop->now_ns() + 2'000'000);
  loop->schedule(a, loop->now_ns() + 3'000'000);
  loop->schedule(done, loop->now_ns() + 4'000'000);
  loop->run();
  EXPECT_EQ(order, (std::vector<int>{2, 1}));
}

// One timer for several deadlines: an earlier one moves it, a later one leaves it.
TEST_P(EventLoopTest, ScheduleNoLaterKeepsTheEarliestDeadline) {
  auto loop = make_loop();
  Timer t([] {});
  const std::int64_t base = loop->now_ns() + 10'000'000;
  loop->schedule_no_later(t, base);
  EXPECT_EQ(t.deadline_ns(), base);
  loop->schedule_no_later(t, base + 1);
  EXPECT_EQ(t.deadline_ns(), base);
  loop->schedule_no_later(t, base - 1);
  EXPECT_EQ(t.deadline_ns(), base - 1);
  loop->cancel(t);
  loop->schedule_no_later(t, base + 5);  // not armed: any deadline arms it
  EXPECT_TRUE(t.armed());
  EXPECT_EQ(t.deadline_ns(), base + 5);
  loop->cancel(t);
}

// A loop driven by hand: the earliest timer fires at once, hours before its deadline, and a
// timer it arms is the next one out.
TEST_P(EventLoopTest, ExpireNextTimerFiresTheEarliestAtOnce) {
  auto loop = make_loop();
  constexpr std::int64_t kHour = 3'600'000'000'000;
  const std::int64_t base = loop->now_ns();
  std::vector<int> order;
  Timer late([&] { order.push_back(2); });
  Timer rearmed([&] { order.push_back(3); });
  Timer early([&] {
    order.push_back(1);
    loop->schedule(rearmed, base + kHour);
  });
  loop->schedule(late, base + 2 * kHour);
  loop->schedule(early, base + kHour);
  EXPECT_TRUE(loop->expire_next_timer());
  EXPECT_EQ(order, (std::vector<int>{1}));
  EXPECT_FALSE(early.armed());
  EXPECT_TRUE(loop->expire_next_timer());
  EXPECT_TRUE(loop->expire_next_timer());
  EXPECT_EQ(order, (std::vector<int>{1, 3, 2}));
  EXPECT_FALSE(loop->expire_next_timer());
  EXPECT_EQ(loop->now_ns(), base);
}

TEST_P(EventLoopTest, PostFromAnotherThreadRunsOnTheLoop) {
  auto loop = make_loop();
  std::thread::id ran_on;
  std::thread poster([&] {
    loop->post([&] {
      ran_on = std::this_thread::get_id();
      loop->stop();
    });
  });
  loop->run();
  poster.join();
  EXPECT_EQ(ran_on, std::this_thread::get_id());
}

TEST_P(EventLoopTest, StopFromAnotherThreadEndsRun) {
  auto loop = make_loop();
  std::thread stopper([&] { loop->stop(); });
  loop->run();  // must return: the test would time out otherwise
  stopper.join();
  EXPECT_TRUE(loop->stopped());
}

// Records its events in a shared log.
class Recorder final : public IoHandler {
 public:
  explicit Recorder(std::vector<std::string>& log) : log_(log) {}
  void on_events(std::uint32_t) override { log_.push_back("io"); }

 private:
  std::vector<std::string>& log_;
};

TEST_P(EventLoopTest, AfterIoRunsEachIterationBetweenIoAndTimers) {
  auto loop = make_loop();
  std::vector<std::string> log;
  int fds[2];
  ASSERT_EQ(::pipe2(fds, O_NONBLOCK | O_CLOEXEC), 0);
  Fd read_end(fds[0]), write_end(fds[1]);
  Recorder recorder(log);
  ASSERT_TRUE(loop->add(read_end.get(), EPOLLIN | EPOLLET, &recorder).ok());
  ASSERT_EQ(::write(write_end.get(), "x", 1), 1);
  Timer done([&] {
    log.push_back("timer");
    loop->stop();
  });
  loop->schedule(done, loop->now_ns());  // already due: fires in the first iteration
  loop->set_after_io([&] { log.push_back("check"); });
  loop->run();
  EXPECT_EQ(log, (std::vector<std::string>{"io", "check", "timer"}));
}

class Acceptor final : public IoHandler {
 public:
  explicit Acceptor(int fd) : fd_(fd) {}
  void on_events(std::uint32_t) override {
    IoStatus st;
    for (Fd c = accept_tcp(fd_, st); c; c = accept_tcp(fd_, st))
      accepted.push_back(std::move(c));
  }
  std::vector<Fd> accepted;

 private:
  int fd_;
};

class Connector final : public IoHandler {
 public:
  explicit Connector(EventLoop& loop) : loop_(loop) {}
  void on_events(std::uint32_t) override {
    result = connect_result(fd);
    loop_.stop();
  }
  int fd = -1;
  int result = -1;

 private:
  EventLoop& loop_;
};

TEST_P(EventLoopTest, SocketListenOnPortZeroConnectAndExchangeBytes) {
  auto loop = make_loop();
  auto addr = parse_host_port("127.0.0.1:0");
  ASSERT_TRUE(addr.ok()) << addr.error().message;
  auto listener = listen_tcp(*addr);
  ASSERT_TRUE(listener.ok()) << listener.error().message;
  auto bound = local_address(listener->get());
  ASSERT_TRUE(bound.ok());
  ASSERT_NE(bound->port(), 0);
  EXPECT_TRUE(bound->is_loopback());

  Acceptor acceptor(listener->get());
  ASSERT_TRUE(loop->add(listener->get(), EPOLLIN, &acceptor).ok());
  auto client = connect_tcp(*bound);
  ASSERT_TRUE(client.ok()) << client.error().message;
  Connector connector(*loop);
  connector.fd = client->get();
  ASSERT_TRUE(loop->add(client->get(), EPOLLOUT, &connector).ok());
  Timer guard([&] { loop->stop(); });
  loop->schedule(guard, loop->now_ns() + 5'000'000'000);
  loop->run();
  EXPECT_EQ(connector.result, 0);

  std::size_t n = 0;
  ASSERT_EQ(write_some(client->get(), "ping", 4, n), IoStatus::Done);
  EXPECT_EQ(n, 4u);
  // Drive the loop until the acceptor has the connection (bounded).
  for (int i = 0; i < 100 && acceptor.accepted.empty(); ++i)
    (void)loop->run_once(10'000'000);
  ASSERT_EQ(acceptor.accepted.size(), 1u);
  char buf[16];
  IoStatus st = IoStatus::WouldBlock;
  for (int i = 0; i < 1000 && st == IoStatus::WouldBlock; ++i) {
    st = read_some(acceptor.accepted[0].get(), buf, sizeof buf, n);
  }
  ASSERT_EQ(st, IoStatus::Done);
  EXPECT_EQ(std::string(buf, n), "ping");
  client->reset();
  st = IoStatus::WouldBlock;
  for (int i = 0; i < 100000 && st == IoStatus::WouldBlock; ++i) {
    st = read_some(acceptor.accepted[0].get(), buf, sizeof buf, n);
  }
  EXPECT_EQ(st, IoStatus::Eof);
}

TEST_P(EventLoopTest, SocketConnectToAClosedPortIsRefused) {
  // Bind a port, learn it, close it: nothing listens there afterwards.
  auto addr = parse_host_port("127.0.0.1:0");
  ASSERT_TRUE(addr.ok());
  Address closed;
  {
    auto listener = listen_tcp(*addr);
    ASSERT_TRUE(listener.ok());
    closed = *local_address(listener->get());
  }
  auto loop = make_loop();
  auto client = connect_tcp(closed);
  int err = 0;
  if (!client.ok()) {
    EXPECT_EQ(client.error().message, "ECONNREFUSED");
    return;
  }
  Connector connector(*loop);
  connector.fd = client->get();
  ASSERT_TRUE(loop->add(client->get(), EPOLLOUT, &connector).ok());
  loop->run();
  err = connector.result;
  EXPECT_EQ(errno_name(err), "ECONNREFUSED");
}

// A pipe whose read end a Counter watches: counts the calls and their masks, reads nothing.
using WatchedPipe = testing::TestPipe;

class Counter final : public IoHandler {
 public:
  void on_events(std::uint32_t events) override {
    ++calls;
    seen |= events;
  }
  int calls = 0;
  std::uint32_t seen = 0;
};

TEST_P(EventLoopTest, EdgeTriggeredReportsOncePerArrival) {
  auto loop = make_loop();
  WatchedPipe pipe;
  Counter counter;
  pipe.put();  // ready before add: reported once
  ASSERT_TRUE(loop->add(pipe.read_end.get(), EPOLLIN | EPOLLRDHUP | EPOLLET, &counter).ok());
  for (int i = 0; i < 3; ++i)
    (void)loop->run_once(0);
  EXPECT_EQ(counter.calls, 1);
  EXPECT_TRUE(counter.seen & EPOLLIN);
  pipe.put();  // new data: one more report, though the first byte was never read
  for (int i = 0; i < 100 && counter.calls < 2; ++i)
    (void)loop->run_once(10'000'000);
  for (int i = 0; i < 3; ++i)
    (void)loop->run_once(0);
  EXPECT_EQ(counter.calls, 2);
  pipe.write_end.reset();  // the writer hangs up: EPOLLHUP
  for (int i = 0; i < 100 && !(counter.seen & EPOLLHUP); ++i)
    (void)loop->run_once(10'000'000);
  EXPECT_TRUE(counter.seen & EPOLLHUP);
  loop->remove(pipe.read_end.get());
}

TEST_P(EventLoopTest, LevelTriggeredReportsEveryIterationWhileReady) {
  auto loop = make_loop();
  WatchedPipe pipe;
  Counter counter;
  ASSERT_TRUE(loop->add(pipe.read_end.get(), EPOLLIN, &counter).ok());
  (void)loop->run_once(0);
  EXPECT_EQ(counter.calls, 0);
  pipe.put();
  for (int i = 0; i < 100 && counter.calls == 0; ++i)
    (void)loop->run_once(10'000'000);
  ASSERT_EQ(counter.calls, 1);
  // Unread, the byte keeps the pipe readable: every iteration reports it, without waiting.
  for (int i = 0; i < 3; ++i)
    (void)loop->run_once(1'000'000'000);
  EXPECT_EQ(counter.calls, 4);
  char byte;
  ASSERT_EQ(::read(pipe.read_end.get(), &byte, 1), 1);
  for (int i = 0; i < 2; ++i)
    (void)loop->run_once(0);
  EXPECT_LE(counter.calls, 5);  // at most the report in flight when the byte was read
  const int settled = counter.calls;
  (void)loop->run_once(0);
  EXPECT_EQ(counter.calls, settled);
  loop->remove(pipe.read_end.get());
}

TEST_P(EventLoopTest, RemovedDescriptorReportsNothingMore) {
  auto loop = make_loop();
  WatchedPipe pipe;
  Counter removed, added;
  ASSERT_TRUE(loop->add(pipe.read_end.get(), EPOLLIN | EPOLLET, &removed).ok());
  (void)loop->run_once(0);  // the registration reaches the kernel
  pipe.put();
  loop->remove(pipe.read_end.get());
  for (int i = 0; i < 3; ++i)
    (void)loop->run_once(0);
  EXPECT_EQ(removed.calls, 0);
  // The same descriptor registered again reports to its new handler only.
  ASSERT_TRUE(loop->add(pipe.read_end.get(), EPOLLIN | EPOLLET, &added).ok());
  for (int i = 0; i < 100 && added.calls == 0; ++i)
    (void)loop->run_once(10'000'000);
  EXPECT_EQ(added.calls, 1);
  EXPECT_EQ(removed.calls, 0);
  loop->remove(pipe.read_end.get());
}

TEST_P(EventLoopTest, RemoveThenCloseLetsThePeerSeeTheClose) {
  auto loop = make_loop();
  int fds[2];
  ASSERT_EQ(::socketpair(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0, fds), 0);
  Fd ours(fds[0]), peer(fds[1]);
  Counter counter;
  ASSERT_TRUE(loop->add(ours.get(), EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, &counter).ok());
  (void)loop->run_once(0);
  loop->remove(ours.get());
  ours.reset();
  (void)loop->run_once(0);  // an io_uring poll lets go of the socket once its removal is in
  char byte;
  EXPECT_EQ(::read(peer.get(), &byte, 1), 0);  // end of stream, not EAGAIN
}

TEST_P(EventLoopTest, NumberOfADescriptorClosedWithoutRemoveCanBeRegisteredAgain) {
  auto loop = make_loop();
  Counter first, second;
  auto old_pipe = std::make_unique<WatchedPipe>();
  const int number = old_pipe->read_end.get();
  ASSERT_TRUE(loop->add(number, EPOLLIN | EPOLLET, &first).ok());
  (void)loop->run_once(0);
  old_pipe.reset();  // closed without remove(), as epoll allows
  WatchedPipe pipe;
  ASSERT_EQ(pipe.read_end.get(), number);  // the kernel hands out the lowest free number
  ASSERT_TRUE(loop->add(number, EPOLLIN | EPOLLET, &second).ok());
  pipe.put();
  for (int i = 0; i < 100 && second.calls == 0; ++i)
    (void)loop->run_once(10'000'000);
  EXPECT_EQ(second.calls, 1);
  EXPECT_EQ(first.calls, 0);
  loop->remove(number);
}

TEST_P(EventLoopTest, ManyDescriptorsEachReportedOnce) {
  // More registrations than the io_uring submission queue holds (256), all ready at once.
  constexpr int kPipes = 400;
  auto loop = make_loop();
  std::vector<WatchedPipe> pipes(kPipes);
  std::vector<Counter> counters(kPipes);
  for (int i = 0; i < kPipes; ++i) {
    ASSERT_TRUE(loop->add(pipes[i].read_end.get(), EPOLLIN | EPOLLET, &counters[i]).ok());
  }
  (void)loop->run_once(0);
  for (auto& p : pipes)
    p.put();
  auto reported = [&] {
    int n = 0;
    for (const auto& c : counters)
      n += c.calls > 0;
    return n;
  };
  for (int i = 0; i < 200 && reported() < kPipes; ++i)
    (void)loop->run_once(10'000'000);
  (void)loop->run_once(0);
  for (int i = 0; i < kPipes; ++i)
    EXPECT_EQ(counters[i].calls, 1) << i;
  for (auto& p : pipes)
    loop->remove(p.read_end.get());
}

TEST(Socket, ParseHostPortRejectsBadInput) {
  for (const char* bad :
       {"", "127.0.0.1", "127.0.0.1:", "127.0.0.1:99999", "127.0.0.1:x", "::1:80", ":80"}) {
    EXPECT_FALSE(parse_host_port(bad).ok()) << bad;
  }
  auto v6 = parse_host_port("[::1]:8080");
  ASSERT_TRUE(v6.ok()) << v6.error().message;
  EXPECT_EQ(v6->to_string(), "[::1]:8080");
  EXPECT_TRUE(v6->is_loopback());
}

}  // namespace
}  // namespace stampede::net
