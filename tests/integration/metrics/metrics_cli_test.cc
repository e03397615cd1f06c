// The generator's --metrics-listen and --metrics-linger on the command line (the binary): bad
// values and a port in use are one line and exit 2 before anything is sent; port 0 prints the
// address it got.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "support/loopback.h"
#include "support/process.h"
#include "support/test_server.h"

namespace stampede::testing {
namespace {

using namespace std::chrono_literals;

int line_count(const std::string& text) {
  return static_cast<int>(std::count(text.begin(), text.end(), '\n'));
}

TEST(MetricsCli, PortInUseIsExit2BeforeAnyRequest) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const LoopbackListener taken = listen_loopback();
  const auto r =
      run_stampede({"-n", "10", "--metrics-listen", "127.0.0.1:" + std::to_string(taken.port),
                    "http://127.0.0.1:" + std::to_string(s->port()) + "/"});
  EXPECT_EQ(r.status, 2);
  EXPECT_EQ(r.err.rfind("stampede: --metrics-listen: cannot listen on 127.0.0.1:", 0), 0u) << r.err;
  EXPECT_EQ(line_count(r.err), 1) << r.err;
  EXPECT_EQ(s->stop().requests, 0u);
}

TEST(MetricsCli, BadValuesAreOneLineAndExit2) {
  const std::string url = "http://127.0.0.1:1/";
  const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
      {{"--metrics-listen", "nonsense", url},
       "stampede: --metrics-listen: expected host:port, got 'nonsense'\n"},
      {{"--metrics-listen", "127.0.0.1:99999", url},
       "stampede: --metrics-listen: bad port in '127.0.0.1:99999'\n"},
      {{"--metrics-linger", "3", url}, "stampede: --metrics-linger needs --metrics-listen\n"},
      {{"--metrics-listen", "127.0.0.1:0", "--sweep-connections", "1,2", url},
       "stampede: --metrics-listen serves one test's figures: not with --sweep-connections or "
       "--find-max\n"},
  };
  for (const auto& [args, expected] : cases) {
    const auto r = run_stampede(args);
    EXPECT_EQ(r.status, 2) << expected;
    EXPECT_EQ(r.err, expected);
  }
}

TEST(MetricsCli, PortZeroPrintsTheAddressAndTheRunReportsAsUsual) {
  auto s = start_server();
  ASSERT_TRUE(s);
  const auto r = run_stampede({"-n", "20", "-k", "--quiet", "--metrics-listen", "127.0.0.1:0",
                               "http://127.0.0.1:" + std::to_string(s->port()) + "/"});
  EXPECT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(r.err.rfind("Metrics: http://127.0.0.1:", 0), 0u) << r.err;
  EXPECT_NE(r.err.find("/metrics\n"), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("Completed requests:  20"), std::string::npos) << r.out;
  EXPECT_EQ(s->stop().requests, 20u);
}

}  // namespace
}  // namespace stampede::testing
