#!/usr/bin/env bash
# The balancer with HTTP/2 clients (issue 17): h2load -c CONNS -m STREAMS through `stampede
# balance` (h2c on its listener, one worker) and through HAProxy (one thread, `bind ... proto h2`,
# roundrobin, http-reuse always, X-Forwarded-For and x-backend like ours), each in front of the
# same three `stampede serve --cores 1` HTTP/1.1 backends. The balancer is pinned to core 0,
# h2load and the backends to core 1; each round runs both, alternating which goes first, so drift
# of the host cancels. CPU per request is the balancer's user+system time from /proc/PID/stat
# (delta over the run) over h2load's succeeded requests. Prints the medians and the median of
# the per-round stampede / HAProxy ratios.
# MODE tls: both listen on TLS with the same throwaway EC P-256 certificate (openssl req), ALPN
# h2 and http/1.1 (stampede --tls-cert/--tls-key; HAProxy `bind ... ssl crt ... alpn
# h2,http/1.1`), and h2load speaks https (ALPN h2); the backends stay plain HTTP/1.1.
#   bench/balance_h2.sh [ROUNDS=3] [REQUESTS=100000] [CONNS=10] [STREAMS=10] [MODE=h2c|tls]
set -euo pipefail
cd "$(dirname "$0")/.."
source bench/lib/common.sh
source bench/lib/haproxy.sh
bench_args ROUNDS=3 REQUESTS=100000 CONNS=10 STREAMS=10 MODE=h2c -- "$@"
case "$MODE" in
  h2c | tls) ;;
  *) echo "balance_h2.sh: MODE is h2c or tls, not '$MODE'" >&2; exit 2 ;;
esac
require_tools h2load haproxy taskset openssl

start_backends 1

scheme=http
stampede_tls=()
haproxy_tls=" proto h2"
if [ "$MODE" = tls ]; then
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 1 \
    -subj /CN=localhost -addext "subjectAltName=IP:127.0.0.1" \
    -keyout "$BENCH_TMP/key.pem" -out "$BENCH_TMP/cert.pem" 2> /dev/null
  cat "$BENCH_TMP/cert.pem" "$BENCH_TMP/key.pem" > "$BENCH_TMP/haproxy.pem"
  scheme=https
  stampede_tls=(--tls-cert "$BENCH_TMP/cert.pem" --tls-key "$BENCH_TMP/key.pem")
  haproxy_tls=" ssl crt $BENCH_TMP/haproxy.pem alpn h2,http/1.1"
fi

sport=$(free_port)
taskset -c 0 "$STAMPEDE" balance --listen "127.0.0.1:$sport" --cores 1 --strategy rr \
  --backend "a=127.0.0.1:${backends[0]}" --backend "b=127.0.0.1:${backends[1]}" \
  --backend "c=127.0.0.1:${backends[2]}" "${stampede_tls[@]}" > "$BENCH_TMP/stampede.log" 2>&1 &
spid=$!
BENCH_PIDS+=($spid)
wait_port "$sport"

hport=$(free_port)
haproxy_config "127.0.0.1:$hport$haproxy_tls" "${backends[@]}" > "$BENCH_TMP/haproxy.cfg"
taskset -c 0 haproxy -db -f "$BENCH_TMP/haproxy.cfg" > "$BENCH_TMP/haproxy.log" 2>&1 &
hpid=$!
BENCH_PIDS+=($hpid)
wait_port "$hport"

ratios="$BENCH_TMP/ratios"
: > "$ratios"

# run NAME PORT PID: h2load through the balancer at PORT; records "RPS US" in $BENCH_TMP/last.
run() {
  local name=$1 port=$2 pid=$3 log="$BENCH_TMP/log" before after reqs rps us
  before=$(cpu_seconds "$pid")
  taskset -c 1 h2load -t1 -c "$CONNS" -m "$STREAMS" -n "$REQUESTS" "$scheme://127.0.0.1:$port/" > "$log" 2>&1 || true
  after=$(cpu_seconds "$pid")
  reqs=$(awk '/^requests:/ { print $8 }' "$log")      # "requests: N total, N started, N done, N succeeded, ..."
  rps=$(awk '/^finished in/ { print $4 }' "$log")
  us=$(awk -v t="$(awk -v a="$after" -v b="$before" 'BEGIN { print a - b }')" -v n="${reqs:-0}" \
    'BEGIN { if (n > 0) printf "%.3f", t * 1e6 / n; else print "nan" }')
  echo "$name $MODE c=$CONNS m=$STREAMS ${rps:-0} $us" >> "$out"
  echo "${rps:-0} $us" > "$BENCH_TMP/last"
  printf '  %-24s %10.0f req/s  %7s µs balancer CPU/req  (%s succeeded)\n' "$name" "${rps:-0}" "$us" "${reqs:-0}"
}

echo "load: $(uptime)"
for round in $(seq 1 "$ROUNDS"); do
  echo "round $round"
  if (( round % 2 )); then
    run haproxy "$hport" "$hpid"; h=$(cat "$BENCH_TMP/last")
    run stampede "$sport" "$spid"; s=$(cat "$BENCH_TMP/last")
  else
    run stampede "$sport" "$spid"; s=$(cat "$BENCH_TMP/last")
    run haproxy "$hport" "$hpid"; h=$(cat "$BENCH_TMP/last")
  fi
  awk -v s="$s" -v h="$h" 'BEGIN { split(s, a, " "); split(h, b, " "); if (b[1] > 0 && b[2] > 0) printf "%.4f %.4f\n", a[1] / b[1], a[2] / b[2] }' >> "$ratios"
done

echo
echo "median over rounds (requests/s, balancer CPU µs per request):"
print_medians "$out"
printf '  stampede / HAProxy, median of per-round ratios: requests/s %.3f, CPU per request %.3f\n' \
  "$(awk '{ print $1 }' "$ratios" | median)" "$(awk '{ print $2 }' "$ratios" | median)"
echo "load: $(uptime)"
