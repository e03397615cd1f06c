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

ratios="$BENCH_TMP/ratios"
: > "$ratios"

# run NAME PORT PID: h2load against the server at PORT; records "RPS US" in $BENCH_TMP/last.
run() {
  local name=$1 port=$2 pid=$3 log="$BENCH_TMP/log" before after reqs rps us
  before=$(server_cpu "$pid")
  taskset -c 1 h2load -t1 -c "$CONNS" -m "$STREAMS" -n "$REQUESTS" "http://127.0.0.1:$port/" > "$log" 2>&1 || true
  after=$(server_cpu "$pid")
  reqs=$(awk '/^requests:/ { print $8 }' "$log")      # "requests: N total, N started, N done, N succeeded, ..."
  rps=$(awk '/^finished in/ { print $4 }' "$log")
  us=$(awk -v t="$(awk -v a="$after" -v b="$before" 'BEGIN { print a - b }')" -v n="${reqs:-0}" \
    'BEGIN { if (n > 0) printf "%.3f", t * 1e6 / n; else print "nan" }')
  echo "$name c=$CONNS m=$STREAMS ${rps:-0} $us" >> "$out"
  echo "${rps:-0} $us" > "$BENCH_TMP/last"
  printf '  %-24s %10.0f req/s  %7s µs server CPU/req  (%s succeeded)\n' "$name" "${rps:-0}" "$us" "${reqs:-0}"
}

echo "load: $(uptime)"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  if (( round % 2 )); then
    run nginx "$nport" "$npid"; n=$(cat "$BENCH_TMP/last")
    run "stampede serve" "$sport" "$spid"; s=$(cat "$BENCH_TMP/last")
  else
    run "stampede serve" "$sport" "$spid"; s=$(cat "$BENCH_TMP/last")
    run nginx "$nport" "$npid"; n=$(cat "$BENCH_TMP/last")
  fi
  awk -v s="$s" -v n="$n" 'BEGIN { split(s, a, " "); split(n, b, " "); if (b[1] > 0 && b[2] > 0) printf "%.4f %.4f\n", a[1] / b[1], a[2] / b[2] }' >> "$ratios"
done

echo
echo "median over rounds (requests/s, server CPU µs per request):"
print_medians "$out"
printf '  stampede serve / nginx, median of per-round ratios: requests/s %.3f, CPU per request %.3f\n' \
  "$(awk '{ print $1 }' "$ratios" | median)" "$(awk '{ print $2 }' "$ratios" | median)"
printf '  rounds (rps ratio, CPU ratio): %s\n' "$(awk '{ printf "(%s, %s) ", $1, $2 }' "$ratios")"
echo "load: $(uptime)"
