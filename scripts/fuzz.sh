#!/usr/bin/env bash
# fuzz.sh BUILD SECONDS TARGET...: runs each libFuzzer target BUILD/tests/fuzz/TARGET_fuzz for
# SECONDS of wall time, one after the other, at nice 10, over a copy of its seed corpus
# (tests/fuzz/corpus/TARGET) with its dictionary (tests/fuzz/dict/TARGET.dict). Fork mode with
# -ignore_crashes: a finding is saved and fuzzing goes on. Prints per target the CPU seconds
# used, the executions per second, the corpus size before and after, and the number of findings
# (crash-*, timeout-*, oom-*: minimise them with -minimize_crash=1 and keep them in
# tests/fuzz/findings/TARGET/). Exits 1 when there were findings.
# Everything goes under BUILD/fuzz-work/TARGET/ (corpus/, findings/, fuzz.log).
# MERGE=1: afterwards, replaces tests/fuzz/corpus/TARGET by the smallest set of inputs that
# covers what it and the grown corpus cover (-merge=1), plus the hand-written seed-* files.
set -euo pipefail
if [ $# -lt 3 ]; then
  echo "usage: fuzz.sh BUILD SECONDS TARGET..." >&2
  exit 2
fi
build=$1
seconds=$2
shift 2
root=$(cd "$(dirname "$0")/.." && pwd)
found=0
cpu_seconds() { awk '{ print $14 + $15 + $16 + $17 }' "/proc/$1/stat"; }
printf '%-16s %8s %8s %8s %8s %9s\n' target 'cpu s' 'exec/s' 'corpus' 'after' 'findings'
for target in "$@"; do
  bin=$build/tests/fuzz/${target}_fuzz
  work=$build/fuzz-work/$target
  corpus=$root/tests/fuzz/corpus/$target
  rm -rf "$work"
  mkdir -p "$work/corpus" "$work/findings"
  cp "$corpus"/* "$work/corpus/"
  before=$(ls "$work/corpus" | wc -l)
  # CPU time of the fuzzer and its workers: the children's times of a subshell that waits.
  rc=0
  ( nice -n 10 "$bin" -fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1 -timeout=10 \
      -max_total_time="$seconds" -dict="$root/tests/fuzz/dict/$target.dict" \
      -artifact_prefix="$work/findings/" "$work/corpus" >"$work/fuzz.log" 2>&1
    times >"$work/times" ) || rc=$?
  cpu=$(tail -1 "$work/times" | awk '{ split($1, u, "m"); split($2, s, "m");
          printf "%.1f", u[1] * 60 + u[2] + s[1] * 60 + s[2] }')
  after=$(ls "$work/corpus" | wc -l)
  # Fork mode's progress lines read "#RUNS: cov: C ft: F corp: N exec/s E ... time: Ts"; the
  # last one has the average over the whole run.
  execs=$( (grep -o 'exec/s:\? [0-9]*' "$work/fuzz.log" || true) | tail -1 | grep -o '[0-9]*$' || true)
  findings=$(ls "$work/findings" | wc -l)
  [ "$findings" = 0 ] || found=1
  [ "$rc" = 0 ] || [ "$findings" != 0 ] || echo "fuzz.sh: $target exited $rc" >&2
  printf '%-16s %8s %8s %8s %8s %9s\n' "$target" "$cpu" "${execs:-?}" "$before" "$after" "$findings"
  if [ "${MERGE:-0}" = 1 ]; then
    rm -rf "$work/merged"
    mkdir "$work/merged"
    "$bin" -merge=1 "$work/merged" "$corpus" "$work/corpus" >"$work/merge.log" 2>&1
    find "$corpus" -type f ! -name 'seed-*' -delete
    cp "$work/merged"/* "$corpus/"
    for seed in "$corpus"/seed-*; do  # merged copies are named by the SHA-1 of their bytes
      rm -f "$corpus/$(sha1sum "$seed" | cut -d' ' -f1)"
    done
  fi
done
[ $found = 0 ] || echo "fuzz.sh: findings in $build/fuzz-work/*/findings" >&2
exit $found
