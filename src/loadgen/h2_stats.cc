#include "loadgen/h2_stats.h"

#include <algorithm>
#include <ostream>
#include <string>
#include <utility>

#include <fmt/format.h>
#include <fmt/ostream.h>

#include "h2/error_codes.h"

namespace stampede::loadgen {
namespace {

void add_code_counts(std::map<std::uint32_t, std::uint64_t>& into,
                     const std::map<std::uint32_t, std::uint64_t>& from) {
  for (const auto& [code, n] : from)
    into[code] += n;
}

// Counts by the code's name, in code order: codes the RFC does not define add up under
// "UNKNOWN" (one entry, not one each that a JSON object would overwrite).
std::vector<std::pair<std::string, std::uint64_t>> by_name(
    const std::map<std::uint32_t, std::uint64_t>& counts) {
  std::vector<std::pair<std::string, std::uint64_t>> out;
  for (const auto& [code, n] : counts) {
    const std::string name(h2::error_code_name(code));
    auto same =
        std::find_if(out.begin(), out.end(), [&](const auto& e) { return e.first == name; });
    if (same == out.end()) {
      out.emplace_back(name, n);
    } else {
      same->second += n;
    }
  }
  return out;
}

std::string code_list(const std::map<std::uint32_t, std::uint64_t>& counts) {
  if (counts.empty()) return "0";
  std::string out;
  for (const auto& [name, n] : by_name(counts))
    out += fmt::format("{}{} x {}", out.empty() ? "" : ", ", n, name);
  return out;
}

nlohmann::ordered_json code_object(const std::map<std::uint32_t, std::uint64_t>& counts) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [name, n] : by_name(counts))
    j[name] = n;
  return j;
}

}  // namespace

void H2Counts::add_settings(const H2ServerSettings& settings) {
  if (!server_settings) {
    server_settings = settings;
  } else if (*server_settings != settings) {
    settings_differ = true;
  }
}

void H2Counts::merge(const H2Counts& other) {
  add_code_counts(rst_stream, other.rst_stream);
  add_code_counts(goaway, other.goaway);
  if (other.server_settings) add_settings(*other.server_settings);
  settings_differ = settings_differ || other.settings_differ;
}

std::uint32_t effective_streams(const H2Counts& counts, std::uint32_t configured) {
  if (!counts.server_settings || !counts.server_settings->max_concurrent_streams) return configured;
  return std::min(configured, *counts.server_settings->max_concurrent_streams);
}

std::vector<H2Line> h2_lines(const H2Counts& counts, std::uint32_t streams) {
  std::vector<H2Line> lines;
  const std::uint32_t used = effective_streams(counts, streams);
  lines.push_back({"Streams/connection",
                   used < streams
                       ? fmt::format("{} (--streams {}: the server allows {})", used, streams, used)
                       : std::to_string(streams)});
  lines.push_back({"RST_STREAM received", code_list(counts.rst_stream)});
  lines.push_back({"GOAWAY received", code_list(counts.goaway)});
  std::string settings = "none received";
  if (const auto& s = counts.server_settings) {
    settings = fmt::format("{}MAX_CONCURRENT_STREAMS {}, INITIAL_WINDOW_SIZE {}, MAX_FRAME_SIZE {}",
                           counts.settings_differ ? "differ between connections; first seen: " : "",
                           s->max_concurrent_streams ? std::to_string(*s->max_concurrent_streams)
                                                     : std::string("unlimited"),
                           s->initial_window_size, s->max_frame_size);
  }
  lines.push_back({"Server SETTINGS", std::move(settings)});
  return lines;
}

void write_h2_text(const H2Counts& counts, std::uint32_t streams, std::ostream& out) {
  fmt::print(out, "\nHTTP/2\n");
  for (const H2Line& line : h2_lines(counts, streams))
    fmt::print(out, "{:<21}{}\n", line.key + ":", line.value);
}

nlohmann::ordered_json h2_json(const H2Counts& counts, std::uint32_t streams) {
  nlohmann::ordered_json j;
  j["streamsPerConnection"] = streams;
  j["streamsUsed"] = effective_streams(counts, streams);
  j["rstStream"] = code_object(counts.rst_stream);
  j["goaway"] = code_object(counts.goaway);
  j["serverSettings"] = h2_settings_json(
      counts.server_settings, {"maxConcurrentStreams", "initialWindowSize", "maxFrameSize"});
  j["serverSettingsDiffer"] = counts.settings_differ;
  return j;
}

nlohmann::ordered_json h2_settings_json(const std::optional<H2ServerSettings>& settings,
                                        const H2SettingsKeys& keys) {
  if (!settings) return nullptr;
  nlohmann::ordered_json j;
  j[keys.max_concurrent_streams] = settings->max_concurrent_streams
                                       ? nlohmann::ordered_json(*settings->max_concurrent_streams)
                                       : nlohmann::ordered_json(nullptr);
  j[keys.initial_window_size] = settings->initial_window_size;
  j[keys.max_frame_size] = settings->max_frame_size;
  return j;
}

}  // namespace stampede::loadgen
