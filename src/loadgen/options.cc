#include "loadgen/options.h"

#include <limits>

#include <fmt/format.h>

#include "core/input_file.h"
#include "core/units.h"
#include "http/header.h"
#include "http/tokens.h"
#include "loadgen/request.h"

namespace stampede::loadgen {
namespace {

using std::chrono::nanoseconds;

Failure option_error(const RawValue& value, const std::string& message) {
  return make_error(value.origin + ": " + message);
}

// What a limit the user may leave out (-n, -t, -d) says when it is given as 0.
constexpr const char* kLeaveOut = " (leave it out for no limit)";

// A whole number >= minimum, at most `maximum` ("10k" is fine). `hint` follows the message for
// a number below the minimum.
Expected<std::uint64_t> whole_number(const RawValue& value, std::uint64_t minimum,
                                     std::uint64_t maximum, const char* hint = "") {
  auto n = parse_count(value.text);
  if (!n) return option_error(value, n.error().message);
  if (*n < minimum) {
    return option_error(
        value, "must be at least " + std::to_string(minimum) + ", got '" + value.text + "'" + hint);
  }
  if (*n > maximum) {
    return option_error(
        value, "too large: '" + value.text + "' (at most " + std::to_string(maximum) + ")");
  }
  return *n;
}

// A duration of at most kMaxOptionDuration; more than 0 unless `zero_ok`.
Expected<nanoseconds> duration(const RawValue& value, nanoseconds bare_unit, bool zero_ok) {
  auto d = parse_duration(value.text, bare_unit);
  if (!d) return option_error(value, d.error().message);
  if (*d > kMaxOptionDuration) {
    return option_error(value, "too long: '" + value.text + "' (at most " +
                                   std::to_string(kMaxOptionDuration.count()) + "h)");
  }
  // "0.1ns" is 0 too: a limit that rounds to nothing is no limit.
  if (!zero_ok && d->count() <= 0) {
    return option_error(value, "must be more than 0, got '" + value.text + "'" + kLeaveOut);
  }
  return *d;
}

Expected<std::string> read_body_file(const RawValue& value) {
  auto contents = read_input_file(value.text, kMaxBodyFileBytes, "body file");
  if (!contents) return option_error(value, contents.error().message);
  return contents;
}

std::string trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return std::string(s);
}

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    c = http::ascii_lower(c);
  return out;
}

// "name:value" -> (lower-case name, trimmed value); the last value of a name wins, at the
// position where the name first appeared (loadtest keeps headers in an object).
Expected<void> add_header(const RawValue& raw, Config& config) {
  const std::size_t colon = raw.text.find(':');
  if (colon == std::string::npos || colon == 0) {
    return option_error(raw, "malformed header '" + raw.text + "' (expected name:value)");
  }
  std::string name = lower(trim(std::string_view(raw.text).substr(0, colon)));
  std::string value = trim(std::string_view(raw.text).substr(colon + 1));
  if (!http::is_token(name)) {
    return option_error(raw, "malformed header name in '" + raw.text + "'");
  }
  if (!is_field_value(value)) {
    return option_error(raw, "malformed header value in '" + raw.text + "'");
  }
  if (http::is_framing_header(name)) {
    return option_error(raw, "'" + name + "' is computed from the body and cannot be set");
  }
  for (auto& [n, v] : config.headers) {
    if (n == name) {
      v = std::move(value);
      return {};
    }
  }
  config.headers.emplace_back(std::move(name), std::move(value));
  return {};
}

Expected<void> add_cookie(const RawValue& raw, Config& config) {
  const std::size_t eq = raw.text.find('=');
  if (eq == std::string::npos || eq == 0 || !http::is_token(raw.text.substr(0, eq)) ||
      !is_field_value(raw.text) || raw.text.find(';') != std::string::npos) {
    return option_error(raw, "malformed cookie '" + raw.text + "' (expected name=value)");
  }
  config.cookies.push_back(raw.text);
  return {};
}

// The body and the method it implies, in loadtest's precedence order (the last source wins).
Expected<void> resolve_body(const RawOptions& raw, Config& config, CliSettings& cli) {
  struct Source {
    const std::optional<RawValue>& value;
    bool is_file;
    const char* method;  // nullptr: keeps the method
  };
  const Source sources[] = {
      {raw.data, false, nullptr},
      {raw.post_body, false, "POST"},
      {raw.post_file, true, raw.file_keeps_method ? nullptr : "POST"},
      {raw.put_file, true, "PUT"},
      {raw.patch_body, false, "PATCH"},
      {raw.patch_file, true, "PATCH"},
  };
  for (const Source& s : sources) {
    if (!s.value) continue;
    if (s.is_file && s.value->text.ends_with(".lua")) {
      cli.body_script = s.value->text;  // its body(id) gives each body
      config.body = "";
    } else if (s.is_file) {
      auto contents = read_body_file(*s.value);
      if (!contents) return contents.error();
      config.body = std::move(contents).value();
    } else {
      config.body = s.value->text;
    }
    if (s.method) config.method = s.method;
  }
  return {};
}

Expected<void> convert_numbers(const RawOptions& raw, Config& config) {
  if (raw.max_requests) {
    auto n =
        whole_number(*raw.max_requests, 1, std::numeric_limits<std::uint64_t>::max(), kLeaveOut);
    if (!n) return n.error();
    config.max_requests = *n;
  }
  if (raw.max_seconds) {
    auto d = duration(*raw.max_seconds, std::chrono::seconds(1), false);
    if (!d) return d.error();
    config.max_duration = *d;
  }
  if (raw.concurrency) {
    auto n = whole_number(*raw.concurrency, 1, 1'000'000);
    if (!n) return n.error();
    config.concurrency = static_cast<std::uint32_t>(*n);
  }
  if (raw.cores) {
    auto n = whole_number(*raw.cores, 1, 1024);
    if (!n) return n.error();
    config.cores = static_cast<std::uint32_t>(*n);
  }
  if (raw.pipeline) {
    auto n = whole_number(*raw.pipeline, 1, kMaxPipeline);
    if (!n) return n.error();
    config.pipeline = static_cast<std::uint32_t>(*n);
  }
  if (raw.streams) {
    if (!raw.http2) return option_error(*raw.streams, "needs --http2");
    auto n = whole_number(*raw.streams, 1, kMaxStreams);
    if (!n) return n.error();
    config.streams = static_cast<std::uint32_t>(*n);
  }
  if (raw.timeout) {
    auto d = duration(*raw.timeout, std::chrono::milliseconds(1), false);
    if (!d) return d.error();
    config.timeout = *d;
  }
  return {};
}

// --rps and --ramp: a positive (fractional) rate, a ramp in seconds that needs a rate.
Expected<void> convert_rate(const RawOptions& raw, Config& config) {
  if (raw.rps) {
    auto r = parse_number(raw.rps->text);
    if (!r || *r < kMinRps || *r > kMaxRps) {
      return option_error(*raw.rps, fmt::format("expected a positive number of requests per "
                                                "second from {} to {}, got '{}'",
                                                kMinRps, kMaxRps, raw.rps->text));
    }
    config.rps = *r;
  }
  if (raw.ramp) {
    auto d = duration(*raw.ramp, std::chrono::seconds(1), true);
    if (!d) return d.error();
    if (!raw.rps) return option_error(*raw.ramp, "needs --rps");
    config.ramp = *d;
  }
  return {};
}

// A threshold: a non-negative number, at most `maximum`; `expected` says what is accepted.
Expected<std::optional<double>> threshold(const std::optional<RawValue>& raw, double maximum,
                                          const char* expected) {
  if (!raw) return std::optional<double>();
  auto n = parse_number(raw->text);
  if (!n || *n > maximum) {
    return option_error(*raw, std::string("expected ") + expected + ", got '" + raw->text + "'");
  }
  return std::optional<double>(*n);
}

}  // namespace

Expected<Thresholds> to_thresholds(const std::optional<RawValue>& max_p99,
                                   const std::optional<RawValue>& max_error_rate,
                                   const std::optional<RawValue>& min_rps) {
  constexpr double kAny = std::numeric_limits<double>::max();
  auto p99 = threshold(max_p99, kAny, "a number of milliseconds");
  if (!p99) return p99.error();
  auto errors = threshold(max_error_rate, 100, "a percentage from 0 to 100");
  if (!errors) return errors.error();
  auto rps = threshold(min_rps, kAny, "a number of requests per second");
  if (!rps) return rps.error();
  return Thresholds{*p99, *errors, *rps};
}

namespace {

Expected<void> convert_outputs(const RawOptions& raw, Config& config, CliSettings& cli) {
  if (raw.html) {
    if (raw.html->text.empty()) return option_error(*raw.html, "empty file name");
    cli.html = raw.html->text;
  }
  if (raw.log) {  // the engine writes it: prepare() checks the name and opens the file
    if (raw.log->text.empty()) return option_error(*raw.log, "empty file name");
    config.log_file = raw.log->text;
  }
  auto thresholds = to_thresholds(raw.max_p99, raw.max_error_rate, raw.min_rps);
  if (!thresholds) return thresholds.error();
  cli.thresholds = *thresholds;
  return {};
}

// A script builds each request (or body) from its id: --index would be silently ignored there.
// `cli` has its scripts set.
Expected<void> check_index_with_scripts(const RawValue& index, const CliSettings& cli) {
  if (cli.request_script.empty() && cli.body_script.empty()) return {};
  std::string uses;
  if (!cli.request_script.empty()) {
    uses = "of request(id) in '" + cli.request_script + "'";
  }
  if (!cli.body_script.empty()) {
    uses += (uses.empty() ? "of body(id) in '" : " and of body(id) in '") + cli.body_script + "'";
  }
  return option_error(index, "does not apply to Lua scripts: use the id argument " + uses);
}

Expected<void> convert_request(const RawOptions& raw, Config& config, CliSettings& cli) {
  if (raw.method) {
    config.method = upper_case(raw.method->text);
    if (!http::is_token(config.method)) {
      return option_error(*raw.method, "invalid method '" + raw.method->text + "'");
    }
    // A token, but no method: what h2load's -m (streams per connection) would be.
    if (config.method.find_first_not_of("0123456789") == std::string::npos) {
      return option_error(*raw.method,
                          "'" + raw.method->text +
                              "' is not a method (-m is the method, as in loadtest; "
                              "for h2load's -m, streams per connection, use --streams)");
    }
  }
  if (auto r = resolve_body(raw, config, cli); !r) return r;
  if (raw.content_type) {
    if (!is_field_value(raw.content_type->text)) {
      return option_error(*raw.content_type, "invalid content type");
    }
    config.content_type = raw.content_type->text;
  }
  if (raw.request_script) cli.request_script = raw.request_script->text;
  if (raw.index_param) {
    if (raw.index_param->text.empty()) return option_error(*raw.index_param, "empty parameter");
    if (auto r = check_index_with_scripts(*raw.index_param, cli); !r) return r;
    config.index_param = raw.index_param->text;
  }
  for (const RawValue& h : raw.headers) {
    if (auto r = add_header(h, config); !r) return r;
  }
  for (const RawValue& c : raw.cookies) {
    if (auto r = add_cookie(c, config); !r) return r;
  }
  for (const RawValue& h : raw.count_headers) {
    if (!http::is_token(h.text)) return option_error(h, "invalid header name '" + h.text + "'");
    config.count_headers.push_back(lower(h.text));
  }
  return {};
}

void convert_tls(const RawOptions& raw, Config& config) {
  config.insecure = raw.insecure;
  if (raw.cert_file) config.cert_file = raw.cert_file->text;
  if (raw.key_file) config.key_file = raw.key_file->text;
  if (raw.secure_protocol) config.secure_protocol = raw.secure_protocol->text;
  if (raw.proxy) config.proxy = raw.proxy->text;
}

}  // namespace

RawOptions merge(RawOptions cli, const RawOptions& rc) {
  auto fill = [](std::optional<RawValue>& mine, const std::optional<RawValue>& theirs) {
    if (!mine && theirs) mine = theirs;
  };
  fill(cli.url, rc.url);
  fill(cli.max_requests, rc.max_requests);
  fill(cli.max_seconds, rc.max_seconds);
  fill(cli.concurrency, rc.concurrency);
  fill(cli.timeout, rc.timeout);
  fill(cli.cores, rc.cores);
  fill(cli.method, rc.method);
  fill(cli.content_type, rc.content_type);
  fill(cli.index_param, rc.index_param);
  fill(cli.rps, rc.rps);
  fill(cli.ramp, rc.ramp);
  fill(cli.max_p99, rc.max_p99);
  fill(cli.max_error_rate, rc.max_error_rate);
  fill(cli.min_rps, rc.min_rps);
  fill(cli.streams, rc.streams);
  fill(cli.cert_file, rc.cert_file);
  fill(cli.key_file, rc.key_file);
  fill(cli.secure_protocol, rc.secure_protocol);
  fill(cli.proxy, rc.proxy);
  cli.insecure = cli.insecure || rc.insecure;
  const bool cli_has_body = cli.data || cli.post_body || cli.post_file || cli.put_file ||
                            cli.patch_body || cli.patch_file;
  if (!cli_has_body) {
    cli.data = rc.data;
    cli.post_file = rc.post_file;
    cli.file_keeps_method = rc.file_keeps_method;
  }
  std::vector<RawValue> headers = rc.headers;
  headers.insert(headers.end(), cli.headers.begin(), cli.headers.end());
  cli.headers = std::move(headers);
  if (cli.cookies.empty()) cli.cookies = rc.cookies;
  if (cli.count_headers.empty()) cli.count_headers = rc.count_headers;
  cli.keep_alive = cli.keep_alive || rc.keep_alive;
  cli.http2 = cli.http2 || rc.http2;
  cli.quiet = cli.quiet || rc.quiet;
  cli.json = cli.json || rc.json;
  return cli;
}

Expected<Options> to_options(const RawOptions& raw) {
  Options out;
  Config& config = out.config;
  config.cores = default_cores();
  if (!raw.url || raw.url->text.empty()) return make_error("missing URL (see --help)");
  config.url = raw.url->text;
  if (auto r = convert_numbers(raw, config); !r) return r.error();
  if (auto r = convert_request(raw, config, out.cli); !r) return r.error();
  if (auto r = convert_rate(raw, config); !r) return r.error();
  if (auto r = convert_outputs(raw, config, out.cli); !r) return r.error();
  config.keep_alive = raw.keep_alive;
  config.http2 = raw.http2;
  convert_tls(raw, config);
  out.cli.quiet = raw.quiet;
  out.cli.json = raw.json;
  config.timeline = raw.json || raw.html;  // the JSON and HTML reports have a timeline
  return out;
}

}  // namespace stampede::loadgen
