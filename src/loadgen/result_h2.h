// The `http2` member of a saved result (result_file.h; docs/distributed.md): an --http2 run's
// --streams, its RST_STREAM and GOAWAY counts by error code (numbers as decimal keys, so a code
// with no name stays exact) and the server's SETTINGS, written and read back equal. Reading
// checks every value's type and range (RFC 9113's for the SETTINGS) and fails with a short reason.
#pragma once

#include <cstdint>

#include <nlohmann/json.hpp>

#include "core/expected.h"
#include "loadgen/h2_stats.h"

namespace stampede::loadgen {

struct SavedH2 {
  std::uint32_t streams = 1;
  H2Counts counts;
};

nlohmann::ordered_json h2_result_json(std::uint32_t streams, const H2Counts& counts);
Expected<SavedH2> read_h2_result(const nlohmann::json& j);

}  // namespace stampede::loadgen
