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

# run NAME CMD...: pinned to core 0 under /usr/bin/time; records requests/s and CPU µs/request
# (record_run).
run() {
  local name=$1 log="$BENCH_TMP/log" reqs rps; shift
  timed_run 0 "$@"
  case $name in
    wrk*) reqs=$(awk '/requests in/ { print $1 }' "$log"); rps=$(awk '/Requests\/sec/ { print $2 }' "$log") ;;
    stampede*) reqs=$(log_json 'j["totalRequests"]'); rps=$(log_json 'j["effectiveRps"]') ;;
  esac
  record_run "$name" "$rps" "$reqs" "$BENCH_TMP/time"
}

version=$("$STAMPEDE" --version | awk '{ print $NF }')
same_request=(-H "accept: */*" -H "user-agent: stampede/$version" -H "Connection: keep-alive")
stampede_run() { run "stampede --pipeline $DEPTH" "$STAMPEDE" -k -c "$CONNS" --pipeline "$DEPTH" -t "$SECS" --cores 1 --quiet --json "$url"; }
wrk_run() { run "wrk pipeline.lua $DEPTH" wrk -t1 -c "$CONNS" -d "${SECS}s" "${same_request[@]}" -s bench/lua/wrk_pipeline.lua "$url" -- "$DEPTH"; }

alternate_rounds wrk_run stampede_run

echo
echo "median over rounds (requests/s, CPU µs per request):"
print_medians "$out"
print_ratios wrk " (target <= 0.5)"
