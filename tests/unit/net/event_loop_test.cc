#include "net/event_loop.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <string>
#include <thread>
#include <vector>

#include "core/clock.h"
#include "net/socket.h"

namespace stampede::net {
namespace {

std::unique_ptr<EventLoop> make_loop() {
  auto loop = EventLoop::create();
  EXPECT_TRUE(loop.ok());
  return std::move(loop).value();
}

TEST(EventLoop, TimersFireInDeadlineOrder) {
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

TEST(EventLoop, CancelledAndDestroyedTimersDoNotFire) {
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

TEST(EventLoop, RescheduleMovesTheDeadline) {
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

TEST(EventLoop, PostFromAnotherThreadRunsOnTheLoop) {
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

TEST(EventLoop, StopFromAnotherThreadEndsRun) {
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

TEST(EventLoop, AfterIoRunsEachIterationBetweenIoAndTimers) {
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

TEST(Socket, ListenOnPortZeroConnectAndExchangeBytes) {
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

TEST(Socket, ConnectToAClosedPortIsRefused) {
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
