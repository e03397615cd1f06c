// Saved results (--save, result_file.h) with a count that cannot be: every whole number that
// read_result takes as a count, size or setting is refused when negative or fractional, as a
// corrupt result with a reason (nlohmann's get<std::uint64_t>() alone would read -1 as 2^64 - 1
// and stampede merge would add it).
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <functional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loadgen/result_file.h"
#include "sample_runs.h"

namespace stampede::loadgen {
namespace {

using ::testing::HasSubstr;
using Json = nlohmann::json;

// A paced HTTP/1.1 run with statuses, error codes, counted headers and WebSocket counts, so that
// every member read as a count holds one.
std::string rich_result_line() {
  RunResult r = samples::finished_run(4, 120, 3, 2'000'000'000);
  r.cores = 2;
  r.concurrency = 4;
  r.max_requests = 120;
  r.latency.record_n(1'500'000, 117);
  r.status_counts = {{200, 117}, {503, 3}};
  r.error_codes = {{"503", 3}};
  r.local_errors = {{"EMFILE", 1}};
  r.header_counts["x-instance"] = {{"a", 60}, {"b", 60}};
  r.bytes_read = 4096;
  r.bytes_written = 2048;
  r.connections_opened = 4;
  r.ws.refused = {{403, 1}};
  samples::pace(r, 60, 120, 2'000'000'000);
  Config c;
  c.url = "http://127.0.0.1:8080/";
  c.max_requests = 120;
  c.concurrency = 4;
  c.rps = 60;
  return to_result_line(r, c, "host", 0);
}

// The JSON pointers of every non-negative whole number under `j`.
void whole_numbers(const Json& j, const std::string& at, std::vector<std::string>& out) {
  if (j.is_number_unsigned()) out.push_back(at);
  if (j.is_object()) {
    for (const auto& [k, v] : j.items())
      whole_numbers(v, at + "/" + k, out);
  } else if (j.is_array()) {
    for (std::size_t i = 0; i < j.size(); ++i)
      whole_numbers(j[i], at + "/" + std::to_string(i), out);
  }
}

TEST(ResultCounts, EveryNegativeOrFractionalCountIsACorruptResult) {
  const Json good = Json::parse(rich_result_line());
  ASSERT_TRUE(parse_result_line(good.dump()).ok());
  std::vector<std::string> pointers;
  whole_numbers(good, "", pointers);
  ASSERT_GT(pointers.size(), 25u);
  std::vector<std::string> accepted;
  for (const std::string& pointer : pointers) {
    // The run's identity is compared whole between shards (merge.h), never read as numbers.
    if (pointer.rfind("/run/", 0) == 0) continue;
    for (const Json& value : {Json(-1), Json(2.5)}) {
      Json bad = good;
      bad[Json::json_pointer(pointer)] = value;
      const auto parsed = parse_result_line(bad.dump());
      if (parsed.ok()) {
        accepted.push_back(pointer + " = " + value.dump());
      } else {
        EXPECT_THAT(parsed.error().message, HasSubstr("result")) << pointer;
      }
    }
  }
  std::string list;
  for (const std::string& a : accepted)
    list += "\n  " + a;
  EXPECT_TRUE(accepted.empty()) << "accepted:" << list;
}

// The version is a whole number compared as written: one too large for an int is newer (it once
// read as its low 32 bits), a fraction or a negative is unknown.
TEST(ResultCounts, AVersionIsAWholeNumberComparedAsWritten) {
  Json line = Json::parse(rich_result_line());
  const std::vector<std::pair<Json, std::string>> cases = {
      {Json(4294967297ULL), "result format version 4294967297 is newer than this stampede reads"},
      {Json(3), "result format version 3 is newer"},
      {Json(2.5), "unknown result format version 2.5"},
      {Json(-1), "unknown result format version -1"},
      {Json(0), "unknown result format version 0"},
      {Json("2"), "unknown result format version \"2\""},
  };
  for (const auto& [version, wording] : cases) {
    line["version"] = version;
    const auto parsed = parse_result_line(line.dump());
    ASSERT_FALSE(parsed.ok()) << version.dump();
    EXPECT_THAT(parsed.error().message, HasSubstr(wording)) << version.dump();
  }
}

}  // namespace
}  // namespace stampede::loadgen
