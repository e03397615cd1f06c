// The --log file read back (loadgen/request_log.h, docs/output.md "Per-request log"): its lines as
// values, and their tally by status and by error, for tests that check the lines add up to what
// the run counted. Reading checks the columns: the CSV header and 13 fields per line, 13 keys per
// NDJSON object (a failure is a test failure, the line is skipped).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "support/process.h"

namespace stampede::testing {

// One line of the log; a time that does not apply is -1, an empty status or error "", no stream 0.
struct LogRow {
  std::uint64_t index = 0;
  int worker = 0;
  std::uint64_t connection = 0;
  std::int64_t intended = -1, start = -1, connected = -1, sent = -1, first_byte = -1, end = -1;
  std::string status, error;
  std::uint64_t bytes = 0;
  std::uint32_t stream = 0;
};

inline constexpr const char* kLogCsvHeader =
    "index,worker,connection,intended_us,start_us,connected_us,sent_us,first_byte_us,end_us,"
    "status,error,bytes,stream";

inline std::vector<LogRow> read_csv_log(const std::string& path) {
  const auto time = [](const std::string& field) -> std::int64_t {
    return field.empty() ? -1 : std::stoll(field);
  };
  std::istringstream in(read_file(path));
  std::string text;
  std::getline(in, text);
  EXPECT_EQ(text, kLogCsvHeader);
  std::vector<LogRow> rows;
  while (std::getline(in, text)) {
    std::vector<std::string> f;
    std::istringstream fields(text);
    for (std::string field; std::getline(fields, field, ',');)
      f.push_back(field);
    if (text.back() == ',') f.emplace_back();
    EXPECT_EQ(f.size(), 13u) << text;
    if (f.size() != 13) continue;
    rows.push_back({std::stoull(f[0]), std::stoi(f[1]), std::stoull(f[2]), time(f[3]), time(f[4]),
                    time(f[5]), time(f[6]), time(f[7]), time(f[8]), f[9], f[10], std::stoull(f[11]),
                    static_cast<std::uint32_t>(f[12].empty() ? 0 : std::stoul(f[12]))});
  }
  return rows;
}

inline std::vector<LogRow> read_ndjson_log(const std::string& path) {
  const auto time = [](const nlohmann::json& v) -> std::int64_t {
    return v.is_null() ? -1 : v.get<std::int64_t>();
  };
  std::istringstream in(read_file(path));
  std::vector<LogRow> rows;
  for (std::string text; std::getline(in, text);) {
    const auto j = nlohmann::json::parse(text);
    EXPECT_EQ(j.size(), 13u) << text;
    rows.push_back({j["index"], j["worker"], j["connection"], time(j["intended_us"]),
                    time(j["start_us"]), time(j["connected_us"]), time(j["sent_us"]),
                    time(j["first_byte_us"]), time(j["end_us"]),
                    j["status"].is_null() ? "" : std::to_string(j["status"].get<int>()),
                    j["error"].is_null() ? "" : j["error"].get<std::string>(), j["bytes"],
                    j["stream"].is_null() ? 0u : j["stream"].get<std::uint32_t>()});
  }
  return rows;
}

// The lines counted as a report counts them.
struct LogTally {
  std::uint64_t lines = 0;
  std::uint64_t with_error = 0;
  std::map<std::string, std::uint64_t> statuses;  // "200" -> lines
  std::map<std::string, std::uint64_t> errors;    // "ECONNRESET", "500" -> lines
};

// Tallies the rows, and checks what holds for every line: each index once, its times in order
// (start <= connected <= sent <= first byte <= end, those that apply), a status only with a first
// byte.
inline LogTally tally_log(const std::vector<LogRow>& rows) {
  LogTally t;
  std::set<std::uint64_t> indexes;
  for (const LogRow& l : rows) {
    ++t.lines;
    if (!l.status.empty()) ++t.statuses[l.status];
    if (!l.error.empty()) {
      ++t.errors[l.error];
      ++t.with_error;
    }
    EXPECT_TRUE(indexes.insert(l.index).second) << "index " << l.index << " logged twice";
    EXPECT_GE(l.start, 0);
    EXPECT_GE(l.end, l.start);
    for (std::int64_t at : {l.connected, l.sent, l.first_byte}) {
      if (at < 0) continue;
      EXPECT_GE(at, l.start) << l.index;
      EXPECT_LE(at, l.end) << l.index;
    }
    if (l.connected >= 0 && l.sent >= 0) {
      EXPECT_LE(l.connected, l.sent) << l.index;
    }
    if (l.sent >= 0 && l.first_byte >= 0) {
      EXPECT_LE(l.sent, l.first_byte) << l.index;
    }
    if (!l.status.empty()) {
      EXPECT_GE(l.first_byte, 0) << l.index;
    }
  }
  return t;
}

}  // namespace stampede::testing
