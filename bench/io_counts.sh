#!/usr/bin/env bash
# I/O backends by counts that do not move with the host's load (issue 16). For --io epoll and
# --io uring, alternated round by round: the generator's instructions per request (valgrind
# --tool=callgrind, all threads, -n 40000 minus -n 20000, so start-up and exit cancel out) and
# its system calls per request (strace -c -f, the same difference), `-k -c 10 --cores 1 --quiet`
# against one `stampede serve --cores 1 --io epoll` (the same peer for both). Generator on core
# 0, server on core 1. Callgrind counts user space only (no hardware counters in this VM for the
# kernel's share), so last the generator's CPU time (user + system, GNU time) per request of
# -n CPU_N, alternated over CPU_ROUNDS rounds, and the median of the per-round uring/epoll ratios:
# CPU time moves with the host's load, a ratio of neighbours much less. Prints the load average.
#   bench/io_counts.sh [ROUNDS=1] [CPU_ROUNDS=7] [CPU_N=100000]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=1 CPU_ROUNDS=7 CPU_N=100000 -- "$@"
SMALL=20000
LARGE=40000

p=$(free_port)
taskset -c 1 "$STAMPEDE" serve -q --cores 1 -p "$p" --io epoll > "$BENCH_TMP/serve.log" 2>&1 &
BENCH_PIDS+=("$!")
wait_port "$p"
URL="http://127.0.0.1:$p/"

generator() {  # generator BACKEND N [wrapper...]: one run, output thrown away
  local io=$1 n=$2
  shift 2
  taskset -c 0 "$@" "$STAMPEDE" -k -c 10 --cores 1 --quiet -n "$n" --io "$io" "$URL" \
    > /dev/null 2> "$BENCH_TMP/gen.err"
}

instructions() {  # instructions BACKEND N: the generator's Ir, every thread
  generator "$1" "$2" valgrind --tool=callgrind --callgrind-out-file="$BENCH_TMP/cg.%p"
  callgrind_total
}

syscalls() {  # syscalls BACKEND N: the generator's system calls (every thread); the top ones
  generator "$1" "$2" strace -c -f -o "$BENCH_TMP/strace.$2"
  awk '$NF == "total" { print $4 }' "$BENCH_TMP/strace.$2"
}

per_request() { awk -v a="$1" -v b="$2" -v n=$((LARGE - SMALL)) 'BEGIN { printf "%.2f", (b - a) / n }'; }

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  for io in epoll uring; do
    small=$(instructions "$io" "$SMALL")
    large=$(instructions "$io" "$LARGE")
    echo "round $round $io instructions/request $(per_request "$small" "$large") ($small, $large)"
  done
done
for io in epoll uring; do
  small=$(syscalls "$io" "$SMALL")
  large=$(syscalls "$io" "$LARGE")
  echo "$io syscalls/request $(per_request "$small" "$large") ($small, $large); -n $LARGE by call:"
  awk '$NF != "total" && $4 ~ /^[0-9]+$/ && $4 >= 1000 { printf "  %-24s %s\n", $NF, $4 }' \
    "$BENCH_TMP/strace.$LARGE"
done
cpu_us() {  # cpu_us BACKEND: the generator's CPU µs per request over -n CPU_N
  generator "$1" "$CPU_N" /usr/bin/time -f "%U %S" -o "$BENCH_TMP/time"
  awk -v n="$CPU_N" '{ printf "%.3f", ($1 + $2) * 1e6 / n }' "$BENCH_TMP/time"
}
ratios=()
for round in $(seq "$CPU_ROUNDS"); do
  e=$(cpu_us epoll)
  u=$(cpu_us uring)
  r=$(awk -v e="$e" -v u="$u" 'BEGIN { printf "%.3f", u / e }')
  ratios+=("$r")
  echo "round $round CPU µs/request epoll $e uring $u ratio $r"
done
echo "median uring/epoll CPU per request: $(printf '%s\n' "${ratios[@]}" | median)"
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
