#!/usr/bin/env bash
# overlap.sh LOG BACKGROUND... -- FOREGROUND...: runs BACKGROUND (output to LOG) while FOREGROUND
# runs, then waits for it and prints LOG. Exits with FOREGROUND's status when it fails (stopping
# BACKGROUND and everything it started), else with BACKGROUND's. make test uses it to compile the
# sanitizer tree at nice 19 while the Release tests run.
set -euo pipefail
log=$1
shift
background=()
while [ $# -gt 0 ] && [ "$1" != -- ]; do
  background+=("$1")
  shift
done
if [ $# -lt 2 ] || [ ${#background[@]} = 0 ]; then
  echo "usage: overlap.sh LOG BACKGROUND... -- FOREGROUND..." >&2
  exit 2
fi
shift

set -m  # the background command leads its own process group: one kill stops all it started
"${background[@]}" >"$log" 2>&1 &
bg=$!
set +m
trap 'kill -- -"$bg" 2>/dev/null || true' EXIT

"$@"

status=0
wait "$bg" || status=$?
trap - EXIT
cat "$log"
exit "$status"
