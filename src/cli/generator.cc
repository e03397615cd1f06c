#include "cli/generator.h"

#include <algorithm>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <vector>

#include <fmt/format.h>
#include <fmt/ostream.h>
#include <CLI/CLI.hpp>

#include "cli/command_line.h"
#include "cli/file_limit.h"
#include "cli/find_max.h"
#include "cli/metrics_options.h"
#include "cli/raw_options.h"
#include "cli/signal_watcher.h"
#include "cli/sweep.h"
#include "core/units.h"
#include "loadgen/compare.h"
#include "loadgen/merge.h"
#include "loadgen/options.h"
#include "loadgen/plan.h"
#include "loadgen/rcfile.h"
#include "loadgen/report/compare.h"
#include "loadgen/report/html.h"
#include "loadgen/report/json.h"
#include "loadgen/report/text.h"
#include "loadgen/report/thresholds.h"
#include "loadgen/request.h"
#include "loadgen/result_file.h"
#include "loadgen/runner.h"
#include "loadgen/ws_run.h"
#include "script/script_hooks.h"

namespace stampede::loadgen {
namespace {

// What CLI11 fills: the options of the run's RawOptions (converted and checked by to_options()
// and prepare()) through their texts, the rest as given.
struct Args {
  RawOptions raw;  // the command line's alone, before .loadtestrc fills what it leaves unset
  RawOptionTexts texts;
  std::optional<std::string> shard, start_at, save, repeat, io;
  std::optional<std::string> sweep;  // --sweep-connections: cli/sweep.h
  bool recover = false, version = false;
  FindMaxTexts find_max;
  MetricsTexts metrics;
};

void define_options(CLI::App& app, Args& a) {
  RawOptions& r = a.raw;
  RawOptionTexts& t = a.texts;
  t.add(app, "url", r.url,
        "The URL to load: http[s]:// or ws[s]://host[:port]/path; required, no default", "URL");
  t.add_last_wins(app, "-n", r.max_requests,
                  "Number of requests to send (exactly); default none: -t decides");
  t.add_last_wins(app, "-c", r.concurrency, "Concurrent clients (connections); default 10");
  t.add_last_wins(app, "-t", r.max_seconds,
                  "Stop sending after this many seconds; default 10 without -n, none with it");
  app.add_flag("-k,--keepalive,--agent", r.keep_alive, "Reuse connections (keep-alive)");
  t.add_list(app, "-C", r.cookies, "Cookie name=value (repeatable); default none");
  t.add_list(app, "-H", r.headers,
             "Header name:value (repeatable; the last value wins); default none");
  t.add_last_wins(app, "-T", r.content_type, "Content type of the body; default text/plain");
  t.add_last_wins(app, "-P", r.post_body, "POST this body; default none");
  t.add_last_wins(app, "-A", r.patch_body, "PATCH this body; default none");
  t.add_last_wins(app, "-m", r.method, "Method (any case); default GET");
  t.add_last_wins(app, "--data", r.data, "Send this body (keeps the method); default none");
  t.add_last_wins(app, "-p", r.post_file, "POST the contents of this file; default none");
  t.add_last_wins(app, "-u", r.put_file, "PUT the contents of this file; default none");
  t.add_last_wins(app, "-a", r.patch_file, "PATCH the contents of this file; default none");
  app.add_flag("-r", a.recover, "Accepted for loadtest compatibility: errors never stop a run");
  t.add_last_wins(app, "-d,--timeout", r.timeout, "Timeout of each request, ms; default none");
  t.add_last_wins(app, "--index", r.index_param,
                  "Replace this text in the URL and body (or WebSocket message) by a unique "
                  "index; default none");
  t.add_last_wins(app, "--cores", r.cores, "Worker threads; default half the cores");
  t.add_last_wins(app, "--pipeline", r.pipeline,
                  "With -k: up to this many requests in flight per connection, written together "
                  "(1 to 256); default 1");
  app.add_flag("--http2", r.http2,
               "HTTP/2: h2c with prior knowledge for http://, ALPN h2 for https://; implies -k; "
               "-c is connections");
  t.add_last_wins(app, "--streams", r.streams,
                  "With --http2: requests in flight per connection, as concurrent streams (1 to "
                  "1000; h2load's -m, which here is the method); default 1");
  t.add_last_wins(
      app, "-R,--requestGenerator", r.request_script,
      "Lua script whose request(id) builds each request (docs/scripting.md); default none", "-R");
  t.add_last_wins(app, "--rps", r.rps,
                  "Open loop: send this many requests per second in total (fractional is fine); "
                  "default none: closed loop");
  t.add_last_wins(app, "--ramp", r.ramp,
                  "With --rps: grow the rate from 0 over this many seconds; default 0: no ramp");
  t.add_last_wins(app, "--html", r.html,
                  "Also write a self-contained HTML report to this file; default none");
  t.add_last_wins(app, "--log", r.log,
                  "Also write one line per request to this file: CSV (.csv) or NDJSON (.ndjson, "
                  ".jsonl); - for NDJSON on stdout, then the report goes to stderr "
                  "(docs/output.md); default none");
  add_threshold_options(app, t, r);
  add_last_wins_option(
      app, "--shard", a.shard,
      "Run only shard K of N of this run (K/N: requests K, K+N, ...; -n, -c and --rps "
      "split; docs/distributed.md); default 1/1");
  add_last_wins_option(
      app, "--start-at", a.start_at,
      "Wait until this wall-clock time (RFC 3339 or Unix seconds) before starting; "
      "default now");
  add_last_wins_option(
      app, "--save", a.save,
      "Also write the whole result, mergeable by stampede merge, to this file (- for "
      "stdout, then the report goes to stderr); default none");
  add_last_wins_option(
      app, "--repeat", a.repeat,
      "Run the same test this many times, one after another (1 to 100); the report "
      "shows each run and all together, stampede compare reads them; default 1");
  app.add_flag("--quiet", r.quiet, "No progress lines");
  app.add_flag("-V,--version", a.version, "Print the version and exit");
  app.add_flag("--json", r.json, "Print the result as JSON instead of the text report");
  app.add_flag("--insecure", r.insecure, "https, wss: accept any server certificate");
  t.add_last_wins(app, "--cert", r.cert_file,
                  "https, wss: client certificate file (PEM), with --key; default none");
  t.add_last_wins(app, "--key", r.key_file,
                  "https, wss: private key file of --cert (PEM); default none");
  t.add_last_wins(
      app, "-s,--secure-protocol", r.secure_protocol,
      "https, wss: TLS version, as loadtest (TLSv1_2_method, TLSv1_3_method, TLS_method); "
      "default TLS_method (1.2 or 1.3)");
  t.add_last_wins(app, "--proxy", r.proxy,
                  "Send through this HTTP proxy (http://host:port); default none");
  t.add_list(app, "--count-header", r.count_headers,
             "Count responses by the value of this header (repeatable); default none");
  add_io_option(app, a.io);
  add_last_wins_option(app, "--sweep-connections", a.sweep,
                       "Concurrency sweep: one closed-loop run per connection count (1,2,4,8 or "
                       "1..256x2), -t (default 3 s) or -n each; reports the knee; default none");
  add_find_max_options(app, a.find_max);
  add_metrics_options(app, a.metrics);
}

// CLI11's messages, made into one clear line.
std::string describe(const CLI::ParseError& e) {
  std::string what = e.what();
  if (e.get_name() == "ArgumentMismatch") {
    const std::size_t colon = what.find(':');
    if (colon != std::string::npos) return "option " + what.substr(0, colon) + " needs a value";
  }
  return what;
}

Expected<void> check_leftovers(const CLI::App& app) {
  for (const std::string& arg : app.remaining()) {
    if (arg.size() > 1 && arg[0] == '-') return make_error("unknown option '" + arg + "'");
    return make_error("unexpected argument '" + arg + "' (only one URL can be given)");
  }
  return {};
}

// After the report: the HTML file (1 when it cannot be written), then the thresholds (3 and one
// line each when crossed).
int finish_outputs(const CliSettings& settings, const RunResult& result) {
  const std::vector<std::string> crossed = crossed_thresholds(result, settings.thresholds);
  std::vector<std::string> findings;
  for (const std::string& line : crossed)
    findings.push_back("Threshold crossed: " + line);
  if (!settings.html.empty()) {
    if (auto r = write_html_report(result, settings.html, findings); !r) {
      print_error_line(r.error().message);
      return 1;
    }
  }
  for (const std::string& line : crossed)
    print_error_line("threshold crossed: " + line);
  return crossed.empty() ? 0 : 3;
}

// -R and -p/-u/-a FILE.lua: the scripts are loaded and checked now, before anything is sent;
// each starts from the plan's request.
Expected<void> attach_scripts(Plan& plan, const CliSettings& settings) {
  if (settings.request_script.empty() && settings.body_script.empty()) return {};
  if (auto r = check_websocket_scripts(plan.url, settings.request_script, settings.body_script);
      !r) {
    return r;
  }
  if (auto r = hooks_allowed(plan); !r) return r;
  script::ScriptParams params;
  params.request_script = settings.request_script;
  params.body_script = settings.body_script;
  params.base = plan.spec;
  auto hooks = script::make_script_hooks(params);
  if (!hooks) return hooks.error();
  return attach_hooks(plan, std::move(hooks).value());
}

// --shard, --start-at (the run's), --save and --repeat (the command line's); prepare() checks
// the shard against the rest.
Expected<void> apply_distribution(const Args& args, Options& options) {
  if (args.shard) {
    auto shard = parse_shard(*args.shard);
    if (!shard) return shard.error();
    options.config.shard = *shard;
  }
  if (args.start_at) {
    auto at = parse_start_time(*args.start_at);
    if (!at) return at.error();
    options.config.start_at_unix_ns = *at;
  }
  if (args.save) {
    if (args.save->empty()) return make_error("--save: expected a file name or -");
    options.cli.save = *args.save;
  }
  if (args.repeat) {
    auto n = parse_count(*args.repeat);
    if (!n || *n < 1 || *n > kMaxRuns) {
      return make_error(fmt::format("--repeat: expected a number of runs from 1 to {}, got '{}'",
                                    kMaxRuns, *args.repeat));
    }
    options.cli.repeat = static_cast<std::uint32_t>(*n);
  }
  return {};
}

// Before prepare() creates the --log file: what it cannot go with on the command line.
Expected<void> check_log_use(const Args& args, bool searches) {
  if (!args.raw.log) return {};
  if (searches || args.sweep) {
    return make_error("--log records one run: not with --sweep-connections or --find-max");
  }
  if (args.raw.log->text == "-" && args.save && *args.save == "-") {
    return make_error("--log - and --save - both write to stdout: give one of them a file name");
  }
  return {};
}

// --repeat N: the plan run N times, one after another, with "Run K of N" on the progress
// stream; a stop (Ctrl-C) ends the run in progress and the ones after it.
Expected<std::vector<RunResult>> run_repeated(const Plan& plan, const CliSettings& settings,
                                              StopSignal& stop, LiveFeed* live) {
  RunHooks hooks;
  hooks.progress = settings.quiet ? nullptr : &std::cerr;
  hooks.stop = &stop;
  hooks.live = live;
  std::vector<RunResult> runs;
  for (std::uint32_t i = 0; i < settings.repeat && (i == 0 || !stop.stop_requested()); ++i) {
    if (hooks.progress && settings.repeat > 1) {
      fmt::print(*hooks.progress, "Run {} of {}\n", i + 1, settings.repeat);
    }
    auto result = run(plan, hooks);
    if (!result) return result.error();
    runs.push_back(std::move(result).value());
  }
  return runs;
}

int report_runs(const Plan& plan, const CliSettings& settings,
                Expected<std::vector<RunResult>>& runs) {
  if (!runs) {
    print_error_line(runs.error().message);
    return 1;
  }
  const bool repeated = runs->size() > 1;
  const RunResult result = repeated ? combine_runs(*runs) : std::move(runs->front());
  const Config& config = plan.config;
  if (config.hooks && config.hooks->on_done) config.hooks->on_done(to_json(result).dump());
  // --save - and --log -: stdout carries the result (kubectl logs | stampede merge -) or the
  // log alone.
  const bool stdout_taken = settings.save == "-" || config.log_file == "-";
  std::ostream& out = stdout_taken ? std::cerr : std::cout;
  if (settings.json) {
    if (repeated) {
      write_repeat_json(result, *runs, out);
    } else {
      write_json_report(result, out);
    }
  } else if (repeated) {
    write_repeat_text(result, *runs, out);
  } else {
    write_text_report(result, out);
  }
  if (!settings.save.empty()) {
    const ScriptNames scripts{settings.request_script, settings.body_script};
    auto saved = repeated ? save_results(*runs, config, scripts, settings.save)
                          : save_result(result, config, scripts, settings.save);
    if (!saved) {
      print_error_line(saved.error().message);
      return 1;
    }
  }
  const int status = finish_outputs(settings, result);
  if (!result.log_error.empty()) {
    print_error_line(result.log_error);
    return 1;
  }
  return status;
}

// The runs and their report, with --metrics-listen's endpoint up from before the first run (a
// bind failure is exit 2, nothing sent) until the report, and --metrics-linger after it.
int run_and_report(const Plan& plan, const CliSettings& settings, const MetricsSettings& metrics) {
  // --log -: a reader that goes away (| head) makes the log's writes fail (EPIPE), said after
  // the report, instead of killing the run with SIGPIPE.
  if (plan.config.log_file == "-") std::signal(SIGPIPE, SIG_IGN);
  StopSignal stop;
  SignalWatcher watcher(stop);
  std::unique_ptr<MetricsServer> server;
  if (metrics.listen) {
    auto started = MetricsServer::start(metrics);
    if (!started) {
      print_error_line(started.error().message);
      return 2;
    }
    server = std::move(started).value();
  }
  auto runs = run_repeated(plan, settings, stop, server ? &server->feed() : nullptr);
  const int status = report_runs(plan, settings, runs);
  if (server && runs) linger(metrics.linger, stop);
  return status;
}

int run_sweep_command(Plan& plan, const std::vector<std::uint32_t>& steps,
                      const CliSettings& settings) {
  StopSignal stop;
  SignalWatcher watcher(stop);
  return sweep_and_report(plan, steps, settings, stop);
}

}  // namespace

Expected<CliRequest> parse_command_line(int argc, const char* const* argv,
                                        const std::filesystem::path& rc_dir) {
  CLI::App app("stampede: HTTP load generator (loadtest-compatible options)", "stampede");
  app.allow_extras();
  Args args;
  define_options(app, args);
  auto parsed = parse_cli(app, argc, argv, &describe);
  if (!parsed) return parsed.error();
  if (*parsed) return CliRequest{CliRequest::Action::Help, {}, {}, std::move(**parsed), {}, {}, {}};
  if (args.version) return CliRequest{CliRequest::Action::Version, {}, {}, {}, {}, {}, {}};
  if (auto r = check_leftovers(app); !r) return r.error();
  args.texts.land();
  auto rc = read_loadtestrc(rc_dir);
  if (!rc) return rc.error();
  auto options = to_options(merge(args.raw, *rc));
  if (!options) return options.error();
  auto io = parse_io_option(args.io);
  if (!io) return io.error();
  options->config.io = *io;
  if (auto r = apply_distribution(args, *options); !r) return r.error();
  auto find_max = to_capacity_params(args.find_max, *options);
  if (!find_max) return find_max.error();
  if (*find_max && args.sweep) {
    return make_error("--find-max and --sweep-connections are two searches: give one");
  }
  if (options->cli.repeat > 1 && (*find_max || args.sweep)) {
    return make_error(
        "--repeat runs one test again: it cannot go with --find-max or "
        "--sweep-connections");
  }
  if (auto r = check_log_use(args, find_max->has_value()); !r) return r.error();
  auto metrics = to_metrics_settings(args.metrics);
  if (!metrics) return metrics.error();
  if (metrics->listen && (*find_max || args.sweep)) {
    return make_error(
        "--metrics-listen serves one test's figures: not with --sweep-connections "
        "or --find-max");
  }
  if (args.raw.log && options->cli.repeat > 1) {
    return make_error("--log records one run: not with --repeat (one log file per run)");
  }
  auto plan = prepare(std::move(options->config));
  if (!plan) return plan.error();
  if (*find_max) {
    if (auto r = check_capacity_plan(*plan); !r) return r.error();
  }
  if (auto scripts = attach_scripts(*plan, options->cli); !scripts) return scripts.error();
  std::vector<std::uint32_t> sweep;
  if (args.sweep) {
    auto steps = sweep_steps(*args.sweep, *plan, options->cli, args.raw.concurrency.has_value());
    if (!steps) return steps.error();
    sweep = std::move(steps).value();
    plan->config.concurrency = sweep.back();  // the largest step, for the file limit
  }
  return CliRequest{CliRequest::Action::Run,
                    std::move(plan).value(),
                    std::move(options->cli),
                    {},
                    std::move(sweep),
                    *find_max,
                    *metrics};
}

int cli_main(int argc, char** argv) {
  std::error_code ec;
  const std::filesystem::path cwd = std::filesystem::current_path(ec);
  auto request = parse_command_line(argc, argv, ec ? std::filesystem::path(".") : cwd);
  if (!request) {
    print_error_line(request.error().message);
    return 2;
  }
  switch (request->action) {
    case CliRequest::Action::Help:
      std::fputs(request->text.c_str(), stdout);
      return 0;
    case CliRequest::Action::Version:
      std::printf("stampede %s\n", version().c_str());
      return 0;
    case CliRequest::Action::Run:
      break;
  }
  if (auto fits = fit_file_limit(request->plan.config); !fits) {
    print_error_line(fits.error().message);
    return 2;
  }
  request->plan.config.io = settle_io_backend(request->plan.config.io);
  if (request->find_max) {
    return exit_on_exception(1, [&] {
      StopSignal stop;
      SignalWatcher watcher(stop);
      return run_find_max(request->plan, request->settings, *request->find_max, stop);
    });
  }
  // What escapes the run is a failed run (1), not bad input.
  return exit_on_exception(1, [&] {
    if (!request->sweep.empty()) {
      return run_sweep_command(request->plan, request->sweep, request->settings);
    }
    return run_and_report(request->plan, request->settings, request->metrics);
  });
}

}  // namespace stampede::loadgen
