#!/usr/bin/env bash
# Pipelining benchmark (issue 16): stampede --pipeline 16 vs wrk with its pipeline script at the
# same depth (bench/lua/wrk_pipeline.lua, the equivalent of wrk's scripts/pipeline.lua), against
# one nginx worker returning 200 "OK". nginx on core 1, the generator on core 0, -k -c 10, each
# round's pair back to back (wrk first in odd rounds, so drift of the host cancels). CPU per
# request is the generator's user+system time over the requests it reports (stampede:
# totalRequests; wrk: "N requests in"). Prints the medians and the median of the per-round
# stampede / wrk ratios of CPU per request (target: at most 0.5) and of requests/s. wrk sends
# the request stampede sends by default (the same headers), so nginx does the same work.
#   bench/pipeline.sh [ROUNDS=5] [SECONDS=5] [DEPTH=16]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=5 SECS=5 DEPTH=16 -- "$@"
CONNS=10

nginx_target 1
ratios="$BENCH_TMP/ratios"
: > "$ratios"

# run NAME CMD...: pinned to core 0 under /usr/bin/time; records requests/s and CPU µs/request
# in $out and in $BENCH_TMP/last ("RPS US").
run() {
  local name=$1; shift
  local log="$BENCH_TMP/log" t="$BENCH_TMP/time" reqs rps
  /usr/bin/time -f "%U %S" -o "$t" taskset -c 0 "$@" > "$log" 2>&1 || true
  case $name in
    wrk*)
      reqs=$(awk '/requests in/ { print $1 }' "$log")
      rps=$(awk '/Requests\/sec/ { print $2 }' "$log") ;;
    stampede*)
      reqs=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totalRequests"])' "$log" 2>/dev/null || echo 0)
      rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["effectiveRps"])' "$log" 2>/dev/null || echo 0) ;;
  esac
  local us
  us=$(awk -v t="$(awk '{ print $1 + $2 }' "$t")" -v n="${reqs:-0}" 'BEGIN { if (n > 0) printf "%.3f", t * 1e6 / n; else print "nan" }')
  echo "$name c=$CONNS ${rps:-0} $us" >> "$out"
  echo "${rps:-0} $us" > "$BENCH_TMP/last"
  printf '  %-28s %10.0f req/s  %7s µs CPU/req\n' "$name" "${rps:-0}" "$us"
}

version=$("$STAMPEDE" --version | awk '{ print $NF }')
same_request=(-H "accept: */*" -H "user-agent: stampede/$version" -H "Connection: keep-alive")
stampede_run() { run "stampede --pipeline $DEPTH" "$STAMPEDE" -k -c "$CONNS" --pipeline "$DEPTH" -t "$SECS" --cores 1 --quiet --json "$url"; }
wrk_run() { run "wrk pipeline.lua $DEPTH" wrk -t1 -c "$CONNS" -d "${SECS}s" "${same_request[@]}" -s bench/lua/wrk_pipeline.lua "$url" -- "$DEPTH"; }

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  if (( round % 2 )); then
    wrk_run; w=$(cat "$BENCH_TMP/last"); stampede_run; s=$(cat "$BENCH_TMP/last")
  else
    stampede_run; s=$(cat "$BENCH_TMP/last"); wrk_run; w=$(cat "$BENCH_TMP/last")
  fi
  awk -v s="$s" -v w="$w" 'BEGIN { split(s, a, " "); split(w, b, " "); if (b[1] > 0 && b[2] > 0) printf "%.4f %.4f\n", a[1] / b[1], a[2] / b[2] }' >> "$ratios"
done

echo
echo "median over rounds (requests/s, CPU µs per request):"
print_medians "$out"
printf '  stampede / wrk, median of per-round ratios: requests/s %.3f, CPU per request %.3f (target <= 0.5)\n' \
  "$(awk '{ print $1 }' "$ratios" | median)" "$(awk '{ print $2 }' "$ratios" | median)"
printf '  rounds (rps ratio, CPU ratio): %s\n' "$(awk '{ printf "(%s, %s) ", $1, $2 }' "$ratios")"
