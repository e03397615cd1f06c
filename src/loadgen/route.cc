#include "loadgen/route.h"

#include <fmt/format.h>

#include "tls/errors.h"

namespace stampede::loadgen {
namespace {

Expected<http::Url> parse_proxy(const std::string& proxy) {
  auto url = http::parse_url(proxy);
  if (!url) return make_error("--proxy: " + url.error().message);
  if (url->scheme != http::Scheme::Http) {
    return make_error("--proxy: only http:// proxies are supported, got '" + proxy + "'");
  }
  if (url->target != "/") {
    return make_error("--proxy: expected http://host:port, got '" + proxy + "'");
  }
  return url;
}

tls::ClientOptions client_options(const Config& config) {
  tls::ClientOptions options;
  options.insecure = config.insecure;
  options.cert_file = config.cert_file;
  options.key_file = config.key_file;
  options.secure_protocol = config.secure_protocol;
  options.h2 = config.http2;
  return options;
}

// host:port as CONNECT and Host want it (IPv6 in brackets).
std::string authority(const http::Url& url) {
  if (url.host.find(':') != std::string::npos) return fmt::format("[{}]:{}", url.host, url.port);
  return fmt::format("{}:{}", url.host, url.port);
}

}  // namespace

Expected<Route> make_route(const Config& config, const http::Url& url) {
  Route route;
  if (!config.proxy.empty()) {
    auto proxy = parse_proxy(config.proxy);
    if (!proxy) return proxy.error();
    route.proxy = std::move(proxy).value();
  }
  if (auto range = tls::parse_secure_protocol(config.secure_protocol); !range) {
    return make_error("--secure-protocol: " + range.error().message);
  }
  if (url.tls()) {
    auto ctx = tls::make_client_context(client_options(config));
    if (!ctx) return ctx.error();
    route.tls = std::move(ctx).value();
    route.server_name = url.host;
  }
  if (route.proxy) {
    if (url.tls() || url.websocket()) {  // a tunnel: TLS, or a WebSocket a proxy cannot relay
      route.connect_request =
          fmt::format("CONNECT {0} HTTP/1.1\r\nHost: {0}\r\n\r\n", authority(url));
    } else {
      route.absolute_form = true;
    }
  }
  return route;
}

Expected<net::Address> resolve_route(const Route& route, const http::Url& url) {
  if (route.proxy) return net::resolve(route.proxy->host, route.proxy->port);
  return net::resolve(url.host, url.port);
}

std::string failure_name(int err) {
  if (auto name = tls::error_name(err)) return std::string(*name);
  return net::errno_name(err);
}

}  // namespace stampede::loadgen
