#include "cli/merge.h"

#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "cli/raw_options.h"
#include "loadgen/merge.h"
#include "loadgen/options.h"
#include "loadgen/report/html.h"
#include "loadgen/report/json.h"
#include "loadgen/report/text.h"
#include "loadgen/report/thresholds.h"
#include "loadgen/result_file.h"

namespace stampede::loadgen {
namespace {

struct MergeArgs {
  std::vector<std::string> inputs;
  std::optional<std::string> html;
  RawOptions raw;  // the thresholds, checked by the generator's rule (loadgen::to_thresholds)
  RawOptionTexts texts;
  bool json = false, force = false;
  bool help = false;
  std::string help_text;
};

void define(CLI::App& app, MergeArgs& a) {
  app.add_option("inputs", a.inputs,
                 "Saved results (--save) of the shards of one run; - reads them from stdin, one "
                 "per line (other lines are skipped); required, no default")
      ->required();
  app.add_flag("--json", a.json, "Print the merged result as JSON instead of the text report");
  add_last_wins_option(app, "--html", a.html,
                       "Also write the HTML report to this file; default none");
  add_threshold_options(app, a.texts, a.raw);
  app.add_flag("--force", a.force,
               "Merge results of different runs, or with a shard missing or twice, anyway (the "
               "report says so)");
}

// Folds every result line of `in` into merger; other lines are skipped. name: the input's name.
Expected<void> read_results(std::istream& in, const std::string& name, ResultMerger& merger) {
  std::string line;
  std::size_t number = 0, found = 0;
  while (std::getline(in, line)) {
    ++number;
    if (line.rfind(kResultLinePrefix, 0) != 0) continue;
    const std::string origin = fmt::format("{} line {}", name, number);
    auto saved = parse_result_line(line);
    if (!saved) return make_error(origin + ": " + saved.error().message);
    if (auto added = merger.add(std::move(saved).value(), origin); !added) return added;
    ++found;
  }
  if (in.bad()) return make_error(name + ": read error");
  if (found == 0) return make_error(name + ": no stampede result in it (--save writes them)");
  return {};
}

Expected<void> read_input(const std::string& input, ResultMerger& merger) {
  if (input == "-") return read_results(std::cin, "stdin", merger);
  std::error_code ec;
  if (!std::filesystem::is_regular_file(input, ec)) {
    return make_error(input + ": not a regular file (or missing)");
  }
  std::ifstream file(input, std::ios::binary);
  if (!file) return make_error(input + ": cannot open");
  return read_results(file, input, merger);
}

// The thresholds and every input merged: every refusal of the command (exit 2) comes from here.
struct MergeInput {
  Thresholds thresholds;
  MergedResult merged;
};

Expected<MergeInput> merge_inputs(MergeArgs& args) {
  args.texts.land();
  auto limits = to_thresholds(args.raw.max_p99, args.raw.max_error_rate, args.raw.min_rps);
  if (!limits) return limits.error();
  ResultMerger merger(args.force);
  for (const std::string& input : args.inputs) {
    if (auto r = read_input(input, merger); !r) return r.error();
  }
  auto merged = merger.finish();
  if (!merged) return merged.error();
  return MergeInput{*limits, std::move(merged).value()};
}

std::string ms(std::int64_t ns) {
  return fmt::format("{:.3f}", static_cast<double>(ns) / 1e6);
}

// The per-shard table, the start spread, and what --force merged anyway.
void write_shards_text(const MergedResult& m, std::ostream& out) {
  fmt::print(out, "\nShards ({} merged, start spread {} ms)\n", m.shards.size(),
             ms(m.start_spread_ns));
  fmt::print(out, "  {:<8}{:<20}{:>10}{:>10}{:>10}{:>10}  {:<26}{:>6}\n", "shard", "host",
             "requests", "req/s", "p99 ms", "lag p99", "start (UTC)", "CPU");
  for (const ShardSummary& s : m.shards) {
    fmt::print(out, "  {:<8}{:<20}{:>10}{:>10}{:>10}{:>10}  {:<26}{:>5.0f}%\n",
               fmt::format("{}/{}", s.shard.index, s.shard.count), s.host, s.requests,
               std::llround(s.rps), ms(s.p99_ns), s.lag_p99_ns ? ms(*s.lag_p99_ns) : "-",
               format_start_time(s.start_unix_ns), s.cpu_busy * 100);
  }
  for (const std::string& f : m.findings)
    fmt::print(out, "{}\n", f);
  for (const std::string& f : m.forced)
    fmt::print(out, "Merged with --force: {}\n", f);
}

nlohmann::ordered_json shards_json(const MergedResult& m) {
  nlohmann::ordered_json j;
  j["startSpreadMs"] = static_cast<double>(m.start_spread_ns) / 1e6;
  auto& rows = j["shards"] = nlohmann::ordered_json::array();
  for (const ShardSummary& s : m.shards) {
    nlohmann::ordered_json row;
    row["shard"] = s.shard.index;
    row["of"] = s.shard.count;
    row["host"] = s.host;
    row["requests"] = s.requests;
    row["rps"] = s.rps;
    row["p99Ms"] = static_cast<double>(s.p99_ns) / 1e6;
    if (s.lag_p99_ns) row["sendLagP99Ms"] = static_cast<double>(*s.lag_p99_ns) / 1e6;
    row["start"] = format_start_time(s.start_unix_ns);
    row["cpuBusy"] = s.cpu_busy;
    rows.push_back(std::move(row));
  }
  j["findings"] = m.findings;
  j["forced"] = m.forced;
  return j;
}

}  // namespace

int print_merged_report(const MergedReportSettings& settings, const MergedResult& m) {
  if (settings.json) {
    nlohmann::ordered_json j = to_json(m.result);
    j["merge"] = shards_json(m);
    for (const auto& [key, value] : settings.extra_json.items())
      j[key] = value;
    std::cout << j.dump(2) << '\n';
  } else {
    write_text_report(m.result, std::cout);
    write_shards_text(m, std::cout);
    for (const std::string& line : settings.notes)
      fmt::print(std::cout, "{}\n", line);
  }
  std::cout.flush();
  const std::vector<std::string> crossed = crossed_thresholds(m.result, settings.thresholds);
  std::vector<std::string> findings;
  for (const std::string& line : crossed)
    findings.push_back("Threshold crossed: " + line);
  for (const std::string& line : m.findings)
    findings.push_back(line);
  for (const std::string& line : m.forced)
    findings.push_back("Merged with --force: " + line);
  for (const std::string& line : settings.notes)
    findings.push_back(line);
  if (!settings.html.empty()) {
    if (auto r = write_html_report(m.result, settings.html, findings); !r) {
      print_error_line(r.error().message);
      return 1;
    }
  }
  for (const std::string& line : crossed)
    print_error_line("threshold crossed: " + line);
  return crossed.empty() ? 0 : 3;
}

int merge_main(int argc, char** argv) {
  CLI::App app("stampede merge: one report from the saved results of a run's shards",
               "stampede merge");
  MergeArgs args;
  define(app, args);
  return read_then_run(app, args, argc, argv, &merge_inputs, [&args](const MergeInput& input) {
    MergedReportSettings settings;
    settings.json = args.json;
    settings.html = args.html.value_or("");
    settings.thresholds = input.thresholds;
    return print_merged_report(settings, input.merged);
  });
}

}  // namespace stampede::loadgen
