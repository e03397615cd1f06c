#include "cli/serve.h"

#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <vector>

namespace stampede::server {
namespace {

using namespace std::chrono_literals;

Expected<CliOptions> parse(std::vector<std::string> args) {
  args.insert(args.begin(), "serve");
  return parse_command_line(args);
}

TEST(ServeCli, DefaultsAreLoadtests) {
  auto r = parse({});
  ASSERT_TRUE(r) << r.error().message;
  const ServerOptions& s = r->plan.options;
  EXPECT_EQ(s.port, 7357);
  EXPECT_EQ(s.host, "127.0.0.1");
  EXPECT_EQ(s.delay, 0ns);
  EXPECT_EQ(s.error_status, 0);
  EXPECT_EQ(s.error_percent, 0);
  EXPECT_EQ(s.cores, 0);
  EXPECT_FALSE(s.body);
  EXPECT_EQ(s.max_header_bytes, 16384u);
  EXPECT_EQ(s.idle_timeout, 60s);
  EXPECT_EQ(s.header_timeout, 10s);
  EXPECT_FALSE(r->quiet);
  EXPECT_TRUE(r->ready_file.empty());
}

TEST(ServeCli, LoadtestOptionsByShortName) {
  auto r = parse({"-p", "8080", "-d", "50", "-e", "503", "-P", "10", "-c", "3", "-b", "hello"});
  ASSERT_TRUE(r) << r.error().message;
  const ServerOptions& s = r->plan.options;
  EXPECT_EQ(s.port, 8080);
  EXPECT_EQ(s.delay, 50ms);
  EXPECT_EQ(s.error_status, 503);
  EXPECT_EQ(s.error_percent, 10);
  EXPECT_EQ(s.cores, 3);
  EXPECT_EQ(s.body, "hello");
}

TEST(ServeCli, LongNamesAndUnits) {
  auto r = parse({"--port",
                  "0",
                  "--delay",
                  "1.5s",
                  "--percent",
                  "2.5",
                  "--id",
                  "a",
                  "--ready-file",
                  "/tmp/x",
                  "--quiet",
                  "--max-header-bytes",
                  "32k",
                  "--max-body-bytes",
                  "1m",
                  "--max-uri-bytes",
                  "2k",
                  "--idle-timeout",
                  "500ms",
                  "--header-timeout",
                  "2",
                  "--drain-timeout",
                  "0",
                  "--host",
                  "::1"});
  ASSERT_TRUE(r) << r.error().message;
  const ServerOptions& s = r->plan.options;
  EXPECT_EQ(s.port, 0);
  EXPECT_EQ(s.delay, 1500ms);
  EXPECT_EQ(s.error_percent, 2.5);
  EXPECT_EQ(s.id, "a");
  EXPECT_EQ(r->ready_file, "/tmp/x");
  EXPECT_TRUE(r->quiet);
  EXPECT_EQ(s.max_header_bytes, 32768u);
  EXPECT_EQ(s.max_body_bytes, 1048576u);
  EXPECT_EQ(s.max_uri_bytes, 2048u);
  EXPECT_EQ(s.idle_timeout, 500ms);
  EXPECT_EQ(s.header_timeout, 2s);
  EXPECT_EQ(s.drain_timeout, 0s);
  EXPECT_EQ(s.host, "::1");
}

TEST(ServeCli, PositionalPort) {
  auto r = parse({"9000"});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->plan.options.port, 9000);
  auto same = parse({"-p", "9000", "9000"});
  ASSERT_TRUE(same);
  EXPECT_EQ(same->plan.options.port, 9000);
  EXPECT_FALSE(parse({"-p", "9000", "9001"}));
}

TEST(ServeCli, EmptyBodyIsABody) {
  auto r = parse({"-b", ""});
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->plan.options.body, "");
}

TEST(ServeCli, Help) {
  auto r = parse({"--help"});
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->help);
  EXPECT_NE(r->help_text.find("--ready-file"), std::string::npos);
}

TEST(ServeCli, BadInputIsOneLineError) {
  const std::vector<std::vector<std::string>> bad = {
      {"--bogus"},
      {"-p", "70000"},
      {"-p", "http"},
      {"-d", "soon"},
      {"-d", "-5"},
      {"-e", "99"},
      {"-e", "600"},
      {"-e", "5xx"},
      {"-P", "101"},
      {"-P", "-1"},
      {"-P", "ten"},
      {"-c", "x"},
      {"-c", "5000"},
      {"-b", "x", "-f", "/etc/hostname"},
      {"-f", "/nonexistent/stampede/body"},
      {"--id", "a b"},
      {"--id", std::string(65, 'a')},
      {"--max-header-bytes", "10"},
      {"--idle-timeout", "0"},
      {"--header-timeout", "never"},
      {"1", "2"},
  };
  for (const auto& args : bad) {
    auto r = parse(args);
    std::string joined;
    for (const auto& a : args)
      joined += a + " ";
    ASSERT_FALSE(r) << joined;
    EXPECT_FALSE(r.error().message.empty()) << joined;
    EXPECT_EQ(r.error().message.find('\n'), std::string::npos) << joined;
  }
}

}  // namespace
}  // namespace stampede::server
