#!/usr/bin/env bash
# WebSocket benchmark (issue 7): the generator on ws:// against `stampede serve --cores 1` and,
# for the record, against an echo server from the npm package ws (tests/peers). Servers pinned
# to core 1, the generator (--cores 1) to core 0, servers alternated round by round. Prints
# messages per second and CPU microseconds per message for the generator and the server
# (medians over the rounds).
#   bench/ws.sh [ROUNDS=3] [SECONDS=5] [CLIENTS=50]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=3 SECS=5 CLIENTS=50 -- "$@"
ECHO=tests/peers/ws_echo_server.mjs
[ -d tests/peers/node_modules/ws ] || (cd tests/peers && npm ci --silent --no-audit --no-fund >/dev/null)
NICE="nice -n ${BENCH_NICE:-0}"


# start_server NAME: one server pinned to core 1 on a port it picks; sets SERVER_PID and PORT.
start_server() {
  local ready="$BENCH_TMP/$1.port"
  rm -f "$ready"
  case $1 in
    stampede) $NICE taskset -c 1 "$STAMPEDE" serve --cores 1 --quiet --port 0 \
                --ready-file "$ready" > /dev/null & ;;
    ws) $NICE taskset -c 1 node "$ECHO" "$ready" > /dev/null & ;;
  esac
  SERVER_PID=$!
  BENCH_PIDS+=("$SERVER_PID")
  for _ in $(seq 1 500); do [ -s "$ready" ] && break; sleep 0.01; done
  PORT=$(cat "$ready")
}

# run_generator URL: one run pinned to core 0; prints "messages/s generator-CPU-seconds errors".
run_generator() {
  $NICE taskset -c 0 python3 - "$STAMPEDE" "$1" "$SECS" "$CLIENTS" <<'PY'
import json, resource, subprocess, sys
stampede, url, secs, clients = sys.argv[1:]
run = subprocess.run([stampede, "-t", secs, "-c", clients, "--cores", "1", "--quiet", "--json", url],
                     capture_output=True, text=True, check=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
result = json.loads(run.stdout)
print(result["effectiveRps"], usage.ru_utime + usage.ru_stime, result["totalErrors"])
PY
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  for server in stampede ws; do
    start_server "$server"
    url="ws://127.0.0.1:$PORT/bench"
    cpu0=$(server_cpu "$SERVER_PID")
    read -r rate gen_cpu errors < <(run_generator "$url")
    cpu1=$(server_cpu "$SERVER_PID")
    stop_pid "$SERVER_PID"
    line=$(awk -v r="$rate" -v g="$gen_cpu" -v a="$cpu0" -v b="$cpu1" -v s="$SECS" \
      'BEGIN { n = r * s; if (n <= 0) n = 1; printf "%.0f %.2f %.2f", r, g * 1e6 / n, (b - a) * 1e6 / n }')
    echo "$server $line $errors" >> "$out"
    read -r r g sv <<< "$line"
    printf '  %-9s %10s msg/s %7s µs generator CPU/msg %7s µs server CPU/msg  errors %s\n' \
      "$server" "$r" "$g" "$sv" "$errors"
  done
done

echo
echo "medians over $ROUNDS rounds, -c $CLIENTS, ${SECS}s each (generator: stampede --cores 1)"
printf '%-10s %12s %20s %18s\n' server "msg/s" "generator µs/msg" "server µs/msg"
for server in stampede ws; do
  rate=$(awk -v s="$server" '$1 == s { print $2 }' "$out" | median)
  gen=$(awk -v s="$server" '$1 == s { print $3 }' "$out" | median)
  srv=$(awk -v s="$server" '$1 == s { print $4 }' "$out" | median)
  printf '%-10s %12.0f %20.2f %18.2f\n' "$server" "$rate" "$gen" "$srv"
done
