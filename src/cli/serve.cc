#include "cli/serve.h"

#include <signal.h>

#include <CLI/CLI.hpp>
#include <cerrno>
#include <charconv>
#include <cstdio>

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

// The options as typed, before conversion: CLI11 only splits, core/units converts.
struct RawArgs {
  std::string positional_port, port, delay, error, percent, cores, body, file;
  std::string max_header_bytes, max_uri_bytes, max_body_bytes;
  std::string idle_timeout, header_timeout, drain_timeout, max_connections, max_streams;
  std::optional<std::string> io;
  std::string over_limit;
};

constexpr EnumName<OverLimit> kOverLimitNames[] = {
    {OverLimit::Queue, "queue"}, {OverLimit::Close, "close"}, {OverLimit::Reset, "reset"}};
static_assert(in_enum_order(kOverLimitNames));

void declare(CLI::App& app, RawArgs& raw, ServerOptions& s, CliOptions& cli) {
  app.add_option("port", raw.positional_port, "Port to listen on (0: any free); default 7357")
      ->type_name("PORT");
  app.add_option("-p,--port", raw.port,
                 "Port to listen on (same as the positional port); default 7357")
      ->type_name("PORT");
  app.add_option("--host", s.host, "Address to listen on; default 127.0.0.1")->type_name("ADDR");
  app.add_option("-d,--delay", raw.delay,
                 "Wait before answering each request, ms (or 50ms, 1s); default 0")
      ->type_name("MS");
  app.add_option("-e,--error", raw.error, "Answer every request with this status; default none")
      ->type_name("CODE");
  app.add_option("-P,--percent", raw.percent,
                 "Only this % of requests get the error (500 unless --error is given); "
                 "default: every request when --error is given")
      ->type_name("N");
  app.add_option("-c,--cores", raw.cores, "Worker threads sharing the port; default half the cores")
      ->type_name("N");
  app.add_option("-b,--body", raw.body, "Response body; default OK")->type_name("TEXT");
  app.add_option("-f,--file", raw.file, "Response body read from this file; default none")
      ->type_name("PATH");
  app.add_option("--id", s.id,
                 "Instance name: x-instance header, {\"id\":NAME} body, /count; default none")
      ->type_name("NAME");
  app.add_option("--ready-file", cli.ready_file,
                 "Write the bound port here once listening; default none")
      ->type_name("PATH");
  app.add_flag("-q,--quiet", cli.quiet, "No per-second lines on stderr");
  app.add_option("--max-header-bytes", raw.max_header_bytes,
                 "Request head limit, bytes (or 16k, 1m); over it 431; default 16k")
      ->type_name("SIZE");
  app.add_option("--max-uri-bytes", raw.max_uri_bytes,
                 "Request target limit, bytes; over it 414; default 8k")
      ->type_name("SIZE");
  app.add_option("--max-body-bytes", raw.max_body_bytes,
                 "Request body limit, bytes; over it 413; default 64m")
      ->type_name("SIZE");
  app.add_option("--idle-timeout", raw.idle_timeout,
                 "Close idle connections after this long, s (or 500ms); default 60s")
      ->type_name("DURATION");
  app.add_option("--header-timeout", raw.header_timeout,
                 "Time allowed to send a request head, s; over it 408; default 10s")
      ->type_name("DURATION");
  app.add_option("--tls-cert", s.tls_cert_file,
                 "Serve HTTPS with this certificate chain (PEM); default none")
      ->type_name("FILE");
  app.add_option("--tls-key", s.tls_key_file, "The private key of --tls-cert (PEM); default none")
      ->type_name("FILE");
  app.add_flag("--tls-self-signed", s.tls_self_signed,
               "Serve HTTPS with a throwaway self-signed certificate made at start");
  app.add_option("--drain-timeout", raw.drain_timeout,
                 "On SIGINT/SIGTERM, time left to in-flight requests, s; default 5s")
      ->type_name("DURATION");
  app.add_option("--max-connections", raw.max_connections,
                 "Client connections open at once; more wait to be accepted; default no cap")
      ->type_name("N");
  app.add_flag_function(
      "--no-http2", [&s](std::int64_t) { s.http2 = false; },
      "Answer HTTP/1.1 only: no HTTP/2 preface detection, no ALPN h2 over TLS; default both on");
  app.add_option("--max-streams", raw.max_streams,
                 "HTTP/2 streams open at once per connection (1 to 10000); default 128")
      ->type_name("N");
  app.add_option("--over-limit", raw.over_limit,
                 "Past --max-connections: queue (wait to be accepted), close or reset each new "
                 "connection at once; default queue")
      ->type_name(joined_names(kOverLimitNames, "|", "|"));
  add_io_option(app, raw.io);
}

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

// Sets `field` from `text` when the option was given, through `convert`.
template <class T, class Convert>
Expected<void> convert_into(const std::string& text, T& field, Convert convert) {
  if (text.empty()) return {};
  auto value = convert(text);
  if (!value) return value.error();
  field = static_cast<T>(*value);
  return {};
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

Expected<void> convert_numbers(const RawArgs& raw, ServerOptions& s) {
  using std::chrono::milliseconds;
  using std::chrono::seconds;
  if (!raw.port.empty() && !raw.positional_port.empty() && raw.port != raw.positional_port) {
    return make_error("the port is given twice, with different values");
  }
  const std::string& port = raw.port.empty() ? raw.positional_port : raw.port;
  Expected<void> r = convert_into(port, s.port, [](auto& t) { return to_count("port", t, 65535); });
  if (r)
    r = convert_into(raw.delay, s.delay,
                     [](auto& t) { return to_duration("--delay", t, milliseconds(1)); });
  if (r) r = convert_into(raw.error, s.error_status, to_status);
  if (r)
    r = convert_into(raw.percent, s.error_percent, [](auto& t) -> Expected<double> {
      auto p = parse_number(t);
      if (!p) return make_error(fmt::format("--percent: {}", p.error().message));
      return *p;
    });
  if (r)
    r = convert_into(raw.cores, s.cores, [](auto& t) { return to_positive("--cores", t, 1024); });
  if (r)
    r = convert_into(raw.max_connections, s.max_connections,
                     [](auto& t) { return to_positive("--max-connections", t, 1'000'000); });
  if (r) r = convert_into(raw.over_limit, s.over_limit, to_over_limit);
  if (r)
    r = convert_into(raw.max_streams, s.max_streams,
                     [](auto& t) { return to_positive("--max-streams", t, 10'000); });
  if (r)
    r = convert_into(raw.max_header_bytes, s.max_header_bytes,
                     [](auto& t) { return to_size("--max-header-bytes", t); });
  if (r)
    r = convert_into(raw.max_uri_bytes, s.max_uri_bytes,
                     [](auto& t) { return to_size("--max-uri-bytes", t); });
  if (r)
    r = convert_into(raw.max_body_bytes, s.max_body_bytes,
                     [](auto& t) { return to_size("--max-body-bytes", t); });
  if (r)
    r = convert_into(raw.idle_timeout, s.idle_timeout,
                     [](auto& t) { return to_duration("--idle-timeout", t, seconds(1)); });
  if (r)
    r = convert_into(raw.header_timeout, s.header_timeout,
                     [](auto& t) { return to_duration("--header-timeout", t, seconds(1)); });
  if (r)
    r = convert_into(raw.drain_timeout, s.drain_timeout,
                     [](auto& t) { return to_duration("--drain-timeout", t, seconds(1)); });
  return r;
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
  if (app.count("--body") > 0) options.body = raw.body;
  options.body_file = raw.file;
  if (auto r = convert_numbers(raw, options); !r) return r.error();
  auto io = parse_io_option(raw.io);
  if (!io) return io.error();
  options.io = *io;
  // Every other refusal (unreadable TLS or body files included) is prepare()'s: bad input,
  // exit 2, found before anything starts.
  auto plan = prepare(std::move(options));
  if (!plan) return plan.error();
  cli.plan = std::move(plan).value();
  return cli;
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
