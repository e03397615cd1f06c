// What only the io_uring backend promises, or only it can get wrong: a completion collected for
// a registration removed in the same dispatch is dropped, and a kernel that refuses io_uring
// leads to epoll with the reason.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "net/event_loop.h"
#include "net/io_backend.h"
#include "support/forbid_io_uring.h"
#include "support/test_pipe.h"

namespace stampede::net {
namespace {

// On its event, removes the other handler's pipe and registers a third handler on it.
class Remover final : public IoHandler {
 public:
  Remover(EventLoop& loop, std::vector<std::string>& log, std::string name)
      : loop_(loop), log_(log), name_(std::move(name)) {}
  void on_events(std::uint32_t) override {
    log_.push_back(name_);
    loop_.remove(other_fd);
    EXPECT_TRUE(loop_.add(other_fd, EPOLLIN | EPOLLET, successor).ok());
  }
  int other_fd = -1;
  IoHandler* successor = nullptr;

 private:
  EventLoop& loop_;
  std::vector<std::string>& log_;
  std::string name_;
};

class Logger final : public IoHandler {
 public:
  Logger(std::vector<std::string>& log, std::string name) : log_(log), name_(std::move(name)) {}
  void on_events(std::uint32_t) override { log_.push_back(name_); }

 private:
  std::vector<std::string>& log_;
  std::string name_;
};

// A pipe that is readable from the start.
struct ReadyPipe : testing::TestPipe {
  ReadyPipe() { put(); }
};

TEST(UringBackend, CompletionOfARegistrationRemovedInDispatchIsDropped) {
  auto created = EventLoop::create(IoBackend::Uring);
  ASSERT_TRUE(created.ok()) << created.error().message;
  EventLoop& loop = **created;
  std::vector<std::string> log;
  ReadyPipe a, b;
  Remover on_a(loop, log, "a"), on_b(loop, log, "b");
  Logger after_a(log, "after a"), after_b(log, "after b");
  on_a.other_fd = b.read_end.get();
  on_a.successor = &after_b;
  on_b.other_fd = a.read_end.get();
  on_b.successor = &after_a;
  ASSERT_TRUE(loop.add(a.read_end.get(), EPOLLIN | EPOLLET, &on_a).ok());
  ASSERT_TRUE(loop.add(b.read_end.get(), EPOLLIN | EPOLLET, &on_b).ok());
  // Both pipes are ready: one wait collects both completions, and whichever handler runs first
  // removes the other, whose collected completion must not be delivered to it nor to the
  // handler now registered on its descriptor.
  for (int i = 0; i < 100 && log.empty(); ++i)
    (void)loop.run_once(10'000'000);
  ASSERT_EQ(log.size(), 1u);
  const std::string successor = log[0] == "a" ? "after b" : "after a";
  // The successor sees the byte still in its pipe in a later iteration.
  for (int i = 0; i < 100 && log.size() < 2; ++i)
    (void)loop.run_once(10'000'000);
  EXPECT_EQ(log, (std::vector<std::string>{log[0], successor}));
  loop.remove(a.read_end.get());
  loop.remove(b.read_end.get());
}

TEST(UringBackend, AvailableHereAndChosenWhenAsked) {
  const IoBackendChoice choice = choose_io_backend(IoBackend::Uring);
  EXPECT_EQ(choice.backend, IoBackend::Uring) << choice.fallback_reason;
  EXPECT_EQ(choice.fallback_reason, "");
  EXPECT_EQ(choose_io_backend(IoBackend::Epoll).backend, IoBackend::Epoll);
}

TEST(UringBackendDeathTest, ForbiddenIoUringFallsBackToEpollWithTheReason) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        testing::forbid_io_uring();
        const IoBackendChoice choice = choose_io_backend(IoBackend::Uring);
        std::fprintf(stderr, "%s\n", choice.fallback_reason.c_str());
        const bool strict_create_fails = !EventLoop::create(IoBackend::Uring).ok();
        const bool epoll_works = EventLoop::create(choice.backend).ok();
        std::exit(choice.backend == IoBackend::Epoll && strict_create_fails && epoll_works ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "io_uring unavailable \\(io_uring_setup: Operation not permitted\\); using epoll");
}

TEST(IoBackend, NamesParseBackAndNothingElseParses) {
  for (IoBackend b : {IoBackend::Epoll, IoBackend::Uring}) {
    EXPECT_EQ(parse_io_backend(io_backend_name(b)), b);
  }
  for (const char* bad : {"", "URING", "io_uring", "poll", "epoll "}) {
    EXPECT_FALSE(parse_io_backend(bad).has_value()) << bad;
  }
}

}  // namespace
}  // namespace stampede::net
