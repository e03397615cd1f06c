#include "loadgen/h2_stats.h"

#include <ostream>
#include <string>

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

std::string code_list(const std::map<std::uint32_t, std::uint64_t>& counts) {
  if (counts.empty()) return "0";
  std::string out;
  for (const auto& [code, n] : counts)
    out += fmt::format("{}{} x {}", out.empty() ? "" : ", ", n, h2::error_code_name(code));
  return out;
}

nlohmann::ordered_json code_object(const std::map<std::uint32_t, std::uint64_t>& counts) {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [code, n] : counts)
    j[std::string(h2::error_code_name(code))] = n;
  return j;
}

}  // namespace

void H2Counts::merge(const H2Counts& other) {
  add_code_counts(rst_stream, other.rst_stream);
  add_code_counts(goaway, other.goaway);
  if (!server_settings) server_settings = other.server_settings;
}

std::uint32_t effective_streams(const H2Counts& counts, std::uint32_t configured) {
  if (!counts.server_settings || !counts.server_settings->max_concurrent_streams) return configured;
  return std::min(configured, *counts.server_settings->max_concurrent_streams);
}

void write_h2_text(const H2Counts& counts, std::uint32_t streams, std::ostream& out) {
  fmt::print(out, "\nHTTP/2\n");
  const std::uint32_t used = effective_streams(counts, streams);
  if (used < streams) {
    fmt::print(out, "Streams/connection:  {} (--streams {}: the server allows {})\n", used, streams,
               used);
  } else {
    fmt::print(out, "Streams/connection:  {}\n", streams);
  }
  fmt::print(out, "RST_STREAM received: {}\n", code_list(counts.rst_stream));
  fmt::print(out, "GOAWAY received:     {}\n", code_list(counts.goaway));
  if (const auto& s = counts.server_settings) {
    fmt::print(out,
               "Server SETTINGS:     MAX_CONCURRENT_STREAMS {}, INITIAL_WINDOW_SIZE {}, "
               "MAX_FRAME_SIZE {}\n",
               s->max_concurrent_streams ? std::to_string(*s->max_concurrent_streams)
                                         : std::string("unlimited"),
               s->initial_window_size, s->max_frame_size);
  } else {
    fmt::print(out, "Server SETTINGS:     none received\n");
  }
}

nlohmann::ordered_json h2_json(const H2Counts& counts, std::uint32_t streams) {
  nlohmann::ordered_json j;
  j["streamsPerConnection"] = streams;
  j["streamsUsed"] = effective_streams(counts, streams);
  j["rstStream"] = code_object(counts.rst_stream);
  j["goaway"] = code_object(counts.goaway);
  if (const auto& s = counts.server_settings) {
    nlohmann::ordered_json settings;
    settings["maxConcurrentStreams"] = s->max_concurrent_streams
                                           ? nlohmann::ordered_json(*s->max_concurrent_streams)
                                           : nlohmann::ordered_json(nullptr);
    settings["initialWindowSize"] = s->initial_window_size;
    settings["maxFrameSize"] = s->max_frame_size;
    j["serverSettings"] = std::move(settings);
  } else {
    j["serverSettings"] = nullptr;
  }
  return j;
}

}  // namespace stampede::loadgen
