#!/usr/bin/env bash
# Pacer benchmark (issue 4): CPU per request of stampede --rps at 80% of what wrk reaches on one
# nginx worker, against stampede's closed loop on the same nginx. nginx on core 1, the generator
# on core 0; per round: wrk (the reference rate), stampede closed loop, stampede --rps. Prints
# the medians, the ratio (target: --rps within 10% of the closed loop), and the pacer's accuracy
# (achieved rate, send lag p99, late requests). wrk2 is not packaged in Debian: its method (the
# corrected histogram) is what --rps implements, the tool itself is not run.
#   bench/rate.sh [ROUNDS=5] [SECONDS=5] [CONNECTIONS=10]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
ROUNDS=${1:-5}
SECS=${2:-5}
CONNS=${3:-10}
STAMPEDE=${STAMPEDE:-build/stampede}
port=$(free_port)
start_nginx 1 "$port"
url="http://127.0.0.1:$port/"
out="$BENCH_TMP/results"
: > "$out"

# timed CMD...: runs CMD pinned to core 0 under /usr/bin/time; output in $BENCH_TMP/log, CPU
# seconds (user + system) printed.
timed() {
  /usr/bin/time -f "%U %S" -o "$BENCH_TMP/time" taskset -c 0 "$@" > "$BENCH_TMP/log" 2>&1 || true
  awk '{ print $1 + $2 }' "$BENCH_TMP/time"
}

# json KEY...: a field of stampede's JSON report in $BENCH_TMP/log (nested keys in order).
json() {
  python3 -c 'import json,sys
v = json.load(open(sys.argv[1]))
for k in sys.argv[2:]: v = v[k]
print(v)' "$BENCH_TMP/log" "$@"
}

for round in $(seq 1 "$ROUNDS"); do
  timed wrk -t1 -c "$CONNS" -d "${SECS}s" "$url" > /dev/null
  wrk_rps=$(awk '/Requests\/sec/ { print $2 }' "$BENCH_TMP/log")
  target=$(awk -v r="$wrk_rps" 'BEGIN { printf "%d", r * 0.8 }')

  cpu=$(timed "$STAMPEDE" -k -c "$CONNS" -t "$SECS" --cores 1 --quiet --json "$url")
  closed_us=$(awk -v c="$cpu" -v n="$(json totalRequests)" 'BEGIN { printf "%.3f", c * 1e6 / n }')
  closed_rps=$(json effectiveRps)

  cpu=$(timed "$STAMPEDE" -k -c "$CONNS" -t "$SECS" --cores 1 --quiet --json --rps "$target" "$url")
  paced_us=$(awk -v c="$cpu" -v n="$(json totalRequests)" 'BEGIN { printf "%.3f", c * 1e6 / n }')
  achieved=$(json achievedRps)
  lag99=$(json sendLagMs 99)
  late=$(json lateRequests)
  total=$(json totalRequests)

  echo "$wrk_rps $closed_rps $closed_us $target $achieved $paced_us $lag99 $late $total" >> "$out"
  printf 'round %s: wrk %.0f req/s; closed loop %s req/s %s µs/req; --rps %s: %s req/s %s µs/req, lag p99 %s ms, late %s of %s\n' \
    "$round" "$wrk_rps" "$closed_rps" "$closed_us" "$target" "$achieved" "$paced_us" "$lag99" "$late" "$total"
done

col() { awk -v c="$1" '{ print $c }' "$out" | median; }
echo
echo "median over $ROUNDS rounds:"
printf '  wrk (reference rate)        %10.0f req/s\n' "$(col 1)"
printf '  stampede closed loop        %10.0f req/s  %7.3f µs CPU/req\n' "$(col 2)" "$(col 3)"
printf '  stampede --rps (80%% of wrk) %10.0f req/s  %7.3f µs CPU/req  (target %.0f)\n' "$(col 5)" "$(col 6)" "$(col 4)"
printf '  --rps / closed loop CPU per request: %.3f (target <= 1.10)\n' \
  "$(awk -v p="$(col 6)" -v c="$(col 3)" 'BEGIN { print p / c }')"
printf '  achieved / target rate: %.4f; send lag p99 %.3f ms; late requests (median) %.0f\n' \
  "$(awk -v a="$(col 5)" -v t="$(col 4)" 'BEGIN { print a / t }')" "$(col 7)" "$(col 8)"
