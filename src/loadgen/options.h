// RawOptions: option values as the user wrote them, from the command line or .loadtestrc, before
// any checking. to_options() converts them (checking each value's own syntax) into the Config
// that prepare() (plan.h) then checks as a whole, and the command line's own settings.
#pragma once

#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/expected.h"
#include "loadgen/config.h"
#include "loadgen/thresholds.h"

namespace stampede::loadgen {

// -p, -u, -a (and .loadtestrc "file"): the body file must be a regular file of at most this size.
inline constexpr std::size_t kMaxBodyFileBytes = std::size_t{64} << 20;
// -t, -d and --ramp: at most a year, so a deadline (now plus the duration) cannot overflow the
// clock. -n, -t and -d must be more than 0: leaving them out is "no limit".
inline constexpr std::chrono::hours kMaxOptionDuration{24 * 365};
// --rps: the rates a run can mean (one request in 1000 s up to ten million a second).
inline constexpr double kMinRps = 0.001;
inline constexpr double kMaxRps = 10'000'000;

// One value and where it came from ("-n", ".loadtestrc maxRequests"), for error messages.
struct RawValue {
  std::string text;
  std::string origin;
};

struct RawOptions {
  std::optional<RawValue> url;
  std::optional<RawValue> max_requests;    // -n / maxRequests
  std::optional<RawValue> max_seconds;     // -t / maxSeconds
  std::optional<RawValue> concurrency;     // -c / concurrency
  std::optional<RawValue> timeout;         // -d, --timeout / timeout (milliseconds)
  std::optional<RawValue> cores;           // --cores
  std::optional<RawValue> pipeline;        // --pipeline (command line only)
  std::optional<RawValue> streams;         // --streams / streams
  std::optional<RawValue> method;          // -m / method
  std::optional<RawValue> content_type;    // -T / contentType
  std::optional<RawValue> index_param;     // --index / indexParam
  std::optional<RawValue> rps;             // --rps / requestsPerSecond
  std::optional<RawValue> ramp;            // --ramp / ramp (seconds)
  std::optional<RawValue> html;            // --html FILE
  std::optional<RawValue> log;             // --log FILE (command line only)
  std::optional<RawValue> max_p99;         // --max-p99 / maxP99 (ms)
  std::optional<RawValue> max_error_rate;  // --max-error-rate / maxErrorRate (percent)
  std::optional<RawValue> min_rps;         // --min-rps / minRps
  // -R FILE.lua (a request script).
  std::optional<RawValue> request_script;

  // Body sources in loadtest's precedence order: a later one wins (and sets the method).
  std::optional<RawValue> data;        // --data / body: keeps the method
  std::optional<RawValue> post_body;   // -P: POST
  std::optional<RawValue> post_file;   // -p / file: POST (file: keeps the method)
  std::optional<RawValue> put_file;    // -u: PUT
  std::optional<RawValue> patch_body;  // -A: PATCH
  std::optional<RawValue> patch_file;  // -a: PATCH
  bool file_keeps_method = false;      // post_file came from .loadtestrc "file"

  std::vector<RawValue> headers;  // "name:value" (-H), or "name:value" built from .loadtestrc
  std::vector<RawValue> cookies;  // "name=value"
  std::vector<RawValue> count_headers;
  std::optional<RawValue> cert_file;        // --cert / cert
  std::optional<RawValue> key_file;         // --key / key
  std::optional<RawValue> secure_protocol;  // -s, --secure-protocol / secureProtocol
  std::optional<RawValue> proxy;            // --proxy / proxy
  bool insecure = false;                    // --insecure / insecure

  bool keep_alive = false;
  bool http2 = false;  // --http2 / http2
  bool quiet = false;
  bool json = false;
};

// What only the command line acts on, beside the run's Config: its outputs and the Lua scripts
// it loads (cli/generator.cc).
struct CliSettings {
  std::string request_script;  // -R FILE.lua: request(id) builds each request
  std::string body_script;     // -p/-u/-a FILE.lua: body(id) gives each body
  bool quiet = false;          // no progress lines
  bool json = false;           // the result as JSON instead of the text report
  std::string html;            // --html: also write the HTML report to this file
  Thresholds thresholds;       // --max-p99, --max-error-rate, --min-rps (exit status 3)
  std::string save;            // --save FILE or "-": also write the mergeable result
  std::uint32_t repeat = 1;    // --repeat N: run the plan N times, one after another
};

struct Options {
  Config config;
  CliSettings cli;
};

// Fills what `cli` leaves unset from `rc` (loadtest: the file is used only for options the
// command line does not give). Headers from both are kept, the file's first, so a header on the
// command line wins; cookies come from the command line when it gives any.
RawOptions merge(RawOptions cli, const RawOptions& rc);

// The CI thresholds from their values as given (the generator's command line or .loadtestrc,
// or `merge`'s command line), each checked: --max-p99 milliseconds, --max-error-rate a
// percentage from 0 to 100, --min-rps requests per second; errors name the value's origin.
Expected<Thresholds> to_thresholds(const std::optional<RawValue>& max_p99,
                                   const std::optional<RawValue>& max_error_rate,
                                   const std::optional<RawValue>& min_rps);

// Converts, checking each value. Reads body files. Errors are one line naming the offending
// option. The Config is not yet checked as a whole: prepare() does that.
Expected<Options> to_options(const RawOptions& raw);

}  // namespace stampede::loadgen
