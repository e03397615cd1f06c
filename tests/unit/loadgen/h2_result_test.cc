// An --http2 run's figures (streams per connection, RST_STREAM and GOAWAY counts by code, the
// server's SETTINGS) in the saved result (--save, result_file.h), in stampede merge and in
// --repeat's combine_runs (merge.h): kept exactly, counts added, SETTINGS the same or "differ";
// hostile http2 members refused with a reason; an HTTP/1.1 and an HTTP/2 result never merged.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loadgen/merge.h"
#include "loadgen/report/text.h"
#include "loadgen/result_file.h"
#include "sample_runs.h"

namespace stampede::loadgen {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

H2ServerSettings announced(std::uint32_t max_streams) {
  H2ServerSettings s;
  s.max_concurrent_streams = max_streams;
  s.initial_window_size = 1073741823;
  return s;
}

// Shard `index` of `count` of an --http2 --streams 8 run, 100 requests.
RunResult h2_run(std::uint32_t index, std::uint32_t count) {
  RunResult r = samples::http2_run(100, 8);
  r.shard = Shard{index, count};
  r.h2.rst_stream = {{7, 3}, {0x1234, 1}};  // REFUSED_STREAM, and a code with no name
  r.h2.goaway = {{0, 1}};
  r.h2.server_settings = announced(2);
  return r;
}

Config h2_config(std::uint32_t shards) {
  Config c;
  c.url = "http://h/";
  c.max_requests = 100 * shards;
  c.concurrency = 2 * shards;
  c.http2 = true;
  c.streams = 8;
  c.shard = Shard{1, shards};
  return c;
}

// The same run and configuration as HTTP/1.1 (no --http2, one stream).
Config http1_config(std::uint32_t shards) {
  Config c = h2_config(shards);
  c.http2 = false;
  c.streams = 1;
  return c;
}

SavedResult saved_of(const RunResult& r, const Config& c) {
  auto saved = parse_result_line(to_result_line(r, c, "host", 0));
  EXPECT_TRUE(saved.ok()) << saved.error().message;
  return saved.ok() ? std::move(saved).value() : SavedResult{};
}

TEST(H2Result, SavedHttp2FiguresComeBackEqual) {
  const RunResult r = h2_run(1, 1);
  const std::string line = to_result_line(r, h2_config(1), "host", 0);
  EXPECT_THAT(line, HasSubstr(R"("version":2,)"));
  const SavedResult saved = saved_of(r, h2_config(1));
  EXPECT_TRUE(saved.result.http2);
  EXPECT_EQ(saved.result.streams, 8u);
  EXPECT_EQ(saved.result.h2, r.h2);
  EXPECT_EQ(saved.run.at("http2"), true);
  EXPECT_EQ(saved.run.at("streams"), 8);

  RunResult unlimited = r;  // a server that sent no SETTINGS_MAX_CONCURRENT_STREAMS
  unlimited.h2.server_settings->max_concurrent_streams.reset();
  EXPECT_EQ(saved_of(unlimited, h2_config(1)).result.h2, unlimited.h2);
  RunResult none = r;  // no SETTINGS arrived (every connection failed)
  none.h2.server_settings.reset();
  EXPECT_EQ(saved_of(none, h2_config(1)).result.h2, none.h2);
}

TEST(H2Result, Http1ResultsStayVersionOneWithoutHttp2Keys) {
  RunResult r = h2_run(1, 1);
  r.http2 = false;
  const Config c = http1_config(1);
  const std::string line = to_result_line(r, c, "host", 0);
  EXPECT_THAT(line, HasSubstr(R"("version":1,)"));
  EXPECT_THAT(line, Not(HasSubstr("http2")));
  EXPECT_FALSE(saved_of(r, c).result.http2);
}

TEST(H2Result, ShardsMergeByAddingCountsAndKeepingTheSameSettings) {
  ResultMerger merger(/*force=*/false);
  RunResult second = h2_run(2, 2);
  second.h2.rst_stream = {{7, 2}};
  second.h2.goaway = {{2, 1}};
  ASSERT_TRUE(merger.add(saved_of(h2_run(1, 2), h2_config(2)), "a").ok());
  ASSERT_TRUE(merger.add(saved_of(second, h2_config(2)), "b").ok());
  auto merged = merger.finish();
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  const RunResult& m = merged->result;
  EXPECT_TRUE(m.http2);
  EXPECT_EQ(m.streams, 8u);
  EXPECT_EQ(m.h2.rst_stream, (std::map<std::uint32_t, std::uint64_t>{{7, 5}, {0x1234, 1}}));
  EXPECT_EQ(m.h2.goaway, (std::map<std::uint32_t, std::uint64_t>{{0, 1}, {2, 1}}));
  EXPECT_EQ(m.h2.server_settings, announced(2));
  EXPECT_FALSE(m.h2.settings_differ);
  const auto json = h2_json(m.h2, m.streams);
  EXPECT_EQ(json.at("rstStream").at("REFUSED_STREAM"), 5);
  EXPECT_EQ(json.at("serverSettingsDiffer"), false);
}

TEST(H2Result, ShardsWithDifferentSettingsSayTheyDiffer) {
  ResultMerger merger(/*force=*/false);
  RunResult second = h2_run(2, 2);
  second.h2.server_settings = announced(100);
  ASSERT_TRUE(merger.add(saved_of(h2_run(1, 2), h2_config(2)), "a").ok());
  ASSERT_TRUE(merger.add(saved_of(second, h2_config(2)), "b").ok());
  auto merged = merger.finish();
  ASSERT_TRUE(merged.ok()) << merged.error().message;
  EXPECT_TRUE(merged->result.h2.settings_differ);
  EXPECT_EQ(h2_json(merged->result.h2, 8).at("serverSettingsDiffer"), true);
  std::ostringstream text;
  write_text_report(merged->result, text);
  EXPECT_THAT(text.str(), HasSubstr("Server SETTINGS:     differ between connections; first seen: "
                                    "MAX_CONCURRENT_STREAMS 2,"));

  // A shard that saw no SETTINGS does not make them differ; one that saw them differ does.
  H2Counts counts;
  counts.add_settings(announced(2));
  counts.merge(H2Counts{});
  EXPECT_FALSE(counts.settings_differ);
  H2Counts differing;
  differing.add_settings(announced(2));
  differing.add_settings(announced(3));
  EXPECT_TRUE(differing.settings_differ);
  counts.merge(differing);
  EXPECT_TRUE(counts.settings_differ);
}

TEST(H2Result, AnHttp1AndAnHttp2ResultAreNotShardsOfOneRun) {
  RunResult plain = h2_run(2, 2);
  plain.http2 = false;
  const Config plain_config = http1_config(2);
  for (bool h2_first : {true, false}) {
    ResultMerger merger(/*force=*/false);
    const SavedResult h2 = saved_of(h2_run(1, 2), h2_config(2));
    SavedResult h1 = saved_of(plain, plain_config);
    if (h2_first) {
      ASSERT_TRUE(merger.add(h2, "a").ok());
      const auto added = merger.add(h1, "b");
      ASSERT_FALSE(added.ok());
      EXPECT_THAT(added.error().message, HasSubstr("http2 differs: true in a, none in b"));
    } else {
      h1.result.shard = Shard{1, 2};
      ASSERT_TRUE(merger.add(h1, "a").ok());
      SavedResult second = h2;
      second.result.shard = Shard{2, 2};
      const auto added = merger.add(second, "b");
      ASSERT_FALSE(added.ok());
      EXPECT_THAT(added.error().message, HasSubstr("http2 differs: none in a, true in b"));
    }
  }
}

TEST(H2Result, RepeatedRunsKeepTheirHttp2Figures) {
  const RunResult all = combine_runs({h2_run(1, 1), h2_run(1, 1)});
  EXPECT_TRUE(all.http2);
  EXPECT_EQ(all.streams, 8u);
  EXPECT_EQ(all.h2.rst_stream, (std::map<std::uint32_t, std::uint64_t>{{7, 6}, {0x1234, 2}}));
  EXPECT_EQ(all.h2.goaway, (std::map<std::uint32_t, std::uint64_t>{{0, 2}}));
  EXPECT_EQ(all.h2.server_settings, announced(2));
  EXPECT_FALSE(all.h2.settings_differ);
}

// Every hostile http2 member is a corrupt result with a reason, never a crash or a bad count.
TEST(H2Result, HostileHttp2MembersAreRefused) {
  const auto good = nlohmann::json::parse(to_result_line(h2_run(1, 1), h2_config(1), "host", 0));
  ASSERT_TRUE(parse_result_line(good.dump()).ok());
  using Json = nlohmann::json;
  const std::vector<std::pair<std::string, Json>> cases = {
      {"/http2", "yes"},
      {"/http2/streams", 0},
      {"/http2/streams", 1001},
      {"/http2/streams", -1},
      {"/http2/streams", 2.5},
      {"/http2/streams", "8"},
      {"/http2/rst_stream", Json::array()},
      {"/http2/rst_stream", {{"x", 1}}},
      {"/http2/rst_stream", {{"-1", 1}}},
      {"/http2/rst_stream", {{"4294967296", 1}}},
      {"/http2/rst_stream", {{"7 ", 1}}},
      {"/http2/rst_stream", {{"7", -1}}},
      {"/http2/goaway", {{"0", "many"}}},
      {"/http2/server_settings", "none"},
      {"/http2/server_settings/max_concurrent_streams", 4294967296ULL},
      {"/http2/server_settings/max_concurrent_streams", -2},
      {"/http2/server_settings/initial_window_size", 2147483648ULL},
      {"/http2/server_settings/max_frame_size", 16383},
      {"/http2/server_settings/max_frame_size", 16777216},
      {"/http2/settings_differ", 1},
  };
  for (const auto& [pointer, value] : cases) {
    Json bad = good;
    bad[Json::json_pointer(pointer)] = value;
    const auto parsed = parse_result_line(bad.dump());
    ASSERT_FALSE(parsed.ok()) << pointer << " = " << value.dump();
    EXPECT_THAT(parsed.error().message, HasSubstr("corrupt result")) << pointer;
  }
  Json differ_without_settings = good;
  differ_without_settings["http2"]["server_settings"] = nullptr;
  differ_without_settings["http2"]["settings_differ"] = true;
  const auto parsed = parse_result_line(differ_without_settings.dump());
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(parsed.error().message, HasSubstr("settings differ, yet none were received"));
  for (const char* key :
       {"streams", "rst_stream", "goaway", "server_settings", "settings_differ"}) {
    Json missing = good;
    missing["http2"].erase(std::string(key));
    EXPECT_FALSE(parse_result_line(missing.dump()).ok()) << key;
  }
}

}  // namespace
}  // namespace stampede::loadgen
