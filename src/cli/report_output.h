// The last step of a subcommand that measured something (--find-max, --sweep-connections, lab):
// its report on stdout, JSON or text, then, when asked, its HTML page. The writers are the
// report module's own (loadgen/report/, lab/report.h); this only chooses and sequences them.
#pragma once

#include <iostream>
#include <ostream>
#include <string>
#include <string_view>

#include "core/error_line.h"
#include "core/expected.h"

namespace stampede {

// One result type's three writers.
template <class Result>
struct ReportWriters {
  void (*text)(const Result& result, std::ostream& out);
  void (*json)(const Result& result, std::ostream& out);
  Expected<void> (*html)(const Result& result, const std::string& path);
};

// Writes `result`'s report on stdout (JSON when `json`, else text) and flushes it, then its HTML
// page to `html_path` unless that is empty. Returns false after printing why the page could not
// be written as one line on stderr, after `prefix` (e.g. "lab: ").
template <class Result>
bool print_reports(const Result& result, const ReportWriters<Result>& writers, bool json,
                   const std::string& html_path, std::string_view prefix = {}) {
  (json ? writers.json : writers.text)(result, std::cout);
  std::cout.flush();
  if (html_path.empty()) return true;
  if (auto written = writers.html(result, html_path); !written) {
    print_error_line(std::string(prefix) + written.error().message);
    return false;
  }
  return true;
}

}  // namespace stampede
