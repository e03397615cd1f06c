#!/usr/bin/env bash
# What a Lua script costs an --http2 run, and what its wiring costs a run without one, by a count
# that does not move with the host's load: the generator's instructions per request (valgrind
# --tool=callgrind, every thread), the difference of a -n 40000 and a -n 20000 run over 20000, of
# `stampede --http2 -c 10 --streams 10 --cores 1` against one `stampede serve --cores 1` (not
# measured). Rows, ROUNDS times alternated:
#   base     BASE (a stampede binary built before the change; skipped when unset), no script
#   plain    this tree's stampede, no script
#   script   this tree's stampede with a trivial `request()` (-R; returns {}: the URL's request)
# ROWS picks some ("plain script"): counts do not move with the load, so rows may run as
# separate processes at once.
#   bench/h2_hooks.sh [ROUNDS]        BASE=/path/to/old/stampede bench/h2_hooks.sh 2
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
require_tools valgrind callgrind_annotate
ROUNDS=${1:-2}
SMALL=20000
LARGE=40000
BASE=${BASE:-}
ROWS=${ROWS:-base plain script}

echo 'function request(id) return {} end' > "$BENCH_TMP/trivial.lua"
port=$(free_port)
"$STAMPEDE" serve --cores 1 --quiet --port "$port" > /dev/null 2>&1 &
BENCH_PIDS+=("$!")
wait_port "$port"
url="http://127.0.0.1:$port/"

ir() {  # ir BINARY N [args...]: the generator's instructions
  local bin=$1 n=$2
  shift 2
  valgrind --tool=callgrind --callgrind-out-file="$BENCH_TMP/cg.%p" \
    "$bin" --http2 -c 10 --streams 10 --cores 1 --quiet -n "$n" "$@" "$url" > /dev/null 2>&1
  callgrind_total
}
per_request() {  # per_request BINARY [args...]
  local a b
  a=$(ir "$1" "$SMALL" "${@:2}")
  b=$(ir "$1" "$LARGE" "${@:2}")
  awk -v a="$a" -v b="$b" -v n=$((LARGE - SMALL)) 'BEGIN { printf "%.0f", (b - a) / n }'
}

echo "load: $(uptime)"
row() { [[ " $ROWS " == *" $1 "* ]]; }
for round in $(seq "$ROUNDS"); do
  if row base && [ -n "$BASE" ]; then
    printf 'round %d  base    %8s instructions/request\n' "$round" "$(per_request "$BASE")"
  fi
  if row plain; then
    printf 'round %d  plain   %8s instructions/request\n' "$round" "$(per_request "$STAMPEDE")"
  fi
  if row script; then
    printf 'round %d  script  %8s instructions/request\n' "$round" \
      "$(per_request "$STAMPEDE" -R "$BENCH_TMP/trivial.lua")"
  fi
done
echo "load: $(uptime)"
