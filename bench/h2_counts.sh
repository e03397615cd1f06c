#!/usr/bin/env bash
# HTTP/2 by counts that do not move with the host's load (issue 17): instructions (valgrind
# --tool=callgrind, every thread and process) and system calls (strace -c -f) per request, each
# the difference between a run of -n 40000 and one of -n 20000 over 20000, so that start-up and
# exit cancel out.
#   generator: `stampede --http2 -c 10 --streams 10 --cores 1` against `h2load -t1 -c 10 -m 10`,
#              both against one nginx (`listen ... http2`, h2c, `return 200 "OK"`);
#   server:    `stampede serve --cores 1` against nginx (one process: master_process off), both
#              answering h2c, under `h2load -t1 -c 10 -m 10`.
# Callgrind counts user space only (this VM has no hardware counters for the kernel's share);
# the system calls are the kernel's side. Prints the load average.
#   bench/h2_counts.sh
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
require_tools h2load nginx valgrind callgrind_annotate strace
SMALL=20000
LARGE=40000

# nginx_conf DIR PORT: one process in the foreground (no master, so a wrapper sees its work).
nginx_conf() {
  mkdir -p "$1/logs"
  cat > "$1/nginx.conf" <<CONF
daemon off;
master_process off;
error_log $1/logs/error.log crit;
pid $1/nginx.pid;
events { worker_connections 1024; }
http {
  access_log off;
  keepalive_requests 1000000000;
  server {
    listen 127.0.0.1:$2 http2;
    location / { return 200 "OK"; }
  }
}
CONF
}

# server_start NAME PORT [wrapper...]: starts the server under the wrapper; sets SERVER_PID.
server_start() {
  local name=$1 port=$2 dir="$BENCH_TMP/$1-$2"
  shift 2
  case $name in
    serve) "$@" "$STAMPEDE" serve --cores 1 --quiet --port "$port" > /dev/null 2>&1 & ;;
    nginx) nginx_conf "$dir" "$port"; "$@" nginx -c "$dir/nginx.conf" -p "$dir" > /dev/null 2>&1 & ;;
  esac
  SERVER_PID=$!
  BENCH_PIDS+=("$SERVER_PID")
  wait_port "$port"
}

# server_stop NAME: a graceful stop (nginx: SIGQUIT; serve: SIGTERM), so the wrapper writes its
# counts: to the server itself (under strace, the tracer's child; strace ends with it).
server_stop() {
  local sig=TERM target
  [[ $1 == nginx ]] && sig=QUIT
  target=$(pgrep -P "$SERVER_PID" || echo "$SERVER_PID")
  kill -s "$sig" $target 2>/dev/null || true
  wait "$SERVER_PID" 2>/dev/null || true
  local keep=() p
  for p in "${BENCH_PIDS[@]}"; do [ "$p" = "$SERVER_PID" ] || keep+=("$p"); done
  BENCH_PIDS=("${keep[@]}")
}

h2load_n() { h2load -t1 -c 10 -m 10 -n "$2" "$1" > "$BENCH_TMP/h2load.log" 2>&1; }

st_total() { awk '$NF == "total" { print $4 }' "$1"; }  # calls in an strace -c summary

per_request() { awk -v a="$1" -v b="$2" -v n=$((LARGE - SMALL)) 'BEGIN { printf "%.2f", (b - a) / n }'; }

echo "load: $(uptime)"

# The generators against one nginx that is not measured.
port=$(free_port)
server_start nginx "$port"
url="http://127.0.0.1:$port/"
gen() {  # gen NAME N [wrapper...]
  local name=$1 n=$2
  shift 2
  case $name in
    stampede) "$@" "$STAMPEDE" --http2 -c 10 --streams 10 --cores 1 --quiet -n "$n" "$url" > /dev/null 2>&1 ;;
    h2load) "$@" h2load -t1 -c 10 -m 10 -n "$n" "$url" > /dev/null 2>&1 ;;
  esac
}
for name in stampede h2load; do
  ir=() sc=()
  for n in $SMALL $LARGE; do
    gen "$name" "$n" valgrind --tool=callgrind --callgrind-out-file="$BENCH_TMP/cg.%p"
    ir+=("$(callgrind_total)")
    gen "$name" "$n" strace -c -f -o "$BENCH_TMP/strace.$n"
    sc+=("$(st_total "$BENCH_TMP/strace.$n")")
  done
  printf '  generator %-9s %10s instructions/request %6s system calls/request\n' "$name" \
    "$(per_request "${ir[0]}" "${ir[1]}")" "$(per_request "${sc[0]}" "${sc[1]}")"
done
server_stop nginx

# The servers, each under callgrind and then strace, driven by h2load.
for name in serve nginx; do
  ir=() sc=()
  for n in $SMALL $LARGE; do
    port=$(free_port)
    server_start "$name" "$port" valgrind --tool=callgrind --trace-children=yes \
      --callgrind-out-file="$BENCH_TMP/cg.%p"
    h2load_n "http://127.0.0.1:$port/" "$n"
    server_stop "$name"
    ir+=("$(callgrind_total)")
    port=$(free_port)
    server_start "$name" "$port" strace -c -f -o "$BENCH_TMP/strace.$name.$n"
    h2load_n "http://127.0.0.1:$port/" "$n"
    server_stop "$name"
    sc+=("$(st_total "$BENCH_TMP/strace.$name.$n")")
  done
  printf '  server    %-9s %10s instructions/request %6s system calls/request\n' "$name" \
    "$(per_request "${ir[0]}" "${ir[1]}")" "$(per_request "${sc[0]}" "${sc[1]}")"
done
echo "load: $(uptime)"
