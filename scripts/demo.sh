#!/usr/bin/env bash
# make run: start the built-in test server on a free loopback port, load-test it for 10 s, stop it.
set -euo pipefail
bin=${1:-build/stampede}
dir=$(mktemp -d)
trap 'kill $server 2>/dev/null || true; wait $server 2>/dev/null || true; rm -rf "$dir"' EXIT
"$bin" serve --port 0 --quiet --ready-file "$dir/port" >/dev/null &
server=$!
for _ in $(seq 1 500); do [ -s "$dir/port" ] && break; sleep 0.01; done
[ -s "$dir/port" ] || { echo "demo: the test server did not start" >&2; exit 1; }
port=$(cat "$dir/port")
echo "stampede -c 10 -k -t 10 http://127.0.0.1:$port/"
"$bin" -c 10 -k -t 10 "http://127.0.0.1:$port/"
