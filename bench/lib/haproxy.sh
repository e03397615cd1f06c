# HAProxy as the balancer benchmarks run it (one thread, roundrobin, http-reuse always), doing
# the same header work as stampede: X-Forwarded-For on the request, x-backend on the response.
# Source it from any directory; it defines one function and starts nothing.

# haproxy_config BIND PORT_A PORT_B PORT_C: prints the configuration. BIND is the frontend's
# bind argument ("127.0.0.1:PORT", plus " proto h2" for HTTP/2 clients); the backends a, b and
# c listen on 127.0.0.1 at the given ports.
haproxy_config() {
  cat <<CONF
global
  nbthread 1
  maxconn 4096
defaults
  mode http
  option http-keep-alive
  option forwardfor
  timeout connect 5s
  timeout client 30s
  timeout server 30s
  http-reuse always
frontend fe
  bind $1
  default_backend be
backend be
  balance roundrobin
  http-response set-header x-backend %s
  server a 127.0.0.1:$2
  server b 127.0.0.1:$3
  server c 127.0.0.1:$4
CONF
}
