#!/usr/bin/env bash
# Capacity search (--find-max, docs/capacity.md) against two targets whose capacity is known by
# construction, each searched REPEATS times at the default step rule, resolution and cool-down;
# prints every search's capacity (last passing and first failing rate), its steps and time, and
# the spread (min, median, max) of the capacities.
#  1. stampede serve --cores 1 --delay 20ms, loaded by -c 16 keep-alive connections: no more
#     than 16 / 20 ms = 800 req/s can be answered (the generator's pool is the cap).
#  2. nginx with limit_req at 500 r/s (burst 20, nodelay; over it: 503): a peer no one here wrote.
#     -c 64, so the pool is never the limit; the errors are (--max-error-rate 1, the default).
#   bench/find_max.sh [REPEATS=3] [MAX_P99_MS=100]      (TARGETS="serve nginx": which to search)
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
REPEATS=${1:-3}
P99=${2:-100}
TARGETS=${TARGETS:-serve nginx}

# search NAME URL ARGS...: REPEATS searches; appends "NAME capacity first_fail steps seconds".
search() {
  local name=$1 url=$2 i start
  shift 2
  for i in $(seq 1 "$REPEATS"); do
    start=$(date +%s.%N)
    "$STAMPEDE" --find-max --max-p99 "$P99" -k --cores 1 --quiet --json "$@" "$url" \
      > "$BENCH_TMP/log" 2> "$BENCH_TMP/err" || true
    if ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$BENCH_TMP/log" 2>/dev/null; then
      echo "$name: no result:" >&2; cat "$BENCH_TMP/err" "$BENCH_TMP/log" >&2; continue
    fi
    python3 - "$BENCH_TMP/log" "$name" "$start" "$(date +%s.%N)" >> "$out" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
print(sys.argv[2], j["capacityRps"], j["firstFailingRps"], len(j["steps"]),
      round(float(sys.argv[4]) - float(sys.argv[3]), 1), j["outcome"])
PY
    tail -n 1 "$out"
  done
}

if [[ " $TARGETS " == *" serve "* ]]; then
serve_port=$(free_port)
taskset -c 1 "$STAMPEDE" serve --cores 1 --delay 20ms --port "$serve_port" > /dev/null 2>&1 &
BENCH_PIDS+=($!)
wait_port "$serve_port"
echo "serve --delay 20ms, -c 16 (truth 800 req/s):"
search serve-800 "http://127.0.0.1:$serve_port/" -c 16
fi

if [[ " $TARGETS " == *" nginx "* ]]; then
nginx_port=$(free_port)
dir="$BENCH_TMP/nginx-limit"
mkdir -p "$dir/html"
echo OK > "$dir/html/index.html"
chmod 711 "$BENCH_TMP" && chmod 755 "$dir" "$dir/html"  # nginx's worker runs as nobody
# A file, not return: return answers in the rewrite phase, before limit_req's.
nginx_conf "$dir" "$nginx_port" 'limit_req_zone $server_port zone=one:1m rate=500r/s;' \
  "location / { limit_req zone=one burst=20 nodelay; root $dir/html; }"
run_nginx 1 "$dir" "$nginx_port"
echo "nginx limit_req 500r/s, -c 64 (truth 500 req/s):"
search nginx-500 "http://127.0.0.1:$nginx_port/" -c 64
fi

echo
echo "spread of the capacity (min / median / max req/s):"
for name in serve-800 nginx-500; do
  grep "^$name " "$out" | awk '{ print $2 }' > "$BENCH_TMP/caps" || continue
  printf '  %-10s %8.1f / %8.1f / %8.1f\n' "$name" "$(sort -g "$BENCH_TMP/caps" | head -1)" \
    "$(median < "$BENCH_TMP/caps")" "$(sort -g "$BENCH_TMP/caps" | tail -1)"
done
