#!/usr/bin/env bash
# `make bench`: every benchmark in turn, on an otherwise idle machine. Each script prints its
# own medians; docs/benchmarks.md records them with the commands.
set -euo pipefail
cd "$(dirname "$0")/.."
for script in loadgen serve rate tls ws lua; do
  [ -x "bench/$script.sh" ] || continue
  echo "== bench/$script.sh"
  "bench/$script.sh"
done
echo "== bench/balance.sh build speed"
bench/balance.sh build speed
echo "== bench/balance.sh build outage"
bench/balance.sh build outage
