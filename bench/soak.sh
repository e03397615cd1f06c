#!/usr/bin/env bash
# Soak benchmark (issue 18, "Memory and CPU stay flat over long runs"): one fixed-rate run of
# MINUTES against `stampede serve`, the generator pinned to core 0 and the server to core 1.
# Every minute it samples, for the generator and the server: resident memory (VmRSS), CPU
# seconds (/proc/PID/stat) and the server's /count (the requests answered so far); it prints a
# row per minute with CPU µs per request over that minute, and at the end the last minute
# against minute 1 (the issue's bound: within 5%) and the generator's total against the
# server's count (nothing lost).
#   bench/soak.sh [MINUTES=60] [RATE=2000] [CONNECTIONS=10] [SAMPLE_SECONDS=60]
# CALLGRIND=1: the generator runs under `valgrind --tool=callgrind` and each row adds its
# user-space instructions per request over that minute (`callgrind_control -d` dumps the counts
# since the previous dump). Use a low RATE then (100). The count still moves with the host's load
# at a fixed rate: a busier host batches more events per loop turn.
# The first sample is taken SAMPLE_SECONDS after a 2 s warm-up (so "minute 1" excludes start-up).
# Rows go to stdout and to $SOAK_OUT (default /tmp/stampede-soak.tsv) as they are taken, so a
# long run can be watched and survives a lost terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args MINUTES=60 RATE=2000 CONNS=10 SAMPLE=60 -- "$@"
SOAK_OUT=${SOAK_OUT:-/tmp/stampede-soak.tsv}

taskset -c 1 "$STAMPEDE" serve --port 0 --cores 1 -q --ready-file "$BENCH_TMP/port" \
  > "$BENCH_TMP/serve.log" 2>&1 &
SERVE_PID=$!
BENCH_PIDS+=("$SERVE_PID")
for _ in $(seq 100); do [ -s "$BENCH_TMP/port" ] && break; sleep 0.1; done
port=$(cat "$BENCH_TMP/port")
url="http://127.0.0.1:$port/"

secs=$((MINUTES * SAMPLE + 10))
CG=()
if [[ ${CALLGRIND:-0} == 1 ]]; then
  CG=(valgrind --tool=callgrind --callgrind-out-file="$BENCH_TMP/cg.out" --trace-children=no)
fi
taskset -c 0 "${CG[@]}" "$STAMPEDE" "$url" -k -c "$CONNS" --rps "$RATE" -t "$secs" --cores 1 --json \
  > "$BENCH_TMP/report.json" 2> "$BENCH_TMP/gen.log" &
GEN_PID=$!
BENCH_PIDS+=("$GEN_PID")

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# instructions: with CALLGRIND=1, the generator's instructions since the previous call.
instructions() {
  [[ ${CALLGRIND:-0} == 1 ]] || { echo 0; return; }
  callgrind_control -d "$GEN_PID" > /dev/null 2>&1
  local f
  f=$(ls -t "$BENCH_TMP"/cg.out.* | head -1)
  awk '/^(totals|summary):/ { print $2; exit }' "$f"
}
count() { curl -s "http://127.0.0.1:$port/count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["served"])'; }

sleep 2
start=$(date +%s.%N)
printf 'minute\tgen_rss_kb\tgen_us_per_req\tserve_rss_kb\tserve_us_per_req\trequests\tload1\tgen_instructions_per_req\n' | tee "$SOAK_OUT"
prev_gen=$(cpu_seconds "$GEN_PID") prev_srv=$(cpu_seconds "$SERVE_PID") prev_n=$(count)
instructions > /dev/null
for m in $(seq 1 "$MINUTES"); do
  # sleep until START + m * SAMPLE, so that sampling's own time does not drift the rows
  sleep "$(awk -v s="$start" -v m="$m" -v p="$SAMPLE" -v now="$(date +%s.%N)" 'BEGIN { d = s + m * p - now; print (d > 0 ? d : 0) }')"
  kill -0 "$GEN_PID" 2>/dev/null || { echo "soak.sh: the generator ended early" >&2; exit 1; }
  gen=$(cpu_seconds "$GEN_PID") srv=$(cpu_seconds "$SERVE_PID") n=$(count) ir=$(instructions)
  awk -v m="$m" -v gr="$(rss_kb "$GEN_PID")" -v sr="$(rss_kb "$SERVE_PID")" \
    -v g="$gen" -v pg="$prev_gen" -v s="$srv" -v ps="$prev_srv" -v n="$n" -v pn="$prev_n" \
    -v load="$(cut -d' ' -f1 /proc/loadavg)" -v ir="$ir" \
    'BEGIN { d = n - pn; printf "%d\t%d\t%.3f\t%d\t%.3f\t%d\t%s\t%.0f\n", m, gr, (g - pg) * 1e6 / d, sr, (s - ps) * 1e6 / d, d, load, ir / d }' |
    tee -a "$SOAK_OUT"
  prev_gen=$gen prev_srv=$srv prev_n=$n
done

wait "$GEN_PID" || true
stop_pid "$GEN_PID"
total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totalRequests"])' "$BENCH_TMP/report.json")
served=$(count)
echo "generator total $total, server /count $served; achieved rate $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["achievedRps"])' "$BENCH_TMP/report.json") req/s"
awk -F'\t' 'NR == 2 { gr1 = $2; gc1 = $3; sr1 = $4; sc1 = $5 } NR > 2 { grN = $2; gcN = $3; srN = $4; scN = $5 }
  END { if (NR < 3) exit
        printf "last minute / minute 1: generator RSS %.3f, CPU per request %.3f; server RSS %.3f, CPU per request %.3f\n",
          grN / gr1, gcN / gc1, srN / sr1, scN / sc1 }' "$SOAK_OUT"
[ "$total" = "$served" ] || { echo "soak.sh: the counts differ" >&2; exit 1; }
