// --io uring|epoll, on each subcommand that runs event loops: one definition (cli/command_line.h),
// a wrong value refused in one line, and where io_uring is forbidden one line and epoll.
#include <gtest/gtest.h>

#include <cstdlib>
#include <string>
#include <vector>

#include "cli/balance.h"
#include "cli/command_line.h"
#include "cli/generator.h"
#include "cli/serve.h"
#include "support/forbid_io_uring.h"
#include "support/temp_dir.h"

namespace stampede {
namespace {

// Each subcommand's parse, from the arguments after its name: the backend or the error line.
Expected<net::IoBackend> io_of_serve(std::vector<std::string> args) {
  args.insert(args.begin(), "serve");
  auto r = server::parse_command_line(args);
  if (!r) return r.error();
  return r->plan.options.io;
}

std::vector<const char*> as_argv(const std::vector<std::string>& args) {
  std::vector<const char*> argv;
  for (const auto& a : args)
    argv.push_back(a.c_str());
  return argv;
}

Expected<net::IoBackend> io_of_balance(std::vector<std::string> args) {
  args.insert(args.begin(), {"balance", "--backend", "a=127.0.0.1:9"});
  const auto argv = as_argv(args);
  auto r = balancer::parse_command_line(static_cast<int>(argv.size()), argv.data());
  if (!r) return r.error();
  return r->config.io;
}

Expected<net::IoBackend> io_of_generator(std::vector<std::string> args) {
  const testing::TempDir rc_dir;
  args.insert(args.begin(), "stampede");
  args.push_back("http://127.0.0.1:9/");
  const auto argv = as_argv(args);
  auto r = loadgen::parse_command_line(static_cast<int>(argv.size()), argv.data(), rc_dir.path());
  if (!r) return r.error();
  return r->plan.config.io;
}

using IoOf = Expected<net::IoBackend> (*)(std::vector<std::string>);

class IoOption : public ::testing::TestWithParam<IoOf> {};

INSTANTIATE_TEST_SUITE_P(Subcommands, IoOption,
                         ::testing::Values(&io_of_generator, &io_of_serve, &io_of_balance));

TEST_P(IoOption, TakesEitherBackendAndDefaultsToTheDocumentedOne) {
  auto none = GetParam()({});
  ASSERT_TRUE(none.ok()) << none.error().message;
  EXPECT_EQ(*none, net::kDefaultIoBackend);
  auto uring = GetParam()({"--io", "uring"});
  ASSERT_TRUE(uring.ok()) << uring.error().message;
  EXPECT_EQ(*uring, net::IoBackend::Uring);
  auto epoll = GetParam()({"--io=epoll"});
  ASSERT_TRUE(epoll.ok()) << epoll.error().message;
  EXPECT_EQ(*epoll, net::IoBackend::Epoll);
}

TEST_P(IoOption, AnyOtherValueIsOneLine) {
  auto bad = GetParam()({"--io", "io_uring"});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.error().message, "--io: expected uring or epoll, got 'io_uring'");
  auto empty = GetParam()({"--io", ""});
  ASSERT_FALSE(empty.ok());
  EXPECT_NE(empty.error().message.find("--io"), std::string::npos) << empty.error().message;
  EXPECT_EQ(empty.error().message.find('\n'), std::string::npos);
}

TEST(IoOptionDeathTest, ForbiddenIoUringIsOneLineAndEpoll) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(
      {
        testing::forbid_io_uring();
        std::exit(settle_io_backend(net::IoBackend::Uring) == net::IoBackend::Epoll ? 0 : 1);
      },
      ::testing::ExitedWithCode(0),
      "^stampede: io_uring unavailable \\(io_uring_setup: Operation not permitted\\); using "
      "epoll\n$");
}

TEST(IoOption, UringWhereAvailableIsKeptSilently) {
  ::testing::internal::CaptureStderr();
  EXPECT_EQ(settle_io_backend(net::IoBackend::Uring), net::IoBackend::Uring);
  EXPECT_EQ(settle_io_backend(net::IoBackend::Epoll), net::IoBackend::Epoll);
  EXPECT_EQ(::testing::internal::GetCapturedStderr(), "");
}

}  // namespace
}  // namespace stampede
