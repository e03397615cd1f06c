#!/usr/bin/env bash
# The test server with HTTP/2 (issue 17): h2load -t1 -c CONNS -m STREAMS -n REQUESTS against
# `stampede serve --cores 1` and against nginx (one worker, `listen ... http2`, h2c with prior
# knowledge), both answering `200` with the 2-byte body "OK", each server pinned to core 0 and
# h2load to core 1; each round runs both, alternating which goes first, so drift of the host
# cancels. CPU per request is the server's user+system time from /proc/PID/stat (nginx: master
# and worker; a delta over the run) over h2load's succeeded requests. Prints the medians and the
# median of the per-round stampede / nginx ratios of requests/s and CPU per request.
#   bench/serve_h2.sh [ROUNDS=3] [REQUESTS=200000] [CONNS=10] [STREAMS=10]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=3 REQUESTS=200000 CONNS=10 STREAMS=10 -- "$@"
require_tools h2load nginx taskset

sport=$(free_port)
taskset -c 0 "$STAMPEDE" serve --cores 1 --quiet --port "$sport" > /dev/null &
spid=$!
BENCH_PIDS+=($spid)
wait_port "$sport"

nport=$(free_port)
start_nginx 0 "$nport" h2
npid=${BENCH_PIDS[-1]}

run_nginx() { h2load_run nginx "http://127.0.0.1:$nport/" "$npid" server_cpu server; }
run_stampede() { h2load_run "stampede serve" "http://127.0.0.1:$sport/" "$spid" server_cpu server; }

echo "load: $(uptime)"
alternate_rounds run_nginx run_stampede

echo
echo "median over rounds (requests/s, server CPU µs per request):"
print_medians "$out"
print_ratios nginx
echo "load: $(uptime)"
