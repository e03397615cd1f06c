#include "loadgen/report/compare_input.h"

#include <fmt/format.h>

#include "core/input_file.h"
#include "core/json_input.h"
#include "loadgen/config.h"
#include "loadgen/report/json.h"
#include "loadgen/result_file.h"

namespace stampede::loadgen {
namespace {

using InputJson = nlohmann::json;

// The identity fields, by their --json names.
constexpr const char* kIdentityKeys[] = {"url",        "cores", "concurrency",      "maxRequests",
                                         "maxSeconds", "agent", "requestsPerSecond"};

// "HTTP/1.1", or "HTTP/2, N streams per connection" (--streams): one field, so that a baseline
// of the one against a current of the other is one line of differences.
std::string protocol_of(const InputJson& run) {
  const auto h2 = run.find("http2");
  if (h2 == run.end() || !h2->is_object()) return "HTTP/1.1";
  const auto streams = h2->find("streamsPerConnection");
  const std::string n = streams == h2->end() ? std::string("?") : streams->dump();
  return fmt::format("HTTP/2, {} stream{} per connection", n, n == "1" ? "" : "s");
}

RunIdentity identity_of(const InputJson& run) {
  RunIdentity id = RunIdentity::object();
  for (const char* key : kIdentityKeys) {
    const auto it = run.find(key);
    id[key] = it == run.end() ? InputJson(nullptr) : *it;
  }
  id["protocol"] = protocol_of(run);
  return id;
}

// The counts of an "rstStream" or "goaway" object (error code name -> count); nullopt when it
// is not one.
std::optional<CodeCounts> code_counts_at(const InputJson& h2, const char* key) {
  const auto it = h2.find(key);
  if (it == h2.end() || !it->is_object()) return std::nullopt;
  CodeCounts out;
  for (const auto& [name, n] : it->items()) {
    if (!n.is_number_unsigned() || name.empty() || name.size() > 64) return std::nullopt;
    out[name] = n.get<std::uint64_t>();
  }
  return out;
}

// The "http2" object of an --http2 run (json.h's h2_json); nullopt when it is malformed.
std::optional<H2Figures> h2_figures_of_json(const InputJson& h2) {
  if (!h2.is_object()) return std::nullopt;
  const auto streams = h2.find("streamsPerConnection");
  const auto used = h2.find("streamsUsed");
  if (streams == h2.end() || used == h2.end() || !streams->is_number_unsigned() ||
      !used->is_number_unsigned()) {
    return std::nullopt;
  }
  const auto configured = streams->get<std::uint64_t>(), in_use = used->get<std::uint64_t>();
  if (configured < 1 || configured > kMaxStreams || in_use > configured) return std::nullopt;
  auto rst = code_counts_at(h2, "rstStream");
  auto goaway = code_counts_at(h2, "goaway");
  if (!rst || !goaway) return std::nullopt;
  return H2Figures{static_cast<std::uint32_t>(configured), static_cast<std::uint32_t>(in_use),
                   std::move(*rst), std::move(*goaway)};
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
  if (const auto h2 = run.find("http2"); h2 != run.end()) {
    f.h2 = h2_figures_of_json(*h2);
    if (!f.h2) return std::nullopt;
  }
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
