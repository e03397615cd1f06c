#!/usr/bin/env bash
# Test-server benchmark (issue 3): `stampede serve --cores 1` against nginx (one worker,
# `return 200 "OK"`) and loadtest 8's test server, each pinned to core 1 with wrk on core 0,
# servers alternated round by round. Then the delay case (--delay 50, wrk -c 1000: the target
# is 1000 / 0.05 s = 20 000 req/s) and the resident set with 10 000 idle keep-alive connections.
# Prints a table of medians.
#   bench/serve.sh [ROUNDS=3] [SECONDS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
ROUNDS=${1:-3}
SECS=${2:-5}
TESTSERVER=bench/peers/node_modules/loadtest/bin/testserver.js
[ -f "$TESTSERVER" ] || (cd bench/peers && npm install --silent --no-audit --no-fund >/dev/null)
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true  # 10 000 connections on each side
# BENCH_NICE=-10 (as root) gives the measured processes priority on a machine others also use.
NICE="nice -n ${BENCH_NICE:-0}"


# start_server NAME PORT: starts one server pinned to core 1; sets SERVER_PID.
start_server() {
  case $1 in
    stampede) $NICE taskset -c 1 "$STAMPEDE" serve --cores 1 --quiet --port "$2" > /dev/null & ;;
    nginx)
      start_nginx 1 "$2"
      SERVER_PID=${BENCH_PIDS[-1]}
      renice -n "${BENCH_NICE:-0}" -p "$SERVER_PID" $(pgrep -P "$SERVER_PID") > /dev/null
      return ;;
    loadtest) $NICE taskset -c 1 node "$TESTSERVER" --cores 1 "$2" > /dev/null & ;;
  esac
  SERVER_PID=$!
  BENCH_PIDS+=("$SERVER_PID")
  wait_port "$2"
}

# wrk_rps CONNS URL: requests per second of one wrk run pinned to core 0.
wrk_rps() {
  $NICE taskset -c 0 wrk -t1 -c "$1" -d "${SECS}s" "$2" 2>&1 | awk '/Requests\/sec/ { print $2 }'
}

# wrk_run CONNS URL: one wrk run pinned to core 0, timed; sets RPS, WRK_US (wrk's own CPU µs
# per request: what each answer costs the client) and WRK_BUSY (% of its core wrk used).
wrk_run() {
  local times="$BENCH_TMP/wrk-times" text
  text=$($NICE /usr/bin/time -f '%e %U %S' -o "$times" taskset -c 0 wrk -t1 -c "$1" \
    -d "${SECS}s" "$2" 2>&1)
  RPS=$(awk '/Requests\/sec/ { print $2 }' <<< "$text")
  local reqs
  reqs=$(awk '/requests in/ { print $1 }' <<< "$text")
  read -r WRK_US WRK_BUSY < <(awk -v n="${reqs:-0}" 'END {
    printf "%.2f %.0f\n", (n > 0) ? ($2 + $3) * 1e6 / n : 0, ($1 > 0) ? ($2 + $3) * 100 / $1 : 0
  }' "$times")
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  for server in stampede nginx loadtest; do
    port=$(free_port)
    start_server "$server" "$port"
    for c in 10 256; do
      $NICE taskset -c 0 wrk -t1 -c "$c" -d 1s "http://127.0.0.1:$port/" > /dev/null 2>&1  # warm-up
      cpu0=$(server_cpu "$SERVER_PID")
      wrk_run "$c" "http://127.0.0.1:$port/"
      rps=$RPS
      us=$(awk -v a="$cpu0" -v b="$(server_cpu "$SERVER_PID")" -v r="${rps:-0}" -v s="$SECS" \
        'BEGIN { print (r > 0) ? (b - a) * 1e6 / (r * s) : 0 }')
      echo "$server $c ${rps:-0} $us $WRK_US $WRK_BUSY" >> "$out"
      printf '  %-9s c=%-4s %10.0f req/s %7.2f µs server CPU/req %7.2f µs wrk CPU/req (wrk %s%%)\n' \
        "$server" "$c" "${rps:-0}" "$us" "$WRK_US" "$WRK_BUSY"
    done
    stop_pid "$SERVER_PID"
  done
done

echo "delay 50 ms, wrk -c 1000"
port=$(free_port)
$NICE taskset -c 1 "$STAMPEDE" serve --cores 1 --quiet --delay 50 --port "$port" > /dev/null &
SERVER_PID=$!
BENCH_PIDS+=("$SERVER_PID")
wait_port "$port"
for round in $(seq 1 "$ROUNDS"); do
  rps=$(wrk_rps 1000 "http://127.0.0.1:$port/")
  echo "delay 1000 ${rps:-0}" >> "$out"
  printf '  round %s %10.0f req/s\n' "$round" "${rps:-0}"
done
stop_pid "$SERVER_PID"

# The idle client: opens N keep-alive connections, one request on each, then holds them (at
# most 60 s) until killed; writes READY once all are open.
cat > "$BENCH_TMP/hold_idle.py" <<'PY'
import socket, sys, time
port, n, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
conns = []
for i in range(n):
    s = socket.create_connection(("127.0.0.1", port))
    s.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n\r\n")
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        if not chunk:
            sys.exit("connection %d closed" % i)
        data += chunk
    conns.append(s)
open(ready, "w").write(str(len(conns)))
time.sleep(60)
PY

# rss_kib PID: resident set of the process (and its children: nginx's worker).
rss_kib() {
  local total=0 p
  for p in "$1" $(pgrep -P "$1" || true); do
    total=$((total + $(awk '/^VmRSS/ { print $2 }' "/proc/$p/status")))
  done
  echo "$total"
}

echo "resident set with 10 000 idle keep-alive connections"
for server in stampede nginx; do
  port=$(free_port)
  start_server "$server" "$port"
  ready="$BENCH_TMP/ready-$server"
  python3 "$BENCH_TMP/hold_idle.py" "$port" 10000 "$ready" &
  holder=$!
  BENCH_PIDS+=("$holder")
  for _ in $(seq 1 600); do [ -s "$ready" ] && break; sleep 0.1; done
  [ -s "$ready" ] || { echo "the idle connections did not open" >&2; exit 1; }
  kib=$(rss_kib "$SERVER_PID")
  echo "rss $server $kib" >> "$out"
  printf '  %-9s %8.1f MiB\n' "$server" "$(awk -v k="$kib" 'BEGIN { print k / 1024 }')"
  stop_pid "$holder"
  stop_pid "$SERVER_PID"
done

med() { awk -v s="$1" -v c="$2" -v f="${3:-3}" '$1 == s && $2 == c { print $f }' "$out" | median; }
echo
echo "medians of $ROUNDS rounds (wrk -t1, ${SECS} s; servers on core 1, wrk on core 0)"
printf '  %-28s %10s %10s %10s %8s %8s\n' "case" "stampede" "nginx" "loadtest" "vs nginx" "vs lt"
for c in 10 256; do
  s=$(med stampede "$c"); n=$(med nginx "$c"); l=$(med loadtest "$c")
  printf '  %-28s %10.0f %10.0f %10.0f %7.2fx %7.2fx\n' "keep-alive -c $c (req/s)" "$s" "$n" "$l" \
    "$(awk -v a="$s" -v b="$n" 'BEGIN { print a / b }')" "$(awk -v a="$s" -v b="$l" 'BEGIN { print a / b }')"
done
for c in 10 256; do
  printf '  %-28s %10.2f %10.2f %10.2f\n' "server CPU µs/req, -c $c" "$(med stampede "$c" 4)" \
    "$(med nginx "$c" 4)" "$(med loadtest "$c" 4)"
done
for c in 10 256; do
  printf '  %-28s %10.2f %10.2f %10.2f\n' "wrk CPU µs/req, -c $c" "$(med stampede "$c" 5)" \
    "$(med nginx "$c" 5)" "$(med loadtest "$c" 5)"
  printf '  %-28s %10.0f %10.0f %10.0f\n' "wrk core busy %, -c $c" "$(med stampede "$c" 6)" \
    "$(med nginx "$c" 6)" "$(med loadtest "$c" 6)"
done
d=$(med delay 1000)
printf '  %-28s %10.0f %10s %10s   target 20000 +/- 5%%: %s\n' "--delay 50 -c 1000 (req/s)" "$d" "-" "-" \
  "$(awk -v d="$d" 'BEGIN { print (d >= 19000 && d <= 21000) ? "met" : "missed" }')"
printf '  %-28s %10.1f %10.1f %10s   target < 64 MiB\n' "RSS, 10k idle conns (MiB)" \
  "$(awk '$1 == "rss" && $2 == "stampede" { print $3 / 1024 }' "$out")" \
  "$(awk '$1 == "rss" && $2 == "nginx" { print $3 / 1024 }' "$out")" "-"
