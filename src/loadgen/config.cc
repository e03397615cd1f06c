#include "loadgen/config.h"

#include <cmath>
#include <thread>

#include "http/tokens.h"
#include "http/url.h"
#include "http/writer.h"
#include "loadgen/request.h"
#include "loadgen/route.h"
#include "loadgen/ws_run.h"

namespace stampede::loadgen {

Result<void> validate(const Config& config) {
  auto url = http::parse_url(config.url);
  if (!url) return url.error();  // every scheme it parses (http, https, ws, wss) is supported
  if (auto r = validate_route(config, *url); !r) return r;
  if (auto r = check_websocket_config(config, *url); !r) return r;
  if (config.concurrency < 1) return make_error("concurrency must be at least 1");
  if (config.cores < 1) return make_error("cores must be at least 1");
  if (auto r = check_shard(config.shard, config.concurrency, config.max_requests); !r) return r;
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
