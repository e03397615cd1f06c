#!/usr/bin/env bash
# Scripting benchmark (issue 8): stampede with a trivial -R request() script vs its static path,
# and wrk with and without a Lua request() as the reference, against one nginx worker returning
# 200 "OK" (nginx on core 1, the generator on core 0). Target: scripted >= 70% of static.
#   bench/lua.sh [ROUNDS=5] [SECONDS=5]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args ROUNDS=5 SECS=5 -- "$@"
nginx_target 1

# run NAME CMD...: pinned to core 0; records requests/s.
run() {
  local name=$1; shift
  local log="$BENCH_TMP/log" rps
  taskset -c 0 "$@" > "$log" 2>&1 || true
  case $name in
    wrk*) rps=$(awk '/Requests\/sec/ { print $2 }' "$log") ;;
    stampede*) rps=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["effectiveRps"])' "$log") ;;
  esac
  echo "$name	${rps:-0}" >> "$out"
  printf '  %-26s %10.0f req/s\n' "$name" "${rps:-0}"
}

for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  run "stampede static" "$STAMPEDE" -k -c 50 -t "$SECS" --cores 1 --quiet --json "$url"
  run "stampede -R trivial.lua" "$STAMPEDE" -k -c 50 -t "$SECS" --cores 1 --quiet --json \
    -R bench/lua/trivial.lua "$url"
  run "wrk static" wrk -t1 -c 50 -d "${SECS}s" "$url"
  run "wrk -s wrk_trivial.lua" wrk -t1 -c 50 -d "${SECS}s" -s bench/lua/wrk_trivial.lua "$url"
done

echo
echo "median over rounds (requests/s), scripted as % of static:"
declare -A med
while IFS= read -r name; do
  med[$name]=$(awk -F'\t' -v n="$name" '$1 == n { print $2 }' "$out" | median)
  printf '  %-26s %10.0f req/s\n' "$name" "${med[$name]}"
done < <(cut -f1 "$out" | sort -u)
pct() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.0f%%", 100 * a / b; else print "n/a" }'; }
echo "  stampede: $(pct "${med[stampede -R trivial.lua]}" "${med[stampede static]}")  wrk: $(pct "${med[wrk -s wrk_trivial.lua]}" "${med[wrk static]}")"
