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
# CONTROL=K (K >= 1): for the last K minutes a fresh server and a fresh generator (same rate,
# same cores) run beside the old pair, and each of those rows adds the fresh pair's CPU per
# request and old/fresh. On a host whose CPU per request moves with its load (a shared VM), the
# two pairs meet the same load in the same minute, so old/fresh isolates what an hour of running
# changed; the summary gives the median of those per-minute ratios.
# Rows go to stdout and to $SOAK_OUT (default /tmp/stampede-soak.tsv) as they are taken, so a
# long run can be watched and survives a lost terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
bench_args MINUTES=60 RATE=2000 CONNS=10 SAMPLE=60 -- "$@"
SOAK_OUT=${SOAK_OUT:-/tmp/stampede-soak.tsv}

# start_pair TAG: a server on core 1 and a generator at RATE on core 0 for SECONDS; sets
# ${TAG}_SERVE, ${TAG}_GEN and ${TAG}_PORT.
start_pair() {
  local tag=$1 seconds=$2 cg=("${@:3}")
  taskset -c 1 "$STAMPEDE" serve --port 0 --cores 1 -q --ready-file "$BENCH_TMP/$tag.port" \
    > "$BENCH_TMP/$tag.serve.log" 2>&1 &
  local serve=$!
  BENCH_PIDS+=("$serve")
  for _ in $(seq 100); do [ -s "$BENCH_TMP/$tag.port" ] && break; sleep 0.1; done
  local p
  p=$(cat "$BENCH_TMP/$tag.port")
  taskset -c 0 "${cg[@]}" "$STAMPEDE" "http://127.0.0.1:$p/" -k -c "$CONNS" --rps "$RATE" -t "$seconds" \
    --cores 1 --json > "$BENCH_TMP/$tag.report.json" 2> "$BENCH_TMP/$tag.gen.log" &
  local gen=$!
  BENCH_PIDS+=("$gen")
  printf -v "${tag}_SERVE" '%s' "$serve"
  printf -v "${tag}_GEN" '%s' "$gen"
  printf -v "${tag}_PORT" '%s' "$p"
}

CG=()
if [[ ${CALLGRIND:-0} == 1 ]]; then
  CG=(valgrind --tool=callgrind --callgrind-out-file="$BENCH_TMP/cg.out" --trace-children=no)
fi
CONTROL=${CONTROL:-0}
(( CONTROL < MINUTES )) || { echo "soak.sh: CONTROL must be below MINUTES" >&2; exit 2; }
start_pair main $((MINUTES * SAMPLE + 10)) "${CG[@]}"
SERVE_PID=$main_SERVE GEN_PID=$main_GEN port=$main_PORT

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
# instructions: with CALLGRIND=1, the generator's instructions since the previous call.
instructions() {
  [[ ${CALLGRIND:-0} == 1 ]] || { echo 0; return; }
  callgrind_control -d "$GEN_PID" > /dev/null 2>&1
  local f
  f=$(ls -t "$BENCH_TMP"/cg.out.* | head -1)
  awk '/^(totals|summary):/ { print $2; exit }' "$f"
}
count() { curl -s "http://127.0.0.1:${1:-$port}/count" | python3 -c 'import json,sys; print(json.load(sys.stdin)["served"])'; }

sleep 2
start=$(date +%s.%N)
printf 'minute\tgen_rss_kb\tgen_us_per_req\tserve_rss_kb\tserve_us_per_req\trequests\tload1\tgen_instructions_per_req\tfresh_gen_us_per_req\tfresh_serve_us_per_req\tgen_old_over_fresh\tserve_old_over_fresh\n' | tee "$SOAK_OUT"
prev_gen=$(cpu_seconds "$GEN_PID") prev_srv=$(cpu_seconds "$SERVE_PID") prev_n=$(count)
instructions > /dev/null
for m in $(seq 1 "$MINUTES"); do
  # sleep until START + m * SAMPLE, so that sampling's own time does not drift the rows
  sleep "$(awk -v s="$start" -v m="$m" -v p="$SAMPLE" -v now="$(date +%s.%N)" 'BEGIN { d = s + m * p - now; print (d > 0 ? d : 0) }')"
  kill -0 "$GEN_PID" 2>/dev/null || { echo "soak.sh: the generator ended early" >&2; exit 1; }
  gen=$(cpu_seconds "$GEN_PID") srv=$(cpu_seconds "$SERVE_PID") n=$(count) ir=$(instructions)
  fg=0 fs=0
  if [[ -n ${fresh_GEN:-} ]]; then
    fgen=$(cpu_seconds "$fresh_GEN") fsrv=$(cpu_seconds "$fresh_SERVE") fn=$(count "$fresh_PORT")
    read -r fg fs < <(awk -v g="$fgen" -v pg="$prev_fgen" -v s="$fsrv" -v ps="$prev_fsrv" -v n="$fn" -v pn="$prev_fn" \
      'BEGIN { d = n - pn; printf "%.3f %.3f\n", (g - pg) * 1e6 / d, (s - ps) * 1e6 / d }')
    prev_fgen=$fgen prev_fsrv=$fsrv prev_fn=$fn
  fi
  awk -v m="$m" -v gr="$(rss_kb "$GEN_PID")" -v sr="$(rss_kb "$SERVE_PID")" \
    -v g="$gen" -v pg="$prev_gen" -v s="$srv" -v ps="$prev_srv" -v n="$n" -v pn="$prev_n" \
    -v load="$(cut -d' ' -f1 /proc/loadavg)" -v ir="$ir" -v fg="$fg" -v fs="$fs" \
    'BEGIN { d = n - pn; gc = (g - pg) * 1e6 / d; sc = (s - ps) * 1e6 / d
             printf "%d\t%d\t%.3f\t%d\t%.3f\t%d\t%s\t%.0f\t%.3f\t%.3f\t%.3f\t%.3f\n", m, gr, gc, sr, sc, d, load, ir / d,
               fg, fs, (fg > 0 ? gc / fg : 0), (fs > 0 ? sc / fs : 0) }' |
    tee -a "$SOAK_OUT"
  prev_gen=$gen prev_srv=$srv prev_n=$n
  if (( CONTROL > 0 && m == MINUTES - CONTROL )); then
    # the fresh pair: its first window starts after its own 2 s warm-up
    start_pair fresh $((CONTROL * SAMPLE + 15))
    sleep 2
    prev_fgen=$(cpu_seconds "$fresh_GEN") prev_fsrv=$(cpu_seconds "$fresh_SERVE") prev_fn=$(count "$fresh_PORT")
  fi
done

wait "$GEN_PID" || true
stop_pid "$GEN_PID"
total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totalRequests"])' "$BENCH_TMP/main.report.json")
served=$(count)
echo "generator total $total, server /count $served; achieved rate $(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["achievedRps"])' "$BENCH_TMP/main.report.json") req/s"
awk -F'\t' 'NR == 2 { gr1 = $2; gc1 = $3; sr1 = $4; sc1 = $5 } NR > 2 { grN = $2; gcN = $3; srN = $4; scN = $5 }
  END { if (NR < 3) exit
        printf "last minute / minute 1: generator RSS %.3f, CPU per request %.3f; server RSS %.3f, CPU per request %.3f\n",
          grN / gr1, gcN / gc1, srN / sr1, scN / sc1 }' "$SOAK_OUT"
if (( CONTROL > 0 )); then
  awk -F'\t' 'NR > 1 && $11 > 0 { g[++k] = $11; s[k] = $12 }
    function median(a, n,   i, j, t) { for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j - 1] > a[j]; j--) { t = a[j]; a[j] = a[j - 1]; a[j - 1] = t }
      return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
    END { if (k) printf "old / fresh in the same minutes (median of %d): generator CPU per request %.3f, server %.3f\n", k, median(g, k), median(s, k) }' "$SOAK_OUT"
  wait "$fresh_GEN" || true
  ftotal=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["totalRequests"])' "$BENCH_TMP/fresh.report.json")
  fserved=$(count "$fresh_PORT")
  echo "fresh pair: generator total $ftotal, server /count $fserved"
  [ "$ftotal" = "$fserved" ] || { echo "soak.sh: the fresh pair's counts differ" >&2; exit 1; }
fi
[ "$total" = "$served" ] || { echo "soak.sh: the counts differ" >&2; exit 1; }
