// .loadtestrc: loadtest's JSON configuration file, read from the working directory. Its values
// fill the options the command line does not give (see merge() in options.h).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string_view>

#include "core/expected.h"
#include "loadgen/options.h"

namespace stampede::loadgen {

inline constexpr std::string_view kRcFileName = ".loadtestrc";
// A larger file is refused (README), as is JSON nested deeper than kMaxJsonDepth (64) levels.
inline constexpr std::size_t kMaxRcFileBytes = std::size_t{1} << 20;

// Parses the text of a .loadtestrc. Keys are loadtest's (README): maxRequests, concurrency,
// maxSeconds, timeout, method, contentType, body, file, cookies, headers, agentKeepAlive,
// indexParam, quiet, recover, requestsPerSecond (0 or null: unset), and ours: ramp, maxP99,
// maxErrorRate, minRps, http2 (true or false), streams (--streams; needs http2); the server
// and TLS keys (delay, error, percent, secureProtocol, insecure, cert, key) are accepted and
// have no effect here. proxy and requestGenerator are refused when set (not supported), as are
// unknown keys and values of the wrong type. Numbers may be JSON numbers or numeric strings.
Expected<RawOptions> parse_loadtestrc(std::string_view text);

// Reads `dir`/.loadtestrc: empty options when the file does not exist, an error when it cannot be
// read ("cannot read '…/.loadtestrc': is a directory": a regular file of at most 1 MiB) or is
// invalid (".loadtestrc: …").
Expected<RawOptions> read_loadtestrc(const std::filesystem::path& dir);

}  // namespace stampede::loadgen
