#!/usr/bin/env bash
# TLS generator benchmark (issue 7): stampede vs wrk (Debian's wrk speaks TLS) against one nginx
# worker serving HTTPS (TLS 1.3, a throwaway P-256 certificate) and returning 200 "OK". nginx on
# core 1, the generator on core 0, tools alternated round by round, keep-alive (-k) at -c 10
# and -c 100, plus stampede without -k (a handshake per request, resumed); prints the median
# requests/s and CPU µs per request of each, nginx's core busy share (1.00: nginx is the limit,
# and the throughput measures nginx), and the median of the per-round stampede/wrk ratios (each
# round's pair runs back to back, wrk first in odd rounds, so drift of the host cancels).
# nginx is the limit, so the request's weight on nginx sets the throughput: the paired wrk sends
# the request stampede sends by default (loadtest's headers: accept and user-agent, and
# Connection: keep-alive, 68 bytes more than wrk's bare GET, ~3% of nginx's CPU per request in
# perf), and wrk with its bare GET runs too, as "wrk (bare GET)", outside the ratios.
#   bench/tls.sh [ROUNDS=5] [SECONDS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
ROUNDS=${1:-5}
SECS=${2:-5}

nginx_target 1 tls

nginx_worker=$(pgrep -P "${BENCH_PIDS[-1]}" | head -1)
ratios="$BENCH_TMP/ratios"
: > "$ratios"

# run NAME CONNS CMD...: runs CMD pinned to core 0 under /usr/bin/time; records rps and CPU/req,
# and nginx's busy share of its core over the run (in $BENCH_TMP/busy).
run() {
  local name=$1 conns=$2; shift 2
  local log="$BENCH_TMP/log" t="$BENCH_TMP/time"
  local n0 t0 n1 t1
  n0=$(cpu_seconds "$nginx_worker"); t0=$(date +%s.%N)
  /usr/bin/time -f "%U %S" -o "$t" taskset -c 0 "$@" > "$log" 2>&1 || true
  n1=$(cpu_seconds "$nginx_worker"); t1=$(date +%s.%N)
  awk -v a="$n0" -v b="$n1" -v s="$t0" -v e="$t1" 'BEGIN { printf "%.2f", (b - a) / (e - s) }' > "$BENCH_TMP/busy"
  local rps
  case $name in
    wrk*) rps=$(awk '/Requests\/sec/ { print $2 }' "$log") ;;
    stampede*) rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["effectiveRps"])' "$log" 2>/dev/null || echo 0) ;;
  esac
  local cpu; cpu=$(awk '{ print $1 + $2 }' "$t")
  local reqs; reqs=$(awk -v r="${rps:-0}" -v s="$SECS" 'BEGIN { print r * s }')
  local us; us=$(awk -v c="$cpu" -v n="$reqs" 'BEGIN { if (n > 0) printf "%.2f", c * 1e6 / n; else print "nan" }')
  echo "$name c=$conns $rps $us" >> "$out"
  echo "${rps:-0}" > "$BENCH_TMP/rps"
  printf '  %-22s c=%-4s %10.0f req/s  %7s µs CPU/req  nginx core busy %s\n' "$name" "$conns" "${rps:-0}" "$us" "$(cat "$BENCH_TMP/busy")"
}

version=$("$STAMPEDE" --version | awk '{ print $NF }')
same_request=(-H "accept: */*" -H "user-agent: stampede/$version" -H "Connection: keep-alive")

# pair CONNS ROUND: stampede -k and wrk at CONNS, back to back (wrk first in odd rounds); records
# the stampede/wrk throughput ratio.
pair() {
  local c=$1 round=$2 s w
  if (( round % 2 )); then
    run "wrk" "$c" wrk -t1 -c "$c" -d "${SECS}s" "${same_request[@]}" "$url"; w=$(cat "$BENCH_TMP/rps")
    run "stampede -k" "$c" "$STAMPEDE" -k -c "$c" -t "$SECS" --cores 1 --quiet --json --insecure "$url"; s=$(cat "$BENCH_TMP/rps")
  else
    run "stampede -k" "$c" "$STAMPEDE" -k -c "$c" -t "$SECS" --cores 1 --quiet --json --insecure "$url"; s=$(cat "$BENCH_TMP/rps")
    run "wrk" "$c" wrk -t1 -c "$c" -d "${SECS}s" "${same_request[@]}" "$url"; w=$(cat "$BENCH_TMP/rps")
  fi
  awk -v c="$c" -v s="$s" -v w="$w" 'BEGIN { if (w > 0) printf "%s %.4f\n", c, s / w }' >> "$ratios"
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  for c in 10 100; do
    pair "$c" "$round"
    run "wrk (bare GET)" "$c" wrk -t1 -c "$c" -d "${SECS}s" "$url"
  done
  run "stampede (no -k)" 10 "$STAMPEDE" -c 10 -t "$SECS" --cores 1 --quiet --json --insecure "$url"
done

echo
echo "median over rounds (requests/s, CPU µs per request):"
print_medians "$out"
for c in 10 100; do
  printf '  stampede / wrk throughput at -c %-3s median of per-round ratios %.3f  (rounds: %s)\n' "$c" \
    "$(awk -v c="$c" '$1 == c { print $2 }' "$ratios" | median)" "$(awk -v c="$c" '$1 == c { printf "%s ", $2 }' "$ratios")"
done
