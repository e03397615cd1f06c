// `stampede balance` refuses every value that could inject into the requests it writes (health
// checks, forwarded heads) or that is not a number it can use: exit status 2 and one line that
// names the option, from the command line and from a --config file alike.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "support/process.h"
#include "support/refusal.h"
#include "support/temp_dir.h"

namespace stampede::balancer::testing {
namespace {

using stampede::testing::refused;

const std::vector<std::string> kBackend = {"balance", "--listen", "127.0.0.1:0", "--backend",
                                           "a=127.0.0.1:9"};

std::vector<std::string> balance_with(std::initializer_list<std::string> extra) {
  std::vector<std::string> args = kBackend;
  args.insert(args.end(), extra);
  return args;
}

// Every such option over every hostile value is swept in-process
// (tests/unit/cli/option_ranges_test.cc); here the binary refuses a line break in each, and
// its error line shows the break escaped.
TEST(BalanceOptions, HeaderAndRequestLineOptionsRefuseHostileBytes) {
  const std::string crlf = "a\r\nX-Injected: 1";
  EXPECT_TRUE(refused(balance_with({"--health-path", "/" + crlf}), "--health-path"));
  EXPECT_TRUE(refused(balance_with({"--sticky-header", "x" + crlf}), "--sticky-header"));
  EXPECT_TRUE(refused({"balance", "--backend", "a=127.0.0." + crlf + ":80"}, "backend a"));
  EXPECT_TRUE(refused({"balance", "--backend", "a" + crlf + "=127.0.0.1:80"}, "backend"));
  EXPECT_TRUE(refused(balance_with({"--listen", "127.0.0." + crlf + ":0"}), "--listen"));
  EXPECT_TRUE(
      refused(balance_with({"--admin-listen", "127.0.0." + crlf + ":0"}), "--admin-listen"));
  EXPECT_TRUE(refused(balance_with({"--health-path", "/a b"}), "--health-path"));
}

// Every option's empty value is refused in-process (tests/unit/cli/option_ranges_test.cc); here
// through the binary for two.
TEST(BalanceOptions, EmptyValuesAreRefusedNotTakenAsDefaults) {
  EXPECT_TRUE(refused(balance_with({"--listen", ""}), "--listen"));
  EXPECT_TRUE(refused(balance_with({"--backend", ""}), "--backend"));
}

TEST(BalanceOptions, AnErrorQuotingAValueStaysOneLine) {
  // The strategy is quoted back: its CR and LF are shown escaped, not printed.
  EXPECT_TRUE(refused(balance_with({"--strategy", "rr\r\nstampede: fake"}), "rr\\r\\nstampede"));
}

// Every numeric option over every malformed value is swept in-process
// (tests/unit/cli/option_ranges_test.cc); here the binary exits 2 with one line for each kind.
TEST(BalanceOptions, NumbersOutOfRangeOrMalformedAreRefused) {
  EXPECT_TRUE(refused(balance_with({"--rise", "-1"}), "--rise"));
  EXPECT_TRUE(refused(balance_with({"--retries", "5x"}), "--retries"));
  EXPECT_TRUE(refused(balance_with({"--health-timeout", "1e12"}), "--health-timeout"));
  EXPECT_TRUE(refused(balance_with({"--eject-time", "0"}), "--eject-time"));
  EXPECT_TRUE(refused(balance_with({"--health-interval", "500us"}), "--health-interval"));
  EXPECT_TRUE(refused(balance_with({"--max-connections", "1000001"}), "--max-connections"));
}

// Every bad port and weight is swept in-process (tests/unit/cli/option_ranges_test.cc); here
// through the binary for one of each.
TEST(BalanceOptions, BackendPortsAndWeightsAreChecked) {
  EXPECT_TRUE(refused({"balance", "--backend", "a=127.0.0.1:65536"}, "backend a"));
  EXPECT_TRUE(refused({"balance", "--backend", "a=127.0.0.1:80,weight=nan"}, "weight"));
}

TEST(BalanceOptions, AConfigFileIsCheckedTheSameWay) {
  const stampede::testing::TempDir temp_dir;
  const std::string& dir = temp_dir.path();
  const std::string path = dir + "/lb.json";
  auto with_file = [&](const std::string& json, const std::string& needle) {
    std::ofstream(path) << json;
    return refused({"balance", "--config", path}, needle);
  };
  const std::string backend = R"("listen": "127.0.0.1:0", "backend": ["a=127.0.0.1:9"])";
  // JSON can say what a command line cannot: a NUL byte.
  EXPECT_TRUE(with_file("{" + backend + R"(, "health-path": "/a\u0000b"})", "--health-path"));
  EXPECT_TRUE(with_file("{" + backend + R"(, "health-path": "/a\r\nX: 1"})", "--health-path"));
  EXPECT_TRUE(with_file("{" + backend + R"(, "sticky-header": "x\ny"})", "--sticky-header"));
  EXPECT_TRUE(with_file("{" + backend + R"(, "pool-idle-timeout": 0})", "--pool-idle-timeout"));
  EXPECT_TRUE(with_file("{" + backend + R"(, "cores": 1e12})", "--cores"));
  EXPECT_TRUE(with_file(
      R"({"listen": "127.0.0.1:0", "backend": [{"name": "a", "address": "127.0.0.1:9",
          "weight": 4294967297}]})",
      "weight"));
  EXPECT_TRUE(with_file(
      R"({"listen": "127.0.0.1:0", "backend": [{"name": "a", "address": "127.0.0.1:0"}]})",
      "backend a"));
}

}  // namespace
}  // namespace stampede::balancer::testing
