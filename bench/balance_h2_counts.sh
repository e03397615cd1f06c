#!/usr/bin/env bash
# The balancer's HTTP/2 front by counts that do not move with the host's load (issue 17): its
# instructions per request (valgrind --tool=callgrind, all threads, -n LARGE minus -n SMALL, so
# start-up and exit cancel out) and its system calls per request (strace -c -f, the same
# difference), `h2load -t1 -c 10 -m 10` through `stampede balance --cores 1 --strategy rr` in
# front of three `stampede serve --cores 1` HTTP/1.1 backends (the setting of balance_h2.sh).
# With BASE=path/to/another/stampede the same counts for that binary as the balancer, alternated
# with $STAMPEDE round by round (the backends are always $STAMPEDE). Prints the load average.
#   [BASE=old/stampede] bench/balance_h2_counts.sh [ROUNDS=1] [SMALL=5000] [LARGE=15000]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=1 SMALL=5000 LARGE=15000 -- "$@"
require_tools h2load valgrind callgrind_annotate strace

start_backends

# balancer BIN N WRAPPER...: one balancer under WRAPPER, N requests through it, then SIGINT.
balancer() {
  local bin=$1 n=$2 port pid
  shift 2
  port=$(free_port)
  "$@" "$bin" balance --listen "127.0.0.1:$port" --cores 1 --strategy rr \
    --backend "a=127.0.0.1:${backends[0]}" --backend "b=127.0.0.1:${backends[1]}" \
    --backend "c=127.0.0.1:${backends[2]}" > "$BENCH_TMP/balancer.log" 2>&1 &
  pid=$!
  BENCH_PIDS+=($pid)
  # Under valgrind the balancer needs a while to listen: up to 30 s.
  for _ in $(seq 1 6); do wait_port "$port" 2> /dev/null && break; done
  h2load -t1 -c 10 -m 10 -n "$n" "http://127.0.0.1:$port/" > "$BENCH_TMP/h2load.log" 2>&1
  grep -q "$n succeeded" "$BENCH_TMP/h2load.log" || { echo "not all of $n answered" >&2; cat "$BENCH_TMP/h2load.log" >&2; }
  # The balancer itself is stopped (strace, started in the background, ignores SIGINT).
  kill -INT "$(pgrep -P "$pid" -f ' balance ' || echo "$pid")"
  wait "$pid" || true
}

# Each sets `count` (in this shell: a command substitution would run bench_cleanup's EXIT trap
# in its subshell and stop the backends).
instructions() {  # instructions BIN N: the balancer's Ir, every thread
  balancer "$1" "$2" valgrind --tool=callgrind --callgrind-out-file="$BENCH_TMP/cg.%p"
  count=$(callgrind_total)
}

syscalls() {  # syscalls BIN N: the balancer's system calls (every thread), the table kept
  balancer "$1" "$2" strace -c -f -o "$BENCH_TMP/strace.$2"
  count=$(awk '$NF == "total" { print $4 }' "$BENCH_TMP/strace.$2")
}

per_request() { awk -v a="$1" -v b="$2" -v n=$((LARGE - SMALL)) 'BEGIN { printf "%.2f", (b - a) / n }'; }

bins=("$STAMPEDE")
[ -n "${BASE:-}" ] && bins=("$BASE" "$STAMPEDE")
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
for round in $(seq "$ROUNDS"); do
  for bin in "${bins[@]}"; do
    instructions "$bin" "$SMALL"; small=$count
    instructions "$bin" "$LARGE"; large=$count
    echo "round $round $bin instructions/request $(per_request "$small" "$large") ($small, $large)"
  done
done
for bin in "${bins[@]}"; do
  syscalls "$bin" "$SMALL"; small=$count
  syscalls "$bin" "$LARGE"; large=$count
  echo "$bin syscalls/request $(per_request "$small" "$large") ($small, $large); -n $LARGE by call:"
  awk -v n="$LARGE" '$NF != "total" && $4 ~ /^[0-9]+$/ && $4 >= 100 { printf "  %-16s %8s  %.3f per request\n", $NF, $4, $4 / n }' \
    "$BENCH_TMP/strace.$LARGE"
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
