#!/usr/bin/env bash
# I/O backends by counts that do not move with the host's load (issue 16). For --io epoll and
# --io uring, alternated round by round, of one measured program (SIDE):
# - generator: `stampede -k -c 10 --cores 1 --quiet -n N --io BACKEND` against one nginx worker
#   (bench/lib/common.sh start_nginx; the same peer for both);
# - server: `stampede serve --cores 1 --io BACKEND`, loaded by that generator with --io epoll.
# Counted: the program's instructions per request (valgrind --tool=callgrind, all threads, -n
# 40000 minus -n 20000, so start-up and exit cancel out) and its system calls per request
# (strace -c -f, the same difference). Measured program on core 0, its peer on core 1.
# Callgrind counts user space only (no hardware counters in this VM for the kernel's share), so
# last the program's CPU time (user + system) per request of -n CPU_N, alternated over
# CPU_ROUNDS rounds, and the median of the per-round uring/epoll ratios: CPU time moves with the
# host's load, a ratio of neighbours much less. Prints the load average.
#   bench/io_counts.sh [ROUNDS=1] [CPU_ROUNDS=7] [CPU_N=100000] [SIDE=generator|server]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=1 CPU_ROUNDS=7 CPU_N=100000 SIDE=generator -- "$@"
require_tools nginx valgrind callgrind_annotate strace
case $SIDE in generator | server) ;; *) echo "SIDE: generator or server, not $SIDE" >&2; exit 2 ;; esac
SMALL=20000
LARGE=40000

if [ "$SIDE" = generator ]; then
  nginx_target 1
  URL=$url
fi

load() {  # load N URL CORE [wrapper...]: one generator run of N requests, output thrown away
  local n=$1 target=$2 core=$3 io=epoll
  shift 3
  [ "$SIDE" = generator ] && io=$IO
  taskset -c "$core" "$@" "$STAMPEDE" -k -c 10 --cores 1 --quiet -n "$n" --io "$io" "$target" \
    > /dev/null 2> "$BENCH_TMP/gen.err"
}

# measure N WRAPPER...: one run of $SIDE with backend $IO under WRAPPER (on core 0) for N
# requests. The server is started for the run and stopped with SIGTERM once the load is done.
measure() {
  local n=$1
  shift
  if [ "$SIDE" = generator ]; then
    load "$n" "$URL" 0 "$@"
    return
  fi
  local p pid
  p=$(free_port)
  rm -f "$BENCH_TMP/ready"
  taskset -c 0 "$@" "$STAMPEDE" serve -q --cores 1 -p "$p" --io "$IO" \
    --ready-file "$BENCH_TMP/ready" > "$BENCH_TMP/serve.log" 2>&1 &
  pid=$!
  BENCH_PIDS+=("$pid")
  for _ in $(seq 1 3000); do [ -s "$BENCH_TMP/ready" ] && break; poke "$p"; sleep 0.01; done
  load "$n" "http://127.0.0.1:$p/" 1
  # SIGTERM (a background job of a script ignores SIGINT). Under strace the server is strace's
  # child; valgrind runs it in its own process.
  kill -TERM "$(pgrep -P "$pid" || echo "$pid")"
  for _ in $(seq 1 3000); do kill -0 "$pid" 2> /dev/null || break; poke "$p"; sleep 0.01; done
  wait "$pid" || true
}

# poke PORT: a connection opened and closed. Valgrind runs one thread at a time, and a thread
# waiting in io_uring_enter keeps that turn until a completion comes: the server's main thread
# (its ready file, its SIGTERM) waited for minutes without one.
poke() { (exec 3<> /dev/tcp/127.0.0.1/"$1") 2> /dev/null || true; }

instructions() {  # instructions N: Ir of the measured program, every thread
  measure "$1" valgrind --tool=callgrind --callgrind-out-file="$BENCH_TMP/cg.%p"
  callgrind_total
}

syscalls() {  # syscalls N: system calls of the measured program (every thread)
  measure "$1" strace -c -f -o "$BENCH_TMP/strace.$1"
  awk '$NF == "total" { print $4 }' "$BENCH_TMP/strace.$1"
}

per_request() { awk -v a="$1" -v b="$2" -v n=$((LARGE - SMALL)) 'BEGIN { printf "%.2f", (b - a) / n }'; }

echo "$SIDE; load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  for IO in epoll uring; do
    small=$(instructions "$SMALL")
    large=$(instructions "$LARGE")
    echo "round $round $IO instructions/request $(per_request "$small" "$large") ($small, $large)"
  done
done
for IO in epoll uring; do
  small=$(syscalls "$SMALL")
  large=$(syscalls "$LARGE")
  echo "$IO syscalls/request $(per_request "$small" "$large") ($small, $large); -n $LARGE by call:"
  awk '$NF != "total" && $4 ~ /^[0-9]+$/ && $4 >= 1000 { printf "  %-24s %s\n", $NF, $4 }' \
    "$BENCH_TMP/strace.$LARGE"
done
cpu_us() {  # cpu_us: the measured program's CPU µs per request over -n CPU_N
  if [ "$SIDE" = generator ]; then
    measure "$CPU_N" /usr/bin/time -f "%U %S" -o "$BENCH_TMP/time"
    awk -v n="$CPU_N" '{ printf "%.3f", ($1 + $2) * 1e6 / n }' "$BENCH_TMP/time"
    return
  fi
  # The server's CPU over the load alone (start-up left out): /proc before and after.
  local p pid before after
  p=$(free_port)
  rm -f "$BENCH_TMP/ready"
  taskset -c 0 "$STAMPEDE" serve -q --cores 1 -p "$p" --io "$IO" \
    --ready-file "$BENCH_TMP/ready" > "$BENCH_TMP/serve.log" 2>&1 &
  pid=$!
  BENCH_PIDS+=("$pid")
  for _ in $(seq 1 500); do [ -s "$BENCH_TMP/ready" ] && break; sleep 0.01; done
  before=$(cpu_seconds "$pid")
  load "$CPU_N" "http://127.0.0.1:$p/" 1
  after=$(cpu_seconds "$pid")
  stop_pid "$pid"
  awk -v a="$before" -v b="$after" -v n="$CPU_N" 'BEGIN { printf "%.3f", (b - a) * 1e6 / n }'
}
ratios=()
for round in $(seq "$CPU_ROUNDS"); do
  if (( round % 2 )); then
    IO=epoll; e=$(cpu_us); IO=uring; u=$(cpu_us)
  else
    IO=uring; u=$(cpu_us); IO=epoll; e=$(cpu_us)
  fi
  r=$(awk -v e="$e" -v u="$u" 'BEGIN { printf "%.3f", u / e }')
  ratios+=("$r")
  echo "round $round CPU µs/request epoll $e uring $u ratio $r"
done
echo "median uring/epoll CPU per request: $(printf '%s\n' "${ratios[@]}" | median)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
