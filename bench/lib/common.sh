# Shared helpers for the benchmark scripts: a throwaway nginx, pinning, medians, CPU time.
# Source it from the repository's root; every function is bounded and every process started is
# stopped by bench_cleanup. It also sets what every script starts with: STAMPEDE (the binary to
# measure: $STAMPEDE, or build/stampede; the script exits 1 when it is not built) and `out`, an
# empty results file the script appends its rounds to.

BENCH_TMP=$(mktemp -d /tmp/stampede-bench.XXXXXX)
BENCH_PIDS=()
bench_cleanup() {
  for p in "${BENCH_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${BENCH_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$BENCH_TMP"
}
trap bench_cleanup EXIT INT TERM

STAMPEDE=${STAMPEDE:-build/stampede}
[ -x "$STAMPEDE" ] || { echo "no stampede binary: build first or set STAMPEDE" >&2; exit 1; }
out="$BENCH_TMP/results"
: > "$out"

# require_tools TOOL...: exits 1 naming the first TOOL that is not on PATH.
require_tools() {
  local tool
  for tool in "$@"; do
    command -v "$tool" > /dev/null || { echo "$(basename "$0"): $tool is missing" >&2; exit 1; }
  done
}

# start_backends [CORE]: three `stampede serve --cores 1` HTTP/1.1 backends with ids a, b and c
# (pinned to CORE when given), each on a free port and waited for; their ports in `backends`.
start_backends() {
  local id p
  backends=()
  for id in a b c; do
    p=$(free_port)
    ${1:+taskset -c "$1"} "$STAMPEDE" serve --cores 1 --quiet --id "$id" --port "$p" > /dev/null &
    BENCH_PIDS+=($!)
    wait_port "$p"
    backends+=("$p")
  done
}

# A free loopback TCP port.
free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

# wait_port PORT: waits (bounded, 5 s) until something listens on 127.0.0.1:PORT.
wait_port() {
  for _ in $(seq 1 500); do
    (exec 3<>/dev/tcp/127.0.0.1/"$1") 2>/dev/null && return 0
    sleep 0.01
  done
  echo "nothing listens on port $1" >&2; return 1
}

# nginx_conf DIR PORT HTTP_LINES SERVER_LINES: writes DIR/nginx.conf (logs in DIR/logs): one
# worker in the foreground, no access log, keep-alive without limit, one server listening on
# 127.0.0.1:PORT (plus LISTEN_SUFFIX, e.g. " ssl") with SERVER_LINES; HTTP_LINES go in the http
# block.
nginx_conf() {
  local dir=$1 port=$2
  mkdir -p "$dir/logs"
  cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
daemon off;
error_log $dir/logs/error.log crit;
pid $dir/nginx.pid;
events { worker_connections 20000; }
http {
  access_log off;
  keepalive_requests 1000000000;
  $3
  server {
    listen 127.0.0.1:$port${LISTEN_SUFFIX:-} backlog=4096;
    $4
  }
}
CONF
}

# run_nginx CORE DIR PORT: nginx with DIR/nginx.conf pinned to CORE; waits until PORT listens.
run_nginx() {
  taskset -c "$1" nginx -c "$2/nginx.conf" -p "$2" &
  BENCH_PIDS+=($!)
  wait_port "$3"
}

# start_nginx CORE PORT [tls|h2]: one worker, `return 200 "OK"`, keep-alive without limit, pinned.
# With "tls": HTTPS (TLS 1.2 and 1.3) with a throwaway P-256 certificate. With "h2": HTTP/2 only,
# h2c with prior knowledge (`listen ... http2` without ssl; keepalive_requests also bounds the
# streams of one HTTP/2 connection since nginx 1.19.7, so none is closed during a run).
start_nginx() {
  local core=$1 port=$2 dir="$BENCH_TMP/nginx-$2" certs=""
  mkdir -p "$dir"
  if [[ ${3:-} == tls ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -subj /CN=localhost \
      -days 2 -keyout "$dir/key.pem" -out "$dir/cert.pem" 2>/dev/null
    certs="ssl_certificate $dir/cert.pem; ssl_certificate_key $dir/key.pem; ssl_protocols TLSv1.2 TLSv1.3;"
  fi
  local suffix=""
  case ${3:-} in tls) suffix=" ssl" ;; h2) suffix=" http2" ;; esac
  LISTEN_SUFFIX=$suffix \
    nginx_conf "$dir" "$port" "" "$certs
    location / { return 200 \"OK\"; }"
  run_nginx "$core" "$dir" "$port"
}

# nginx_target CORE [tls|h2]: start_nginx on a free port; sets `port` and `url` (http:// or, with
# "tls", https://127.0.0.1:PORT/).
nginx_target() {
  port=$(free_port)
  start_nginx "$1" "$port" "${2:-}"
  local scheme=http
  [[ ${2:-} == tls ]] && scheme=https
  url="$scheme://127.0.0.1:$port/"
}

# stop_pid PID: stops one process this script started, reaps it and forgets it (so that the
# cleanup on exit does not try to stop it again).
stop_pid() {
  kill "$1" 2>/dev/null || true
  wait "$1" 2>/dev/null || true
  local keep=() p
  for p in "${BENCH_PIDS[@]}"; do [ "$p" = "$1" ] || keep+=("$p"); done
  BENCH_PIDS=("${keep[@]}")
}

# print_medians FILE: FILE has lines "NAME... c=CONNS RPS US"; prints, per NAME and CONNS, the
# median requests/s and CPU µs per request, sorted.
print_medians() {
  awk '{ key = $1; for (i = 2; i < NF - 2; i++) key = key " " $i; key = key " " $(NF - 2); print key "\t" $(NF - 1) "\t" $NF }' "$1" |
    sort -t$'\t' -k1,1 | awk -F'\t' '{ r[$1] = r[$1] " " $2; u[$1] = u[$1] " " $3 } END { for (k in r) print k "\t" r[k] "\t" u[k] }' |
    while IFS=$'\t' read -r key rs us; do
      printf '  %-28s %10.0f req/s  %7.2f µs/req\n' "$key" "$(tr ' ' '\n' <<< "$rs" | grep . | median)" "$(tr ' ' '\n' <<< "$us" | grep . | median)"
    done | sort
}

# cpu_seconds PID: user+system CPU seconds the process (and its reaped children) used so far.
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15 + $16 + $17) / hz }' "/proc/$1/stat"
}

# server_cpu PID: CPU seconds used so far by a server and its children (nginx's worker).
server_cpu() {
  local total=0 p
  for p in "$1" $(pgrep -P "$1" || true); do
    total=$(awk -v t="$total" -v c="$(cpu_seconds "$p")" 'BEGIN { print t + c }')
  done
  echo "$total"
}

# timed_run CORE CMD...: CMD pinned to CORE under /usr/bin/time; its output goes to
# $BENCH_TMP/log, its user and system CPU seconds to $BENCH_TMP/time. A failure is not fatal.
timed_run() {
  local core=$1; shift
  /usr/bin/time -f "%U %S" -o "$BENCH_TMP/time" taskset -c "$core" "$@" > "$BENCH_TMP/log" 2>&1 || true
}

# log_json EXPR: EXPR (Python, over `j`) of the JSON report in $BENCH_TMP/log; 0 when unreadable.
log_json() {
  python3 -c 'import json,sys; j=json.load(open(sys.argv[1])); print('"$1"')' "$BENCH_TMP/log" 2>/dev/null || echo 0
}

# record_run NAME RPS REQUESTS TIME_FILE [NOTE]: the CPU µs per request of a generator run from
# TIME_FILE (/usr/bin/time -f "%U %S") over REQUESTS; appends "NAME c=$CONNS RPS US" to $out,
# writes "RPS US" to $BENCH_TMP/last (for alternate_rounds) and prints the line with NOTE.
record_run() {
  local us
  us=$(awk -v t="$(awk '{ print $1 + $2 }' "$4")" -v n="${3:-0}" 'BEGIN { if (n > 0) printf "%.3f", t * 1e6 / n; else print "nan" }')
  echo "$1 c=$CONNS ${2:-0} $us" >> "$out"
  echo "${2:-0} $us" > "$BENCH_TMP/last"
  printf '  %-28s %10.0f req/s  %7s µs CPU/req%s\n' "$1" "${2:-0}" "$us" "${5:-}"
}

# alternate_rounds OTHER OURS: $ROUNDS rounds of the run functions OTHER and OURS back to back
# (OTHER first in odd rounds, so drift of the host cancels); each leaves "RPS US" in
# $BENCH_TMP/last. Writes each round's OURS/OTHER ratios of requests/s and of CPU per request to
# $BENCH_TMP/ratios.
alternate_rounds() {
  local round o s
  : > "$BENCH_TMP/ratios"
  for round in $(seq 1 "$ROUNDS"); do
    echo "round $round"
    if (( round % 2 )); then
      "$1"; o=$(cat "$BENCH_TMP/last"); "$2"; s=$(cat "$BENCH_TMP/last")
    else
      "$2"; s=$(cat "$BENCH_TMP/last"); "$1"; o=$(cat "$BENCH_TMP/last")
    fi
    awk -v s="$s" -v o="$o" 'BEGIN { split(s, a, " "); split(o, b, " "); if (b[1] > 0 && b[2] > 0) printf "%.4f %.4f\n", a[1] / b[1], a[2] / b[2] }' >> "$BENCH_TMP/ratios"
  done
}

# print_ratios OTHER [NOTE]: the median of the per-round ratios alternate_rounds wrote, then
# every round's.
print_ratios() {
  local ratios="$BENCH_TMP/ratios"
  printf '  stampede / %s, median of per-round ratios: requests/s %.3f, CPU per request %.3f%s\n' \
    "$1" "$(awk '{ print $1 }' "$ratios" | median)" "$(awk '{ print $2 }' "$ratios" | median)" "${2:-}"
  printf '  rounds (rps ratio, CPU ratio): %s\n' "$(awk '{ printf "(%s, %s) ", $1, $2 }' "$ratios")"
}

# callgrind_total: the instructions (Ir) of every callgrind output $BENCH_TMP/cg.* (run valgrind
# with --callgrind-out-file="$BENCH_TMP/cg.%p": one file per process), summed; then removes them.
callgrind_total() {
  local total=0 f n
  for f in "$BENCH_TMP"/cg.*; do
    n=$(callgrind_annotate "$f" | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1 }')
    total=$((total + n))
  done
  rm -f "$BENCH_TMP"/cg.*
  echo "$total"
}

# h2load_run NAME URL PID CPU WHAT [TAG]: h2load -t1 -c $CONNS -m $STREAMS -n $REQUESTS at URL,
# pinned to core 1; the CPU per request is the server's (PID, read with the function CPU:
# cpu_seconds, or server_cpu to count its children) over h2load's succeeded requests. Appends
# "NAME [TAG] c=$CONNS m=$STREAMS RPS US" to $out, writes "RPS US" to $BENCH_TMP/last (for
# alternate_rounds) and prints the line, the CPU named "WHAT CPU/req".
h2load_run() {
  local name=$1 url=$2 pid=$3 cpu=$4 what=$5 tag=${6:-} log="$BENCH_TMP/log" before after reqs rps us
  before=$("$cpu" "$pid")
  taskset -c 1 h2load -t1 -c "$CONNS" -m "$STREAMS" -n "$REQUESTS" "$url" > "$log" 2>&1 || true
  after=$("$cpu" "$pid")
  reqs=$(awk '/^requests:/ { print $8 }' "$log")      # "requests: N total, N started, N done, N succeeded, ..."
  rps=$(awk '/^finished in/ { print $4 }' "$log")
  us=$(awk -v t="$(awk -v a="$after" -v b="$before" 'BEGIN { print a - b }')" -v n="${reqs:-0}" \
    'BEGIN { if (n > 0) printf "%.3f", t * 1e6 / n; else print "nan" }')
  echo "$name${tag:+ $tag} c=$CONNS m=$STREAMS ${rps:-0} $us" >> "$out"
  echo "${rps:-0} $us" > "$BENCH_TMP/last"
  printf '  %-24s %10.0f req/s  %7s µs %s CPU/req  (%s succeeded)\n' "$name" "${rps:-0}" "$us" "$what" "${reqs:-0}"
}

# median: reads numbers, one per line, prints the median.
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }

# bench_args NAME=DEFAULT... -- "$@": sets each NAME, in order, to the script's next positional
# argument, or to DEFAULT when that argument is missing or empty.
bench_args() {
  local specs=() spec
  while [ "$1" != -- ]; do specs+=("$1"); shift; done
  shift
  for spec in "${specs[@]}"; do
    printf -v "${spec%%=*}" '%s' "${1:-${spec#*=}}"
    [ $# -eq 0 ] || shift
  done
}
