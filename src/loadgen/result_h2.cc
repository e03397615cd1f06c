#include "loadgen/result_h2.h"

#include <charconv>
#include <map>
#include <string>
#include <utility>

#include <fmt/format.h>

#include "loadgen/config.h"

namespace stampede::loadgen {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

OrderedJson code_counts_json(const std::map<std::uint32_t, std::uint64_t>& m) {
  OrderedJson j = OrderedJson::object();
  for (const auto& [code, n] : m)
    j[std::to_string(code)] = n;
  return j;
}

Expected<std::map<std::uint32_t, std::uint64_t>> code_counts_of(const Json& j) {
  if (!j.is_object()) return make_error("http2: error code counts are not an object");
  std::map<std::uint32_t, std::uint64_t> out;
  for (const auto& [k, v] : j.items()) {
    std::uint32_t code = 0;
    const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), code);
    if (ec != std::errc() || end != k.data() + k.size()) {
      return make_error("http2: an error code is not a number");
    }
    if (!v.is_number_unsigned()) return make_error("http2: a count is not a whole number");
    out[code] = v.get<std::uint64_t>();
  }
  return out;
}

// The whole number `name` of `j`, within [low, high].
Expected<std::uint32_t> bounded_number(const Json& j, const char* name, std::uint64_t low,
                                       std::uint64_t high) {
  const Json& v = j.at(name);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < low || v.get<std::uint64_t>() > high) {
    return make_error(fmt::format("http2: {} out of range", name));
  }
  return static_cast<std::uint32_t>(v.get<std::uint64_t>());
}

Expected<H2ServerSettings> saved_settings_of(const Json& s) {
  if (!s.is_object()) return make_error("http2: server_settings is not an object");
  H2ServerSettings settings;
  if (!s.at("max_concurrent_streams").is_null()) {
    auto n = bounded_number(s, "max_concurrent_streams", 0, 0xffffffffULL);
    if (!n) return n.error();
    settings.max_concurrent_streams = *n;
  }
  auto window = bounded_number(s, "initial_window_size", 0, 0x7fffffffULL);
  if (!window) return window.error();
  settings.initial_window_size = *window;
  auto frame = bounded_number(s, "max_frame_size", 16384, 16777215);
  if (!frame) return frame.error();
  settings.max_frame_size = *frame;
  return settings;
}

}  // namespace

OrderedJson h2_result_json(std::uint32_t streams, const H2Counts& counts) {
  OrderedJson j;
  j["streams"] = streams;
  j["rst_stream"] = code_counts_json(counts.rst_stream);
  j["goaway"] = code_counts_json(counts.goaway);
  j["server_settings"] = h2_settings_json(
      counts.server_settings, {"max_concurrent_streams", "initial_window_size", "max_frame_size"});
  j["settings_differ"] = counts.settings_differ;
  return j;
}

Expected<SavedH2> read_h2_result(const Json& j) {
  if (!j.is_object()) return make_error("http2 is not an object");
  SavedH2 out;
  auto streams = bounded_number(j, "streams", 1, kMaxStreams);
  if (!streams) return streams.error();
  out.streams = *streams;
  for (auto [name, m] :
       {std::pair{"rst_stream", &out.counts.rst_stream}, std::pair{"goaway", &out.counts.goaway}}) {
    auto counts = code_counts_of(j.at(name));
    if (!counts) return counts.error();
    *m = std::move(counts).value();
  }
  if (const Json& s = j.at("server_settings"); !s.is_null()) {
    auto settings = saved_settings_of(s);
    if (!settings) return settings.error();
    out.counts.server_settings = *settings;
  }
  out.counts.settings_differ = j.at("settings_differ").get<bool>();
  if (out.counts.settings_differ && !out.counts.server_settings) {
    return make_error("http2: settings differ, yet none were received");
  }
  return out;
}

}  // namespace stampede::loadgen
