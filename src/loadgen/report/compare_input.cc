#include "loadgen/report/compare_input.h"

#include <fmt/format.h>

#include "core/input_file.h"
#include "core/json_input.h"
#include "loadgen/report/json.h"
#include "loadgen/result_file.h"

namespace stampede::loadgen {
namespace {

using InputJson = nlohmann::json;

// The identity fields, by their --json names.
constexpr const char* kIdentityKeys[] = {"url",        "cores", "concurrency",      "maxRequests",
                                         "maxSeconds", "agent", "requestsPerSecond"};

RunIdentity identity_of(const InputJson& run) {
  RunIdentity id = RunIdentity::object();
  for (const char* key : kIdentityKeys) {
    const auto it = run.find(key);
    id[key] = it == run.end() ? InputJson(nullptr) : *it;
  }
  return id;
}

// A number at `key` (nested under `inner` when given), or nullopt.
std::optional<double> number_at(const InputJson& run, const char* key,
                                const char* inner = nullptr) {
  const auto it = run.find(key);
  if (it == run.end()) return std::nullopt;
  const InputJson* value = &*it;
  if (inner) {
    if (!value->is_object()) return std::nullopt;
    const auto in = value->find(inner);
    if (in == value->end()) return std::nullopt;
    value = &*in;
  }
  if (!value->is_number()) return std::nullopt;
  return value->get<double>();
}

// The figures of one run as --json writes it; nullopt when it is not one.
std::optional<RunFigures> figures_of_json(const InputJson& run) {
  if (!run.is_object()) return std::nullopt;
  const auto requests = number_at(run, "totalRequests");
  const auto errors = number_at(run, "totalErrors");
  const auto elapsed = number_at(run, "elapsedSeconds");
  const auto p50 = number_at(run, "percentiles", "50");
  const auto p90 = number_at(run, "percentiles", "90");
  const auto p99 = number_at(run, "percentiles", "99");
  const auto max = number_at(run, "maxLatencyMs");
  if (!requests || !errors || !elapsed || !p50 || !p90 || !p99 || !max || *requests < 0 ||
      *errors < 0 || *elapsed < 0) {
    return std::nullopt;
  }
  RunFigures f;
  f.requests = static_cast<std::uint64_t>(*requests);
  f.rps = *elapsed > 0 ? *requests / *elapsed : 0;
  f.error_rate = *requests > 0 ? *errors / *requests : 0;
  f.p50_ms = *p50;
  f.p90_ms = *p90;
  f.p99_ms = *p99;
  f.max_ms = *max;
  return f;
}

struct ComparedRun {
  RunFigures figures;
  RunIdentity identity;
};

Expected<void> add_run(Side& side, ComparedRun run, std::size_t number) {
  if (run.figures.requests == 0) {
    return make_error(
        fmt::format("{}: run {} has no requests: nothing to compare", side.name, number));
  }
  if (side.runs.empty()) {
    side.identity = std::move(run.identity);
  } else if (run.identity != side.identity) {
    for (const auto& [key, value] : side.identity.items()) {
      if (run.identity[key] == value) continue;
      return make_error(fmt::format("{}: run {} is not the same test as run 1 ({} {} against {})",
                                    side.name, number, key, run.identity[key].dump(),
                                    value.dump()));
    }
  }
  if (side.runs.size() == kMaxRuns) {
    return make_error(fmt::format("{}: more than {} runs", side.name, kMaxRuns));
  }
  side.runs.push_back(run.figures);
  return {};
}

// --save: every result line, in order.
Expected<Side> parse_saved(std::string_view text, const std::string& name) {
  Side side{name, {}, {}};
  std::size_t start = 0, line_number = 0;
  while (start < text.size()) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_number;
    if (line.rfind(kResultLinePrefix, 0) != 0) continue;
    auto saved = parse_result_line(line);
    if (!saved) {
      return make_error(fmt::format("{} line {}: {}", name, line_number, saved.error().message));
    }
    ComparedRun run{figures_of(saved->result), identity_of(to_json(saved->result))};
    if (auto added = add_run(side, std::move(run), side.runs.size() + 1); !added) {
      return added.error();
    }
  }
  return side;
}

// --json: one run, or the runs under "repeat".
Expected<Side> parse_json_result(const InputJson& doc, const std::string& name) {
  const auto not_ours = [&] {
    return make_error(name + ": JSON, but not a stampede result (write one with --json or --save)");
  };
  if (!doc.is_object()) return not_ours();
  std::vector<const InputJson*> runs;
  const auto repeat = doc.find("repeat");
  if (repeat != doc.end()) {
    const auto list = repeat->is_object() ? repeat->find("runs") : repeat->end();
    if (list == repeat->end() || !list->is_array() || list->empty()) return not_ours();
    for (const InputJson& run : *list)
      runs.push_back(&run);
  } else {
    runs.push_back(&doc);
  }
  Side side{name, {}, {}};
  for (const InputJson* run : runs) {
    const auto figures = figures_of_json(*run);
    if (!figures) return not_ours();
    if (auto added = add_run(side, {*figures, identity_of(*run)}, side.runs.size() + 1); !added) {
      return added.error();
    }
  }
  return side;
}

bool has_result_line(std::string_view text) {
  if (text.rfind(kResultLinePrefix, 0) == 0) return true;
  return text.find(std::string("\n") + std::string(kResultLinePrefix)) != std::string_view::npos;
}

}  // namespace

Expected<Side> parse_side(std::string_view text, const std::string& name) {
  if (has_result_line(text)) return parse_saved(text, name);
  auto doc = parse_json_input(text);
  if (!doc) {
    return make_error(
        fmt::format("{}: {}, and no stampede result line in it (write one with "
                    "--json or --save)",
                    name, doc.error().message));
  }
  return parse_json_result(*doc, name);
}

Expected<Side> read_side(const std::string& path) {
  auto text = read_input_file(path, kMaxCompareInputMiB * kMiB, "");
  if (!text) return text.error();
  return parse_side(*text, path);
}

}  // namespace stampede::loadgen
