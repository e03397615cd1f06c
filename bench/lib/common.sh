# Shared helpers for the benchmark scripts: a throwaway nginx, pinning, medians, CPU time.
# Source it; every function is bounded and every process started is stopped by bench_cleanup.

BENCH_TMP=$(mktemp -d /tmp/stampede-bench.XXXXXX)
BENCH_PIDS=()
bench_cleanup() {
  for p in "${BENCH_PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${BENCH_PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
  rm -rf "$BENCH_TMP"
}
trap bench_cleanup EXIT INT TERM

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

# start_nginx CORE PORT [extra http-level config]: one worker, `return 200 "OK"`, pinned.
start_nginx() {
  local core=$1 port=$2 dir="$BENCH_TMP/nginx-$2"
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
  server { listen 127.0.0.1:$port backlog=4096; location / { return 200 "OK"; } }
}
CONF
  taskset -c "$core" nginx -c "$dir/nginx.conf" -p "$dir" &
  BENCH_PIDS+=($!)
  wait_port "$port"
}

# cpu_seconds PID: user+system CPU seconds the process (and its reaped children) used so far.
cpu_seconds() {
  awk -v hz="$(getconf CLK_TCK)" '{ print ($14 + $15 + $16 + $17) / hz }' "/proc/$1/stat"
}

# median: reads numbers, one per line, prints the median.
median() { sort -g | awk '{ a[NR] = $1 } END { if (NR % 2) print a[(NR + 1) / 2]; else print (a[NR / 2] + a[NR / 2 + 1]) / 2 }'; }
