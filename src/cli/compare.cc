#include "cli/compare.h"

#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "core/units.h"
#include "loadgen/compare.h"
#include "loadgen/report/compare.h"
#include "loadgen/report/compare_input.h"

namespace stampede::loadgen {
namespace {

struct CompareArgs {
  std::vector<std::string> inputs;
  std::optional<std::string> fail_on, min_change;
  bool json = false;
  bool help = false;
  std::string help_text;
};

// What the command line means, parsed once.
struct CompareRequest {
  std::string baseline, current;
  std::vector<FailLimit> limits;
  CompareParams params;
  bool json = false;
};

void define(CLI::App& app, CompareArgs& a) {
  app.add_option("files", a.inputs,
                 "BASELINE and CURRENT: results written by --json or --save, one or many runs "
                 "each (--repeat N); required, no default")
      ->required()
      ->expected(2);
  add_last_wins_option(
      app, "--fail-on", a.fail_on,
      "Exit 3 when a significant change crosses a limit: METRIC:+N% or METRIC:-N%, "
      "comma-separated (rps, errors in percentage points, p50, p90, p99, max; "
      "rst_stream, goaway when both sides are HTTP/2; e.g. p99:+10%,rps:-5%); default "
      "none");
  add_last_wins_option(app, "--min-change", a.min_change,
                       "Changes smaller than this, in % (percentage points for errors), are never "
                       "called significant; default 2");
  app.add_flag("--json", a.json, "Print the comparison as JSON instead of the table");
}

Expected<CompareRequest> to_request(const CompareArgs& a) {
  CompareRequest r;
  r.baseline = a.inputs.at(0);
  r.current = a.inputs.at(1);
  r.json = a.json;
  if (a.fail_on) {
    auto limits = parse_fail_on(*a.fail_on);
    if (!limits) return limits.error();
    r.limits = std::move(limits).value();
  }
  if (a.min_change) {
    auto n = parse_number(*a.min_change);
    if (!n || *n > 1000) {
      return make_error("--min-change: expected a percentage from 0 to 1000, got '" +
                        *a.min_change + "'");
    }
    r.params.min_change = *n;
  }
  return r;
}

// The request and both sides read: every refusal of the command (exit 2) comes from here.
struct CompareInput {
  CompareRequest request;
  Side baseline, current;
};

Expected<CompareInput> read_input(const CLI::App& app, const CompareArgs& args) {
  if (auto empty = refuse_empty_values(app); !empty) return empty.error();
  auto request = to_request(args);
  if (!request) return request.error();
  auto baseline = read_side(request->baseline);
  if (!baseline) return baseline.error();
  auto current = read_side(request->current);
  if (!current) return current.error();
  return CompareInput{std::move(request).value(), std::move(baseline).value(),
                      std::move(current).value()};
}

// The comparison on stdout (the table, or --json), then its warnings and regressions on stderr:
// 3 when a --fail-on limit is crossed.
int report_comparison(const CompareInput& input) {
  const CompareRequest& request = input.request;
  const Comparison c = compare(input.baseline, input.current, request.params);
  if (request.json) {
    std::cout << compare_json(c, request.params)
                     .dump(2, ' ', false, nlohmann::ordered_json::error_handler_t::replace)
              << '\n';
  } else {
    write_compare_text(c, request.params, request.baseline, request.current, std::cout);
  }
  std::cout.flush();
  for (const std::string& line : c.differences)
    print_error_line("warning: not the same test: " + line);
  const std::vector<std::string> crossed = crossed_limits(c, request.limits);
  for (const std::string& line : crossed)
    print_error_line("regression: " + line);
  return crossed.empty() ? 0 : 3;
}

}  // namespace

int compare_main(int argc, char** argv) {
  CLI::App app("stampede compare: the change between two sets of runs, beyond their noise",
               "stampede compare");
  CompareArgs args;
  define(app, args);
  return read_then_run(
      app, args, argc, argv, [&app](const CompareArgs& a) { return read_input(app, a); },
      &report_comparison);
}

}  // namespace stampede::loadgen
