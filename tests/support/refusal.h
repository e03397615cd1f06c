// Bad input through the binary: `stampede SUBCOMMAND ...` must refuse it with exactly one line on
// stderr ("stampede: ...", naming the option) and exit status 2, never start, crash or hang.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "core/error_line.h"
#include "core/expected.h"
#include "support/process.h"

namespace stampede::testing {

// `args` as a refusal's failure message shows them: each in brackets, so spaces and empty values
// are seen.
inline std::string shown_args(const std::vector<std::string>& args) {
  std::string shown;
  for (const std::string& a : args)
    shown += " [" + a + "]";
  return shown;
}

// Runs STAMPEDE_BINARY with `args` (args[0] is the subcommand) and checks the refusal; `needle`
// must appear in the line (the option's name). A value wrongly accepted starts a server, which
// the 10 s bound stops and the check reports.
inline ::testing::AssertionResult refused(const std::vector<std::string>& args,
                                          std::string_view needle) {
  std::vector<std::string> argv{STAMPEDE_BINARY};
  argv.insert(argv.end(), args.begin(), args.end());
  const RunResult r = run_command(argv, std::chrono::milliseconds(10000));
  const std::string shown = shown_args(args);
  if (r.status != 2) {
    return ::testing::AssertionFailure() << "exit " << r.status << " for" << shown << ": " << r.err;
  }
  if (r.err.rfind("stampede: ", 0) != 0 || std::count(r.err.begin(), r.err.end(), '\n') != 1 ||
      r.err.back() != '\n') {
    return ::testing::AssertionFailure()
           << "not one 'stampede: ' line for" << shown << ": [" << r.err << "]";
  }
  if (r.err.find(needle) == std::string::npos) {
    return ::testing::AssertionFailure()
           << "'" << needle << "' not named for" << shown << ": " << r.err;
  }
  return ::testing::AssertionSuccess();
}

// The same refusal checked in the test's own process, for sweeps of many values: `parsed` is what
// a subcommand's parse (and prepare()) made of `args`, and must be an error whose line, as
// print_error_line() prints it after "stampede: ", is one line naming `needle`. Each subcommand's
// main prints that error and exits 2 (exit_before_run); refused() above checks that through the
// binary for a few values of each sweep.
template <class Parsed>
::testing::AssertionResult refused_in_process(const Expected<Parsed>& parsed,
                                              const std::vector<std::string>& args,
                                              std::string_view needle) {
  const std::string shown = shown_args(args);
  if (parsed) return ::testing::AssertionFailure() << "accepted:" << shown;
  const std::string line = printable(parsed.error().message);
  if (line.empty() || line.find('\n') != std::string::npos) {
    return ::testing::AssertionFailure() << "not one line for" << shown << ": [" << line << "]";
  }
  if (line.find(needle) == std::string::npos) {
    return ::testing::AssertionFailure()
           << "'" << needle << "' not named for" << shown << ": " << line;
  }
  return ::testing::AssertionSuccess();
}

// Values no option that goes into an HTTP message may take: each could end a line early
// (injecting a header or a request), or is not what a request line or header can carry.
struct HostileValue {
  const char* what;
  std::string suffix;  // appended to a valid prefix ("/" for a path, "x" for a name)
};
inline const std::vector<HostileValue>& hostile_values() {
  static const std::vector<HostileValue> values = {
      {"CR", "a\rb"},
      {"LF", "a\nb"},
      {"CRLF and a second request", "a\r\n\r\nGET /injected HTTP/1.1\r\nHost: x"},
      {"CRLF and a header", "a\r\nX-Injected: 1"},
      {"space", "a b"},
      {"tab", "a\tb"},
      {"DEL", "a\x7f"},
      {"non-ASCII", "caf\xc3\xa9"},
  };
  return values;
}

// Numbers no option takes: negative, exponent, not a number, trailing garbage, overflow.
inline const std::vector<std::string>& bad_numbers() {
  static const std::vector<std::string> values = {
      "-1", "1e12", "nan", "inf", "5x", "0x10", "99999999999999999999999", " 5", "5 "};
  return values;
}

}  // namespace stampede::testing
