#include "server/plan.h"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "h2/session_options.h"
#include "http/tokens.h"
#include "tls/listener_context.h"
#include "tls/self_signed.h"

namespace stampede::server {
namespace {

constexpr int kMaxCores = 1024;
constexpr std::uint32_t kMaxConnections = 1'000'000;

// The id goes into the x-instance header of every response.
Expected<void> check_id(const std::string& id) {
  if (id.size() > 64) return make_error("--id: at most 64 characters");
  if (auto r = http::check_header_value(id); !r) return make_error("--id: " + r.error().message);
  if (id.find_first_of(" \t") != std::string::npos) return make_error("--id: no spaces");
  return {};
}

// A listening host: a name, an IPv4 literal or an IPv6 literal (brackets optional).
Expected<void> check_listen_host(const std::string& host) {
  if (host.empty()) return make_error("--host: empty");
  const bool v6 = host.find(':') != std::string::npos && host.front() != '[';
  if (auto r = http::check_host(v6 ? "[" + host + "]" : host); !r) {
    return make_error("--host: " + r.error().message);
  }
  return {};
}

// The status, the percent, the cores, the id and the TLS options.
Expected<void> check_behaviour(const ServerOptions& o) {
  if (auto r = check_listen_host(o.host); !r) return r;
  if (o.error_status != 0 && (o.error_status < 200 || o.error_status > 599)) {
    return make_error(
        fmt::format("--error: expected a status code from 200 to 599, got '{}'", o.error_status));
  }
  if (!std::isfinite(o.error_percent) || o.error_percent < 0 || o.error_percent > 100) {
    return make_error("--percent: from 0 to 100");
  }
  if (o.cores < 0 || o.cores > kMaxCores) {
    return make_error(fmt::format("--cores: from 1 to {}, got '{}'", kMaxCores, o.cores));
  }
  if (o.body && !o.body_file.empty()) return make_error("--body and --file exclude each other");
  if (auto r = check_id(o.id); !r) return r;
  if (o.tls_cert_file.empty() != o.tls_key_file.empty()) {
    return make_error("--tls-cert and --tls-key go together");
  }
  if (o.tls_self_signed && !o.tls_cert_file.empty()) {
    return make_error("--tls-self-signed and --tls-cert exclude each other");
  }
  return {};
}

Expected<void> check_limits(const ServerOptions& o) {
  if (o.max_header_bytes < 64 || o.max_header_bytes > (std::size_t{16} << 20)) {
    return make_error("--max-header-bytes: from 64 bytes to 16m");
  }
  if (o.max_uri_bytes < 1 || o.max_uri_bytes > (std::size_t{16} << 20)) {
    return make_error("--max-uri-bytes: from 1 byte to 16m");
  }
  constexpr std::chrono::nanoseconds kMaxTimeout = std::chrono::hours(24);
  if (o.idle_timeout.count() <= 0 || o.idle_timeout > kMaxTimeout) {
    return make_error("--idle-timeout: above 0 and at most 24h");
  }
  if (o.header_timeout.count() <= 0 || o.header_timeout > kMaxTimeout) {
    return make_error("--header-timeout: above 0 and at most 24h");
  }
  if (o.drain_timeout.count() < 0 || o.drain_timeout > kMaxTimeout) {
    return make_error("--drain-timeout: 0 to 24h");
  }
  // The same bound as ?delay= (docs/serve.md).
  if (o.delay.count() < 0 || o.delay > std::chrono::minutes(10)) {
    return make_error("--delay: 0 to 10m");
  }
  if (o.max_connections > kMaxConnections) {
    return make_error(fmt::format("--max-connections: from 1 to {}, got '{}'", kMaxConnections,
                                  o.max_connections));
  }
  if (o.max_streams < h2::kMinMaxStreams || o.max_streams > h2::kMaxMaxStreams) {
    return make_error(fmt::format("--max-streams: from {} to {}, got '{}'", h2::kMinMaxStreams,
                                  h2::kMaxMaxStreams, o.max_streams));
  }
  if (o.over_limit != OverLimit::Queue && o.max_connections == 0) {
    return make_error("--over-limit needs --max-connections");
  }
  return {};
}

std::string_view content_type_for(const std::string& path) {
  auto ends_with = [&](std::string_view suffix) { return path.ends_with(suffix); };
  if (ends_with(".json")) return "application/json";
  if (ends_with(".html") || ends_with(".htm")) return "text/html";
  if (ends_with(".txt")) return "text/plain";
  return "application/octet-stream";
}

Expected<Content> resolve_content(const ServerOptions& o) {
  if (!o.body_file.empty()) {
    const std::string unreadable = fmt::format("--file: cannot read '{}'", o.body_file);
    std::error_code ec;
    if (!std::filesystem::is_regular_file(o.body_file, ec)) return make_error(unreadable);
    std::ifstream in(o.body_file, std::ios::binary);
    std::ostringstream data;
    if (in) data << in.rdbuf();
    if (!in || in.bad()) return make_error(unreadable);
    return Content{data.str(), std::string(content_type_for(o.body_file))};
  }
  if (o.body) return Content{*o.body, "text/plain"};
  if (!o.id.empty()) return Content{nlohmann::json{{"id", o.id}}.dump(), "application/json"};
  return Content{"OK", "text/plain"};
}

// What the TLS context offers by ALPN: "h2" first when the server speaks HTTP/2.
tls::ServerAlpn alpn_of(const ServerOptions& options) {
  return options.http2 ? tls::ServerAlpn::H2AndHttp11 : tls::ServerAlpn::Http11;
}

// The server's TLS context: from tls_cert_file/tls_key_file, or a fresh self-signed
// certificate; a null context when the options ask for no TLS. Errors name the bad file.
Expected<tls::ContextPtr> make_tls_context(const ServerOptions& options) {
  if (options.tls_self_signed) {
    auto credentials = tls::make_self_signed();
    if (!credentials) return credentials.error();
    return tls::make_server_context(*credentials, alpn_of(options));
  }
  if (options.tls_cert_file.empty()) return tls::ContextPtr();
  return tls::load_server_context(options.tls_cert_file, options.tls_key_file, alpn_of(options));
}

}  // namespace

int resolve_cores(int cores) {
  if (cores > 0) return cores;
  const unsigned all = std::thread::hardware_concurrency();
  return std::max(1, static_cast<int>((all + 1) / 2));
}

Expected<ServerPlan> prepare(ServerOptions options) {
  if (auto r = check_behaviour(options); !r) return r.error();
  if (auto r = check_limits(options); !r) return r.error();
  auto tls = make_tls_context(options);
  if (!tls) return tls.error();
  auto content = resolve_content(options);
  if (!content) return content.error();
  ServerPlan plan;
  plan.workers = resolve_cores(options.cores);
  plan.options = std::move(options);
  plan.content = std::move(content).value();
  plan.tls = std::move(tls).value();
  return plan;
}

}  // namespace stampede::server
