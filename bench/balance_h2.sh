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

run_haproxy() { h2load_run haproxy "$scheme://127.0.0.1:$hport/" "$hpid" cpu_seconds balancer "$MODE"; }
run_stampede() { h2load_run stampede "$scheme://127.0.0.1:$sport/" "$spid" cpu_seconds balancer "$MODE"; }

echo "load: $(uptime)"
alternate_rounds run_haproxy run_stampede

echo
echo "median over rounds (requests/s, balancer CPU µs per request):"
print_medians "$out"
print_ratios HAProxy
echo "load: $(uptime)"
