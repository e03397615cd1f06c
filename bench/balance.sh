#!/bin/bash
# bench/balance.sh [BUILD_DIR] [speed|outage]
#
# speed (default): wrk through stampede balance, HAProxy and nginx, each in turn in
# front of the same three `stampede serve` backends, pinned with taskset: the balancer on CPU 0,
# wrk and the backends on CPU 1. Prints requests/s and median latency per balancer, the median
# of ROUNDS rounds, and the latency each adds over a direct run against one backend.
#
# outage: the guide's outage case — 3 backends, wrk -c12 for 6 s through stampede balance (rr),
# backend c SIGKILLed 2 s in — with health checks off, every 1000 ms and every 200 ms; prints
# the requests and the failed ones (non-2xx and socket errors) for each.
#
# Environment: ROUNDS (3), DURATION (10s), CONNECTIONS (64), BALANCER_CPU (0), LOAD_CPU (1).
# Needs wrk, haproxy and nginx (Debian: wrk haproxy nginx-light). Loopback only; every process
# it starts is stopped on exit.
set -euo pipefail
source "$(dirname "$0")/lib/haproxy.sh"

BUILD=${1:-build}
MODE=${2:-speed}
STAMPEDE=$(realpath "$BUILD/stampede")
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
LB_CPU=${BALANCER_CPU:-0}
LOAD_CPU=${LOAD_CPU:-1}
for tool in wrk haproxy nginx taskset "$STAMPEDE"; do
  command -v "$tool" >/dev/null || { echo "balance.sh: $tool not found" >&2; exit 2; }
done

WORK=$(mktemp -d /tmp/stampede-bench-XXXXXX)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

wait_port() {  # wait_port PORT: until something answers HTTP there (bounded: 10 s)
  for _ in $(seq 100); do
    curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0
    sleep 0.1
  done
  echo "balance.sh: nothing answers on port $1" >&2
  return 1
}

start_backend() {  # start_backend ID: sets BACKEND_PORT and BACKEND_PID (no subshell: PIDS)
  taskset -c "$LOAD_CPU" "$STAMPEDE" serve --id "$1" --port 0 --ready-file "$WORK/$1.port" -q \
    -c 1 >"$WORK/$1.log" 2>&1 &
  BACKEND_PID=$!
  PIDS+=("$BACKEND_PID")
  for _ in $(seq 100); do [ -s "$WORK/$1.port" ] && break; sleep 0.1; done
  BACKEND_PORT=$(cat "$WORK/$1.port")
}


start_stampede() {  # PORT
  taskset -c "$LB_CPU" "$STAMPEDE" balance --listen "127.0.0.1:$1" --cores 1 --strategy rr \
    --backend "a=127.0.0.1:$PA" --backend "b=127.0.0.1:$PB" --backend "c=127.0.0.1:$PC" \
    >"$WORK/stampede.log" 2>&1 &
  LB_PID=$!
  PIDS+=("$LB_PID")
}

start_haproxy() {  # PORT
  haproxy_config "127.0.0.1:$1" "$PA" "$PB" "$PC" >"$WORK/haproxy.cfg"
  taskset -c "$LB_CPU" haproxy -db -f "$WORK/haproxy.cfg" >"$WORK/haproxy.log" 2>&1 &
  LB_PID=$!
  PIDS+=("$LB_PID")
}

start_nginx() {  # PORT
  mkdir -p "$WORK/nginx"
  cat >"$WORK/nginx/nginx.conf" <<EOF
worker_processes 1;
daemon off;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log;
events { worker_connections 4096; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  upstream be {
    server 127.0.0.1:$PA;
    server 127.0.0.1:$PB;
    server 127.0.0.1:$PC;
    keepalive 64;
  }
  server {
    listen 127.0.0.1:$1;
    location / {
      proxy_pass http://be;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      proxy_set_header X-Forwarded-For \$proxy_add_x_forwarded_for;
      add_header x-backend \$upstream_addr;
    }
  }
}
EOF
  taskset -c "$LB_CPU" nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" >/dev/null 2>&1 &
  LB_PID=$!
  PIDS+=("$LB_PID")
}

# CPU seconds used so far by process $1 and its children (nginx's worker is a child).
cpu_seconds() {
  local total=0 pid
  for pid in "$1" $(pgrep -P "$1" || true); do
    [ -r "/proc/$pid/stat" ] || continue
    total=$(( total + $(awk '{print $14 + $15}' "/proc/$pid/stat") ))
  done
  echo "scale=3; $total / $(getconf CLK_TCK)" | bc -l
}

# run_wrk PORT [PID] -> "RPS P50_MS REQUESTS_PER_CPU_SECOND" (the last is 0 without PID):
# requests per CPU second of the balancer is what it would do with a core to itself, which
# stays comparable when other work shares the machine.
run_wrk() {
  taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNECTIONS" -d1s "http://127.0.0.1:$1/" >/dev/null
  local cpu0=0 cpu1=0
  [ -n "${2:-}" ] && cpu0=$(cpu_seconds "$2")
  taskset -c "$LOAD_CPU" wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --latency \
    "http://127.0.0.1:$1/" >"$WORK/wrk.out"
  [ -n "${2:-}" ] && cpu1=$(cpu_seconds "$2")
  local total per_cpu=0
  total=$(awk '/requests in/ {print $1}' "$WORK/wrk.out")
  if [ -n "${2:-}" ] && [ "$(echo "$cpu1 > $cpu0" | bc)" = 1 ]; then
    per_cpu=$(echo "$total / ($cpu1 - $cpu0)" | bc -l)
  fi
  local rps p50
  rps=$(awk '/^Requests\/sec:/ {print $2}' "$WORK/wrk.out")
  p50=$(awk '$1 == "50%" {v=$2; if (v ~ /us$/) {sub(/us$/,"",v); v/=1000} else if (v ~ /ms$/) \
        {sub(/ms$/,"",v)} else if (v ~ /s$/) {sub(/s$/,"",v); v*=1000}; print v}' "$WORK/wrk.out")
  if grep -q "Non-2xx\|Socket errors" "$WORK/wrk.out"; then
    echo "balance.sh: errors in the run on port $1:" >&2
    grep "Non-2xx\|Socket errors" "$WORK/wrk.out" >&2
  fi
  echo "$rps $p50 $per_cpu"
}

median() { sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }


# outage_case HEALTH_MS: fresh backends, c killed 2 s into a 6 s run at 12 connections.
outage_case() {
  local h=$1 a b c port
  start_backend "a$h"; a=$BACKEND_PORT; local apid=$BACKEND_PID
  start_backend "b$h"; b=$BACKEND_PORT; local bpid=$BACKEND_PID
  start_backend "c$h"; c=$BACKEND_PORT; local cpid=$BACKEND_PID
  port=$(free_port)
  taskset -c "$LB_CPU" "$STAMPEDE" balance --listen "127.0.0.1:$port" --strategy rr \
    --health-interval "$h" --backend "a=127.0.0.1:$a" --backend "b=127.0.0.1:$b" \
    --backend "c=127.0.0.1:$c" >"$WORK/outage-$h.log" 2>&1 &
  LB_PID=$!
  PIDS+=("$LB_PID")
  wait_port "$port"
  taskset -c "$LOAD_CPU" wrk -t1 -c12 -d6s "http://127.0.0.1:$port/" >"$WORK/wrk-$h.out" &
  local wrk_pid=$!
  sleep 2
  kill -9 "$cpid"
  wait "$wrk_pid"
  local total non2xx sockerr
  total=$(awk '/requests in/ {print $1}' "$WORK/wrk-$h.out")
  non2xx=$(awk '/Non-2xx/ {print $NF}' "$WORK/wrk-$h.out")
  sockerr=$(awk '/Socket errors/ {gsub(",", ""); print $4 + $6 + $8 + $10}' "$WORK/wrk-$h.out")
  curl -s "http://127.0.0.1:$port/lb-stats" >"$WORK/stats-$h.json"
  kill "$LB_PID" "$apid" "$bpid"; wait "$LB_PID" "$apid" "$bpid" "$cpid" 2>/dev/null || true
  printf "health=%-5s total %8s  failed %6s  (non-2xx %s, socket errors %s)  c: %s\n" "$h" \
    "$total" "$(( ${non2xx:-0} + ${sockerr:-0} ))" "${non2xx:-0}" "${sockerr:-0}" \
    "$(python3 -c 'import json,sys; b=[x for x in json.load(open(sys.argv[1]))["backends"] if x["name"]=="c"][0]; print("up=%s sent=%d failures=%d retries=%d" % (b["up"], b["sent"], b["failures"], b["retries"]))' "$WORK/stats-$h.json")"
}

if [ "$MODE" = outage ]; then
  for h in 0 1000 200; do outage_case "$h"; done
  exit 0
fi

start_backend a; PA=$BACKEND_PORT
start_backend b; PB=$BACKEND_PORT
start_backend c; PC=$BACKEND_PORT

bench_speed() {
  local round lb port rps p50 per_cpu base r p c
  declare -A RPS P50 CPU
  for round in $(seq "$ROUNDS"); do
    read -r rps p50 per_cpu < <(run_wrk "$PA")
    RPS[direct]+="$rps "; P50[direct]+="$p50 "
    for lb in stampede haproxy nginx; do
      port=$(free_port)
      "start_$lb" "$port"
      wait_port "$port"
      read -r rps p50 per_cpu < <(run_wrk "$port" "$LB_PID")
      kill "$LB_PID"; wait "$LB_PID" 2>/dev/null || true
      RPS[$lb]+="$rps "; P50[$lb]+="$p50 "; CPU[$lb]+="$per_cpu "
      printf "round %s  %-8s %10.0f req/s  p50 %8.3f ms  %10.0f req/CPU-s\n" "$round" "$lb" \
        "$rps" "$p50" "$per_cpu" >&2
    done
  done

  base=$(echo "${P50[direct]}" | tr ' ' '\n' | grep . | median)
  printf "%-10s %12s %10s %14s %14s   (median of %s rounds; wrk -t1 -c%s -d%s)\n" \
    balancer "req/s" "p50 ms" "added p50 ms" "req/CPU-s" "$ROUNDS" "$CONNECTIONS" "$DURATION"
  for lb in direct stampede haproxy nginx; do
    r=$(echo "${RPS[$lb]}" | tr ' ' '\n' | grep . | median)
    p=$(echo "${P50[$lb]}" | tr ' ' '\n' | grep . | median)
    c=$(echo "${CPU[$lb]:-0}" | tr ' ' '\n' | grep . | median)
    printf "%-10s %12.0f %10.3f %14.3f %14.0f\n" "$lb" "$r" "$p" "$(echo "$p - $base" | bc -l)" \
      "${c:-0}"
  done
}
bench_speed
