#!/usr/bin/env bash
# I/O backends (issue 16): the generator, the test server and the balancer each run with
# --io epoll and --io uring, alternated round by round, pinned with taskset; plus wrk beside
# the generator. Prints per configuration the median requests/s and CPU µs per request, the
# median over rounds of the per-round uring/epoll ratios, and system calls per request (strace
# -c -f over a fixed count, once per backend: strace slows everything, only the counts matter).
#   bench/io.sh [ROUNDS=5] [SECONDS=5]
# Layout: the measured program on core 0; its peer (nginx, or wrk driving serve/balance) and
# the balancer's nginx backend on core 1. Needs wrk, nginx, strace, GNU time.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=5 SECS=5 -- "$@"
nginx_target 1
NGINX_URL=$url

# record NAME RPS CPU_SECONDS: appends "NAME c=10 RPS US" to $out and prints it.
record() {
  local us; us=$(awk -v c="$3" -v r="$2" -v s="$SECS" 'BEGIN { n = r * s; if (n > 0) printf "%.2f", c * 1e6 / n; else print "nan" }')
  echo "$1 c=10 $2 $us" >> "$out"
  printf '  %-24s %10.0f req/s  %7s µs CPU/req\n' "$1" "$2" "$us"
}

gen() {  # gen BACKEND: the generator against nginx, -k -c 10, one worker
  local t="$BENCH_TMP/time" log="$BENCH_TMP/log"
  /usr/bin/time -f "%U %S" -o "$t" taskset -c 0 "$STAMPEDE" -k -c 10 -t "$SECS" --cores 1 \
    --quiet --json --io "$1" "$NGINX_URL" > "$log" 2>&1 || true
  record "generator $1" "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["effectiveRps"])' "$log")" \
    "$(awk '{ print $1 + $2 }' "$t")"
}

wrk_gen() {
  local t="$BENCH_TMP/time" log="$BENCH_TMP/log"
  /usr/bin/time -f "%U %S" -o "$t" taskset -c 0 wrk -t1 -c 10 -d "${SECS}s" "$NGINX_URL" > "$log" 2>&1 || true
  record "wrk" "$(awk '/Requests\/sec/ { print $2 }' "$log")" "$(awk '{ print $1 + $2 }' "$t")"
}

# start_program BACKEND serve|balance: on core 0; sets PROG_PID and PROG_URL.
start_program() {
  local p; p=$(free_port)
  if [ "$2" = serve ]; then
    taskset -c 0 "$STAMPEDE" serve -q -c 1 -p "$p" --io "$1" > "$BENCH_TMP/prog.log" 2>&1 &
  else
    taskset -c 0 "$STAMPEDE" balance --listen "127.0.0.1:$p" --cores 1 --io "$1" \
      --backend "a=127.0.0.1:$port" > "$BENCH_TMP/prog.log" 2>&1 &
  fi
  PROG_PID=$!
  BENCH_PIDS+=("$PROG_PID")
  wait_port "$p"
  PROG_URL="http://127.0.0.1:$p/"
}

served() {  # served BACKEND serve|balance: wrk -c 10 on core 1 through the program on core 0
  start_program "$1" "$2"
  local before after log="$BENCH_TMP/log"
  before=$(cpu_seconds "$PROG_PID")
  taskset -c 1 wrk -t1 -c 10 -d "${SECS}s" "$PROG_URL" > "$log" 2>&1 || true
  after=$(cpu_seconds "$PROG_PID")
  stop_pid "$PROG_PID"
  record "$2 $1" "$(awk '/Requests\/sec/ { print $2 }' "$log")" \
    "$(awk -v a="$after" -v b="$before" 'BEGIN { print a - b }')"
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  # Alternate which backend goes first, so neither always runs on a warmer (or busier) machine.
  if [ $((round % 2)) = 1 ]; then order="epoll uring"; else order="uring epoll"; fi
  for b in $order; do gen "$b"; done
  wrk_gen
  for b in $order; do served "$b" serve; done
  for b in $order; do served "$b" balance; done
done

echo
echo "median over rounds (requests/s, CPU µs per request):"
print_medians "$out"

# ratio A B FIELD: per round, A's value over B's (FIELD 1: requests/s, 0: µs/request); median.
ratio() {
  paste <(grep "^$1 c=" "$out" | awk -v f="$3" '{ print $(NF - f) }') \
        <(grep "^$2 c=" "$out" | awk -v f="$3" '{ print $(NF - f) }') |
    awk '$2 > 0 { print $1 / $2 }' | median
}
echo
echo "median of per-round ratios (requests/s, CPU per request):"
for prog in generator serve balance; do
  printf '  %-22s %6.3f  %6.3f\n' "$prog uring/epoll" "$(ratio "$prog uring" "$prog epoll" 1)" "$(ratio "$prog uring" "$prog epoll" 0)"
done
for b in epoll uring; do
  printf '  %-22s %6.3f  %6.3f\n' "generator $b/wrk" "$(ratio "generator $b" wrk 1)" "$(ratio "generator $b" wrk 0)"
done

# System calls per request: strace -c -f counts every call; a fixed request count divides them.
syscalls() {  # syscalls LABEL REQUESTS SUMMARY_FILE
  local calls; calls=$(awk '$NF == "total" { print $4 }' "$3")
  awk -v c="$calls" -v n="$2" -v l="$1" 'BEGIN { printf "  %-22s %8.2f syscalls/request (%d calls, %d requests)\n", l, c / n, c, n }'
}
echo
echo "system calls per request (strace -c -f):"
N=20000
for b in epoll uring; do
  strace -c -f -o "$BENCH_TMP/strace" taskset -c 0 "$STAMPEDE" -k -c 10 -n "$N" --cores 1 --quiet \
    --json --io "$b" "$NGINX_URL" > /dev/null 2>&1 || true
  syscalls "generator $b" "$N" "$BENCH_TMP/strace"
done
strace -c -f -o "$BENCH_TMP/strace" taskset -c 0 wrk -t1 -c 10 -d 2s "$NGINX_URL" > "$BENCH_TMP/log" 2>&1 || true
syscalls "wrk (2 s)" "$(awk '/requests in/ { print $1 }' "$BENCH_TMP/log")" "$BENCH_TMP/strace"
for prog in serve balance; do
  for b in epoll uring; do
    start_program "$b" "$prog"
    strace -c -f -o "$BENCH_TMP/strace" -p "$PROG_PID" &
    st=$!
    sleep 0.5  # strace attaches to every thread before the load starts
    taskset -c 1 "$STAMPEDE" -k -c 10 -n "$N" --cores 1 --quiet --json "$PROG_URL" > /dev/null 2>&1 || true
    kill -INT "$st"; wait "$st" 2>/dev/null || true
    stop_pid "$PROG_PID"
    syscalls "$prog $b" "$N" "$BENCH_TMP/strace"
  done
done
