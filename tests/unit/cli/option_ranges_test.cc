// The sweeps of every numeric option of `serve`, `balance` and `lab` over values none of them
// takes (negative, exponent, not a number, trailing garbage, overflow, zero where zero means
// nothing, past a bound), and of balance's header and address options over bytes that could
// inject into what it writes: each is refused by the subcommand's parse (and prepare()) with one
// line naming the option. In-process: about 400 cases, where a start of the binary under ASan
// costs a quarter of a CPU second each. tests/integration/{server,balancer,lab}/options_test.cc
// check the binary's exit status 2 and its stderr line for a few of the same values.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "balancer/plan.h"
#include "cli/balance.h"
#include "cli/lab_options.h"
#include "cli/serve.h"
#include "support/refusal.h"

namespace stampede::option_ranges {
namespace {

using stampede::testing::bad_numbers;
using stampede::testing::hostile_values;
using stampede::testing::refused_in_process;

// `stampede serve ARGS...` refused by its parse, naming `needle`.
::testing::AssertionResult serve_refuses(const std::vector<std::string>& args,
                                         std::string_view needle) {
  std::vector<std::string> all{"serve"};
  all.insert(all.end(), args.begin(), args.end());
  return refused_in_process(server::parse_command_line(all), all, needle);
}

// `stampede balance --listen 127.0.0.1:0 --backend a=127.0.0.1:9 ARGS...` (without the listen
// and backend when `bare`) refused by its parse or by prepare(), as its main does.
::testing::AssertionResult balance_refuses(const std::vector<std::string>& args,
                                           std::string_view needle, bool bare = false) {
  std::vector<std::string> all{"balance"};
  if (!bare) all.insert(all.end(), {"--listen", "127.0.0.1:0", "--backend", "a=127.0.0.1:9"});
  all.insert(all.end(), args.begin(), args.end());
  std::vector<const char*> argv;
  for (const std::string& a : all)
    argv.push_back(a.c_str());
  auto parsed = balancer::parse_command_line(static_cast<int>(argv.size()), argv.data());
  if (!parsed) return refused_in_process(parsed, all, needle);
  return refused_in_process(balancer::prepare(std::move(parsed->config)), all, needle);
}

// `stampede lab ARGS...` refused by its parse, naming `needle`.
::testing::AssertionResult lab_refuses(const std::vector<std::string>& args,
                                       std::string_view needle) {
  std::vector<std::string> all{"lab"};
  all.insert(all.end(), args.begin(), args.end());
  return refused_in_process(lab::parse_command_line(all), all, needle);
}

TEST(OptionRanges, ServeNumbersOutOfRangeOrMalformed) {
  for (const char* option :
       {"--delay", "--error", "--percent", "--cores", "--max-header-bytes", "--max-uri-bytes",
        "--max-body-bytes", "--idle-timeout", "--header-timeout", "--drain-timeout",
        "--max-connections", "--max-streams"}) {
    for (const std::string& value : bad_numbers()) {
      EXPECT_TRUE(serve_refuses({"--port", "0", option, value}, option));
    }
  }
  for (const std::string& value : bad_numbers()) {
    EXPECT_TRUE(serve_refuses({"--port", value}, "port"));
    EXPECT_TRUE(serve_refuses({value}, "port"));
  }
  EXPECT_TRUE(serve_refuses({"--port", "65536"}, "port"));
  for (const char* option : {"--cores", "--error", "--idle-timeout", "--header-timeout",
                             "--max-connections", "--max-streams"}) {
    EXPECT_TRUE(serve_refuses({"--port", "0", option, "0"}, option));
  }
  EXPECT_TRUE(serve_refuses({"--port", "0", "--max-streams", "10001"}, "--max-streams"));
  EXPECT_FALSE(serve_refuses({"--port", "0", "--max-streams", "10000"}, "--max-streams"));
  EXPECT_TRUE(serve_refuses({"--port", "0", "--delay", "11m"}, "--delay"));
  EXPECT_TRUE(serve_refuses({"--port", "0", "--idle-timeout", "25h"}, "--idle-timeout"));
  EXPECT_TRUE(serve_refuses({"--port", "0", "--max-uri-bytes", "100g"}, "--max-uri-bytes"));
  EXPECT_TRUE(serve_refuses({"--port", "0", "--percent", "100.5"}, "--percent"));
  EXPECT_TRUE(serve_refuses({"--port", "0", "--error", "600"}, "--error"));
}

TEST(OptionRanges, BalanceNumbersOutOfRangeOrMalformed) {
  for (const char* option :
       {"--cores", "--rise", "--fall", "--retries", "--pool-max-idle", "--max-connections",
        "--health-interval", "--health-timeout", "--eject-time", "--connect-timeout",
        "--backend-timeout", "--client-timeout", "--header-timeout", "--pool-idle-timeout"}) {
    for (const std::string& value : bad_numbers()) {
      EXPECT_TRUE(balance_refuses({option, value}, option));
    }
  }
  // Zero where zero means nothing useful (0 stays "off" for --health-interval, "default" for
  // --health-timeout, "none" for --retries and --pool-max-idle).
  for (const char* option :
       {"--cores", "--rise", "--fall", "--max-connections", "--eject-time", "--connect-timeout",
        "--backend-timeout", "--client-timeout", "--header-timeout", "--pool-idle-timeout"}) {
    EXPECT_TRUE(balance_refuses({option, "0"}, option));
  }
  // A duration below a millisecond would become 0 ("off"); above a day is refused too.
  EXPECT_TRUE(balance_refuses({"--health-interval", "500us"}, "--health-interval"));
  EXPECT_TRUE(balance_refuses({"--client-timeout", "25h"}, "--client-timeout"));
  EXPECT_TRUE(balance_refuses({"--cores", "257"}, "--cores"));
  EXPECT_TRUE(balance_refuses({"--max-connections", "1000001"}, "--max-connections"));
  for (const std::string& value : bad_numbers()) {
    EXPECT_TRUE(balance_refuses({"--backend", "a=127.0.0.1:" + value}, "backend a", true));
    EXPECT_TRUE(balance_refuses({"--backend", "a=127.0.0.1:80,weight=" + value}, "weight", true));
  }
}

TEST(OptionRanges, BalanceHeaderAndAddressOptionsRefuseHostileBytes) {
  for (const auto& v : hostile_values()) {
    SCOPED_TRACE(v.what);
    EXPECT_TRUE(balance_refuses({"--health-path", "/" + v.suffix}, "--health-path"));
    EXPECT_TRUE(balance_refuses({"--sticky-header", "x" + v.suffix}, "--sticky-header"));
    EXPECT_TRUE(balance_refuses({"--backend", "a=127.0.0." + v.suffix + ":80"}, "backend a", true));
    EXPECT_TRUE(balance_refuses({"--backend", "a" + v.suffix + "=127.0.0.1:80"}, "backend", true));
    EXPECT_TRUE(balance_refuses({"--listen", "127.0.0." + v.suffix + ":0"}, "--listen"));
    EXPECT_TRUE(
        balance_refuses({"--admin-listen", "127.0.0." + v.suffix + ":0"}, "--admin-listen"));
  }
  EXPECT_TRUE(balance_refuses({"--health-path", "relative"}, "--health-path"));
  EXPECT_TRUE(balance_refuses({"--health-path", "/a b"}, "--health-path"));
}

TEST(OptionRanges, LabNumbersOutOfRangeOrMalformed) {
  for (const char* option :
       {"--instances", "--connections", "--duration", "--cores", "--rps", "--sessions",
        "--session-requests", "--outage-duration", "--kill-after", "--start-timeout",
        "--health-intervals", "--h2-connections", "--h2-streams"}) {
    for (const std::string& value : bad_numbers()) {
      EXPECT_TRUE(lab_refuses({option, value}, option));
    }
  }
  for (const std::string& value : bad_numbers()) {
    EXPECT_TRUE(lab_refuses({"--delay", "a=" + value}, "--delay"));
    EXPECT_TRUE(lab_refuses({"--slow", "a=" + value}, "--slow"));
  }
  for (const char* option :
       {"--instances", "--connections", "--duration", "--cores", "--rps", "--sessions",
        "--session-requests", "--kill-after", "--start-timeout"}) {
    EXPECT_TRUE(lab_refuses({option, "0"}, option));
  }
  EXPECT_TRUE(lab_refuses({"--rps", "10000001"}, "--rps"));
  EXPECT_TRUE(lab_refuses({"--start-timeout", "11m"}, "--start-timeout"));
}

// An empty value is refused, never taken as the option's default, by each subcommand's parse.
TEST(OptionRanges, EmptyValuesAreRefusedNotTakenAsDefaults) {
  for (const char* option :
       {"--port", "--delay", "--error", "--percent", "--cores", "--id", "--host",
        "--max-header-bytes", "--idle-timeout", "--ready-file", "--max-connections"}) {
    EXPECT_TRUE(serve_refuses({"--port", "0", option, ""}, option));
  }
  for (const char* option :
       {"--health-path", "--sticky-header", "--listen", "--admin-listen", "--ready-file",
        "--strategy", "--config", "--health-interval", "--max-connections", "--backend"}) {
    EXPECT_TRUE(balance_refuses({option, ""}, option));
  }
  for (const char* option :
       {"--strategies", "--scenarios", "--health-intervals", "--sticky-strategy", "--slow",
        "--kill", "--instances", "--instance", "--delay", "--balancer-url", "--balancer-cmd",
        "--connections", "--duration", "--rps", "--html", "--stampede", "--start-timeout"}) {
    EXPECT_TRUE(lab_refuses({option, ""}, option));
  }
  EXPECT_TRUE(lab_refuses({"--strategies", ","}, "--strategies"));
}

// serve's --id goes into the x-instance header, --host into the address it binds.
TEST(OptionRanges, ServeHeaderBoundAndAddressOptionsRefuseHostileBytes) {
  for (const auto& v : hostile_values()) {
    SCOPED_TRACE(v.what);
    EXPECT_TRUE(serve_refuses({"--port", "0", "--id", "x" + v.suffix}, "--id"));
    EXPECT_TRUE(serve_refuses({"--port", "0", "--host", "127.0.0." + v.suffix}, "--host"));
  }
}

// The lab's names go into a balancer's command line, its URLs into requests.
TEST(OptionRanges, LabNamesAndUrlsRefuseHostileBytes) {
  for (const auto& v : hostile_values()) {
    SCOPED_TRACE(v.what);
    EXPECT_TRUE(lab_refuses({"--strategies", "rr" + v.suffix}, "--strategies"));
    EXPECT_TRUE(lab_refuses({"--sticky-strategy", "s" + v.suffix}, "--sticky-strategy"));
    // A non-ASCII path is percent-encoded (the generator's URL rules), so not refused.
    if (v.suffix.find('\xc3') == std::string::npos) {
      EXPECT_TRUE(
          lab_refuses({"--balancer-url", "http://127.0.0.1:9/" + v.suffix}, "--balancer-url"));
    }
    EXPECT_TRUE(
        lab_refuses({"--instance", "a" + v.suffix + "=127.0.0.1:0", "--instance", "b=127.0.0.1:0"},
                    "instance"));
  }
  EXPECT_TRUE(lab_refuses({"--strategies", "rr;touch x"}, "--strategies"));
}

// A backend's port and weight, in the `NAME=HOST:PORT,weight=N` of --backend.
TEST(OptionRanges, BalanceBackendPortsAndWeights) {
  for (const std::string port : {"0", "65536", "80x"}) {
    EXPECT_TRUE(balance_refuses({"--backend", "a=127.0.0.1:" + port}, "backend a", true)) << port;
  }
  for (const std::string w : {"0", "257", "-1", "1e12", "nan", "2x"}) {
    EXPECT_TRUE(balance_refuses({"--backend", "a=127.0.0.1:80,weight=" + w}, "weight", true)) << w;
  }
}

TEST(OptionRanges, ServeOverLimitTakesQueueCloseOrResetAndNeedsACap) {
  for (const char* value : {"", "refuse", "QUEUE", "reset ", "close\n", "0"}) {
    EXPECT_TRUE(serve_refuses({"--port", "0", "--max-connections", "1", "--over-limit", value},
                              "--over-limit"))
        << value;
  }
  EXPECT_TRUE(serve_refuses({"--port", "0", "--over-limit", "reset"}, "--over-limit"));
  for (const char* value : {"queue", "close", "reset"}) {
    EXPECT_FALSE(serve_refuses({"--port", "0", "--max-connections", "1", "--over-limit", value},
                               "--over-limit"))
        << value;
  }
}

TEST(OptionRanges, AnAcceptedValueIsReportedAsAccepted) {
  // The check itself can fail: values each subcommand takes are not "refused".
  EXPECT_FALSE(serve_refuses({"--port", "0", "--delay", "5"}, "--delay"));
  EXPECT_FALSE(balance_refuses({"--cores", "2"}, "--cores"));
  EXPECT_FALSE(lab_refuses({"--rps", "100"}, "--rps"));
  // And a refusal that names another option does not pass for this one.
  EXPECT_FALSE(lab_refuses({"--rps", "0"}, "--connections"));
}

}  // namespace
}  // namespace stampede::option_ranges
