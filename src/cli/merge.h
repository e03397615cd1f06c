// stampede merge FILE... | -: the one report of a run from its shards' saved results
// (docs/distributed.md). Exit status: 0, 3 when a threshold is crossed, 2 for bad input (a
// file that is missing, truncated or corrupt, results of different runs, a missing or duplicate
// shard), 1 when the HTML report cannot be written.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "loadgen/merge.h"
#include "loadgen/thresholds.h"

namespace stampede::loadgen {

// How a merged result is printed (merge's options, or the generator's under mpirun).
struct MergedReportSettings {
  bool json = false;
  std::string html;  // empty: no HTML report
  Thresholds thresholds;
  std::vector<std::string> notes;  // text: lines after the shard table (and HTML findings)
  nlohmann::ordered_json extra_json = nlohmann::ordered_json::object();  // --json: added keys
};

// Prints the merged report on stdout (text with the shard table, or --json with its "merge"
// key), writes the HTML report, then one line on stderr per crossed threshold. Returns the
// exit status: 0, 3 when a threshold was crossed, 1 when the HTML report cannot be written.
int print_merged_report(const MergedReportSettings& settings, const MergedResult& merged);

// argv[0] is "merge".
int merge_main(int argc, char** argv);

}  // namespace stampede::loadgen
