// STAMPEDE_TEST_IO (support/test_io.h): where `--io NAME` goes in a stampede command line, what
// is left alone, and a value that is neither backend.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "support/test_io.h"

namespace stampede::testing {
namespace {

using Argv = std::vector<std::string>;

// Sets STAMPEDE_TEST_IO (or unsets it, for nullopt) for its lifetime; restores it after.
class TestIoVariable {
 public:
  explicit TestIoVariable(const std::optional<std::string>& value) {
    if (const char* old = ::getenv("STAMPEDE_TEST_IO")) old_ = old;
    if (value) {
      ::setenv("STAMPEDE_TEST_IO", value->c_str(), 1);
    } else {
      ::unsetenv("STAMPEDE_TEST_IO");
    }
  }
  ~TestIoVariable() {
    if (old_) {
      ::setenv("STAMPEDE_TEST_IO", old_->c_str(), 1);
    } else {
      ::unsetenv("STAMPEDE_TEST_IO");
    }
  }

 private:
  std::optional<std::string> old_;
};

TEST(TestIo, UnsetOrEmptyForcesNothing) {
  for (const auto& value : {std::optional<std::string>{}, std::optional<std::string>{""}}) {
    const TestIoVariable variable(value);
    EXPECT_FALSE(forced_io().has_value());
    EXPECT_EQ(test_io(net::IoBackend::Epoll), net::IoBackend::Epoll);
    const Argv argv{"/b/stampede", "serve", "--port", "0"};
    EXPECT_EQ(with_forced_io(argv), argv);
  }
}

TEST(TestIo, UringGoesAfterServeOrBalanceAndFirstForTheGenerator) {
  const TestIoVariable variable(std::string("uring"));
  EXPECT_EQ(test_io(net::IoBackend::Epoll), net::IoBackend::Uring);
  EXPECT_EQ(with_forced_io({"/b/stampede", "serve", "--port", "0"}),
            (Argv{"/b/stampede", "serve", "--io", "uring", "--port", "0"}));
  EXPECT_EQ(with_forced_io({"/b/stampede", "balance", "--backend", "a=x:1"}),
            (Argv{"/b/stampede", "balance", "--io", "uring", "--backend", "a=x:1"}));
  EXPECT_EQ(with_forced_io({"/b/stampede", "-n", "5", "http://h/", "--", "x"}),
            (Argv{"/b/stampede", "--io", "uring", "-n", "5", "http://h/", "--", "x"}));
  EXPECT_EQ(with_forced_io({"stampede"}), (Argv{"stampede", "--io", "uring"}));
}

TEST(TestIo, OtherProgramsOtherSubcommandsAndAnIoOfTheirOwnAreLeftAlone) {
  const TestIoVariable variable(std::string("uring"));
  for (const Argv& argv :
       {Argv{"/usr/sbin/nginx", "-c", "x"}, Argv{"/b/stampede-mpi", "-n", "1"},
        Argv{"/b/stampede", "lab", "--runs", "1"}, Argv{"/b/stampede", "merge", "a.json"},
        Argv{"/b/stampede", "serve", "--io", "epoll"},
        Argv{"/b/stampede", "--io=epoll", "http://h/"}}) {
    EXPECT_EQ(with_forced_io(argv), argv) << argv[0] << " " << argv[1];
  }
}

TEST(TestIo, AValueThatIsNeitherBackendIsRefused) {
  const TestIoVariable variable(std::string("io_uring"));
  EXPECT_THROW(forced_io(), std::runtime_error);
  EXPECT_THROW(with_forced_io({"/b/stampede", "serve"}), std::runtime_error);
}

}  // namespace
}  // namespace stampede::testing
