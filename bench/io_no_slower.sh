#!/usr/bin/env bash
# "The hot paths are no slower" (issue 16): callgrind instructions per request of the generator,
# the test server and the balancer, plain HTTP keep-alive, for two binaries side by side (BEFORE:
# a build of the commit before the one I/O layer; AFTER: this tree's, or $STAMPEDE). Each figure
# is the measured program's Ir (every thread) at -n LARGE minus at -n SMALL, over their
# difference, so start-up and exit cancel out. The measured program runs under valgrind on core 0; its peers
# are always AFTER's binary (`stampede serve --cores 1`, and `stampede -k -c 10 --cores 1`) on
# core 1, so only the measured side changes. Rounds alternate BEFORE and AFTER. Prints one line
# per figure and the load average.
# VARY=1: the balancer's backends answer responses that differ from one to the next on each of
# its client connections: three backends (`serve --id a|b|c`: the x-instance header and the body
# name the instance) in round-robin, so successive responses on one client connection come
# from different backends as the 10 connections' requests interleave (not checked per
# response), and the parser's repeat rarely applies. Without it one backend answers the same
# bytes every time (but for its Date, once a second). PROGRAMS: the programs to measure; default "generator serve balance".
# SMALL and LARGE: the two run lengths (default 20000 and 40000 requests).
#   [VARY=1] [PROGRAMS="balance"] [SMALL=N LARGE=M] bench/io_no_slower.sh BEFORE_BINARY [ROUNDS=1]
set -euo pipefail
cd "$(dirname "$0")/.."
BEFORE=${1:?usage: bench/io_no_slower.sh BEFORE_BINARY [ROUNDS]}
shift
source bench/lib/common.sh
bench_args ROUNDS=1 -- "$@"
AFTER=$STAMPEDE
SMALL=${SMALL:-20000}
LARGE=${LARGE:-40000}

# A backend / target server from AFTER's binary on core 1, for the generator and the balancer.
backend_port=$(free_port)
taskset -c 1 "$AFTER" serve -q --cores 1 -p "$backend_port" > "$BENCH_TMP/backend.log" 2>&1 &
BENCH_PIDS+=("$!")
wait_port "$backend_port"
balance_backends=(--backend "a=127.0.0.1:$backend_port")
if [ "${VARY:-0}" = 1 ]; then
  balance_backends=()
  for id in a b c; do
    p=$(free_port)
    taskset -c 1 "$AFTER" serve -q --cores 1 --id "$id" -p "$p" > "$BENCH_TMP/backend-$id.log" 2>&1 &
    BENCH_PIDS+=("$!")
    wait_port "$p"
    balance_backends+=(--backend "$id=127.0.0.1:$p")
  done
fi

# load N URL: AFTER's generator on core 1, -n N keep-alive, output thrown away.
load() {
  taskset -c 1 "$AFTER" -k -c 10 --cores 1 --quiet -n "$1" "$2" > /dev/null 2>&1
}

grind=(valgrind --tool=callgrind "--callgrind-out-file=$BENCH_TMP/cg.%p")

# ir_generator BINARY N / ir_served BINARY serve|balance N: the measured program's Ir.
ir_generator() {
  taskset -c 0 "${grind[@]}" "$1" -k -c 10 --cores 1 --quiet -n "$2" "http://127.0.0.1:$backend_port/" \
    > /dev/null 2>&1
  callgrind_total
}
ir_served() {
  local p pid
  p=$(free_port)
  if [ "$2" = serve ]; then
    taskset -c 0 "${grind[@]}" "$1" serve -q --cores 1 -p "$p" > "$BENCH_TMP/prog.log" 2>&1 &
  else
    taskset -c 0 "${grind[@]}" "$1" balance --listen "127.0.0.1:$p" --cores 1 \
      "${balance_backends[@]}" > "$BENCH_TMP/prog.log" 2>&1 &
  fi
  pid=$!
  BENCH_PIDS+=("$pid")
  wait_port "$p"
  load "$3" "http://127.0.0.1:$p/"
  kill -INT "$pid"
  wait "$pid" 2>/dev/null || true
  stop_pid "$pid"
  callgrind_total
}

per_request() { awk -v a="$1" -v b="$2" -v n=$((LARGE - SMALL)) 'BEGIN { printf "%.1f", (b - a) / n }'; }

measure() {  # measure BINARY PROGRAM: instructions per request
  local small large
  if [ "$2" = generator ]; then
    small=$(ir_generator "$1" "$SMALL"); large=$(ir_generator "$1" "$LARGE")
  else
    small=$(ir_served "$1" "$2" "$SMALL"); large=$(ir_served "$1" "$2" "$LARGE")
  fi
  per_request "$small" "$large"
}

echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)${VARY:+ (VARY=$VARY)}"
for round in $(seq "$ROUNDS"); do
  for prog in ${PROGRAMS:-generator serve balance}; do
    if (( round % 2 )); then order="before after"; else order="after before"; fi
    for which in $order; do
      if [ "$which" = before ]; then bin=$BEFORE; else bin=$AFTER; fi
      echo "round $round $prog $which instructions/request $(measure "$bin" "$prog")"
    done
  done
done
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
