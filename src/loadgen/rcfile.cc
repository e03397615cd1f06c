#include "loadgen/rcfile.h"

#include <optional>
#include <set>
#include <string_view>
#include <system_error>

#include <nlohmann/json.hpp>

#include "core/input_file.h"
#include "core/json_input.h"

namespace stampede::loadgen {
namespace {

using Json = nlohmann::json;

std::string origin(const std::string& key) {
  return std::string(kRcFileName) + " " + key;
}

// A number or a string holding one; the text is validated later by to_config().
Expected<RawValue> number_value(const std::string& key, const Json& v) {
  if (v.is_number()) return RawValue{v.dump(), origin(key)};
  if (v.is_string()) return RawValue{v.get<std::string>(), origin(key)};
  return make_error(origin(key) + ": expected a number");
}

Expected<RawValue> string_value(const std::string& key, const Json& v) {
  if (v.is_string()) return RawValue{v.get<std::string>(), origin(key)};
  return make_error(origin(key) + ": expected a string");
}

Expected<bool> bool_value(const std::string& key, const Json& v) {
  if (v.is_boolean()) return v.get<bool>();
  return make_error(origin(key) + ": expected true or false");
}

// "headers": {"name": "value"} -> "name:value" entries.
Expected<void> read_headers(const Json& v, RawOptions& out) {
  if (!v.is_object()) return make_error(origin("headers") + ": expected an object");
  for (const auto& [name, value] : v.items()) {
    if (!value.is_string()) return make_error(origin("headers") + ": '" + name + "' not a string");
    out.headers.push_back({name + ":" + value.get<std::string>(), origin("headers")});
  }
  return {};
}

// "cookies": {"name": "value"} (loadtest's form) or ["name=value", ...].
Expected<void> read_cookies(const Json& v, RawOptions& out) {
  if (v.is_object()) {
    for (const auto& [name, value] : v.items()) {
      if (!value.is_string())
        return make_error(origin("cookies") + ": '" + name + "' not a string");
      out.cookies.push_back({name + "=" + value.get<std::string>(), origin("cookies")});
    }
    return {};
  }
  if (v.is_array()) {
    for (const auto& c : v) {
      if (!c.is_string()) return make_error(origin("cookies") + ": expected strings");
      out.cookies.push_back({c.get<std::string>(), origin("cookies")});
    }
    return {};
  }
  return make_error(origin("cookies") + ": expected an object");
}

// Keys that change nothing for the load generator: the test server's, and "recover".
bool ignored_key(const std::string& key) {
  static const std::set<std::string> kIgnored = {"delay", "error", "percent", "recover"};
  return kIgnored.count(key) > 0;
}

// A key whose feature is not supported: refused when it asks for something.
bool unsupported_and_set(const std::string& key, const Json& v) {
  if (key != "requestGenerator") return false;
  if (v.is_null()) return false;
  if (v.is_number()) return v.get<double>() != 0;
  if (v.is_string()) return !v.get<std::string>().empty();
  return true;
}

// The keys that hold one number or one string, each with the option it fills.
struct PlainKey {
  std::string_view key;
  std::optional<RawValue> RawOptions::*field;
  bool number;  // else a string
};
constexpr PlainKey kPlainKeys[] = {
    {"maxRequests", &RawOptions::max_requests, true},
    {"concurrency", &RawOptions::concurrency, true},
    {"maxSeconds", &RawOptions::max_seconds, true},
    {"timeout", &RawOptions::timeout, true},
    {"method", &RawOptions::method, false},
    {"contentType", &RawOptions::content_type, false},
    {"indexParam", &RawOptions::index_param, false},
    {"ramp", &RawOptions::ramp, true},
    {"maxP99", &RawOptions::max_p99, true},
    {"maxErrorRate", &RawOptions::max_error_rate, true},
    {"minRps", &RawOptions::min_rps, true},
    {"streams", &RawOptions::streams, true},
    {"cert", &RawOptions::cert_file, false},
    {"key", &RawOptions::key_file, false},
    {"secureProtocol", &RawOptions::secure_protocol, false},
};

Expected<void> read_key(const std::string& key, const Json& v, RawOptions& out) {
  auto set = [&](std::optional<RawValue>& field, Expected<RawValue> r) -> Expected<void> {
    if (!r) return r.error();
    field = std::move(r).value();
    return {};
  };
  for (const PlainKey& plain : kPlainKeys) {
    if (key != plain.key) continue;
    return set(out.*plain.field, plain.number ? number_value(key, v) : string_value(key, v));
  }
  if (key == "requestsPerSecond") {
    if (v.is_null() || (v.is_number() && v.get<double>() == 0)) return {};  // loadtest: unset
    return set(out.rps, number_value(key, v));
  }
  if (key == "body") {
    if (v.is_string()) return set(out.data, string_value(key, v));
    return set(out.data, RawValue{v.dump(), origin(key)});  // an object is sent as JSON
  }
  if (key == "file") {
    out.file_keeps_method = true;
    return set(out.post_file, string_value(key, v));
  }
  if (key == "proxy") {
    if (v.is_null() || (v.is_string() && v.get<std::string>().empty())) return {};
    return set(out.proxy, string_value(key, v));
  }
  if (key == "headers") return read_headers(v, out);
  if (key == "cookies") return read_cookies(v, out);
  if (key == "agentKeepAlive" || key == "quiet" || key == "insecure" || key == "http2") {
    auto b = bool_value(key, v);
    if (!b) return b.error();
    (key == "quiet"      ? out.quiet
     : key == "insecure" ? out.insecure
     : key == "http2"    ? out.http2
                         : out.keep_alive) = *b;
    return {};
  }
  if (ignored_key(key)) return {};
  if (unsupported_and_set(key, v)) return make_error(origin(key) + ": not supported");
  if (key == "requestGenerator") return {};
  return make_error(std::string(kRcFileName) + ": unknown key '" + key + "'");
}

}  // namespace

Expected<RawOptions> parse_loadtestrc(std::string_view text) {
  auto parsed = parse_json_input(text);
  if (!parsed) return make_error(std::string(kRcFileName) + ": " + parsed.error().message);
  const Json& doc = *parsed;
  if (!doc.is_object()) return make_error(std::string(kRcFileName) + ": expected a JSON object");
  RawOptions out;
  for (const auto& [key, value] : doc.items()) {
    if (auto r = read_key(key, value, out); !r) return r.error();
  }
  return out;
}

Expected<RawOptions> read_loadtestrc(const std::filesystem::path& dir) {
  const std::filesystem::path path = dir / kRcFileName;
  std::error_code ec;
  if (!std::filesystem::exists(path, ec)) return RawOptions{};
  auto text = read_input_file(path.string(), kMaxRcFileBytes, "");
  if (!text) return text.error();
  return parse_loadtestrc(*text);
}

}  // namespace stampede::loadgen
