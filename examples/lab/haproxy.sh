#!/bin/sh
# HAProxy for `stampede lab --balancer-cmd` (docs/lab.md): writes a configuration from the lab's
# placeholders into the lab's scratch directory and runs HAProxy in the foreground.
#
#   stampede lab --balancer-cmd "sh examples/lab/haproxy.sh {dir} {port} {health} {retries} \
#     {timeout} '{strategy}' a={addr:a} b={addr:b} c={addr:c}" --strategies roundrobin,leastconn ...
#
# DIR PORT HEALTH_MS RETRIES TIMEOUT_MS STRATEGY NAME=HOST:PORT...
# - one backend, its servers named after the lab's instances, `x-backend` set to the server
#   that answered (the lab's third source);
# - HEALTH_MS > 0: `check inter HEALTH_MS fall 3 rise 2` (HAProxy's own fall/rise defaults; with
#   no `timeout check` a check must complete within `inter`: the check's timeout is the interval);
#   0: no checks;
# - RETRIES: `retries N`, and with N > 0 `option redispatch` (the last retry goes to another
#   server); HAProxy retries only what `retry-on` names, by default a failed connection;
# - TIMEOUT_MS: `timeout server` (how long HAProxy waits for a server's response: 504 after it);
# - one thread, so that roundrobin is one rotation;
# - the environment's HAPROXY_MODE (the lab's h2 scenario runs HAProxy both ways):
#   http (the default): `mode http`, an HTTP/1.1 front (HAProxy also takes h2c prior knowledge
#     on it); h2: `mode http` with `bind ... proto h2`, a front that speaks only HTTP/2 (h2c) and
#     balances each stream; tcp: `mode tcp`, the bytes pass through to the instances (which speak
#     h2c themselves), each connection balanced as a whole, and no x-backend (no HTTP to set it in).
#   The backends are HTTP/1.1 in http and h2 mode.
#
#   HAPROXY_MODE=tcp sh examples/lab/haproxy.sh ...   (inside --balancer-cmd)
set -eu
[ $# -ge 7 ] || { echo "usage: haproxy.sh DIR PORT HEALTH_MS RETRIES TIMEOUT_MS STRATEGY NAME=ADDR..." >&2; exit 2; }
dir=$1 port=$2 health=$3 retries=$4 timeout=$5 strategy=$6
shift 6
mode=${HAPROXY_MODE:-http} bind="" backend_header=1
case $mode in
  http) ;;
  h2) mode=http bind=" proto h2" ;;
  tcp) backend_header="" ;;
  *) echo "haproxy.sh: HAPROXY_MODE is http, h2 or tcp, not '$mode'" >&2; exit 2 ;;
esac
cfg=$(mktemp "$dir/haproxy-XXXXXX")
check=""
[ "$health" -gt 0 ] && check="check inter $health fall 3 rise 2"
{
  printf 'global\n  nbthread 1\n'
  printf 'defaults\n  mode %s\n  timeout connect 1s\n  timeout client 30s\n' "$mode"
  printf '  timeout server %sms\n  retries %s\n' "$timeout" "$retries"
  [ "$retries" -gt 0 ] && printf '  option redispatch\n'
  printf 'frontend fe\n  bind 127.0.0.1:%s%s\n  default_backend be\n' "$port" "$bind"
  printf 'backend be\n  balance %s\n  option httpchk GET /count\n' "$strategy"
  [ -n "$backend_header" ] && printf '  http-response set-header x-backend %%s\n'
  for s in "$@"; do printf '  server %s %s %s\n' "${s%%=*}" "${s#*=}" "$check"; done
} > "$cfg"
exec haproxy -db -f "$cfg"
