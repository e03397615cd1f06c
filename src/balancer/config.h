// BalancerConfig: everything `stampede balance` is told, as a plain struct. Parsing (the command
// line in src/cli/balance.cc, a JSON file here) fills it; prepare() (balancer/plan.h) checks it,
// once, into the BalancerPlan that Balancer::start() takes.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/expected.h"
#include "net/io_backend.h"

namespace stampede::balancer {

using Millis = std::chrono::milliseconds;

enum class Strategy { RoundRobin, Least, P2c, Ewma, Sticky, Random };

// "rr", "least", "p2c", "ewma", "sticky", "random".
std::string_view strategy_name(Strategy s);
Expected<Strategy> parse_strategy(std::string_view text);

struct BackendSpec {
  std::string name;
  std::string address;  // "host:port", resolved by Balancer::start()
  int weight = 1;       // 1..256
  bool tls = false;     // https://: TLS to the backend (SNI and the certificate check: the host)
};

// "a=127.0.0.1:9746", "a=127.0.0.1:9746,weight=3", "a=https://host:9746" (TLS; "http://" is
// plain, as without a scheme).
Expected<BackendSpec> parse_backend_spec(std::string_view text);

struct BalancerConfig {
  std::string listen = "127.0.0.1:9745";
  std::vector<BackendSpec> backends;
  Strategy strategy = Strategy::RoundRobin;
  int cores = 1;             // worker threads, each with its own loop and listener
  std::string ready_file;    // written with the bound port once listening
  std::string admin_listen;  // empty: /lb-stats and /metrics are served on the main port
  std::string sticky_header = "x-session";

  // Active health checks (0 = off). timeout 0 means min(1 s, interval).
  Millis health_interval{0};
  std::string health_path = "/count";
  Millis health_timeout{0};
  int rise = 2;
  int fall = 3;
  // Passive ejection: how long a backend that refused or reset stays out when checks are off.
  Millis eject_time{5000};
  // Extra attempts for GET/HEAD that failed after being sent, before any response byte.
  int retries = 1;

  Millis connect_timeout{2000};    // a connect that takes longer counts as a refusal
  Millis backend_timeout{30000};   // backend silent this long while a response is due -> 504
  Millis client_timeout{60000};    // idle keep-alive client, or a client stalled mid-body
  Millis header_timeout{10000};    // from a request's first byte to the end of its head -> 408
  Millis pool_idle_timeout{4000};  // pooled backend connections idle longer are closed
  int pool_max_idle = 256;         // idle connections kept per backend per worker
  // Client connections open at once, all workers together (HAProxy's maxconn); 0: no cap but
  // the descriptor limit. Past it the balancer stops accepting until one closes.
  int max_connections = 0;

  // TLS to https backends: their certificates are checked against the system trust store, or
  // against backend_ca (PEM) when given; backend_insecure accepts any certificate.
  std::string backend_ca;
  bool backend_insecure = false;
  // TLS on the main listener, both or neither: its certificate chain and key (PEM files). ALPN
  // offers "h2" (the HTTP/2 front) and "http/1.1"; --admin-listen stays plain.
  std::string tls_cert;
  std::string tls_key;
  // HTTP/2 clients: SETTINGS_MAX_CONCURRENT_STREAMS, streams open at once per connection.
  int max_streams = 128;
  net::IoBackend io = net::kDefaultIoBackend;  // --io: what each worker's loop waits with

  // The health timeout in force: the configured one, or min(1 s, interval).
  Millis effective_health_timeout() const;
};

// Checks ranges, names and addresses (syntax only: resolution happens at start): prepare()'s
// checks, without its TLS context; the lab checks its balancer settings with it before any
// balancer runs. Returns the first problem as one line without the "stampede: " prefix.
Expected<void> validate(const BalancerConfig& config);

// "host:port" split and checked: the host as given ("[::1]" keeps its brackets), the port.
struct HostPort {
  std::string host;
  std::uint16_t port = 0;
};
// Parses `text` as host:port (port 0 allowed only when `any_port`); errors start with `what`.
Expected<HostPort> parse_address(std::string_view what, std::string_view text, bool any_port);

// Reads a JSON config file with the same keys as the long options ("listen", "backend"
// (array of specs or objects {name, address, weight}), "strategy", "health-interval", ...).
// Durations are numbers of milliseconds or strings such as "200ms". The file must be a regular
// file of at most 1 MiB, its JSON nested at most 64 levels deep (core/json_input.h).
Expected<BalancerConfig> load_config_file(const std::string& path);
Expected<BalancerConfig> parse_config_json(std::string_view text);

// The scalar settings (all but "backend"), one definition each, in the order `stampede balance
// --help` lists them: the long option name (also the key in a JSON config file), the shape of the
// value for the help ("MS", "N", ...), and a description that says what it does, its unit and its
// default (taken from BalancerConfig's initial values).
struct SettingHelp {
  std::string key;
  std::string value_name;
  std::string description;
};
std::vector<SettingHelp> describe_settings();

// Sets the setting `key` (as in describe_settings()) from its text, as an option or a config file
// gives it. Errors name the option ("--cores must be ...").
Expected<void> apply_setting(BalancerConfig& config, std::string_view key, std::string_view value);

}  // namespace stampede::balancer
