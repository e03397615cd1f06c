#include "balancer/config.h"

#include <functional>
#include <nlohmann/json.hpp>
#include <set>

#include "core/enum_names.h"
#include "core/input_file.h"
#include "core/json_input.h"
#include "core/units.h"
#include "h2/session_options.h"
#include "http/tokens.h"

namespace stampede::balancer {
namespace {

constexpr int kMaxWeight = 256;
constexpr int kMaxCores = 256;
constexpr std::size_t kMaxBackends = 1024;
constexpr int kMaxConnections = 1'000'000;
constexpr int kMinStreams = static_cast<int>(h2::kMinMaxStreams);
constexpr int kMaxStreams = static_cast<int>(h2::kMaxMaxStreams);
// Longer durations are refused: nothing here needs one, and deadlines stay far from overflow.
constexpr Millis kMaxDuration = std::chrono::hours(24);
constexpr std::size_t kMaxConfigFileBytes = std::size_t{1} << 20;

constexpr EnumName<Strategy> kStrategyNames[] = {
    {Strategy::RoundRobin, "rr"}, {Strategy::Least, "least"},   {Strategy::P2c, "p2c"},
    {Strategy::Ewma, "ewma"},     {Strategy::Sticky, "sticky"}, {Strategy::Random, "random"}};
static_assert(in_enum_order(kStrategyNames));

// A duration in whole milliseconds: 0, or 1 ms to 24 h (a non-zero value below 1 ms would
// silently become 0, which for some options means "off").
Expected<Millis> to_millis(std::string_view key, std::string_view text) {
  auto d = parse_duration(text, std::chrono::milliseconds(1));
  if (!d) return make_error("--" + std::string(key) + ": " + d.error().message);
  if ((d->count() > 0 && *d < Millis(1)) || *d > kMaxDuration) {
    return make_error("--" + std::string(key) + ": must be 0 or from 1ms to 24h, got '" +
                      std::string(text) + "'");
  }
  return std::chrono::duration_cast<Millis>(*d);
}

Expected<int> to_int(std::string_view key, std::string_view text, int lo, int hi) {
  auto n = parse_count(text);
  if (!n || *n < static_cast<std::uint64_t>(lo) || *n > static_cast<std::uint64_t>(hi)) {
    return make_error("--" + std::string(key) + " must be a whole number in " + std::to_string(lo) +
                      ".." + std::to_string(hi) + ", got '" + std::string(text) + "'");
  }
  return static_cast<int>(*n);
}

using Setter = std::function<Expected<void>(BalancerConfig&, std::string_view)>;
using Shower = std::function<std::string(const BalancerConfig&)>;

// How one setting is read from text and shown (its default, in the help).
struct Field {
  Setter set;
  Shower show;
};

Field millis_field(Millis BalancerConfig::*field, std::string_view key) {
  return {[field, key](BalancerConfig& c, std::string_view v) -> Expected<void> {
            auto ms = to_millis(key, v);
            if (!ms) return ms.error();
            c.*field = *ms;
            return {};
          },
          [field](const BalancerConfig& c) { return std::to_string((c.*field).count()); }};
}

Field int_field(int BalancerConfig::*field, std::string_view key, int lo, int hi) {
  return {[field, key, lo, hi](BalancerConfig& c, std::string_view v) -> Expected<void> {
            auto n = to_int(key, v, lo, hi);
            if (!n) return n.error();
            c.*field = *n;
            return {};
          },
          [field](const BalancerConfig& c) { return std::to_string(c.*field); }};
}

Field string_field(std::string BalancerConfig::*field) {
  return {[field](BalancerConfig& c, std::string_view v) -> Expected<void> {
            c.*field = std::string(v);
            return {};
          },
          [field](const BalancerConfig& c) { return c.*field; }};
}

Field strategy_field() {
  return {[](BalancerConfig& c, std::string_view v) -> Expected<void> {
            auto s = parse_strategy(v);
            if (!s) return s.error();
            c.strategy = *s;
            return {};
          },
          [](const BalancerConfig& c) { return std::string(strategy_name(c.strategy)); }};
}

// One scalar setting: its long option name (also its key in a JSON config file), the shape of
// its value, what it does with its unit, and what to say when the default is empty or zero
// (otherwise the help shows BalancerConfig's initial value).
struct SettingDef {
  std::string_view key;
  std::string_view value_name;
  std::string_view what;
  std::string_view unset_default;
  Field field;
};

// Every scalar setting, in the order --help lists them (docs/balance.md's table says the same).
const std::vector<SettingDef>& setting_defs() {
  static const std::vector<SettingDef> table = {
      {"listen", "HOST:PORT", "Where clients connect (port 0: any free port)", "",
       string_field(&BalancerConfig::listen)},
      {"strategy", "NAME", "Balancing policy: rr, least, p2c, ewma, sticky or random", "",
       strategy_field()},
      {"cores", "N", "Worker threads, 1..256", "",
       int_field(&BalancerConfig::cores, "cores", 1, kMaxCores)},
      {"ready-file", "PATH", "Write the bound port there once listening (PATH.tmp, then rename)",
       "none", string_field(&BalancerConfig::ready_file)},
      {"backend-ca", "PATH",
       "Trust these CA certificates (PEM) for https backends instead of the system store", "none",
       string_field(&BalancerConfig::backend_ca)},
      {"sticky-header", "NAME", "The header the sticky strategy hashes (a token)", "",
       string_field(&BalancerConfig::sticky_header)},
      {"health-interval", "MS", "Active checks, one per backend per interval, ms", "0 (off)",
       millis_field(&BalancerConfig::health_interval, "health-interval")},
      {"health-path", "PATH", "What the checks GET; a 2xx or 3xx status line is a success", "",
       string_field(&BalancerConfig::health_path)},
      {"health-timeout", "MS", "A check slower than this fails, ms (0: the default)",
       "min(1s, --health-interval)",
       millis_field(&BalancerConfig::health_timeout, "health-timeout")},
      {"rise", "N", "Consecutive successful checks for a backend to come up, 1..1000", "",
       int_field(&BalancerConfig::rise, "rise", 1, 1000)},
      {"fall", "N", "Consecutive failed checks for a backend to go down, 1..1000", "",
       int_field(&BalancerConfig::fall, "fall", 1, 1000)},
      {"eject-time", "MS",
       "With checks off, how long a backend that refused or reset stays out, ms", "",
       millis_field(&BalancerConfig::eject_time, "eject-time")},
      {"retries", "N", "Re-sends of a GET/HEAD that was sent but got no response byte, 0..100", "",
       int_field(&BalancerConfig::retries, "retries", 0, 100)},
      {"connect-timeout", "MS", "A slower connect to a backend counts as a refusal, ms", "",
       millis_field(&BalancerConfig::connect_timeout, "connect-timeout")},
      {"backend-timeout", "MS", "Backend silent this long while a response is due: 504, ms", "",
       millis_field(&BalancerConfig::backend_timeout, "backend-timeout")},
      {"client-timeout", "MS", "Idle keep-alive client, or a client stalled mid-body: closed, ms",
       "", millis_field(&BalancerConfig::client_timeout, "client-timeout")},
      {"header-timeout", "MS", "From a request's first byte to the end of its head: 408, ms", "",
       millis_field(&BalancerConfig::header_timeout, "header-timeout")},
      {"pool-idle-timeout", "MS", "Pooled backend connections unused this long are closed, ms", "",
       millis_field(&BalancerConfig::pool_idle_timeout, "pool-idle-timeout")},
      {"pool-max-idle", "N", "Idle connections kept per backend per worker, 0..65536 (0: no pool)",
       "", int_field(&BalancerConfig::pool_max_idle, "pool-max-idle", 0, 65536)},
      {"max-connections", "N", "Client connections open at once, all workers together, 1..1000000",
       "no cap",
       int_field(&BalancerConfig::max_connections, "max-connections", 1, kMaxConnections)},
      {"admin-listen", "HOST:PORT", "Serve /lb-stats and /metrics there only (plain HTTP)",
       "the main port", string_field(&BalancerConfig::admin_listen)},
      {"tls-cert", "PATH",
       "TLS on the listener with this certificate chain (PEM), with --tls-key; ALPN h2, http/1.1",
       "none (plain TCP)", string_field(&BalancerConfig::tls_cert)},
      {"tls-key", "PATH", "The private key (PEM) of --tls-cert", "none",
       string_field(&BalancerConfig::tls_key)},
      {"max-streams", "N",
       "HTTP/2 clients: concurrent streams per connection (SETTINGS_MAX_CONCURRENT_STREAMS), "
       "1..10000",
       "", int_field(&BalancerConfig::max_streams, "max-streams", kMinStreams, kMaxStreams)},
  };
  return table;
}

bool valid_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  for (char ch : name) {
    bool ok = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
              ch == '-' || ch == '_' || ch == '.';
    if (!ok) return false;
  }
  return true;
}

// Takes a leading "https://" (TLS) or "http://" off the spec's address.
void take_scheme(BackendSpec& spec) {
  for (const auto& [scheme, tls] : {std::pair{std::string_view("https://"), true},
                                    std::pair{std::string_view("http://"), false}}) {
    if (std::string_view(spec.address).starts_with(scheme)) {
      spec.address.erase(0, scheme.size());
      spec.tls = tls;
      return;
    }
  }
}

Expected<BackendSpec> backend_from_json(const nlohmann::json& j) {
  if (j.is_string()) return parse_backend_spec(j.get<std::string>());
  if (!j.is_object() || !j.contains("name") || !j.contains("address") || !j["name"].is_string() ||
      !j["address"].is_string()) {
    return make_error("a backend must be \"name=host:port\" or {\"name\", \"address\"}");
  }
  BackendSpec spec{j["name"].get<std::string>(), j["address"].get<std::string>(), 1};
  take_scheme(spec);
  if (j.contains("weight")) {
    const nlohmann::json& w = j["weight"];
    if (!w.is_number_integer() || w.get<std::int64_t>() < 1 || w.get<std::int64_t>() > kMaxWeight) {
      return make_error("backend weight must be a whole number in 1..256");
    }
    spec.weight = w.get<int>();
  }
  return spec;
}

std::string json_scalar_text(const nlohmann::json& v) {
  if (v.is_string()) return v.get<std::string>();
  return v.dump();
}

}  // namespace

Expected<HostPort> parse_address(std::string_view what, std::string_view text, bool any_port) {
  std::size_t colon = text.rfind(':');
  if (colon == std::string_view::npos || colon == 0 || colon + 1 == text.size()) {
    return make_error(std::string(what) + ": expected host:port");
  }
  std::string_view host = text.substr(0, colon);
  if (host.find(':') != std::string_view::npos && !(host.front() == '[' && host.back() == ']')) {
    return make_error(std::string(what) + ": IPv6 addresses need brackets");
  }
  if (auto r = http::check_host(host); !r) {
    return make_error(std::string(what) + ": " + r.error().message);
  }
  auto port = parse_count(text.substr(colon + 1));
  if (!port || *port > 65535 || (*port == 0 && !any_port)) {
    return make_error(std::string(what) + ": the port must be " + (any_port ? "0" : "1") +
                      " to 65535");
  }
  return HostPort{std::string(host), static_cast<std::uint16_t>(*port)};
}

std::string_view strategy_name(Strategy s) {
  return name_of(kStrategyNames, s);
}

Expected<Strategy> parse_strategy(std::string_view text) {
  if (auto s = parse_name(kStrategyNames, text)) return *s;
  return make_error("unknown strategy '" + std::string(text) + "' (expected " +
                    joined_names(kStrategyNames, ", ", " or ") + ")");
}

Expected<BackendSpec> parse_backend_spec(std::string_view text) {
  std::size_t eq = text.find('=');
  if (eq == std::string_view::npos) {
    return make_error("--backend: expected NAME=[https://]HOST:PORT[,weight=N], got '" +
                      std::string(text) + "'");
  }
  BackendSpec spec;
  spec.name = std::string(text.substr(0, eq));
  std::string_view rest = text.substr(eq + 1);
  std::size_t comma = rest.find(',');
  spec.address = std::string(rest.substr(0, comma));
  take_scheme(spec);
  while (comma != std::string_view::npos) {
    rest = rest.substr(comma + 1);
    comma = rest.find(',');
    std::string_view opt = rest.substr(0, comma);
    if (opt.substr(0, 7) != "weight=") {
      return make_error("--backend: unknown option '" + std::string(opt) + "' in '" +
                        std::string(text) + "'");
    }
    auto w = to_int("backend weight", opt.substr(7), 1, kMaxWeight);
    if (!w) return w.error();
    spec.weight = *w;
  }
  return spec;
}

std::vector<SettingHelp> describe_settings() {
  const BalancerConfig defaults;
  std::vector<SettingHelp> out;
  for (const SettingDef& def : setting_defs()) {
    std::string shown = def.field.show(defaults);
    if (!def.unset_default.empty() && (shown.empty() || shown == "0")) {
      shown = std::string(def.unset_default);
    }
    out.push_back({std::string(def.key), std::string(def.value_name),
                   std::string(def.what) + "; default " + shown});
  }
  return out;
}

Expected<void> apply_setting(BalancerConfig& c, std::string_view key, std::string_view value) {
  for (const SettingDef& def : setting_defs()) {
    if (def.key == key) return def.field.set(c, value);
  }
  return make_error("unknown setting '" + std::string(key) + "'");
}

Millis BalancerConfig::effective_health_timeout() const {
  if (health_timeout.count() > 0) return health_timeout;
  return std::min(Millis(1000), health_interval);
}

Expected<void> validate(const BalancerConfig& c) {
  if (auto r = parse_address("--listen", c.listen, true); !r) return r.error();
  if (!c.admin_listen.empty()) {
    if (auto r = parse_address("--admin-listen", c.admin_listen, true); !r) return r.error();
  }
  if (c.backends.empty()) return make_error("no backend given (--backend NAME=HOST:PORT)");
  if (c.backends.size() > kMaxBackends) return make_error("too many backends");
  std::set<std::string, std::less<>> names;
  for (const BackendSpec& b : c.backends) {
    if (!valid_name(b.name)) {
      return make_error("bad backend name '" + b.name + "' (letters, digits, - _ . only)");
    }
    if (!names.insert(b.name).second) return make_error("duplicate backend name '" + b.name + "'");
    if (auto r = parse_address("backend " + b.name, b.address, false); !r) return r.error();
    if (b.weight < 1 || b.weight > kMaxWeight) {
      return make_error("backend " + b.name + ": weight must be in 1..256");
    }
  }
  if (c.cores < 1 || c.cores > kMaxCores) return make_error("--cores must be in 1..256");
  // Both go into requests the balancer writes: no byte that could end a line there.
  if (auto r = http::check_request_target(c.health_path); !r) {
    return make_error("--health-path: " + r.error().message);
  }
  if (auto r = http::check_header_name(c.sticky_header); !r) {
    return make_error("--sticky-header: " + r.error().message);
  }
  if (c.health_interval.count() > 0 && c.effective_health_timeout().count() <= 0) {
    return make_error("--health-timeout must be positive");
  }
  const std::pair<const char*, Millis> positive[] = {
      {"--connect-timeout", c.connect_timeout},     {"--backend-timeout", c.backend_timeout},
      {"--client-timeout", c.client_timeout},       {"--header-timeout", c.header_timeout},
      {"--pool-idle-timeout", c.pool_idle_timeout}, {"--eject-time", c.eject_time}};
  for (const auto& [name, t] : positive) {
    if (t.count() <= 0 || t > kMaxDuration) {
      return make_error(std::string(name) + ": must be from 1ms to 24h");
    }
  }
  for (Millis t : {c.health_interval, c.health_timeout}) {
    if (t.count() < 0 || t > kMaxDuration) return make_error("health durations: 0 to 24h");
  }
  if (c.max_connections < 0 || c.max_connections > kMaxConnections) {
    return make_error("--max-connections must be in 1..1000000");
  }
  if (c.tls_cert.empty() != c.tls_key.empty()) {
    return make_error("--tls-cert and --tls-key go together");
  }
  if (c.max_streams < kMinStreams || c.max_streams > kMaxStreams) {
    return make_error("--max-streams must be in 1..10000");
  }
  return {};
}

Expected<BalancerConfig> parse_config_json(std::string_view text) {
  auto parsed = parse_json_input(text);
  if (!parsed) return make_error("config: " + parsed.error().message);
  const nlohmann::json& j = *parsed;
  if (!j.is_object()) return make_error("config: not a JSON object");
  BalancerConfig c;
  for (auto it = j.begin(); it != j.end(); ++it) {
    if (it.key() == "backend" || it.key() == "backends") {
      if (!it.value().is_array()) return make_error("config: \"backend\" must be an array");
      for (const auto& b : it.value()) {
        auto spec = backend_from_json(b);
        if (!spec) return make_error("config: " + spec.error().message);
        c.backends.push_back(std::move(*spec));
      }
      continue;
    }
    if (it.key() == "backend-insecure") {
      if (!it.value().is_boolean())
        return make_error("config: \"backend-insecure\" must be true or false");
      c.backend_insecure = it.value().get<bool>();
      continue;
    }
    if (it.value().is_structured()) {
      return make_error("config: \"" + it.key() + "\" must be a string or a number");
    }
    if (auto r = apply_setting(c, it.key(), json_scalar_text(it.value())); !r) {
      return make_error("config: " + r.error().message);
    }
  }
  return c;
}

Expected<BalancerConfig> load_config_file(const std::string& path) {
  auto text = read_input_file(path, kMaxConfigFileBytes, "config file");
  if (!text) return text.error();
  return parse_config_json(*text);
}

}  // namespace stampede::balancer
