#include "cli/serve.h"

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <deque>

#include <fmt/format.h>

#include "cli/command_line.h"
#include "core/clock.h"
#include "core/enum_names.h"
#include "core/fd_limit.h"
#include "core/ready_file.h"
#include "core/units.h"
#include "server/plan.h"

namespace stampede::server {
namespace {

constexpr EnumName<OverLimit> kOverLimitNames[] = {
    {OverLimit::Queue, "queue"}, {OverLimit::Close, "close"}, {OverLimit::Reset, "reset"}};
static_assert(in_enum_order(kOverLimitNames));

Expected<std::uint64_t> to_count(std::string_view flag, const std::string& text,
                                 std::uint64_t max) {
  auto n = parse_count(text);
  if (!n || *n > max) {
    return make_error(
        fmt::format("{}: expected a whole number up to {}, got '{}'", flag, max, text));
  }
  return *n;
}

Expected<OverLimit> to_over_limit(const std::string& text) {
  if (auto o = parse_name(kOverLimitNames, text)) return *o;
  return make_error(fmt::format("--over-limit: expected {}, got '{}'",
                                joined_names(kOverLimitNames, ", ", " or "), text));
}

// A count that must be at least 1 when given (0 is the API's "not set"); in the words of
// prepare(), which checks the same bound on a value that did not come from text.
Expected<std::uint64_t> to_positive(std::string_view flag, const std::string& text,
                                    std::uint64_t max) {
  auto n = parse_count(text);
  if (!n) return to_count(flag, text, max);
  if (*n == 0 || *n > max) {
    return make_error(fmt::format("{}: from 1 to {}, got '{}'", flag, max, text));
  }
  return n;
}

// A whole number; prepare() checks that it is a status code. 0 is the API's "not set": refused
// here, in prepare()'s words.
Expected<int> to_status(const std::string& text) {
  int code = 0;
  auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), code);
  if (ec != std::errc() || ptr != text.data() + text.size() || code == 0) {
    return make_error(
        fmt::format("--error: expected a status code from 200 to 599, got '{}'", text));
  }
  return code;
}

Expected<std::chrono::nanoseconds> to_duration(std::string_view flag, const std::string& text,
                                               std::chrono::nanoseconds bare_unit) {
  auto d = parse_duration(text, bare_unit);
  if (!d) return make_error(fmt::format("{}: {}", flag, d.error().message));
  return *d;
}

Expected<std::uint64_t> to_size(std::string_view flag, const std::string& text) {
  auto n = parse_size(text);
  if (!n) return make_error(fmt::format("{}: {}", flag, n.error().message));
  return *n;
}

Expected<double> to_percent(std::string_view flag, const std::string& text) {
  auto p = parse_number(text);
  if (!p) return make_error(fmt::format("{}: {}", flag, p.error().message));
  return *p;
}

// Sets `field` from a converted value, or passes its refusal on.
template <class T, class V>
Expected<void> set(T& field, Expected<V> value) {
  if (!value) return value.error();
  field = static_cast<T>(*value);
  return {};
}

// A text option's field: a string, or an optional one (given, even empty).
template <class T>
Expected<void> assign(T& field, const std::string& text) {
  field = text;
  return {};
}

// Converts an option's text into its field of ServerOptions; `flag` (its long name) words the
// refusal.
using Apply = Expected<void> (*)(std::string_view flag, const std::string& text, ServerOptions&);

// A value option as typed (CLI11 only splits) and what its text sets once given.
struct Setting {
  std::string text;
  const CLI::Option* option = nullptr;
  Apply apply = nullptr;
};

// The options as typed, before conversion. The settings live in a deque: CLI11 keeps a reference
// to each text.
struct RawArgs {
  std::string positional_port, port;
  std::deque<Setting> settings;
  std::optional<std::string> io;
};

// Declares a value option and the conversion its text goes through, so each is named once.
void add_setting(CLI::App& app, RawArgs& raw, const std::string& names, const std::string& help,
                 const std::string& value_name, Apply apply) {
  Setting& setting = raw.settings.emplace_back();
  setting.option = app.add_option(names, setting.text, help)->type_name(value_name);
  setting.apply = apply;
}

void declare(CLI::App& app, RawArgs& raw, ServerOptions& s, CliOptions& cli) {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  using Flag = std::string_view;
  using Text = const std::string&;
  using To = ServerOptions&;
  app.add_option("port", raw.positional_port, "Port to listen on (0: any free); default 7357")
      ->type_name("PORT");
  app.add_option("-p,--port", raw.port,
                 "Port to listen on (same as the positional port); default 7357")
      ->type_name("PORT");
  add_setting(app, raw, "--host", "Address to listen on; default 127.0.0.1", "ADDR",
              [](Flag, Text t, To o) { return assign(o.host, t); });
  add_setting(
      app, raw, "-d,--delay", "Wait before answering each request, ms (or 50ms, 1s); default 0",
      "MS", [](Flag f, Text t, To o) { return set(o.delay, to_duration(f, t, milliseconds(1))); });
  add_setting(app, raw, "-e,--error", "Answer every request with this status; default none", "CODE",
              [](Flag, Text t, To o) { return set(o.error_status, to_status(t)); });
  add_setting(app, raw, "-P,--percent",
              "Only this % of requests get the error (500 unless --error is given); "
              "default: every request when --error is given",
              "N", [](Flag f, Text t, To o) { return set(o.error_percent, to_percent(f, t)); });
  add_setting(app, raw, "-c,--cores", "Worker threads sharing the port; default half the cores",
              "N", [](Flag f, Text t, To o) { return set(o.cores, to_positive(f, t, 1024)); });
  add_setting(app, raw, "-b,--body", "Response body; default OK", "TEXT",
              [](Flag, Text t, To o) { return assign(o.body, t); });
  add_setting(app, raw, "-f,--file", "Response body read from this file; default none", "PATH",
              [](Flag, Text t, To o) { return assign(o.body_file, t); });
  add_setting(app, raw, "--id",
              "Instance name: x-instance header, {\"id\":NAME} body, /count; default none", "NAME",
              [](Flag, Text t, To o) { return assign(o.id, t); });
  app.add_option("--ready-file", cli.ready_file,
                 "Write the bound port here once listening; default none")
      ->type_name("PATH");
  app.add_flag("-q,--quiet", cli.quiet, "No per-second lines on stderr");
  add_setting(app, raw, "--max-header-bytes",
              "Request head limit, bytes (or 16k, 1m); over it 431; default 16k", "SIZE",
              [](Flag f, Text t, To o) { return set(o.max_header_bytes, to_size(f, t)); });
  add_setting(app, raw, "--max-uri-bytes", "Request target limit, bytes; over it 414; default 8k",
              "SIZE", [](Flag f, Text t, To o) { return set(o.max_uri_bytes, to_size(f, t)); });
  add_setting(app, raw, "--max-body-bytes", "Request body limit, bytes; over it 413; default 64m",
              "SIZE", [](Flag f, Text t, To o) { return set(o.max_body_bytes, to_size(f, t)); });
  add_setting(
      app, raw, "--idle-timeout",
      "Close idle connections after this long, s (or 500ms); default 60s", "DURATION",
      [](Flag f, Text t, To o) { return set(o.idle_timeout, to_duration(f, t, seconds(1))); });
  add_setting(
      app, raw, "--header-timeout",
      "Time allowed to send a request head, s; over it 408; default 10s", "DURATION",
      [](Flag f, Text t, To o) { return set(o.header_timeout, to_duration(f, t, seconds(1))); });
  add_setting(app, raw, "--tls-cert", "Serve HTTPS with this certificate chain (PEM); default none",
              "FILE", [](Flag, Text t, To o) { return assign(o.tls_cert_file, t); });
  add_setting(app, raw, "--tls-key", "The private key of --tls-cert (PEM); default none", "FILE",
              [](Flag, Text t, To o) { return assign(o.tls_key_file, t); });
  app.add_flag("--tls-self-signed", s.tls_self_signed,
               "Serve HTTPS with a throwaway self-signed certificate made at start");
  add_setting(
      app, raw, "--drain-timeout",
      "On SIGINT/SIGTERM, time left to in-flight requests, s; default 5s", "DURATION",
      [](Flag f, Text t, To o) { return set(o.drain_timeout, to_duration(f, t, seconds(1))); });
  add_setting(
      app, raw, "--max-connections",
      "Client connections open at once; more wait to be accepted; default no cap", "N",
      [](Flag f, Text t, To o) { return set(o.max_connections, to_positive(f, t, 1'000'000)); });
  app.add_flag_function(
      "--no-http2", [&s](std::int64_t) { s.http2 = false; },
      "Answer HTTP/1.1 only: no HTTP/2 preface detection, no ALPN h2 over TLS; default both on");
  add_setting(app, raw, "--max-streams",
              "HTTP/2 streams open at once per connection (1 to 10000); default 128", "N",
              [](Flag f, Text t, To o) { return set(o.max_streams, to_positive(f, t, 10'000)); });
  add_setting(app, raw, "--over-limit",
              "Past --max-connections: queue (wait to be accepted), close or reset each new "
              "connection at once; default queue",
              joined_names(kOverLimitNames, "|", "|"),
              [](Flag, Text t, To o) { return set(o.over_limit, to_over_limit(t)); });
  add_io_option(app, raw.io);
}

// The port first (given once or twice alike), then each setting given, in the order of --help.
Expected<void> convert_settings(const RawArgs& raw, ServerOptions& s) {
  if (!raw.port.empty() && !raw.positional_port.empty() && raw.port != raw.positional_port) {
    return make_error("the port is given twice, with different values");
  }
  const std::string& port = raw.port.empty() ? raw.positional_port : raw.port;
  if (!port.empty()) {
    if (auto r = set(s.port, to_count("port", port, 65535)); !r) return r;
  }
  for (const Setting& setting : raw.settings) {
    if (setting.option->count() == 0) continue;
    if (auto r = setting.apply(setting.option->get_name(), setting.text, s); !r) return r;
  }
  return {};
}

// Blocks SIGINT and SIGTERM in this thread (and so in the workers it starts): they are taken
// with sigtimedwait by the reporting loop instead of interrupting anything.
sigset_t block_stop_signals(sigset_t& previous) {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, &previous);
  return set;
}

// Once a second (unless quiet) a line with the rate and the mean service time of that second,
// until SIGINT or SIGTERM.
void serve_until_signal(const Server& server, const sigset_t& signals, bool quiet) {
  constexpr std::int64_t kSecond = 1'000'000'000;
  ServerTotals last = server.totals();
  std::int64_t last_ns = mono_ns();
  std::int64_t next_ns = last_ns + kSecond;
  for (;;) {
    const std::int64_t wait = std::max<std::int64_t>(0, next_ns - mono_ns());
    const timespec timeout{static_cast<time_t>(wait / kSecond), static_cast<long>(wait % kSecond)};
    const int sig = sigtimedwait(&signals, nullptr, &timeout);
    if (sig == SIGINT || sig == SIGTERM) return;
    if (sig < 0 && errno == EINTR) continue;
    const std::int64_t now = mono_ns();
    if (now < next_ns) continue;
    const ServerTotals t = server.totals();
    ServerTotals delta;
    delta.requests = t.requests - last.requests;
    delta.service_ns = t.service_ns - last.service_ns;
    if (!quiet) {
      const double rps =
          static_cast<double>(delta.requests) * 1e9 / static_cast<double>(now - last_ns);
      fmt::print(stderr,
                 "Requests: {}, requests per second: {:.0f}, mean service time: {:.3f} ms\n",
                 t.requests, rps, delta.mean_service_ms());
    }
    last = t;
    last_ns = now;
    next_ns = std::max(next_ns + kSecond, now + 1);  // after SIGSTOP, no burst of catch-up lines
  }
}

void print_totals(const ServerTotals& t) {
  const double seconds = static_cast<double>(t.elapsed_ns) / 1e9;
  const double rps = seconds > 0 ? static_cast<double>(t.requests) / seconds : 0.0;
  fmt::print("Total requests: {}, errors: {}, bad requests: {}, connections: {}\n", t.requests,
             t.errors, t.bad_requests, t.connections);
  fmt::print("Elapsed: {:.1f} s, requests per second: {:.0f}, mean service time: {:.3f} ms\n",
             seconds, rps, t.mean_service_ms());
  std::fflush(stdout);
}

}  // namespace

Expected<CliOptions> parse_command_line(const std::vector<std::string>& args) {
  CliOptions cli;
  ServerOptions options;
  RawArgs raw;
  CLI::App app("stampede serve: a test server and self-naming instance", "stampede serve");
  declare(app, raw, options, cli);
  const Expected<bool> help = parse_cli_into(cli, app, args);
  if (!help) return help.error();
  if (*help) return cli;
  if (auto r = refuse_empty_values(app, {"--body"}); !r) return r.error();
  if (auto r = convert_settings(raw, options); !r) return r.error();
  auto io = parse_io_option(raw.io);
  if (!io) return io.error();
  options.io = *io;
  // Every other refusal (unreadable TLS or body files included) is prepare()'s: bad input,
  // exit 2, found before anything starts.
  return with_prepared_plan(std::move(cli), std::move(options));
}

int cli_main(int argc, char** argv) {
  auto parsed = parse_command_line(std::vector<std::string>(argv, argv + argc));
  if (const std::optional<int> code = exit_before_run(parsed)) return *code;
  sigset_t previous;
  const sigset_t signals = block_stop_signals(previous);
  // Each client holds a descriptor: a soft limit of 1024 would cap a server that may hold more.
  raise_fd_limit();
  ServerPlan& plan = parsed->plan;
  plan.options.io = settle_io_backend(plan.options.io);
  const std::string host = plan.options.host;
  const bool tls = plan.secure();
  auto server = Server::start(std::move(plan));
  int code = 0;
  if (!server) {
    print_error_line(server.error().message);
    code = 1;
  } else if (auto ready = parsed->ready_file.empty()
                              ? Expected<void>()
                              : write_ready_file(parsed->ready_file, (*server)->port());
             !ready) {
    print_error_line(ready.error().message);
    code = 1;
  } else {
    if (!parsed->quiet) {
      fmt::print(stderr, "Listening on {}://{}:{}/ ({} worker threads)\n", tls ? "https" : "http",
                 host, (*server)->port(), (*server)->workers());
    }
    serve_until_signal(**server, signals, parsed->quiet);
    print_totals((*server)->stop());
  }
  pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  return code;
}

}  // namespace stampede::server
