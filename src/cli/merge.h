// stampede merge FILE... | -: the one report of a run from its shards' saved results
// (docs/distributed.md). Exit status: 0, 3 when a threshold is crossed, 2 for bad input (a
// file that is missing, truncated or corrupt, results of different runs, a missing or duplicate
// shard), 1 when the HTML report cannot be written.
#pragma once

namespace stampede::loadgen {

// argv[0] is "merge".
int merge_main(int argc, char** argv);

}  // namespace stampede::loadgen
