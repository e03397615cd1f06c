#include "loadgen/config.h"

#include <cmath>
#include <thread>

#include <fmt/format.h>

#include "http/tokens.h"
#include "http/url.h"
#include "http/writer.h"
#include "loadgen/request.h"
#include "loadgen/route.h"
#include "loadgen/ws_run.h"

namespace stampede::loadgen {
namespace {

// --pipeline N > 1 needs requests that can follow each other on one connection, each answered
// in order and counted by the generator alone.
Result<void> check_pipeline(const Config& config, const http::Url& url) {
  if (config.pipeline < 1 || config.pipeline > kMaxPipeline) {
    return make_error(fmt::format("--pipeline must be from 1 to {}", kMaxPipeline));
  }
  if (config.pipeline == 1) return {};
  if (!config.keep_alive) {
    return make_error("--pipeline needs -k: without it each request has a connection of its own");
  }
  if (url.websocket()) return make_error("--pipeline does not apply to WebSocket (ws://, wss://)");
  if (config.hooks || !config.request_script.empty() || !config.body_script.empty()) {
    return make_error(
        "--pipeline does not work with Lua scripts or request callbacks (they see one request "
        "at a time on a connection)");
  }
  return {};
}

}  // namespace

Result<void> validate(const Config& config) {
  auto url = http::parse_url(config.url);
  if (!url) return url.error();  // every scheme it parses (http, https, ws, wss) is supported
  if (auto r = validate_route(config, *url); !r) return r;
  if (auto r = check_websocket_config(config, *url); !r) return r;
  if (config.concurrency < 1) return make_error("concurrency must be at least 1");
  if (config.cores < 1) return make_error("cores must be at least 1");
  if (auto r = check_pipeline(config, *url); !r) return r;
  if (config.max_duration.count() < 0) return make_error("max duration must not be negative");
  if (config.timeout.count() < 0) return make_error("timeout must not be negative");
  if (!(config.rps >= 0) || !std::isfinite(config.rps)) {
    return make_error("requests per second must be a positive number");
  }
  if (config.ramp.count() < 0) return make_error("ramp must not be negative");
  if (config.ramp.count() > 0 && config.rps == 0) return make_error("--ramp needs --rps");
  for (const auto& name : config.count_headers) {
    if (!http::is_token(name)) return make_error("invalid header name to count '" + name + "'");
  }
  return http::validate_request(make_request_spec(config, *url));
}

std::uint32_t default_cores() {
  const unsigned n = std::thread::hardware_concurrency();
  return n >= 2 ? (n + 1) / 2 : 1;
}

}  // namespace stampede::loadgen
