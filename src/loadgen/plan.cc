#include "loadgen/plan.h"

#include <cmath>
#include <string>
#include <string_view>
#include <utility>

#include <fmt/format.h>

#include "http/tokens.h"
#include "loadgen/ws_run.h"

namespace stampede::loadgen {
namespace {

Expected<void> check_numbers(const Config& config) {
  if (config.concurrency < 1) return make_error("concurrency must be at least 1");
  if (config.cores < 1) return make_error("cores must be at least 1");
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
  return {};
}

constexpr std::string_view kPipelineHooks =
    "--pipeline does not work with Lua scripts or request callbacks (they see one request at a "
    "time on a connection)";

// --pipeline N > 1 needs requests that can follow each other on one connection, each answered
// in order and counted by the generator alone (hooks are refused in attach_hooks).
Expected<void> check_pipeline(const Config& config, const http::Url& url) {
  if (config.pipeline < 1 || config.pipeline > kMaxPipeline) {
    return make_error(fmt::format("--pipeline must be from 1 to {}", kMaxPipeline));
  }
  if (config.pipeline == 1) return {};
  if (!config.keep_alive) {
    return make_error("--pipeline needs -k: without it each request has a connection of its own");
  }
  if (url.websocket()) return make_error("--pipeline does not apply to WebSocket (ws://, wss://)");
  if (config.hooks) return make_error(std::string(kPipelineHooks));
  return {};
}

// --http2 and --streams: h2c with prior knowledge, for what an HTTP/2 client can carry.
Expected<void> check_http2(const Config& config, const http::Url& url) {
  if (config.streams < 1 || config.streams > kMaxStreams) {
    return make_error(fmt::format("--streams must be from 1 to {}", kMaxStreams));
  }
  if (!config.http2) {
    if (config.streams > 1) return make_error("--streams needs --http2");
    return {};
  }
  if (config.pipeline > 1) {
    return make_error(
        "--http2 and --pipeline do not go together: HTTP/2 carries concurrent "
        "requests as streams (--streams)");
  }
  if (!config.proxy.empty()) {
    return make_error("--http2 and --proxy do not go together (no HTTP/2 through a proxy yet)");
  }
  if (url.websocket()) return make_error("--http2 does not apply to WebSocket (ws://, wss://)");
  return {};
}

}  // namespace

Expected<Plan> prepare(Config config) {
  Plan plan;
  auto url = http::parse_url(config.url);
  if (!url) return url.error();  // every scheme it parses (http, https, ws, wss) is supported
  plan.url = std::move(url).value();
  auto route = make_route(config, plan.url);
  if (!route) return route.error();
  plan.route = std::move(route).value();
  if (auto r = check_websocket_config(config, plan.url); !r) return r.error();
  if (auto r = check_numbers(config); !r) return r.error();
  if (auto r = check_shard(config.shard, config.concurrency, config.max_requests); !r) {
    return r.error();
  }
  if (auto r = check_pipeline(config, plan.url); !r) return r.error();
  if (auto r = check_http2(config, plan.url); !r) return r.error();
  if (config.http2) config.keep_alive = true;  // one connection carries every request
  plan.spec = make_request_spec(config, plan.url);
  if (auto r = http::validate_request(plan.spec); !r) return r.error();
  if (auto r = check_websocket_rate(config, plan.url); !r) return r.error();

  if (plan.route.absolute_form) {
    http::RequestSpec absolute = plan.spec;
    absolute.target = "http://" + plan.url.host_header + plan.url.target;
    plan.request = RequestTemplate::build(absolute, config.index_param);
  } else {
    plan.request = RequestTemplate::build(plan.spec, config.index_param);
  }
  if (plan.url.websocket()) plan.ws = make_ws_plan(config, plan.url);
  if (config.http2)
    plan.h2 = H2Request::build(plan.spec, http::scheme_name(plan.url.scheme), config.index_param);
  if (!config.log_file.empty()) {
    auto log = LogFile::open(config.log_file);
    if (!log) return log.error();
    plan.log = std::move(log).value();
  }
  plan.config = std::move(config);
  return plan;
}

Expected<void> hooks_allowed(const Plan& plan) {
  if (plan.websocket()) return websocket_hooks_error();
  if (plan.config.pipeline > 1) return make_error(std::string(kPipelineHooks));
  return {};
}

Expected<void> attach_hooks(Plan& plan, std::shared_ptr<const HookSet> hooks) {
  if (hooks) {
    if (auto r = hooks_allowed(plan); !r) return r;
  }
  plan.config.hooks = std::move(hooks);
  return {};
}

Expected<void> resolve(Plan& plan) {
  auto address = resolve_route(plan.route, plan.url);
  if (!address) return address.error();
  plan.address = *address;
  return {};
}

}  // namespace stampede::loadgen
