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
# - one thread, so that roundrobin is one rotation.
set -eu
[ $# -ge 7 ] || { echo "usage: haproxy.sh DIR PORT HEALTH_MS RETRIES TIMEOUT_MS STRATEGY NAME=ADDR..." >&2; exit 2; }
dir=$1 port=$2 health=$3 retries=$4 timeout=$5 strategy=$6
shift 6
cfg=$(mktemp "$dir/haproxy-XXXXXX")
check=""
[ "$health" -gt 0 ] && check="check inter $health fall 3 rise 2"
{
  printf 'global\n  nbthread 1\n'
  printf 'defaults\n  mode http\n  timeout connect 1s\n  timeout client 30s\n'
  printf '  timeout server %sms\n  retries %s\n' "$timeout" "$retries"
  [ "$retries" -gt 0 ] && printf '  option redispatch\n'
  printf 'frontend fe\n  bind 127.0.0.1:%s\n  default_backend be\n' "$port"
  printf 'backend be\n  balance %s\n  option httpchk GET /count\n' "$strategy"
  printf '  http-response set-header x-backend %%s\n'
  for s in "$@"; do printf '  server %s %s %s\n' "${s%%=*}" "${s#*=}" "$check"; done
} > "$cfg"
exec haproxy -db -f "$cfg"
