// .loadtestrc's http2 and streams keys (ours, beside loadtest's): they fill what the command line
// does not give, as every key does, and a hostile value is one line naming the key.
#include "generator_fixture.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "loadgen/rcfile.h"

namespace stampede::loadgen {
namespace {

using ::testing::StartsWith;

constexpr const char* kRcUrl = "http://127.0.0.1:8080/";

using RcHttp2 = GeneratorCommandLine;

TEST_F(RcHttp2, TheFileTurnsOnHttp2AndSetsTheStreams) {
  write_rc(R"({"http2": true, "streams": 8})");
  const Config rc_only = config({kRcUrl});
  EXPECT_TRUE(rc_only.http2);
  EXPECT_EQ(rc_only.streams, 8u);
  const Config both = config({kRcUrl, "--streams", "3"});
  EXPECT_TRUE(both.http2);
  EXPECT_EQ(both.streams, 3u);  // the command line wins
  write_rc(R"({"streams": "16"})");
  EXPECT_EQ(config({kRcUrl, "--http2"}).streams, 16u);  // a numeric string, as for every number
  write_rc(R"({"http2": false})");
  EXPECT_TRUE(config({kRcUrl, "--http2"}).http2);  // a flag given is not taken back by the file
  EXPECT_FALSE(config({kRcUrl}).http2);
}

TEST_F(RcHttp2, HostileValuesAreOneLineNamingTheKey) {
  const std::pair<const char*, const char*> cases[] = {
      {R"({"http2": "yes"})", ".loadtestrc http2: expected true or false"},
      {R"({"http2": 1})", ".loadtestrc http2: expected true or false"},
      {R"({"http2": null})", ".loadtestrc http2: expected true or false"},
      {R"({"streams": 4})", ".loadtestrc streams: needs --http2"},
      {R"({"http2": true, "streams": 0})", ".loadtestrc streams: must be at least 1"},
      {R"({"http2": true, "streams": 1001})", ".loadtestrc streams: too large: '1001'"},
      {R"({"http2": true, "streams": -3})", ".loadtestrc streams: "},
      {R"({"http2": true, "streams": 2.5})", ".loadtestrc streams: "},
      {R"({"http2": true, "streams": "many"})", ".loadtestrc streams: "},
      {R"({"http2": true, "streams": 1e30})", ".loadtestrc streams: "},
      {R"({"http2": true, "streams": [8]})", ".loadtestrc streams: expected a number"},
      {R"({"http2": true, "streams": {}})", ".loadtestrc streams: expected a number"},
      {R"({"http2": true, "pipeline": 4})", ".loadtestrc: unknown key 'pipeline'"},
  };
  for (const auto& [rc, message] : cases) {
    write_rc(rc);
    const std::string e = error({kRcUrl});
    EXPECT_THAT(e, StartsWith(message)) << rc;
    EXPECT_EQ(e.find('\n'), std::string::npos) << rc;
  }
  // The same refusals as on the command line: http2 with what HTTP/2 does not carry.
  write_rc(R"({"http2": true, "proxy": "http://127.0.0.1:3128"})");
  EXPECT_THAT(error({kRcUrl}), StartsWith("--http2 and --proxy do not go together"));
  write_rc(R"({"http2": true})");
  EXPECT_THAT(error({"ws://127.0.0.1:8080/"}), StartsWith("--http2 does not apply to WebSocket"));
}

TEST(RcHttp2Parse, KeysLandInTheRawOptions) {
  auto raw = parse_loadtestrc(R"({"http2": true, "streams": 12})");
  ASSERT_TRUE(raw.ok()) << raw.error().message;
  EXPECT_TRUE(raw->http2);
  ASSERT_TRUE(raw->streams.has_value());
  EXPECT_EQ(raw->streams->text, "12");
  EXPECT_EQ(raw->streams->origin, ".loadtestrc streams");
}

}  // namespace
}  // namespace stampede::loadgen
