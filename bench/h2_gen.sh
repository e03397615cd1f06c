#!/usr/bin/env bash
# HTTP/2 generator benchmark (issue 17): stampede --http2 --streams M vs h2load -m M against one
# target pinned to core 0, the generator on core 1, the same -c and -n, each round's pair back to
# back (h2load first in odd rounds, so drift of the host cancels). The target (TARGET=):
#   nginx (the default, the issue's): one worker, `listen ... http2` (h2c with prior knowledge),
#         `return 200 "OK"` (bench/lib/common.sh's start_nginx);
#   serve: `stampede serve --cores 1` (h2c with prior knowledge, the same 2-byte body).
# CPU per request is the generator's user+system time (/usr/bin/time) over the requests it
# reports as answered (stampede: totalRequests - totalErrors; h2load: "N succeeded"). Prints the medians
# and the median of the per-round stampede / h2load ratios of requests/s and CPU per request.
#   [TARGET=nginx|serve] bench/h2_gen.sh [ROUNDS=3] [REQUESTS=200000] [CONNS=10] [STREAMS=10]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=3 REQUESTS=200000 CONNS=10 STREAMS=10 -- "$@"
TARGET=${TARGET:-nginx}
command -v h2load > /dev/null || { echo "h2load is missing (apt-get install nghttp2-client)" >&2; exit 1; }

case $TARGET in
  nginx) nginx_target 0 h2 ;;
  serve)
    port=$(free_port)
    taskset -c 0 "$STAMPEDE" serve --cores 1 --quiet --port "$port" > /dev/null &
    BENCH_PIDS+=($!)
    wait_port "$port"
    url="http://127.0.0.1:$port/" ;;
  *) echo "h2_gen.sh: TARGET is nginx or serve, not '$TARGET'" >&2; exit 2 ;;
esac
echo "target: $TARGET at $url"

# run NAME CMD...: pinned to core 1 under /usr/bin/time; records requests/s and CPU µs/request
# (record_run).
run() {
  local name=$1 log="$BENCH_TMP/log" reqs rps; shift
  timed_run 1 "$@"
  case $name in
    h2load*)
      reqs=$(awk '/^requests:/ { print $8 }' "$log")   # "requests: N total, N started, N done, N succeeded"
      rps=$(awk '/^finished in/ { print $4 }' "$log") ;;  # "finished in Xs, R req/s, ..."
    stampede*) reqs=$(log_json 'j["totalRequests"] - j["totalErrors"]'); rps=$(log_json 'j["effectiveRps"]') ;;
  esac
  record_run "$name" "$rps" "$reqs" "$BENCH_TMP/time" "  (${reqs:-0} requests answered)"
}

stampede_run() { run "stampede --http2 -m$STREAMS" "$STAMPEDE" --http2 -c "$CONNS" --streams "$STREAMS" -n "$REQUESTS" --cores 1 --quiet --json "$url"; }
h2load_run() { run "h2load -m$STREAMS" h2load -t1 -c "$CONNS" -m "$STREAMS" -n "$REQUESTS" "$url"; }

echo "load: $(uptime)"
alternate_rounds h2load_run stampede_run

echo
echo "median over rounds (requests/s, CPU µs per request):"
print_medians "$out"
print_ratios h2load
echo "load: $(uptime)"
