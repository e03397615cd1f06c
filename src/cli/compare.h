// stampede compare BASELINE CURRENT: the change in throughput, error rate and latency between
// two sets of runs, with a verdict per figure separating a real change from run-to-run noise
// (docs/compare.md). Exit status: 0; 3 when a significant change crosses a --fail-on limit; 2
// for bad input (a missing file, not a result, a run without requests, a malformed limit), one
// line on stderr. Identity differences (another URL, -c, ...) are warnings on stderr.
#pragma once

namespace stampede::loadgen {

// argv[0] is "compare".
int compare_main(int argc, char** argv);

}  // namespace stampede::loadgen
