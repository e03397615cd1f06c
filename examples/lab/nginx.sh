#!/bin/sh
# nginx for `stampede lab --balancer-cmd` (docs/lab.md): writes a configuration from the lab's
# placeholders into the lab's scratch directory and runs nginx in the foreground.
#
#   stampede lab --balancer-cmd "sh examples/lab/nginx.sh {dir} {port} {health} {retries} \
#     {timeout} '{strategy}' a={addr:a} b={addr:b} c={addr:c}" --strategies rr,least_conn ...
#
# DIR PORT HEALTH_MS RETRIES TIMEOUT_MS STRATEGY NAME=HOST:PORT...
# - STRATEGY: rr (nginx's default, weighted round robin), least_conn, random, or hash (a
#   consistent hash of the x-session header: the lab's sticky scenario);
# - HEALTH_MS is not used: nginx OSS has no active health checks, only passive ones, which are
#   always on: a server with `max_fails` (1, nginx's default) failed attempts within
#   `fail_timeout` (10 s, its default) is out for `fail_timeout`. Failed attempts are errors and
#   timeouts (and what proxy_next_upstream names), whatever RETRIES says;
# - RETRIES: 0 is `proxy_next_upstream off`; N > 0 is `proxy_next_upstream error timeout` with
#   `proxy_next_upstream_tries N+1` (the first attempt and N more, each on another server);
# - TIMEOUT_MS: proxy_connect_timeout, proxy_send_timeout and proxy_read_timeout (504 after it);
# - `x-backend` is set to the instance that answered last (nginx's $upstream_addr mapped to the
#   lab's names), on every response nginx sends, its own 502/504 included.
set -eu
[ $# -ge 7 ] || { echo "usage: nginx.sh DIR PORT HEALTH_MS RETRIES TIMEOUT_MS STRATEGY NAME=ADDR..." >&2; exit 2; }
dir=$1 port=$2 retries=$4 timeout=$5 strategy=$6
shift 6
case $strategy in
  rr) method="" ;;
  least_conn) method="least_conn;" ;;
  random) method="random;" ;;
  hash) method='hash $http_x_session consistent;' ;;
  *) echo "nginx.sh: unknown strategy '$strategy' (rr, least_conn, random, hash)" >&2; exit 2 ;;
esac
if [ "$retries" -gt 0 ]; then
  next="proxy_next_upstream error timeout; proxy_next_upstream_tries $((retries + 1));"
else
  next="proxy_next_upstream off;"
fi
work=$(mktemp -d "$dir/nginx-XXXXXX")
{
  printf 'daemon off;\nmaster_process off;\nworker_processes 1;\npid %s/pid;\n' "$work"
  printf 'error_log stderr error;\nevents { worker_connections 4096; }\n'
  printf 'http {\n  access_log off;\n'
  for t in client_body proxy fastcgi uwsgi scgi; do printf '  %s_temp_path %s/%s;\n' "$t" "$work" "$t"; done
  # $upstream_addr lists every server tried ("A, B"): the last one answered.
  printf '  map $upstream_addr $lab_backend {\n    default "";\n'
  for s in "$@"; do
    printf '    "~(^|, )%s$" %s;\n' "$(printf '%s' "${s#*=}" | sed 's/\./\\./g')" "${s%%=*}"
  done
  printf '  }\n  upstream be {\n    %s\n' "$method"
  for s in "$@"; do printf '    server %s max_fails=1 fail_timeout=10s;\n' "${s#*=}"; done
  printf '    keepalive 64;\n  }\n'
  printf '  server {\n    listen 127.0.0.1:%s;\n    location / {\n' "$port"
  printf '      proxy_pass http://be;\n      proxy_http_version 1.1;\n'
  printf '      proxy_set_header Connection "";\n'
  printf '      proxy_connect_timeout %sms;\n      proxy_send_timeout %sms;\n' "$timeout" "$timeout"
  printf '      proxy_read_timeout %sms;\n      %s\n' "$timeout" "$next"
  printf '      add_header x-backend $lab_backend always;\n    }\n  }\n}\n'
} > "$work/nginx.conf"
exec nginx -e stderr -p "$work" -c "$work/nginx.conf"
