#!/usr/bin/env bash
# Generator benchmark (issue 2): stampede vs wrk (and ab, loadtest, autocannon for the record)
# against one nginx worker returning 200 "OK". nginx on core 1, the generator on core 0, tools
# alternated round by round; prints the median requests/s and CPU µs per request of each.
#   bench/loadgen.sh [ROUNDS=5] [SECONDS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
ROUNDS=${1:-5}
SECS=${2:-5}
PEERS=bench/peers/node_modules/.bin
[ -x "$PEERS/loadtest" ] || (cd bench/peers && npm install --silent --no-audit --no-fund >/dev/null)
nginx_target 1

# run NAME CONNS CMD...: runs CMD pinned to core 0 under /usr/bin/time; records rps and CPU/req.
run() {
  local name=$1 conns=$2; shift 2
  local log="$BENCH_TMP/log" t="$BENCH_TMP/time"
  /usr/bin/time -f "%U %S" -o "$t" taskset -c 0 "$@" > "$log" 2>&1 || true
  local rps
  case $name in
    wrk*) rps=$(awk '/Requests\/sec/ { print $2 }' "$log") ;;
    ab*) rps=$(awk '/Requests per second/ { print $4 }' "$log") ;;
    loadtest*) rps=$(awk -F: '/Effective rps/ { gsub(/ /, "", $2); print $2 }' "$log") ;;
    autocannon*) rps=$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["requests"]["total"]/d["duration"])' "$log" 2>/dev/null || echo 0) ;;
    stampede*) rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["effectiveRps"])' "$log") ;;
  esac
  local cpu; cpu=$(awk '{ print $1 + $2 }' "$t")
  local reqs; reqs=$(awk -v r="${rps:-0}" -v s="$SECS" 'BEGIN { print r * s }')
  local us; us=$(awk -v c="$cpu" -v n="$reqs" 'BEGIN { if (n > 0) printf "%.2f", c * 1e6 / n; else print "nan" }')
  echo "$name c=$conns $rps $us" >> "$out"
  printf '  %-22s c=%-4s %10.0f req/s  %7s µs CPU/req\n' "$name" "$conns" "${rps:-0}" "$us"
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  for c in 10 100; do
    run "stampede -k" "$c" "$STAMPEDE" -k -c "$c" -t "$SECS" --cores 1 --quiet --json "$url"
    run "wrk" "$c" wrk -t1 -c "$c" -d "${SECS}s" "$url"
  done
  run "stampede (no -k)" 10 "$STAMPEDE" -c 10 -t "$SECS" --cores 1 --quiet --json "$url"
  run "ab (no -k)" 10 ab -q -c 10 -t "$SECS" -n 100000000 "$url"
  if [ "${WITH_NODE:-1}" = 1 ] && [ "$round" -le 3 ]; then
    run "loadtest -k" 10 node "$PEERS/loadtest" -k -c 10 -t "$SECS" --quiet "$url"
    run "autocannon" 10 node "$PEERS/autocannon" -c 10 -d "$SECS" -j "$url"
  fi
done

echo
echo "median over rounds (requests/s, CPU µs per request):"
print_medians "$out"
