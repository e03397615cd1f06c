// A --log file's lines against the run's JSON report: lines by status are statusCodes, lines by
// error errorCodes plus localErrors, all lines totalRequests, those with an error totalErrors
// (docs/output.md, "Per-request log"). For test binaries that link the generator's reports.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "loadgen/report/json.h"
#include "loadgen/runner.h"
#include "support/request_log_lines.h"

namespace stampede::testing {

inline void expect_log_matches_report(const std::vector<LogRow>& rows,
                                      const loadgen::RunResult& r) {
  const LogTally t = tally_log(rows);
  const auto report = loadgen::to_json(r);
  EXPECT_EQ(t.lines, report["totalRequests"].get<std::uint64_t>());
  EXPECT_EQ(t.with_error, report["totalErrors"].get<std::uint64_t>());
  std::map<std::string, std::uint64_t> statuses, errors;
  for (const auto& [code, n] : report["statusCodes"].items())
    statuses[code] = n;
  for (const char* key : {"errorCodes", "localErrors"}) {
    for (const auto& [code, n] : report[key].items())
      errors[code] += n.get<std::uint64_t>();
  }
  EXPECT_EQ(t.statuses, statuses);
  EXPECT_EQ(t.errors, errors);
  std::uint64_t bytes = 0;
  for (const LogRow& l : rows)
    bytes += l.bytes;
  EXPECT_LE(bytes, r.bytes_read);
}

}  // namespace stampede::testing
