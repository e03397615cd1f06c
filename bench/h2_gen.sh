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
ratios="$BENCH_TMP/ratios"
: > "$ratios"

# run NAME CMD...: pinned to core 1 under /usr/bin/time; records requests/s and CPU µs/request
# in $out and in $BENCH_TMP/last ("RPS US").
run() {
  local name=$1; shift
  local log="$BENCH_TMP/log" t="$BENCH_TMP/time" reqs rps us
  /usr/bin/time -f "%U %S" -o "$t" taskset -c 1 "$@" > "$log" 2>&1 || true
  case $name in
    h2load*)
      reqs=$(awk '/^requests:/ { print $8 }' "$log")   # "requests: N total, N started, N done, N succeeded"
      rps=$(awk '/^finished in/ { print $4 }' "$log") ;;  # "finished in Xs, R req/s, ..."
    stampede*)
      reqs=$(python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print(j["totalRequests"] - j["totalErrors"])' "$log" 2>/dev/null || echo 0)
      rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["effectiveRps"])' "$log" 2>/dev/null || echo 0) ;;
  esac
  us=$(awk -v t="$(awk '{ print $1 + $2 }' "$t")" -v n="${reqs:-0}" 'BEGIN { if (n > 0) printf "%.3f", t * 1e6 / n; else print "nan" }')
  echo "$name c=$CONNS ${rps:-0} $us" >> "$out"
  echo "${rps:-0} $us" > "$BENCH_TMP/last"
  printf '  %-28s %10.0f req/s  %7s µs CPU/req  (%s requests answered)\n' "$name" "${rps:-0}" "$us" "${reqs:-0}"
}

stampede_run() { run "stampede --http2 -m$STREAMS" "$STAMPEDE" --http2 -c "$CONNS" --streams "$STREAMS" -n "$REQUESTS" --cores 1 --quiet --json "$url"; }
h2load_run() { run "h2load -m$STREAMS" h2load -t1 -c "$CONNS" -m "$STREAMS" -n "$REQUESTS" "$url"; }

echo "load: $(uptime)"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  if (( round % 2 )); then
    h2load_run; h=$(cat "$BENCH_TMP/last"); stampede_run; s=$(cat "$BENCH_TMP/last")
  else
    stampede_run; s=$(cat "$BENCH_TMP/last"); h2load_run; h=$(cat "$BENCH_TMP/last")
  fi
  awk -v s="$s" -v h="$h" 'BEGIN { split(s, a, " "); split(h, b, " "); if (b[1] > 0 && b[2] > 0) printf "%.4f %.4f\n", a[1] / b[1], a[2] / b[2] }' >> "$ratios"
done

echo
echo "median over rounds (requests/s, CPU µs per request):"
print_medians "$out"
printf '  stampede / h2load, median of per-round ratios: requests/s %.3f, CPU per request %.3f\n' \
  "$(awk '{ print $1 }' "$ratios" | median)" "$(awk '{ print $2 }' "$ratios" | median)"
printf '  rounds (rps ratio, CPU ratio): %s\n' "$(awk '{ printf "(%s, %s) ", $1, $2 }' "$ratios")"
echo "load: $(uptime)"
