// What an --http2 run measured beyond latencies: the RST_STREAM and GOAWAY frames the server
// sent, by error code, and the SETTINGS it announced; how they are named in the reports. Plain
// counts, merged after the workers join.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace stampede::loadgen {

// The server's SETTINGS as first received on a connection. A value the server did not send has
// its RFC 9113 default.
struct H2ServerSettings {
  std::optional<std::uint32_t> max_concurrent_streams;  // none sent: unlimited
  std::uint32_t initial_window_size = 65535;
  std::uint32_t max_frame_size = 16384;

  bool operator==(const H2ServerSettings&) const = default;
};

struct H2Counts {
  std::map<std::uint32_t, std::uint64_t> rst_stream;  // RST_STREAM frames received, by code
  std::map<std::uint32_t, std::uint64_t> goaway;      // GOAWAY frames received, by code
  // The first connection's SETTINGS (a server announces the same on every connection); when
  // another connection, worker or shard saw different ones, settings_differ is set and these
  // stay the first seen.
  std::optional<H2ServerSettings> server_settings;
  bool settings_differ = false;

  // Records one connection's SETTINGS.
  void add_settings(const H2ServerSettings& settings);
  // Counts add; SETTINGS are the same, or differ.
  void merge(const H2Counts& other);

  bool operator==(const H2Counts&) const = default;
};

// The streams each connection carried at most: `configured` (--streams), or the server's
// SETTINGS_MAX_CONCURRENT_STREAMS when it is lower.
std::uint32_t effective_streams(const H2Counts& counts, std::uint32_t configured);
// The "HTTP/2" section's lines, worded once for the text and the HTML report: streams per
// connection, RST_STREAM and GOAWAY counts by code, the server's SETTINGS.
struct H2Line {
  std::string key;  // "Streams/connection", "RST_STREAM received", ...
  std::string value;
};
std::vector<H2Line> h2_lines(const H2Counts& counts, std::uint32_t streams);
// The "HTTP/2" section of the text report.
void write_h2_text(const H2Counts& counts, std::uint32_t streams, std::ostream& out);
// The "http2" object of the JSON report (docs/output.md).
nlohmann::ordered_json h2_json(const H2Counts& counts, std::uint32_t streams);

// The names of H2ServerSettings' members in a JSON object: the report's (camelCase) or the saved
// result's (snake_case, result_h2.h).
struct H2SettingsKeys {
  const char* max_concurrent_streams;
  const char* initial_window_size;
  const char* max_frame_size;
};
// The server's SETTINGS as a JSON object under `keys` (max_concurrent_streams null when the
// server set no limit), or null when none were received.
nlohmann::ordered_json h2_settings_json(const std::optional<H2ServerSettings>& settings,
                                        const H2SettingsKeys& keys);

}  // namespace stampede::loadgen
