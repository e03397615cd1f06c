#include "loadgen/result_file.h"

#include <sys/resource.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <fstream>
#include <iostream>
#include <limits>
#include <stdexcept>
#include <type_traits>

#include <fmt/format.h>

#include "core/json_input.h"
#include "loadgen/result_h2.h"
#include "stats/hdr_encoding.h"

namespace stampede::loadgen {
namespace {

using Json = nlohmann::json;
using OrderedJson = nlohmann::ordered_json;

// A saved count, size or setting that cannot be negative: a JSON whole number >= 0 that fits T.
// (nlohmann's get<std::uint64_t>() would turn -5 into 2^64 - 5.) Thrown past read_result and
// add_saved_timeline's callers, which word it once.
struct NotACount : std::runtime_error {
  using std::runtime_error::runtime_error;
};

template <class T = std::uint64_t>
T count_of(const Json& v) {
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() > std::numeric_limits<T>::max()) {
    throw NotACount("a count is negative, fractional or too large");
  }
  return static_cast<T>(v.get<std::uint64_t>());
}

std::string u128_text(unsigned __int128 v) {
  if (v == 0) return "0";
  std::string s;
  while (v > 0) {
    s.insert(s.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
    v /= 10;
  }
  return s;
}

Expected<unsigned __int128> u128_value(const std::string& s) {
  if (s.empty() || s.size() > 39) return make_error("bad 128-bit number");
  unsigned __int128 v = 0;
  for (const char c : s) {
    if (c < '0' || c > '9') return make_error("bad 128-bit number");
    const unsigned __int128 next = v * 10 + static_cast<unsigned>(c - '0');
    if (next / 10 != v) return make_error("128-bit number overflows");
    v = next;
  }
  return v;
}

std::string fnv1a(std::string_view s) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (const char c : s) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return fmt::format("{:016x}", h);
}

OrderedJson histogram_json(const stats::Histogram& h) {
  const stats::HistogramTotals t = h.totals();
  OrderedJson j;
  j["count"] = t.count;
  j["min"] = t.min;
  j["max"] = t.max;
  j["sum"] = u128_text(t.sum);
  j["sum_squares"] = u128_text(t.sum_squares);
  j["hdr"] = stats::encode_hdr_base64(h);
  return j;
}

Expected<stats::Histogram> histogram_of(const Json& j) {
  auto counts = stats::decode_hdr_base64(j.at("hdr").get_ref<const std::string&>());
  if (!counts) return counts.error();
  auto sum = u128_value(j.at("sum").get<std::string>());
  if (!sum) return sum.error();
  auto squares = u128_value(j.at("sum_squares").get<std::string>());
  if (!squares) return squares.error();
  stats::HistogramTotals t;
  t.count = count_of(j.at("count"));
  t.min = count_of<std::int64_t>(j.at("min"));
  t.max = count_of<std::int64_t>(j.at("max"));
  t.sum = *sum;
  t.sum_squares = *squares;
  return stats::Histogram::restore(*counts, t);
}

template <class Map>
OrderedJson counts_json(const Map& m) {
  OrderedJson j = OrderedJson::object();
  for (const auto& [k, v] : m) {
    if constexpr (std::is_same_v<typename Map::key_type, int>) {
      j[std::to_string(k)] = v;
    } else {
      j[k] = v;
    }
  }
  return j;
}

Expected<std::map<int, std::uint64_t>> int_counts(const Json& j) {
  std::map<int, std::uint64_t> out;
  for (const auto& [k, v] : j.items()) {
    int key = 0;
    const auto [end, ec] = std::from_chars(k.data(), k.data() + k.size(), key);
    if (ec != std::errc() || end != k.data() + k.size()) return make_error("bad count key");
    out[key] = count_of(v);
  }
  return out;
}

std::map<std::string, std::uint64_t> string_counts(const Json& j) {
  std::map<std::string, std::uint64_t> out;
  for (const auto& [k, v] : j.items())
    out[k] = count_of(v);
  return out;
}

OrderedJson rate_json(const RateResult& r) {
  OrderedJson j;
  j["target_rps"] = r.target_rps;
  j["ramp_seconds"] = r.ramp_seconds;
  j["scheduled"] = r.scheduled;
  j["sent"] = r.sent;
  j["send_window_ns"] = r.send_window_ns;
  j["late"] = r.late;
  j["late_waiting"] = r.late_waiting;
  j["uncorrected"] = histogram_json(r.uncorrected);
  j["lag"] = histogram_json(r.lag);
  j["generator_lag"] = histogram_json(r.generator_lag);
  return j;
}

Expected<RateResult> rate_of(const Json& j) {
  RateResult r;
  r.target_rps = j.at("target_rps").get<double>();
  r.ramp_seconds = j.at("ramp_seconds").get<double>();
  r.scheduled = count_of(j.at("scheduled"));
  r.sent = count_of(j.at("sent"));
  r.send_window_ns = count_of<std::int64_t>(j.at("send_window_ns"));
  r.late = count_of(j.at("late"));
  r.late_waiting = count_of(j.at("late_waiting"));
  for (auto [name, h] : {std::pair{"uncorrected", &r.uncorrected}, std::pair{"lag", &r.lag},
                         std::pair{"generator_lag", &r.generator_lag}}) {
    auto decoded = histogram_of(j.at(name));
    if (!decoded) return make_error(std::string(name) + ": " + decoded.error().message);
    *h = std::move(decoded).value();
  }
  return r;
}

OrderedJson timeline_json(const RunResult& r) {
  OrderedJson j;
  j["start_unix_ns"] = r.start_unix_ns;
  j["width_ns"] = r.timeline_sketch->row_width_ns();
  OrderedJson rows = OrderedJson::array();
  for (const stats::Timeline::Row& row : r.timeline_sketch->sketch_rows()) {
    rows.push_back({row.sent, row.completed, row.errors_4xx, row.errors_5xx, row.errors_transport,
                    row.latency_count, row.latency_min, row.latency_max,
                    stats::encode_counts_base64(row.latency)});
  }
  j["rows"] = std::move(rows);
  return j;
}

OrderedJson ws_json_counts(const WsCounts& ws) {
  OrderedJson j;
  j["messages"] = ws.messages;
  j["refused"] = counts_json(ws.refused);
  j["closed"] = counts_json(ws.closed);
  j["protocol"] = counts_json(ws.protocol);
  return j;
}

// The histograms of a RunResult by their names in the file (R: RunResult or const RunResult).
template <class R>
auto histograms(R& r) {
  using H = std::conditional_t<std::is_const_v<R>, const stats::Histogram, stats::Histogram>;
  return std::array<std::pair<const char*, H*>, 4>{{{"latency", &r.latency},
                                                    {"connect", &r.connect},
                                                    {"tls_handshake", &r.tls_handshake},
                                                    {"first_byte", &r.first_byte}}};
}

// Everything but the histograms and the timeline.
void read_outcome(const Json& j, RunResult& r) {
  r.url = j.at("url").get<std::string>();
  r.cores = count_of<std::uint32_t>(j.at("cores"));
  r.max_requests = count_of(j.at("max_requests"));
  r.max_seconds = j.at("max_seconds").get<double>();
  r.concurrency = count_of<std::uint32_t>(j.at("concurrency"));
  r.keep_alive = j.at("keep_alive").get<bool>();
  r.clients = count_of<std::uint32_t>(j.at("clients"));
  r.websocket = j.at("websocket").get<bool>();
  r.total_requests = count_of(j.at("total_requests"));
  r.total_errors = count_of(j.at("total_errors"));
  r.elapsed_ns = count_of<std::int64_t>(j.at("elapsed_ns"));
  r.interrupted = j.at("interrupted").get<bool>();
  r.error_codes = string_counts(j.at("error_codes"));
  r.local_errors = string_counts(j.at("local_errors"));
  for (const auto& [name, values] : j.at("header_counts").items())
    r.header_counts[name] = string_counts(values);
  r.bytes_read = count_of(j.at("bytes_read"));
  r.bytes_written = count_of(j.at("bytes_written"));
  r.connections_opened = count_of(j.at("connections_opened"));
  r.tls_handshakes = count_of(j.at("tls_handshakes"));
  r.tls_resumed = count_of(j.at("tls_resumed"));
}

Expected<SavedResult> read_result(const Json& j) {
  SavedResult s;
  s.run = j.at("run");
  s.host = j.at("host").get<std::string>();
  s.cpu_seconds = j.at("cpu_seconds").get<double>();
  RunResult& r = s.result;
  const Json& shard = j.at("shard");
  r.shard =
      Shard{count_of<std::uint32_t>(shard.at("index")), count_of<std::uint32_t>(shard.at("count"))};
  if (r.shard.count < 1 || r.shard.index < 1 || r.shard.index > r.shard.count) {
    return make_error("bad shard");
  }
  r.start_unix_ns = count_of<std::int64_t>(j.at("start_unix_ns"));
  read_outcome(j, r);
  auto statuses = int_counts(j.at("status_counts"));
  if (!statuses) return statuses.error();
  r.status_counts = std::move(statuses).value();
  for (auto [name, h] : histograms(r)) {
    auto decoded = histogram_of(j.at(name));
    if (!decoded) return make_error(std::string(name) + ": " + decoded.error().message);
    *h = std::move(decoded).value();
  }
  if (j.contains("rate")) {
    auto rate = rate_of(j.at("rate"));
    if (!rate) return rate.error();
    r.rate = std::move(rate).value();
  }
  // Times are added and subtracted when merging: keep them far from overflowing.
  constexpr std::int64_t kMaxTime = std::int64_t{1} << 62;
  const auto in_range = [](std::int64_t t) { return t >= 0 && t < kMaxTime; };
  if (!in_range(r.start_unix_ns) || !in_range(r.elapsed_ns) ||
      (r.rate && !in_range(r.rate->send_window_ns))) {
    return make_error("a time is out of range");
  }
  if (j.contains("timeline")) {
    const Json& t = j.at("timeline");
    s.timeline.start_unix_ns = count_of<std::int64_t>(t.at("start_unix_ns"));
    s.timeline.width_ns = count_of<std::int64_t>(t.at("width_ns"));
    s.timeline.rows = t.at("rows");
    if (!s.timeline.rows.is_array()) return make_error("timeline rows are not an array");
  }
  const Json& ws = j.at("ws");
  r.ws.messages = count_of(ws.at("messages"));
  for (auto [name, m] : {std::pair{"refused", &r.ws.refused}, std::pair{"closed", &r.ws.closed},
                         std::pair{"protocol", &r.ws.protocol}}) {
    auto counts = int_counts(ws.at(name));
    if (!counts) return counts.error();
    *m = std::move(counts).value();
  }
  if (j.contains("http2")) {
    auto h2 = read_h2_result(j.at("http2"));
    if (!h2) return h2.error();
    r.http2 = true;
    r.streams = h2->streams;
    r.h2 = std::move(h2->counts);
  }
  return s;
}

}  // namespace

std::string host_name() {
  std::array<char, 256> name{};
  if (gethostname(name.data(), name.size() - 1) != 0) return "unknown";
  return name.data();
}

double process_cpu_seconds() {
  rusage usage{};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  const auto seconds = [](const timeval& tv) {
    return static_cast<double>(tv.tv_sec) + static_cast<double>(tv.tv_usec) / 1e6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

OrderedJson run_identity(const Config& config, const ScriptNames& scripts) {
  OrderedJson j;
  j["url"] = config.url;
  j["method"] = config.method;
  OrderedJson headers = OrderedJson::array();
  for (const auto& [name, value] : config.headers)
    headers.push_back({name, value});
  j["headers"] = std::move(headers);
  j["cookies"] = config.cookies;
  j["body_bytes"] = config.body ? config.body->size() : 0;
  j["body_fnv1a"] = config.body ? fnv1a(*config.body) : "";
  j["content_type"] = config.content_type;
  j["request_script"] = scripts.request;
  j["body_script"] = scripts.body;
  j["index_param"] = config.index_param;
  j["count_headers"] = config.count_headers;
  j["keep_alive"] = config.keep_alive;
  j["max_requests"] = config.max_requests;
  j["max_duration_ns"] = config.effective_duration().count();
  j["concurrency"] = config.concurrency;
  j["timeout_ns"] = config.timeout.count();
  j["rps"] = config.rps;
  j["ramp_ns"] = config.ramp.count();
  j["start_at_unix_ns"] = config.start_at_unix_ns;
  j["shards"] = config.shard.count;
  // Only for --http2, so that HTTP/1.1 results saved before these keys still merge with today's.
  if (config.http2) {
    j["http2"] = true;
    j["streams"] = config.streams;
  }
  return j;
}

std::string to_result_line(const RunResult& r, const Config& config, const std::string& host,
                           double cpu_seconds, const ScriptNames& scripts) {
  OrderedJson j;
  j["format"] = kResultFormat;
  j["version"] = r.http2 ? kResultVersion : kResultVersionHttp1;
  j["run"] = run_identity(config, scripts);
  j["host"] = host;
  j["shard"] = {{"index", r.shard.index}, {"count", r.shard.count}};
  j["start_unix_ns"] = r.start_unix_ns;
  j["cpu_seconds"] = cpu_seconds;
  j["url"] = r.url;
  j["cores"] = r.cores;
  j["max_requests"] = r.max_requests;
  j["max_seconds"] = r.max_seconds;
  j["concurrency"] = r.concurrency;
  j["keep_alive"] = r.keep_alive;
  j["clients"] = r.clients;
  j["websocket"] = r.websocket;
  j["total_requests"] = r.total_requests;
  j["total_errors"] = r.total_errors;
  j["elapsed_ns"] = r.elapsed_ns;
  j["interrupted"] = r.interrupted;
  j["error_codes"] = counts_json(r.error_codes);
  j["local_errors"] = counts_json(r.local_errors);
  j["status_counts"] = counts_json(r.status_counts);
  OrderedJson headers = OrderedJson::object();
  for (const auto& [name, values] : r.header_counts)
    headers[name] = counts_json(values);
  j["header_counts"] = std::move(headers);
  j["bytes_read"] = r.bytes_read;
  j["bytes_written"] = r.bytes_written;
  j["connections_opened"] = r.connections_opened;
  j["tls_handshakes"] = r.tls_handshakes;
  j["tls_resumed"] = r.tls_resumed;
  for (auto [name, h] : histograms(r))
    j[name] = histogram_json(*h);
  if (r.rate) j["rate"] = rate_json(*r.rate);
  if (r.timeline_sketch) j["timeline"] = timeline_json(r);
  j["ws"] = ws_json_counts(r.ws);
  if (r.http2) j["http2"] = h2_result_json(r.streams, r.h2);
  return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

Expected<void> save_result(const RunResult& result, const Config& config,
                           const ScriptNames& scripts, const std::string& path) {
  return save_results({result}, config, scripts, path);
}

Expected<void> save_results(const std::vector<RunResult>& results, const Config& config,
                            const ScriptNames& scripts, const std::string& path) {
  std::string lines;
  for (const RunResult& result : results) {
    lines += to_result_line(result, config, host_name(), process_cpu_seconds(), scripts);
    lines += '\n';
  }
  if (path == "-") {
    std::cout << lines;
    std::cout.flush();
    return std::cout ? Expected<void>{} : make_error("cannot write the result to stdout");
  }
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (out) out << lines;
  if (out) out.close();
  if (!out) return make_error(fmt::format("cannot write {}: {}", path, std::strerror(errno)));
  return {};
}

Expected<SavedResult> parse_result_line(std::string_view line) {
  while (!line.empty() && (line.back() == '\n' || line.back() == '\r'))
    line.remove_suffix(1);
  auto doc = parse_json_input(line);
  if (!doc) return make_error("truncated or corrupt result (not valid JSON)");
  const Json& j = *doc;
  try {
    if (!j.is_object() || j.value("format", "") != kResultFormat) {
      return make_error("not a stampede result");
    }
    // A whole number, compared as written: a version too large for an int is newer, not 1.
    const Json& version = j.at("version");
    if (version.is_number_unsigned() && version.get<std::uint64_t>() > kResultVersion) {
      return make_error(fmt::format(
          "result format version {} is newer than this stampede reads ({}): use a newer stampede",
          version.dump(), kResultVersion));
    }
    if (!version.is_number_integer() || version.get<std::int64_t>() < 1) {
      return make_error(fmt::format("unknown result format version {}", version.dump()));
    }
    auto saved = read_result(j);
    if (!saved) return make_error("corrupt result: " + saved.error().message);
    return saved;
  } catch (const nlohmann::json::exception&) {
    return make_error("corrupt result (a field is missing or of the wrong type)");
  } catch (const NotACount& e) {
    return make_error(std::string("corrupt result: ") + e.what());
  }
}

Expected<void> add_saved_timeline(const SavedTimeline& saved, std::int64_t offset_ns,
                                  stats::Timeline& into) {
  std::vector<stats::Timeline::Row> rows;
  rows.reserve(saved.rows.size());
  try {
    for (const Json& r : saved.rows) {
      stats::Timeline::Row row;
      row.sent = count_of(r.at(0));
      row.completed = count_of(r.at(1));
      row.errors_4xx = count_of(r.at(2));
      row.errors_5xx = count_of(r.at(3));
      row.errors_transport = count_of(r.at(4));
      row.latency_count = count_of(r.at(5));
      row.latency_min = count_of<std::int64_t>(r.at(6));
      row.latency_max = count_of<std::int64_t>(r.at(7));
      if (row.latency_count > 0) {
        row.latency.assign(stats::Timeline::row_counts_len(), 0);
        auto ok = stats::decode_counts_base64(r.at(8).get_ref<const std::string&>(), row.latency);
        if (!ok) return make_error("timeline: " + ok.error().message);
      }
      rows.push_back(std::move(row));
    }
  } catch (const nlohmann::json::exception&) {
    return make_error("corrupt timeline row");
  } catch (const NotACount& e) {
    return make_error(std::string("corrupt timeline row: ") + e.what());
  }
  return into.add_rows(offset_ns, saved.width_ns, rows);
}

}  // namespace stampede::loadgen
