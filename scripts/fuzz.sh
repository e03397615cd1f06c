#!/usr/bin/env bash
# fuzz.sh BUILD SECONDS TARGET...: runs each libFuzzer target BUILD/tests/fuzz/TARGET_fuzz for
# SECONDS of wall time, one after the other, at nice 10, over a copy of its seed corpus
# (tests/fuzz/corpus/TARGET) with its dictionary (tests/fuzz/dict/TARGET.dict). Fork mode with
# -ignore_crashes: a finding is saved and fuzzing goes on. Prints per target the executions per
# second, the corpus size before and after, and the findings (crash-*, timeout-*, oom-* files,
# to be minimised with -minimize_crash=1 and kept in tests/fuzz/findings/TARGET/).
# Everything goes under BUILD/fuzz-work/TARGET/ (corpus/, findings/, fuzz.log).
# MERGE=1: afterwards, adds to tests/fuzz/corpus/TARGET the inputs of the grown corpus that reach
# coverage it does not (-merge=1).
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: fuzz.sh BUILD SECONDS TARGET..." >&2
  exit 2
fi
build=$1
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
status=0
printf '%-16s %10s %8s %8s %9s\n' target 'exec/s' 'corpus' 'after' 'findings'
for target in "$@"; do
  bin=$build/tests/fuzz/${target}_fuzz
  work=$build/fuzz-work/$target
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/findings"
  cp "$root/tests/fuzz/corpus/$target"/* "$work/corpus/"
  before=$(ls "$work/corpus" | wc -l)
  nice -n 10 "$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -timeout=10 \
    -max_total_time="$seconds" -dict="$root/tests/fuzz/dict/$target.dict" \
    -artifact_prefix="$work/findings/" "$work/corpus" >"$work/fuzz.log" 2>&1 || status=1
  after=$(ls "$work/corpus" | wc -l)
  # Fork mode's progress lines read "#RUNS: cov: C ft: F corp: N exec/s E ... time: Ts"; the
  # last one has the average over the whole run.
  execs=$( (grep -o 'exec/s:\? [0-9]*' "$work/fuzz.log" || true) | tail -1 | grep -o '[0-9]*$' || true)
  findings=$(ls "$work/findings" | wc -l)
  printf '%-16s %10s %8s %8s %9s\n' "$target" "${execs:-?}" "$before" "$after" "$findings"
  if [ "${MERGE:-0}" = 1 ]; then
    "$bin" -merge=1 "$root/tests/fuzz/corpus/$target" "$work/corpus" >"$work/merge.log" 2>&1
  fi
done
[ $status = 0 ] || echo "fuzz.sh: a target failed to run; see $build/fuzz-work/*/fuzz.log" >&2
exit $status
