#!/usr/bin/env bash
# The per-request log's cost (issue 18): the generator with and without --log FILE.FORMAT against
# `stampede serve --cores 1` (server on core 1, generator on core 0, -k -c 10 --cores 1).
# 1. Instructions per request under callgrind: -n 2N minus -n N, so start-up cancels; one
#    round per setting, alternated.
# 2. CPU per request (user+system over -n M) under /usr/bin/time, ROUNDS pairs back to back (the
#    log first in even rounds, so drift of the host cancels); prints each round's ratio (with /
#    without) and their median. The target: at most 1.3.
# MODE: plain (one request at a time per connection), pipeline (--pipeline 16) or h2 (--http2
# --streams 10, h2c to the same server).
#   bench/log.sh [ROUNDS=5] [N=20000] [M=200000] [FORMAT=csv] [MODE=plain]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=5 N=20000 M=200000 FORMAT=csv MODE=plain -- "$@"
case "$MODE" in
  plain) mode=() ;;
  pipeline) mode=(--pipeline 16) ;;
  h2) mode=(--http2 --streams 10) ;;
  *) echo "bench/log.sh: MODE must be plain, pipeline or h2, not '$MODE'" >&2; exit 2 ;;
esac

port=$(free_port)
taskset -c 1 "$STAMPEDE" serve --port "$port" --cores 1 --quiet > /dev/null &
BENCH_PIDS+=($!)
wait_port "$port"
url="http://127.0.0.1:$port/"
logfile="$BENCH_TMP/run.$FORMAT"
echo "mode: $MODE ${mode[*]}"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"

# ir N [--log FILE]: the instructions (Ir) of one generator run of N requests under callgrind.
ir() {
  local n=$1; shift
  taskset -c 0 valgrind --tool=callgrind -q --callgrind-out-file="$BENCH_TMP/cg.out" \
    "$STAMPEDE" -k -c 10 --cores 1 --quiet "${mode[@]}" -n "$n" "$@" "$url" > /dev/null
  awk '/^summary:/ { print $2 }' "$BENCH_TMP/cg.out"
  rm -f "$BENCH_TMP"/cg.out*
}

for setting in off on; do
  args=()
  [[ $setting == on ]] && args=(--log "$logfile")
  one=$(ir "$N" "${args[@]}")
  two=$(ir $((2 * N)) "${args[@]}")
  echo "callgrind log $setting: $(( (two - one) / N )) instructions/request ($two - $one over $N)"
done

# cpu_us [--log FILE]: the generator's user+system µs per request over M requests.
cpu_us() {
  local t="$BENCH_TMP/time"
  /usr/bin/time -f "%U %S" -o "$t" taskset -c 0 "$STAMPEDE" -k -c 10 --cores 1 --quiet \
    "${mode[@]}" -n "$M" "$@" "$url" > /dev/null
  awk -v m="$M" '{ printf "%.3f\n", ($1 + $2) * 1e6 / m }' "$t"
}

ratios="$BENCH_TMP/ratios"
: > "$ratios"
for r in $(seq 1 "$ROUNDS"); do
  if (( r % 2 )); then
    off=$(cpu_us); on=$(cpu_us --log "$logfile")
  else
    on=$(cpu_us --log "$logfile"); off=$(cpu_us)
  fi
  ratio=$(awk -v a="$on" -v b="$off" 'BEGIN { printf "%.3f", a / b }')
  echo "$ratio" >> "$ratios"
  echo "round $r: off $off µs/request, on $on µs/request, ratio $ratio"
done
echo "median ratio (on / off): $(median < "$ratios")"
echo "log: $(wc -l < "$logfile") lines, $(stat -c %s "$logfile") bytes"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
