// The generator's own failures (out of descriptors) are counted apart from the server's.
#include <sys/resource.h>

#include <gtest/gtest.h>

#include <filesystem>
#include <iterator>

#include "support/in_process.h"
#include "support/scripted_server.h"

namespace stampede::loadgen {
namespace {

// Lowers this process's soft open-file limit for the scope of the object, then restores it.
class LowFileLimit {
 public:
  explicit LowFileLimit(rlim_t soft) {
    getrlimit(RLIMIT_NOFILE, &saved_);
    rlimit low = saved_;
    low.rlim_cur = soft;
    ok_ = setrlimit(RLIMIT_NOFILE, &low) == 0;
  }
  ~LowFileLimit() { setrlimit(RLIMIT_NOFILE, &saved_); }
  LowFileLimit(const LowFileLimit&) = delete;
  LowFileLimit& operator=(const LowFileLimit&) = delete;
  bool ok() const { return ok_; }

 private:
  rlimit saved_{};
  bool ok_ = false;
};

std::size_t descriptors_open_now() {
  const auto entries = std::distance(std::filesystem::directory_iterator("/proc/self/fd"),
                                     std::filesystem::directory_iterator());
  return static_cast<std::size_t>(entries);
}

TEST(LocalErrors, EmfileIsTheGeneratorsNotTheServers) {
  testing::RefusedPort target;
  Config c;
  c.url = "http://127.0.0.1:" + std::to_string(target.port()) + "/";
  c.cores = 1;
  c.concurrency = 50;
  c.max_requests = 200;
  {
    // In the sanitizer tree UBSan checks a type's vptr the first time through a pipe of its own;
    // with no descriptor left it cannot open one and reports a false "invalid vptr". One small
    // run first lets it check the loop's handler types while descriptors are to spare.
    Config warm = c;
    warm.concurrency = 1;
    warm.max_requests = 1;
    testing::must_run(warm);
  }
  RunResult r;
  {
    // Room for the worker's loop and a few sockets: most of the 50 cannot open.
    LowFileLimit limit(descriptors_open_now() + 8);
    ASSERT_TRUE(limit.ok());
    r = testing::must_run(c);
  }
  EXPECT_EQ(r.total_requests, 200u);
  EXPECT_EQ(r.total_errors, 200u);
  ASSERT_EQ(r.local_errors.count("EMFILE"), 1u);
  EXPECT_GT(r.local_errors["EMFILE"], 0u);
  EXPECT_EQ(r.error_codes.count("EMFILE"), 0u);
  std::uint64_t counted = 0;
  for (const auto* codes : {&r.error_codes, &r.local_errors}) {
    for (const auto& [code, n] : *codes)
      counted += n;
  }
  EXPECT_EQ(counted, r.total_errors);
}

}  // namespace
}  // namespace stampede::loadgen
