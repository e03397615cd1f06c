#include "cli/find_max.h"

#include <cmath>
#include <iostream>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "cli/report_output.h"
#include "core/error_line.h"
#include "core/units.h"
#include "loadgen/report/capacity.h"

namespace stampede::loadgen {

void add_find_max_options(CLI::App& app, FindMaxTexts& t) {
  app.add_flag("--find-max", t.find_max,
               "Search for the highest constant rate the target holds within --max-p99 and "
               "--max-error-rate (docs/capacity.md); needs --max-p99");
  add_last_wins_option(
      app, "--start-rps", t.start_rps,
      "With --find-max: the first step's rate; default half a 1 s closed-loop probe's");
  add_last_wins_option(app, "--step-duration", t.step_duration,
                       "With --find-max: each step's length (e.g. 5s); default the longer of 2 s "
                       "and 1000 requests at the step's rate");
  add_last_wins_option(app, "--resolution", t.resolution,
                       "With --find-max: stop when the last passing and first failing rates are "
                       "within this percentage, more than 0 and at most 100; default 2");
  add_last_wins_option(app, "--cool-down", t.cool_down,
                       "With --find-max: idle time before each step (e.g. 500ms); default 1s");
}

namespace {

// A duration within (0 or more, when `zero_ok`) and a day: a step longer than that is a typo.
Expected<std::chrono::nanoseconds> capacity_duration(const std::string& text, const char* name,
                                                     bool zero_ok) {
  auto d = parse_duration(text, std::chrono::seconds(1));
  if (!d || (!zero_ok && d->count() == 0) || *d > std::chrono::hours(24)) {
    return make_error(fmt::format("{}: expected a duration {} to 24h (e.g. 5s, 500ms), got '{}'",
                                  name, zero_ok ? "from 0" : "above 0", text));
  }
  return *d;
}

Expected<void> apply_texts(const FindMaxTexts& t, CapacityParams& p) {
  if (t.start_rps) {
    auto n = parse_number(*t.start_rps);
    if (!n || *n < kMinRps || *n > kMaxRps) {
      return make_error(fmt::format("--start-rps: expected a rate from {} to {}, got '{}'", kMinRps,
                                    kMaxRps, *t.start_rps));
    }
    p.start_rps = *n;
  }
  if (t.step_duration) {
    auto d = capacity_duration(*t.step_duration, "--step-duration", false);
    if (!d) return d.error();
    p.step_duration = *d;
  }
  if (t.resolution) {
    auto n = parse_number(*t.resolution);
    if (!n || *n <= 0 || *n > 100) {
      return make_error("--resolution: expected a percentage above 0 and at most 100, got '" +
                        *t.resolution + "'");
    }
    p.resolution = *n / 100;
  }
  if (t.cool_down) {
    auto d = capacity_duration(*t.cool_down, "--cool-down", true);
    if (!d) return d.error();
    p.cool_down = *d;
  }
  return {};
}

// What --find-max decides itself, or cannot mean, on the rest of the command line.
Expected<void> refuse_contradictions(const Options& o) {
  const Config& c = o.config;
  const auto refuse = [](const char* what, const char* why) {
    return make_error(fmt::format("--find-max does not take {}: {}", what, why));
  };
  if (c.max_requests > 0) return refuse("-n", "each step lasts --step-duration");
  if (c.max_duration.count() > 0) return refuse("-t", "each step lasts --step-duration");
  if (c.rps > 0) return refuse("--rps", "it chooses each step's rate (--start-rps: the first)");
  if (c.ramp.count() > 0) return refuse("--ramp", "each step runs at a constant rate");
  if (c.pipeline > 1) {
    return refuse("--pipeline", "an open-loop step sends each request at its own time");
  }
  if (!c.shard.whole()) return refuse("--shard", "the search runs on one machine");
  if (c.start_at_unix_ns != 0) return refuse("--start-at", "the search starts at once");
  if (!o.cli.save.empty()) return refuse("--save", "a search is not a mergeable run");
  if (o.cli.thresholds.min_rps) return refuse("--min-rps", "the search finds the rate");
  if (!o.cli.thresholds.max_p99_ms) return make_error("--find-max needs --max-p99 MS");
  if (!(*o.cli.thresholds.max_p99_ms > 0)) return make_error("--find-max needs --max-p99 above 0");
  return {};
}

}  // namespace

Expected<std::optional<CapacityParams>> to_capacity_params(const FindMaxTexts& t,
                                                           const Options& options) {
  if (!t.find_max) {
    const std::optional<std::string>* const own[] = {&t.start_rps, &t.step_duration, &t.resolution,
                                                     &t.cool_down};
    const char* const names[] = {"--start-rps", "--step-duration", "--resolution", "--cool-down"};
    for (std::size_t i = 0; i < 4; ++i) {
      if (*own[i]) return make_error(std::string(names[i]) + " needs --find-max");
    }
    return std::optional<CapacityParams>();
  }
  if (auto r = refuse_contradictions(options); !r) return r.error();
  CapacityParams p;
  p.max_p99_ms = *options.cli.thresholds.max_p99_ms;
  if (options.cli.thresholds.max_error_rate_pct) {
    p.max_error_rate_pct = *options.cli.thresholds.max_error_rate_pct;
  }
  if (auto r = apply_texts(t, p); !r) return r.error();
  return std::optional<CapacityParams>(p);
}

Expected<void> check_capacity_plan(const Plan& plan) {
  if (plan.websocket()) return make_error("--find-max needs an http:// or https:// URL");
  return {};
}

int run_find_max(Plan& plan, const CliSettings& settings, const CapacityParams& params,
                 StopSignal& stop) {
  CapacityHooks hooks;
  hooks.progress = settings.quiet ? nullptr : &std::cerr;
  hooks.stop = &stop;
  auto result = find_capacity(plan, params, hooks);
  if (!result) {
    print_error_line(result.error().message);
    return 1;
  }
  const ReportWriters<CapacityResult> writers{write_capacity_text, write_capacity_json,
                                              write_capacity_html};
  if (!print_reports(*result, writers, settings.json, settings.html)) return 1;
  switch (result->end) {
    case SearchEnd::Found:
    case SearchEnd::Ceiling:
      return 0;
    case SearchEnd::FirstStepFailed:
      print_error_line(capacity_sentence(*result));
      return 3;
    case SearchEnd::Running:
    case SearchEnd::Stopped:
      break;
  }
  print_error_line(capacity_sentence(*result));
  return 1;
}

}  // namespace stampede::loadgen
