// LoadTestOptions -> loadgen::Config -> loadgen::Plan, with the command line's defaults and checks.
#include <cmath>
#include <nlohmann/json.hpp>

#include "api/bridge.h"

namespace stampede::api {
namespace {

std::string lower(std::string text) {
  for (char& c : text)
    c = http::ascii_lower(c);
  return text;
}

void unsupported_options(const LoadTestOptions& options) {
  if (options.requests_per_second &&
      (!std::isfinite(*options.requests_per_second) || *options.requests_per_second <= 0)) {
    throw Error("requests_per_second: must be a number > 0");
  }
  if (options.body && options.json_body) throw Error("body and json_body: give one of them");
  if (options.json_body && !nlohmann::json::accept(*options.json_body)) {
    throw Error("json_body: not valid JSON");
  }
  if (options.index_param_callback && options.index_param.empty()) {
    throw Error("index_param_callback: needs index_param");
  }
  if (!std::isfinite(options.max_seconds) || options.max_seconds < 0) {
    throw Error("max_seconds: must be a number >= 0");
  }
  if (options.timeout.count() < 0) throw Error("timeout: must be >= 0");
}

}  // namespace

loadgen::Config to_config(const LoadTestOptions& options) {
  unsupported_options(options);
  loadgen::Config config;
  config.url = options.url;
  config.max_requests = options.max_requests;
  config.max_duration = std::chrono::duration_cast<std::chrono::nanoseconds>(
      std::chrono::duration<double>(options.max_seconds));
  config.concurrency = options.concurrency;
  config.cores = options.cores;
  config.keep_alive = options.keep_alive;
  config.http2 = options.http2;
  config.streams = options.streams;
  config.method = loadgen::upper_case(options.method);
  const bool has_body = options.body || options.json_body;
  if (config.method.empty()) config.method = has_body ? "POST" : "GET";
  for (const auto& [name, value] : options.headers) {
    config.headers.emplace_back(lower(name), value);
  }
  config.cookies = options.cookies;
  config.body = options.body;
  if (options.json_body) config.body = *options.json_body;
  config.content_type = options.content_type;
  if (options.json_body && config.content_type.empty()) config.content_type = "application/json";
  config.timeout = options.timeout;
  config.index_param = options.index_param;
  config.count_headers = options.count_headers;
  config.rps = options.requests_per_second.value_or(0);
  config.insecure = options.insecure;
  config.cert_file = options.cert;
  config.key_file = options.key;
  return config;
}

loadgen::Plan prepare(const LoadTestOptions& options) {
  auto plan = loadgen::prepare(to_config(options));
  if (!plan) throw Error(plan.error().message);
  if (auto r = loadgen::attach_hooks(*plan, make_hooks(options, plan->spec)); !r) {
    throw Error(r.error().message);
  }
  if (auto r = loadgen::resolve(*plan); !r) throw Error(r.error().message);
  return std::move(plan).value();
}

}  // namespace stampede::api
