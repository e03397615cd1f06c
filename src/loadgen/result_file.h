// A run's whole result as one line of JSON (--save FILE, or - for stdout), and back: the format
// `stampede merge` reads (docs/distributed.md, "The result file"). Versioned: a reader refuses a
// file of a later version than its own with one line.
//
// One line per result, so results concatenated on one stream (kubectl logs of N pods) are read
// line by line, and any other line in between (a progress line, a report) is skipped. The
// histograms are HdrHistogram V2 compressed base64 (stats/hdr_encoding.h) beside their exact
// min, max, sum and sum of squares; the timeline rows keep their latency sketches. Loading a
// result gives back a RunResult equal to the one saved.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/expected.h"
#include "loadgen/config.h"
#include "loadgen/runner.h"

namespace stampede::loadgen {

inline constexpr std::string_view kResultFormat = "stampede-result";
// The latest version this reads. A result is written with the lowest version that holds all of
// it: 1 without HTTP/2 (what every reader reads), 2 for an --http2 run (its `http2` member), so
// that an older reader refuses it rather than merge it without its HTTP/2 figures.
inline constexpr int kResultVersion = 2;
inline constexpr int kResultVersionHttp1 = 1;
// Every result line starts with this (the format name is the first key).
inline constexpr std::string_view kResultLinePrefix = R"({"format":"stampede-result")";

// The timeline as saved: the rows with their sketches still encoded (decoded when merged, so
// that many shards' timelines are not all in memory at once).
struct SavedTimeline {
  std::int64_t start_unix_ns = 0;
  std::int64_t width_ns = 0;
  nlohmann::json rows;  // [[sent, completed, 4xx, 5xx, transport, n, min, max, "sketch"], ...]
};

struct SavedResult {
  // The options that shards of one run share (URL, method, body digest, headers, -n, -c, -t,
  // --rps, --ramp, N...): results merge only when these are equal.
  nlohmann::ordered_json run;
  std::string host;
  double cpu_seconds = 0;  // the generator process's CPU time (user + system) when it saved
  RunResult result;        // timeline rows and timeline_sketch left empty: see `timeline`
  SavedTimeline timeline;
};

// The Lua scripts a command-line run used (-R, -p/-u/-a FILE.lua; cli's CliSettings): part of
// what the run is, though not Config fields.
struct ScriptNames {
  std::string request;
  std::string body;
};

// The identity of the run `config` and `scripts` describe (SavedResult::run).
nlohmann::ordered_json run_identity(const Config& config, const ScriptNames& scripts = {});

// The result line, without its newline.
std::string to_result_line(const RunResult& result, const Config& config, const std::string& host,
                           double cpu_seconds, const ScriptNames& scripts = {});

// This host's name ("unknown" when it has none), as a result names it.
std::string host_name();
// This process's CPU time so far (user + system), in seconds.
double process_cpu_seconds();

// Writes to_result_line and a newline to path ("-": stdout), with this host's name and this
// process's CPU time. Fails with "cannot write PATH: REASON".
Expected<void> save_result(const RunResult& result, const Config& config,
                           const ScriptNames& scripts, const std::string& path);
// The same for the runs of --repeat N, one line each in run order (what `stampede compare` reads
// as the runs of one side; `stampede merge` takes them for shards and refuses them).
Expected<void> save_results(const std::vector<RunResult>& results, const Config& config,
                            const ScriptNames& scripts, const std::string& path);

// Reads one result line. Fails with a short reason (truncated, corrupt, a later version).
Expected<SavedResult> parse_result_line(std::string_view line);

// Decodes a saved timeline's rows into `into`, offset_ns after its start (Timeline::add_rows).
Expected<void> add_saved_timeline(const SavedTimeline& saved, std::int64_t offset_ns,
                                  stats::Timeline& into);

}  // namespace stampede::loadgen
